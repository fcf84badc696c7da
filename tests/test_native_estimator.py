"""On TensorFlow <= 2.15 the package leaves the native tf.estimator in place (issue #19).

Most of this file runs in CI's TensorFlow 2.15 leg (`.ci/legs`); on newer
TensorFlow only the version logic is checked here, the rest of the suite
covers the shim.
"""

import subprocess
import sys
import textwrap

import pytest
import tensorflow as tf

import tfestimator_compat
from tfestimator_compat.shim import native_estimator
from tfestimator_compat.shim import requirements

NATIVE = native_estimator.tensorflow_has_estimator()
needs_native = pytest.mark.skipif(not NATIVE, reason="TensorFlow >= 2.16 has no tf.estimator")

PROGRAM = textwrap.dedent(
    """
    import sys
    import numpy as np
    import tensorflow as tf

    def model_fn(features, labels, mode):
        w = tf.compat.v1.get_variable("w", [3, 1])
        loss = tf.reduce_mean(tf.square(tf.matmul(features["x"], w) - labels))
        step = tf.compat.v1.train.get_global_step()
        train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(loss, step)
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)

    def input_fn():
        x, y = np.ones([8, 3], np.float32), np.ones([8, 1], np.float32)
        return tf.data.Dataset.from_tensors(({"x": x}, y)).repeat(5)

    estimator = tf.estimator.Estimator(model_fn, model_dir=sys.argv[1])
    estimator.train(input_fn)
    print("RESULT", estimator.get_variable_value("global_step"), type(estimator).__module__)
    """
)

TF1_PROGRAM = textwrap.dedent(
    """
    import sys
    import numpy as np
    import tensorflow as tf

    def model_fn(features, labels, mode):
        w = tf.get_variable("w", [3, 1])
        loss = tf.reduce_mean(tf.square(tf.matmul(features["x"], w) - labels))
        train_op = tf.train.GradientDescentOptimizer(0.1).minimize(
            loss, global_step=tf.train.get_global_step())
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)

    input_fn = tf.estimator.inputs.numpy_input_fn(
        {"x": np.ones([8, 3], np.float32)}, np.ones([8, 1], np.float32),
        batch_size=8, num_epochs=5, shuffle=False)
    estimator = tf.estimator.Estimator(model_fn, model_dir=sys.argv[1])
    estimator.train(input_fn)
    print("RESULT", estimator.get_variable_value("global_step"))
    """
)

# A TF 1.x TPUEstimator program run off TPU, as `--use_tpu=False` ran it.
TPU_PROGRAM = textwrap.dedent(
    """
    import sys
    import numpy as np
    import tensorflow as tf

    def model_fn(features, labels, mode, params):
        w = tf.get_variable("w", [3, 1])
        loss = tf.reduce_mean(tf.square(tf.matmul(features["x"], w) - labels))
        train_op = tf.train.GradientDescentOptimizer(0.1).minimize(
            loss, global_step=tf.train.get_global_step())
        return tf.contrib.tpu.TPUEstimatorSpec(mode, loss=loss, train_op=train_op)

    def input_fn(params):
        x, y = np.ones([8, 3], np.float32), np.ones([8, 1], np.float32)
        return tf.data.Dataset.from_tensors(({"x": x}, y)).repeat(5)

    config = tf.contrib.tpu.RunConfig(model_dir=sys.argv[1])
    estimator = tf.contrib.tpu.TPUEstimator(
        model_fn, config=config, use_tpu=False, train_batch_size=8)
    estimator.train(input_fn, max_steps=5)
    print("RESULT", estimator.get_variable_value("global_step"))
    """
)


@pytest.mark.parametrize(
    "version, expected",
    [
        ("2.12.0", True),
        ("2.15.1", True),
        ("2.16.0rc0", False),
        ("2.16.2", False),
        ("2.21.0", False),
    ],
)
def test_which_tensorflow_versions_keep_their_own_estimator(version, expected):
    found = requirements.major_minor(version) < native_estimator.FIRST_VERSION_WITHOUT_ESTIMATOR
    assert found is expected


def test_on_this_tensorflow_the_package_names_match_tf_estimator():
    assert tf.estimator.Estimator is tfestimator_compat.Estimator
    assert tf.estimator.RunConfig is tfestimator_compat.RunConfig


@needs_native
def test_the_native_estimator_stays_and_the_package_says_so_once():
    code = (
        "import tensorflow as tf\n"
        "tf.get_logger().setLevel('INFO')\n"
        "import tfestimator_compat\n"
        "tfestimator_compat.install()\n"
        "print('MODULE', tf.estimator.Estimator.__module__)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "MODULE tensorflow_estimator." in result.stdout
    assert result.stderr.count("ships its own tf.estimator") == 1


@needs_native
def test_install_force_explains_that_it_needs_tensorflow_2_16():
    with pytest.raises(RuntimeError, match="TensorFlow >= 2.16"):
        tfestimator_compat.install(force=True)


def _cli(*args, cwd):
    command = [sys.executable, "-m", "tfestimator_compat", *args]
    return subprocess.run(command, capture_output=True, text=True, cwd=cwd, timeout=600)


@needs_native
@pytest.mark.parametrize(
    "tf1, source",
    [(False, PROGRAM), (True, TF1_PROGRAM), (True, TPU_PROGRAM)],
    ids=["tf2", "tf1", "tf1-contrib-tpu"],
)
def test_run_runs_a_program_on_the_native_estimator(tmp_path, tf1, source):
    (tmp_path / "job.py").write_text(source)
    args = ["run", "--tf1", "job.py"] if tf1 else ["run", "job.py"]
    result = _cli(*args, str(tmp_path / "model"), cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "RESULT 5" in result.stdout


@needs_native
def test_a_contrib_module_that_needs_the_shims_engine_says_which_tensorflow_it_needs(tmp_path):
    (tmp_path / "job.py").write_text(
        "import tensorflow as tf\nprint(tf.contrib.estimator.forward_features)\n"
    )
    result = _cli("run", "--tf1", "job.py", cwd=tmp_path)
    assert result.returncode != 0
    last = result.stderr.strip().splitlines()[-1]
    assert "tf.contrib.estimator" in last and "TensorFlow >= 2.16" in last, last
    assert "please report" not in result.stderr


@needs_native
def test_check_reports_a_legacy_program(tmp_path):
    (tmp_path / "job.py").write_text(TF1_PROGRAM)
    result = _cli("check", "job.py", cwd=tmp_path)
    assert result.returncode in (0, 1), result.stderr[-3000:]
    assert "tf.compat.v1.get_variable" in result.stdout


@needs_native
def test_enable_lets_plain_python_run_on_the_native_estimator(tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    (tmp_path / "job.py").write_text(PROGRAM)
    enabled = subprocess.run(
        [sys.executable, "-m", "tfestimator_compat", "enable", "--site-dir", str(site)],
        capture_output=True,
        text=True,
    )
    assert enabled.returncode == 0, enabled.stderr[-3000:]
    code = f"import site; site.addsitedir({str(site)!r}); exec(open('job.py').read())"
    result = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "model")],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert "RESULT 5 tensorflow_estimator." in result.stdout
