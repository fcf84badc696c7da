"""Installing the package leaves the environment's TensorFlow alone (issue #19).

Users have `tensorflow`, `tensorflow-cpu`, `tensorflow[and-cuda]`,
`tensorflow-macos` or `tf-nightly`; a hard requirement on any one of them (or
on `keras>=3`, which breaks TensorFlow <= 2.15) would make pip replace or
duplicate it. TensorFlow comes from the extras, and without one the import
says what to install.
"""

import json
import os
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


def test_the_extras_install_tensorflow_of_a_supported_version():
    extras = _project()["optional-dependencies"]
    assert any(r.startswith("tensorflow>=2.16") for r in extras["tensorflow"])
    assert any(r.startswith("tensorflow-cpu>=2.16") for r in extras["cpu"])
    for extra in ("tensorflow", "cpu", "test"):
        assert "keras>=3.7" in extras[extra], "the Keras floor requirements.MINIMUM_KERAS names"


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
