"""The TF1-spelled reference workflow runs unchanged three ways."""

import json
import os
import shutil
import subprocess
import sys

import pytest

from tfestimator_compat.shim import auto_enable

EXAMPLE = os.path.join(os.path.dirname(__file__), "..", "examples", "seed_multitask_tf1.py")


def _check(result, model_dir):
    assert result.returncode == 0, result.stderr[-3000:]
    assert "SEED_TF1_OK" in result.stdout
    exports = os.listdir(os.path.join(model_dir, "serving"))
    assert len(exports) == 1 and exports[0].isdigit()


@pytest.mark.slow
def test_through_the_run_command(tmp_path):
    command = shutil.which("tfestimator-compat", path=os.path.dirname(sys.executable))
    assert command, "the console script is installed next to the interpreter"
    model_dir = str(tmp_path / "model")
    result = subprocess.run([command, "run", EXAMPLE, model_dir], capture_output=True, text=True)
    _check(result, model_dir)


@pytest.mark.slow
def test_through_python_dash_m(tmp_path):
    model_dir = str(tmp_path / "model")
    result = subprocess.run(
        [sys.executable, "-m", "tfestimator_compat", "run", EXAMPLE, model_dir],
        capture_output=True,
        text=True,
    )
    _check(result, model_dir)


@pytest.mark.slow
def test_through_plain_python_after_enable(tmp_path):
    site_dir = tmp_path / "site"
    auto_enable.enable(str(site_dir))
    model_dir = str(tmp_path / "model")
    # What `python seed_multitask_tf1.py` does once the hook sits in a site directory.
    launcher = (
        f"import site, sys, runpy; site.addsitedir({str(site_dir)!r}); "
        f"sys.argv = [{EXAMPLE!r}, {model_dir!r}]; runpy.run_path({EXAMPLE!r}, run_name='__main__')"
    )
    result = subprocess.run([sys.executable, "-c", launcher], capture_output=True, text=True)
    _check(result, model_dir)


@pytest.mark.slow
def test_an_estimator_notebook_runs_through_run():
    notebook = os.path.join(
        os.path.dirname(__file__), "fixtures", "cli", "estimator_notebook.ipynb"
    )
    result = subprocess.run(
        [sys.executable, "-m", "tfestimator_compat", "run", notebook],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert "NOTEBOOK_OK 64" in result.stdout
    # 64 examples in batches of 16: training stops at the end of the input.
    assert "Out[4]: np.int64(4)" in result.stdout


def test_check_reports_the_examples_as_supported():
    examples = os.path.dirname(EXAMPLE)
    result = subprocess.run(
        [sys.executable, "-m", "tfestimator_compat", "check", "--format", "json", examples],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    report = json.loads(result.stdout)
    names = {finding["name"] for finding in report["findings"]}
    assert {"tf.estimator.Estimator", "tf.compat.v1.estimator.Estimator"} <= names
    assert report["summary"]["by_status"].get("not-supported", 0) == 0
