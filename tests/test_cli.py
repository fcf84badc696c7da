"""The `tfestimator-compat` command: run programs and notebooks, enable/disable the hook."""

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tfestimator_compat.command import cli
from tfestimator_compat.shim import auto_enable

FIXTURES = Path(__file__).parent / "fixtures" / "cli"
HAS_IPYTHON = importlib.util.find_spec("IPython") is not None


def _run(args, cwd=FIXTURES, env=None):
    return subprocess.run(
        [sys.executable, *map(str, args)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=cwd,
        env=env,
    )


def _shim(args, **kwargs):
    return _run(["-m", "tfestimator_compat", *args], **kwargs)


def _report(result):
    return f"exit {result.returncode}\nstdout:\n{result.stdout}\nstderr:\n{result.stderr[-4000:]}"


def test_run_gives_the_program_its_argv_name_and_exit_status():
    result = _shim(["run", "argv_exit.py", "3", "--help", "--", "x"])
    assert result.returncode == 3, _report(result)
    assert "name __main__" in result.stdout
    assert "argv ['argv_exit.py', '3', '--help', '--', 'x']" in result.stdout
    assert "mode train" in result.stdout


def test_run_options_before_the_program_only():
    assert cli._split_run(["run", "--tf1", "p.py", "--tf1", "-v"]) == (
        ["run", "--tf1", "p.py"],
        ["--tf1", "-v"],
    )
    assert cli._split_run(["run", "--", "-odd.py", "a"]) == (["run", "-odd.py"], ["a"])
    assert cli._split_run(["run", "p.py"]) == (["run", "p.py"], [])


def test_run_prints_the_programs_traceback_and_exits_1():
    result = _shim(["run", "raises.py"])
    assert result.returncode == 1
    lines = result.stderr.splitlines()
    start = lines.index("Traceback (most recent call last):")
    frames = [line for line in lines[start:] if line.lstrip().startswith('File "')]
    assert len(frames) == 3, result.stderr
    assert all("raises.py" in frame for frame in frames)
    assert lines[-1] == "FileNotFoundError: no config at /nonexistent/config.json"
    assert "runpy" not in result.stderr and "runner.py" not in result.stderr


def test_run_a_syntax_error_shows_where(tmp_path):
    (tmp_path / "bad_syntax.py").write_text('"""Does not compile."""\n\nprint("unclosed"\n')
    result = _shim(["run", "bad_syntax.py"], cwd=tmp_path)
    assert result.returncode == 1
    assert 'bad_syntax.py", line 3' in result.stderr
    assert "SyntaxError" in result.stderr


def test_run_a_missing_program():
    result = _shim(["run", "no_such_program.py"])
    assert result.returncode == 2
    assert "can't open file 'no_such_program.py'" in result.stderr


def test_the_console_script_matches_the_module():
    script = Path(sys.executable).with_name("tfestimator-compat")
    if not script.exists():
        pytest.skip("tfestimator-compat is not installed next to this Python")
    result = subprocess.run(
        [str(script), "run", "argv_exit.py", "0"], capture_output=True, text=True, cwd=FIXTURES
    )
    assert result.returncode == 0, _report(result)
    assert "argv ['argv_exit.py', '0']" in result.stdout


def test_run_notebook_cells_in_order(tmp_path):
    result = _shim(["run", FIXTURES / "notebook.ipynb", "a", "b"], cwd=tmp_path)
    assert result.returncode == 0, _report(result)
    out = result.stdout
    assert "argv ['a', 'b']" in out
    assert "Out[2]: 42" in out
    assert "not shown" not in out, "a trailing ; hides the value, as in Jupyter"
    assert "pickled Point" in out
    assert "Out[7]: 'eval'" in out
    if HAS_IPYTHON:
        assert "env from-magic" in out
        assert "from-the-shell" in out
    else:
        assert "env None" in out
        assert "cell 4: skipped '%env FIXTURE_VAR=from-magic'" in result.stderr
        assert "cell 5: skipped '!echo from-the-shell'" in result.stderr
        assert "pip install ipython" in result.stderr


def test_run_notebook_stops_at_the_failing_cell():
    result = _shim(["run", "cli/failing.ipynb"], cwd=FIXTURES.parent)
    assert result.returncode == 1
    assert "first cell ran" in result.stdout
    assert "never printed" not in result.stdout
    assert "ZeroDivisionError" in result.stdout + result.stderr
    assert "failing.ipynb: cell 3 failed: def divide(x):" in result.stderr
    if not HAS_IPYTHON:
        assert "return x / 0" in result.stderr, "the cell's source lines are shown"
        assert "notebook.py" not in result.stderr


def test_run_notebook_in_its_own_directory(tmp_path):
    notebook = tmp_path / "where.ipynb"
    notebook.write_text(
        json.dumps(
            {
                "cells": [
                    {"cell_type": "code", "source": ["import os\n", "print('cwd', os.getcwd())"]},
                    {"cell_type": "code", "source": "import sys\nsys.exit(4)"},
                ],
                "nbformat": 4,
                "nbformat_minor": 5,
                "metadata": {},
            }
        )
    )
    result = _shim(["run", notebook])
    assert f"cwd {tmp_path}" in result.stdout
    assert result.returncode == 4, "sys.exit in a cell ends the run with its status"


def test_check_subcommand_is_wired():
    try:
        from tfestimator_compat import check  # noqa: F401
    except ImportError:
        pytest.skip("tfestimator_compat.command.check is not there yet")
    result = _shim(["check", FIXTURES / "argv_exit.py", "--format", "json"])
    assert result.returncode in (0, 1), _report(result)
    json.loads(result.stdout)


def test_enable_status_disable_in_a_site_dir(tmp_path, capsys):
    site_dir = str(tmp_path / "site")
    assert cli.main(["status", "--site-dir", site_dir]) == 0
    assert capsys.readouterr().out.startswith("disabled")
    assert cli.main(["enable", "--site-dir", site_dir]) == 0
    out = capsys.readouterr().out
    pth, module = auto_enable.hook_files(site_dir)
    assert str(pth) in out and str(module) in out
    package_dir = os.path.dirname(os.path.dirname(os.path.abspath(auto_enable.__file__)))
    assert pth.read_text() == (
        "import _tfestimator_compat_startup; "
        f"_tfestimator_compat_startup.install({package_dir!r})\n"
    )
    assert cli.main(["enable", "--site-dir", site_dir]) == 0, "enable is idempotent"
    assert auto_enable.status(site_dir) == "enabled"
    module.write_text("# written by an older version\n")
    assert auto_enable.status(site_dir) == "outdated"
    cli.main(["enable", "--site-dir", site_dir])
    assert auto_enable.status(site_dir) == "enabled"
    capsys.readouterr()
    assert cli.main(["disable", "--site-dir", site_dir]) == 0
    assert "Removed" in capsys.readouterr().out
    assert not pth.exists() and not module.exists()
    assert cli.main(["disable", "--site-dir", site_dir]) == 0, "disable is idempotent"
    assert "nothing to remove" in capsys.readouterr().out


def test_enable_defaults_to_site_packages():
    assert auto_enable.hook_files()[0].parent == Path(auto_enable.default_site_dir())


def test_enable_into_a_directory_it_cannot_write(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("")
    assert cli.main(["enable", "--site-dir", str(blocker / "site")]) == 1
    assert "--site-dir" in capsys.readouterr().err


def _with_site(site_dir, code):
    """Python code run as an interpreter would with `site_dir` as a site directory."""
    return f"import site; site.addsitedir({str(site_dir)!r})\n{code}"


def test_hook_costs_nothing_without_tensorflow(tmp_path):
    auto_enable.enable(str(tmp_path))
    code = _with_site(
        tmp_path,
        "import sys, json\n"
        "print('tensorflow' in sys.modules, 'tfestimator_compat' in sys.modules, "
        "'keras' in sys.modules)",
    )
    result = _run(["-c", code], cwd=tmp_path)
    assert result.returncode == 0, _report(result)
    assert result.stdout.strip() == "False False False"


def test_the_hook_removes_itself_once_the_package_is_uninstalled(tmp_path):
    """`pip uninstall` leaves the hook's files, which are not the package's:
    the first interpreter to start after it deletes them."""
    package = tmp_path / "lib" / "tfestimator_compat"
    (package / "shim").mkdir(parents=True)
    for name in ("auto_enable.py", "startup.py"):
        shutil.copy(os.path.join(os.path.dirname(auto_enable.__file__), name), package / "shim")
    enable = (
        "import importlib.util, sys\n"
        f"spec = importlib.util.spec_from_file_location('copy', {str(package)!r} + "
        "'/shim/auto_enable.py')\n"
        "module = importlib.util.module_from_spec(spec)\n"
        "spec.loader.exec_module(module)\n"
        f"module.enable({str(tmp_path / 'site')!r})\n"
    )
    assert _run(["-c", enable], cwd=tmp_path).returncode == 0
    hook = auto_enable.hook_files(str(tmp_path / "site"))
    started = _with_site(tmp_path / "site", "print('started')")
    result = _run(["-c", started], cwd=tmp_path)
    assert result.stdout.strip() == "started", _report(result)
    assert all(path.exists() for path in hook), "installed: the hook stays"
    shutil.rmtree(package)
    result = _run(["-c", started], cwd=tmp_path)
    assert result.stdout.strip() == "started" and not result.stderr, _report(result)
    assert not any(path.exists() for path in hook)
    assert not list((tmp_path / "site").rglob("_tfestimator_compat_startup*"))


@pytest.mark.slow
@pytest.mark.parametrize(
    "imports",
    ["import tensorflow as tf", "import keras\nimport tensorflow as tf"],
    ids=["tensorflow", "keras-first"],
)
def test_hook_activates_plain_python_programs(tmp_path, imports):
    auto_enable.enable(str(tmp_path / "site"))
    code = _with_site(
        tmp_path / "site",
        f"{imports}\n"
        "import tensorflow.compat.v1 as v1\n"
        "import tensorflow_estimator\n"
        "print(tf.estimator.Estimator.__module__, hasattr(v1.estimator, 'inputs'))\n",
    )
    result = _run(["-c", code], cwd=tmp_path)
    assert result.returncode == 0, _report(result)
    assert result.stdout.strip() == "tfestimator_compat.estimator True"
    env = dict(os.environ, TFESTIMATOR_COMPAT_AUTO="0")
    code = _with_site(tmp_path / "site", f"{imports}\ntf.estimator")
    result = _run(["-c", code], cwd=tmp_path, env=env)
    assert result.returncode == 1
    assert "has no attribute 'estimator'" in result.stderr


def test_the_package_does_not_require_a_tensorflow_wheel():
    # pip must not put `tensorflow` on top of the user's tensorflow-cpu or tf-nightly.
    import importlib.metadata

    requirements = importlib.metadata.requires("tfestimator-compat") or []
    unconditional = [r for r in requirements if "extra ==" not in r]
    assert not [r for r in unconditional if r.lower().startswith(("tensorflow", "tf-"))]
    tensorflow_extra = [r for r in requirements if 'extra == "tensorflow"' in r]
    assert any(r.startswith("tensorflow>=2.16") for r in tensorflow_extra)


def test_without_tensorflow_the_import_says_what_to_install():
    script = "import sys; sys.modules['tensorflow'] = None; import tfestimator_compat"
    result = _run(["-c", script])
    assert result.returncode == 1
    assert "pip install 'tfestimator-compat[tensorflow]'" in result.stderr
    assert "ModuleNotFoundError" not in result.stderr


# `run -m MODULE`, as `python -m MODULE` runs cloud trainer packages (issue #34 item 4).

REPO = Path(__file__).resolve().parents[1]
TRAINER_TASK = """import os
import sys

from . import model

print("name", __name__, __package__)
print("argv", sys.argv)
print("path0", sys.path[0])
print("main", sys.modules["__main__"].__file__ == __file__)
print(model.LABEL)
if os.environ.get("WITH_ESTIMATOR"):
    import tensorflow as tf

    print("mode", tf.estimator.ModeKeys.TRAIN)
if "--fail" in sys.argv:
    model.fail()
sys.exit(int(sys.argv[1]))
"""
TRAINER_MODEL = """LABEL = "relative import"


def fail():
    raise ValueError("bad flag")
"""


def _command(args, cwd, env=None):
    """`tfestimator-compat ARGS...` through the console script's own module."""
    paths = [str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])]
    env = dict(env or os.environ, PYTHONPATH=os.pathsep.join(paths))
    return _run(["-m", "tfestimator_compat_command", *args], cwd=cwd, env=env)


@pytest.fixture
def trainer_package(tmp_path, monkeypatch):
    """A `trainer` package as gcloud's `local train` runs it, in the current directory."""
    package = tmp_path / "trainer"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "model.py").write_text(TRAINER_MODEL)
    (package / "task.py").write_text(TRAINER_TASK)
    monkeypatch.chdir(tmp_path)
    yield package
    for name in [name for name in sys.modules if name.partition(".")[0] == "trainer"]:
        del sys.modules[name]


def test_run_m_runs_a_module_as_python_m_does(trainer_package):
    expected = _run(["-m", "trainer.task", "3", "--help"], cwd=trainer_package.parent)
    assert expected.returncode == 3, _report(expected)
    env = dict(os.environ, WITH_ESTIMATOR="1")
    result = _command(["run", "-m", "trainer.task", "3", "--help"], trainer_package.parent, env)
    assert result.returncode == 3, _report(result)
    assert result.stdout == expected.stdout + "mode train\n", "and tf.estimator is there"
    assert f"argv ['{trainer_package / 'task.py'}', '3', '--help']" in result.stdout
    assert f"path0 {trainer_package.parent}\n" in result.stdout


def test_run_m_with_tf1(trainer_package):
    (trainer_package / "tf1_task.py").write_text(
        "import tensorflow as tf\n"
        "from .model import LABEL\n"
        "x = tf.placeholder(tf.float32, [None])\n"
        "with tf.Session() as session:\n"
        "    print(LABEL, session.run(x * 2, {x: [1.5]}), tf.estimator.ModeKeys.EVAL)\n"
    )
    result = _command(["run", "--tf1", "-m", "trainer.tf1_task"], trainer_package.parent)
    assert result.returncode == 0, _report(result)
    assert result.stdout.strip() == "relative import [3.] eval"


def test_run_m_options_end_at_the_module():
    assert cli._split_run(["run", "--tf1", "-m", "trainer.task", "--tf1", "-h"]) == (
        ["run", "--tf1", "-m", "trainer.task"],
        ["--tf1", "-h"],
    )
    assert cli._split_run(["run", "-mtrainer.task", "-m", "x"]) == (
        ["run", "-mtrainer.task"],
        ["-m", "x"],
    )


def test_run_m_errors_as_python_m(trainer_package, capsys):
    (trainer_package.parent / "broken").mkdir()
    (trainer_package.parent / "broken" / "__init__.py").write_text("import not_installed_dep\n")
    (trainer_package.parent / "broken" / "task.py").write_text("")

    for module, message in [
        ("trainer.nope", "No module named trainer.nope"),
        ("trainer", "No module named trainer.__main__; 'trainer' is a package"),
    ]:
        assert cli.main(["run", "-m", module]) == 1
        err = capsys.readouterr().err
        assert err.startswith(f"tfestimator-compat: {message}"), err
        assert "Traceback" not in err

    assert cli.main(["run", "-m", "trainer.task", "0", "--fail"]) == 1
    lines = capsys.readouterr().err.splitlines()
    frames = [line.split('"')[1] for line in lines if line.lstrip().startswith('File "')]
    assert frames == [str(trainer_package / "task.py"), str(trainer_package / "model.py")]
    assert lines[-1] == "ValueError: bad flag"

    assert cli.main(["run", "-m", "broken.task"]) == 1
    lines = capsys.readouterr().err.splitlines()
    frames = [line.split('"')[1] for line in lines if line.lstrip().startswith('File "')]
    assert frames == [str(trainer_package.parent / "broken" / "__init__.py")]
    assert lines[-1] == "ModuleNotFoundError: No module named 'not_installed_dep'"

    with pytest.raises(SystemExit) as exit:
        cli.main(["run", "-m", "trainer.task", "5"])
    assert exit.value.code == 5
    assert sys.argv[0] != "-m" and sys.path[0] != str(trainer_package.parent), "restored"


# Every command but `run PROGRAM` starts without TensorFlow (issue #34 item 4).

_REFUSE_TENSORFLOW = """
import sys


class RefuseTensorFlow:
    imported = []

    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("tensorflow", "keras"):
            self.imported.append(name)
            raise ImportError(f"the command imported {name}")


refuse = RefuseTensorFlow()
sys.meta_path.insert(0, refuse)
import tfestimator_compat_command

try:
    status = tfestimator_compat_command.main(sys.argv[1:])
except SystemExit as exit:
    status = exit.code
print("IMPORTED", refuse.imported, file=sys.stderr)
sys.exit(status)
"""


@pytest.mark.parametrize(
    "argv",
    [
        ["--help"],
        ["--version"],
        ["run", "--help"],
        ["run", "--tf1", "-h"],
        ["enable", "--site-dir", "{site}"],
        ["status", "--site-dir", "{site}"],
        ["disable", "--site-dir", "{site}"],
        ["check", "--help"],
    ],
    ids=lambda argv: " ".join(argv[:2]),
)
def test_commands_start_without_tensorflow(argv, tmp_path):
    argv = [arg.format(site=tmp_path / "site") for arg in argv]
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])
    )
    result = _run(["-c", _REFUSE_TENSORFLOW, *argv], cwd=tmp_path, env=env)
    assert result.returncode == 0, _report(result)
    assert "IMPORTED []" in result.stderr, _report(result)
    if argv[0] == "--version":
        assert result.stdout.startswith("tfestimator-compat ")
    if argv[0] == "enable":
        assert auto_enable.status(str(tmp_path / "site")) == "enabled"


@pytest.mark.slow
@pytest.mark.parametrize(
    "command", [["-m", "tfestimator_compat", "run"], []], ids=["run", "python"]
)
def test_an_error_in_a_step_shows_its_message_and_the_programs_line_first(command):
    """The original's Session named the failing op; here TensorFlow's message
    came on line ~50 of the traceback. Now: the program's call, then the op's
    message and the line that made the op, within a dozen lines."""
    result = _run([*command, "step_error.py"])
    assert result.returncode == 1, _report(result)
    lines = result.stderr.splitlines()
    start = lines.index("Traceback (most recent call last):")
    shown = lines[start:]
    assert len(shown) <= 12, _report(result)
    message = next(i for i, line in enumerate(shown) if "InvalidArgumentError: " in line)
    assert "logits must exceed 100" in shown[message]
    made_at = "\n".join(shown[message:])
    assert "step_error.py:11, in model_fn" in made_at, _report(result)
    assert "tf.debugging.assert_positive(" in made_at
