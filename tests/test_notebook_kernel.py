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
