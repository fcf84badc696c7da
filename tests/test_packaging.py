"""Installing the package leaves the environment's TensorFlow alone (issue #19).

Users have `tensorflow`, `tensorflow-cpu`, `tensorflow[and-cuda]`,
`tensorflow-macos` or `tf-nightly`; a hard requirement on any one of them (or
on `keras>=3`, which breaks TensorFlow <= 2.15) would make pip replace or
duplicate it. TensorFlow comes from the extras, and without one the import
says what to install. The extras that install TensorFlow bring TensorBoard,
which TensorFlow <= 2.20 brought and legacy programs take for granted.
"""

import json
import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TENSORFLOW_WHEELS = ("tensorflow", "tensorflow-cpu", "tensorflow-macos", "tf-nightly", "keras")


def _requirement_name(requirement):
    for stop in "<>=!~[; ":
        requirement = requirement.split(stop, 1)[0]
    return requirement.strip().lower()


def _project():
    tomllib = pytest.importorskip("tomllib")
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        return tomllib.load(f)["project"]


def test_no_tensorflow_or_keras_wheel_is_a_hard_requirement():
    names = {_requirement_name(r) for r in _project()["dependencies"]}
    assert not names & set(TENSORFLOW_WHEELS), names


def _extra_requirements(extras):
    """What `pip install .[EXTRAS]` asks for, with the package's extras that name
    each other (`tfestimator-compat[tensorflow]`) expanded."""
    project = _project()
    requirements, pending, seen = set(), list(extras), set()
    while pending:
        extra = pending.pop()
        if extra in seen:
            continue
        seen.add(extra)
        for requirement in project["optional-dependencies"][extra]:
            if _requirement_name(requirement) == project["name"]:
                pending.extend(requirement.split("[", 1)[1].split("]", 1)[0].split(","))
            else:
                requirements.add(requirement)
    return requirements


def _extras_installed_by(text, command_start):
    """The extras of the first `pip install -e .[EXTRAS]` in `text` after `command_start`."""
    found = re.search(re.escape(command_start) + r"[^\n]*?pip install -e '?\.\[([\w,-]+)\]", text)
    assert found, f"no `pip install -e .[EXTRAS]` after {command_start!r}"
    return found.group(1).split(",")


def _readme_install():
    with open(os.path.join(ROOT, "README.md")) as f:
        return _extras_installed_by(f.read(), "python3 -m venv")


def test_the_extras_install_tensorflow_of_a_supported_version():
    extras = _project()["optional-dependencies"]
    assert any(r.startswith("tensorflow>=2.16") for r in extras["tensorflow"])
    assert any(r.startswith("tensorflow-cpu>=2.16") for r in extras["cpu"])
    for extra in ("tensorflow", "cpu", "test"):
        assert "keras>=3.7" in _extra_requirements([extra]), (
            "the Keras floor requirements.MINIMUM_KERAS names"
        )


@pytest.mark.parametrize("extra", ["tensorflow", "cpu", "tensorboard"])
def test_the_extras_that_install_tensorflow_bring_tensorboard(extra):
    """TensorFlow <= 2.20 required TensorBoard and 2.21 does not; `tf.summary.scalar`
    raises TBNotInstalledError without it. The `tensorboard` extra is for an
    environment with its own TensorFlow."""
    names = {_requirement_name(r) for r in _extra_requirements([extra])}
    assert "tensorboard" in names, names


def test_the_readme_install_is_what_ci_tests_on():
    """The README's install (an extra that brings TensorFlow and TensorBoard) is
    part of what `.ci/run`'s main leg installs, so the suite runs on it."""
    readme = _extra_requirements(_readme_install())
    assert {"tensorflow", "tensorboard"} <= {_requirement_name(r) for r in readme}, readme
    with open(os.path.join(ROOT, ".ci", "run")) as f:
        ci = _extra_requirements(_extras_installed_by(f.read(), "python3 -m venv"))
    assert readme <= ci, readme - ci


def test_a_model_fn_writing_tf_summary_scalar_trains(tmp_path):
    """On the README's install (CI's main leg: `.ci/run`). Without TensorBoard,
    `tf.summary.scalar` raises TBNotInstalledError inside the model_fn.

    Tags as tensorflow-estimator 2.15.0 on TensorFlow 2.15.1 wrote them for the
    same model_fn and input (measured by running this body there): `loss` and the v1
    summary at every step; the TF2 `tf.summary.scalar` records nothing, as no
    TF2 default writer is set in a model_fn.
    """
    import numpy as np
    import tensorflow as tf

    def model_fn(features, labels, mode):
        weights = tf.compat.v1.get_variable("w", [3, 1])
        loss = tf.reduce_mean(tf.square(tf.matmul(features["x"], weights) - labels))
        tf.summary.scalar("v2_loss", loss)
        tf.compat.v1.summary.scalar("v1_loss", loss)
        train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(
            loss, global_step=tf.compat.v1.train.get_global_step()
        )
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)

    def input_fn():
        x, y = np.ones((8, 3), np.float32), np.ones((8, 1), np.float32)
        return tf.data.Dataset.from_tensor_slices(({"x": x}, y)).repeat().batch(4)

    config = tf.estimator.RunConfig(save_summary_steps=1)
    estimator = tf.estimator.Estimator(model_fn, model_dir=str(tmp_path), config=config)
    estimator.train(input_fn, steps=3)
    steps = {}
    for path in tmp_path.glob("events.out.tfevents*"):
        for event in tf.compat.v1.train.summary_iterator(str(path)):
            for value in event.summary.value:
                steps.setdefault(value.tag, []).append(event.step)
    assert steps == {"loss": [1, 2, 3], "v1_loss": [1, 2, 3]}


@pytest.mark.parametrize(
    "version, refused", [("3.0.5", True), ("3.6.0", True), ("3.7.0", False), ("3.15.1", False)]
)
def test_keras_older_than_the_minimum_is_refused_with_the_upgrade_to_run(version, refused):
    from tfestimator_compat.shim import requirements

    if refused:
        with pytest.raises(ImportError, match=r"pip install 'keras>=3\.7'"):
            requirements.check_keras(version)
    else:
        requirements.check_keras(version)


def test_without_tensorflow_the_import_names_what_to_install():
    code = (
        "import sys; sys.modules['tensorflow'] = None\n"
        "try:\n"
        "    import tfestimator_compat\n"
        "except ImportError as e:\n"
        "    print('ERROR', e)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT
    )
    assert "ERROR" in result.stdout, result.stderr[-2000:]
    assert "pip install 'tfestimator-compat[tensorflow]'" in result.stdout
    assert "tensorflow-cpu" in result.stdout


@pytest.mark.slow
def test_pip_installs_nothing_but_the_package_where_tensorflow_is_present(tmp_path):
    report = tmp_path / "report.json"
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--dry-run",
            "--quiet",
            "--report",
            str(report),
            ROOT,
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    if result.returncode != 0 and "--report" in result.stderr:
        pytest.skip("this pip has no --report")
    assert result.returncode == 0, result.stderr[-3000:]
    with open(report) as f:
        installed = [item["metadata"]["name"].lower() for item in json.load(f)["install"]]
    assert installed == ["tfestimator-compat"], installed
