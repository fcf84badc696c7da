"""`tfestimator-compat run notebook.ipynb` on a real Jupyter kernel (nbclient + ipykernel)."""

import json
import os
import subprocess
import sys

import pytest

pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")


def write_notebook(path, *sources):
    cells = [{"cell_type": "markdown", "metadata": {}, "source": "# A tutorial"}]
    cells += [
        {"cell_type": "code", "metadata": {}, "source": s, "outputs": [], "execution_count": None}
        for s in sources
    ]
    document = {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    path.write_text(json.dumps(document))
    return path


def run(args, **kwargs):
    command = [sys.executable, "-m", "tfestimator_compat", "run", *map(str, args)]
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2")
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=600, **kwargs)


def report(result):
    return f"exit {result.returncode}\nstdout:\n{result.stdout}\nstderr:\n{result.stderr[-4000:]}"


@pytest.mark.slow
def test_a_tutorial_notebook_runs_with_magics_plots_and_the_shim(tmp_path):
    notebook = write_notebook(
        tmp_path / "tutorial.ipynb",
        "%matplotlib inline",
        "import tensorflow as tf\nimport matplotlib.pyplot as plt\n"
        "print('estimator', tf.estimator.ModeKeys.TRAIN)",
        "plt.plot([1, 2, 3])\nplt.show()",
        "!echo from-the-shell",
        "%time total = 6 * 7\ntotal",
    )
    executed = tmp_path / "executed.ipynb"
    result = run(["--output", executed, notebook, "an-arg"])
    assert result.returncode == 0, report(result)
    assert "estimator train" in result.stdout
    assert "from-the-shell" in result.stdout
    assert "Out[5]: 42" in result.stdout
    cells = json.loads(executed.read_text())["cells"]
    plot_outputs = cells[3]["outputs"]
    assert any("image/png" in output.get("data", {}) for output in plot_outputs), plot_outputs
    assert [cell.get("execution_count") for cell in cells[1:]] == [1, 2, 3, 4, 5]


@pytest.mark.slow
def test_a_failing_cell_names_itself_and_the_run_exits_1(tmp_path):
    notebook = write_notebook(
        tmp_path / "failing.ipynb", "print('first cell ran')", "1 / 0", "print('never printed')"
    )
    executed = tmp_path / "executed.ipynb"
    result = run(["--output", executed, notebook])
    assert result.returncode == 1, report(result)
    assert "first cell ran" in result.stdout
    assert "never printed" not in result.stdout
    assert "ZeroDivisionError" in result.stderr
    assert "failing.ipynb: cell 3 failed: 1 / 0" in result.stderr
    outputs = json.loads(executed.read_text())["cells"][2]["outputs"]
    assert outputs[0]["ename"] == "ZeroDivisionError", "the executed notebook shows the error"


@pytest.mark.slow
def test_a_tf1_notebook_gets_tf_compat_v1(tmp_path):
    notebook = write_notebook(
        tmp_path / "tf1.ipynb",
        "import tensorflow as tf\nx = tf.placeholder(tf.float32, [None])\n"
        "print('tf1', type(x).__name__, tf.estimator.Estimator.__module__)",
    )
    result = run(["--tf1", notebook])
    assert result.returncode == 0, report(result)
    assert "tf1 " in result.stdout and "tfestimator_compat" in result.stdout


def test_without_the_extra_cells_run_in_process_and_say_so(tmp_path):
    notebook = write_notebook(tmp_path / "plain.ipynb", "print('ran', 6 * 7)")
    script = (
        "import sys\n"
        "sys.modules['nbclient'] = None  # as if the notebook extra were not installed\n"
        "from tfestimator_compat.command.cli import main\n"
        f"sys.exit(main(['run', {str(notebook)!r}]))\n"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert result.returncode == 0, report(result)
    assert "ran 42" in result.stdout
    assert "tfestimator-compat[notebook]" in result.stderr
    with_output = subprocess.run(
        [sys.executable, "-c", script.replace("['run', ", "['run', '--output', 'x.ipynb', ")],
        capture_output=True,
        text=True,
    )
    assert with_output.returncode == 2


TRAIN_WITH_A_LOGGING_HOOK = """\
import numpy as np

def model_fn(features, labels, mode):
    w = tf.compat.v1.get_variable("w", [2, 1])
    loss = tf.compat.v1.losses.mean_squared_error(labels, tf.matmul(features["x"], w))
    train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(
        loss, global_step=tf.compat.v1.train.get_global_step())
    hook = tf.compat.v1.train.LoggingTensorHook({"hook_loss": loss}, every_n_iter=1)
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op, training_hooks=[hook])

def input_fn():
    x, y = np.ones((8, 2), np.float32), np.ones((8, 1), np.float32)
    return tf.data.Dataset.from_tensor_slices(({"x": x}, y)).repeat().batch(4)

config = tf.estimator.RunConfig(log_step_count_steps=1)
tf.estimator.Estimator(model_fn, "model", config=config).train(input_fn, steps=3)
"""


def _stream_lines(cell, name):
    texts = [output["text"] for output in cell["outputs"] if output.get("name") == name]
    return "".join("".join(text) for text in texts).splitlines()


@pytest.mark.slow
def test_tensorflow_logs_reach_the_cell_that_logs_them(tmp_path):
    """TF's logger under Jupyter: INFO, to the kernel's stdout, so into the running cell.

    Recorded on the original (2026-12-05: this notebook's first two cells, through
    nbclient, on an ipykernel run by /work/ref215's Python, TF 2.15.1 + estimator
    2.15.0, with the main venv's site-packages appended to its sys.path for
    ipykernel): with no `set_verbosity` call the logger was at level 20 with one
    handler on stdout, and the training cell showed 22 `INFO:tensorflow:` lines on
    its stdout stream, among them the 3 `loss = ..., step = N` lines and the 3
    `hook_loss = ...` lines. (The other kinds are the loop's, not the kernel's.)
    """
    notebook = write_notebook(
        tmp_path / "logs.ipynb",
        "import tensorflow as tf\nprint('level', tf.get_logger().level)",
        TRAIN_WITH_A_LOGGING_HOOK,
        "tf.compat.v1.logging.set_verbosity(tf.compat.v1.logging.WARN)\n"
        "tf.compat.v1.logging.info('hidden')\ntf.compat.v1.logging.warning('after WARN')",
    )
    executed = tmp_path / "executed.ipynb"
    result = run([notebook, "--output", executed])
    assert result.returncode == 0, report(result)
    cells = json.loads(executed.read_text())["cells"]
    assert "level 20" in _stream_lines(cells[1], "stdout")
    train_lines = _stream_lines(cells[2], "stdout")
    info = [line for line in train_lines if line.startswith("INFO:tensorflow:")]
    assert len([line for line in info if ", step = " in line]) == 3, train_lines
    assert len([line for line in info if "hook_loss = " in line]) == 3, train_lines
    assert not [line for line in _stream_lines(cells[2], "stderr") if "INFO:tensorflow" in line]
    assert _stream_lines(cells[3], "stdout") == ["WARNING:tensorflow:after WARN"]
    assert result.stdout.count("hook_loss = ") == 3, "each line once on the console"


@pytest.mark.slow
@pytest.mark.parametrize("order", ["options first", "options after the notebook"])
def test_run_takes_its_options_before_or_after_a_notebook(tmp_path, order):
    notebook = write_notebook(tmp_path / "argv.ipynb", "import sys\nprint('argv', sys.argv[1:])")
    executed = tmp_path / "executed.ipynb"
    options = ["--output", executed]
    args = (
        [*options, notebook, "an-arg"]
        if order == "options first"
        else [notebook, "an-arg", *options]
    )
    result = run(args)
    assert result.returncode == 0, report(result)
    assert "argv ['an-arg']" in result.stdout
    assert executed.exists(), "--output wrote the executed notebook"


def test_run_options_after_a_notebook_are_runs_and_the_rest_its_argv():
    from tfestimator_compat.command import cli

    assert cli._split_run(["run", "nb.ipynb", "a", "--output", "o.ipynb", "--tf1"]) == (
        ["run", "nb.ipynb", "--output", "o.ipynb", "--tf1"],
        ["a"],
    )
    assert cli._split_run(["run", "nb.ipynb", "--output=o.ipynb", "--", "--tf1"]) == (
        ["run", "nb.ipynb", "--output=o.ipynb"],
        ["--tf1"],
    )
    assert cli._split_run(["run", "p.py", "--output", "o.ipynb"]) == (
        ["run", "p.py"],
        ["--output", "o.ipynb"],
    ), "a program's arguments stay the program's"


CLASHING_PORT = """\
import socket
import sys

from jupyter_client.connect import LocalPortCache

from tfestimator_compat.command.cli import main

# Another process holds the first port Jupyter hands the kernel, as when it took
# the port between Jupyter closing its probe socket and the kernel binding it.
busy = socket.socket()
busy.bind(("127.0.0.1", 0))
busy.listen()
cache = LocalPortCache.instance()
free_port = cache.find_available_port
handed = []

def first_one_busy(ip):
    port = busy.getsockname()[1] if not handed else free_port(ip)
    handed.append(port)
    return port

cache.find_available_port = first_one_busy
status = main(["run", sys.argv[1]])
print("busy port handed out:", handed.count(busy.getsockname()[1]))
sys.exit(status)
"""


@pytest.mark.slow
def test_a_port_taken_before_the_kernel_binds_it_is_retried_on_new_ports(tmp_path):
    notebook = write_notebook(tmp_path / "ports.ipynb", "print('ran', 6 * 7)")
    result = subprocess.run(
        [sys.executable, "-c", CLASHING_PORT, str(notebook)],
        capture_output=True,
        text=True,
        env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2"),
        timeout=600,
    )
    assert result.returncode == 0, report(result)
    assert "ran 42" in result.stdout
    assert "busy port handed out: 1" in result.stdout, "the clash happened"
    assert "Traceback" not in result.stderr, report(result)


@pytest.mark.slow
def test_a_kernel_that_cannot_start_is_one_line_and_exit_1(tmp_path):
    # A module of the notebook's folder that shadows one the kernel needs: the
    # kernel starts there, with that folder first on its path, as under Jupyter.
    (tmp_path / "zmq.py").write_text("raise ImportError('a zmq.py beside the notebook')\n")
    notebook = write_notebook(tmp_path / "shadowed.ipynb", "print('never ran')")
    result = run([notebook])
    assert result.returncode == 1, report(result)
    assert "never ran" not in result.stdout
    assert "Traceback" not in result.stderr, report(result)
    ours = [line for line in result.stderr.splitlines() if "tfestimator-compat" in line]
    assert ours == [
        f"tfestimator-compat: {notebook}: the Jupyter kernel did not start: "
        "ImportError: a zmq.py beside the notebook"
    ], report(result)


@pytest.mark.slow
def test_the_command_leaves_tensorflow_to_the_kernel(tmp_path):
    """Entered as the console script does (the package without its `__init__`),
    `run NB.ipynb` imports TensorFlow once, in the kernel, not also in its own process."""
    notebook = write_notebook(
        tmp_path / "tf.ipynb", "import tensorflow as tf\nprint('mode', tf.estimator.ModeKeys.TRAIN)"
    )
    script = (
        "import importlib.util, sys\n"
        "spec = importlib.util.find_spec('tfestimator_compat')\n"
        "sys.modules['tfestimator_compat'] = importlib.util.module_from_spec(spec)\n"
        "from tfestimator_compat.command.cli import main\n"
        f"status = main(['run', {str(notebook)!r}])\n"
        "print('tensorflow in the command:', 'tensorflow' in sys.modules)\n"
        "sys.exit(status)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2"),
        timeout=600,
    )
    assert result.returncode == 0, report(result)
    assert "mode train" in result.stdout
    assert "tensorflow in the command: False" in result.stdout
