"""`tfestimator-compat check`: what it finds, how it reports it, and that it never runs code."""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import zipfile

import pytest
from helpers import check_json

from tfestimator_compat.command import check
from tfestimator_compat.command import check_report
from tfestimator_compat.shim import api_surface

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "check")
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_ANNOTATION = re.compile(r"([\w.*]+) \[([^\]]+)\]")
_FINDING_LINE = re.compile(
    r"^(?P<where>.+?):(?P<line>\d+): (?P<name>\S+) \[(?P<status>[^\]]+)\] -> .+ "
    r"\((?P<guide>migration_guide/[\w.]+\.md#[\w-]+)\)$"
)


def fixture(name):
    return os.path.join(FIXTURES, name)


def run(capsys, *argv):
    status = check.main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def findings_of(capsys, path):
    _, report = check_json(capsys, str(path))
    return [(f["line"], f["name"], f["status"]) for f in report["findings"]]


def write(directory, name, source):
    path = directory / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(source)
    return path


def annotations(path):
    """(line, name, status) for each `# check: name [status]` comment of a fixture."""
    expected = []
    with open(path) as f:
        for number, line in enumerate(f, start=1):
            if "# check:" in line:
                comment = line.split("# check:", 1)[1]
                expected += [(number, n, s) for n, s in _ANNOTATION.findall(comment)]
    return expected


# --- What it finds ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    [
        "legacy_estimator.py",
        "tf1_bare.py",
        "aliases.py",
        "clean_tf2.py",
        "would_execute.py",
        "estimator_methods.py",
    ],
)
def test_findings_are_what_the_fixture_comments_say(capsys, name):
    assert sorted(findings_of(capsys, fixture(name))) == sorted(annotations(fixture(name)))


def test_a_module_alias_is_followed(capsys, tmp_path):
    path = write(
        tmp_path,
        "prog.py",
        "import tensorflow as tf\nest = tf.estimator\nmodel = est.Estimator(model_fn)\n",
    )
    assert findings_of(capsys, path) == [
        (2, "tf.estimator", "supported"),
        (3, "tf.estimator.Estimator", "supported"),
    ]


def test_attribute_chains_resolve_to_the_deepest_known_name(capsys, tmp_path):
    path = write(
        tmp_path,
        "prog.py",
        "import tensorflow as tf\n"
        "receiver = tf.estimator.export.ServingInputReceiver\n"
        "mode = tf.estimator.ModeKeys.TRAIN\n"
        "tf.estimator.RunConfig().replace(save_summary_steps=1)\n",
    )
    assert findings_of(capsys, path) == [
        (2, "tf.estimator.export.ServingInputReceiver", "supported"),
        (3, "tf.estimator.ModeKeys", "supported"),
        (4, "tf.estimator.RunConfig", "supported"),
    ]


def test_tf1_names_are_findings_under_plain_tensorflow_only(capsys, tmp_path):
    body = "x = tf.placeholder(tf.float32)\ny = tf.layers.dense(x, 2)\n"
    plain = write(tmp_path, "plain.py", "import tensorflow as tf\n" + body)
    compat = write(tmp_path, "compat.py", "import tensorflow.compat.v1 as tf\n" + body)
    assert findings_of(capsys, plain) == [
        (2, "tf.compat.v1.placeholder", "supported-with-run --tf1"),
        (3, "tf.compat.v1.layers.dense", "supported-with-run --tf1"),
    ]
    # tf.compat.v1.placeholder still exists in TF 2.21; tf.compat.v1.layers needs the shim.
    assert findings_of(capsys, compat) == [(3, "tf.compat.v1.layers.dense", "supported")]


def test_an_import_error_fallback_does_not_replace_the_first_binding(capsys, tmp_path):
    path = write(
        tmp_path,
        "prog.py",
        "try:\n"
        "    import tensorflow.compat.v1 as tf\n"
        "except ImportError:\n"
        "    import tensorflow as tf\n"
        "tf.placeholder(tf.float32)\n",
    )
    assert findings_of(capsys, path) == []


def test_rebound_and_shadowed_names_stop_resolving(capsys, tmp_path):
    path = write(
        tmp_path,
        "prog.py",
        "from tensorflow.estimator import Estimator\n"
        "Estimator = make_estimator_class()\n"
        "Estimator(model_fn)\n"
        "from tensorflow import estimator\n"
        "def estimator():\n"
        "    pass\n"
        "estimator.Estimator\n",
    )
    assert findings_of(capsys, path) == [
        (1, "tf.estimator.Estimator", "supported"),
        (4, "tf.estimator", "supported"),
    ]


def test_relative_and_unrelated_imports_are_ignored(capsys, tmp_path):
    path = write(
        tmp_path,
        "pkg/prog.py",
        "from . import estimator\nimport mylib.tensorflow as tf\nestimator.Estimator\n"
        "tf.estimator.Estimator\n",
    )
    assert findings_of(capsys, path) == []


# --- Notebooks -------------------------------------------------------------------------------


def test_notebook_findings_name_the_cell_and_its_line(capsys):
    status, report = check_json(capsys, fixture("notebook.ipynb"))
    found = [(f["cell"], f["line"], f["name"], f["status"]) for f in report["findings"]]
    # Cell 1 is markdown; the import in cell 2 resolves uses in later cells; cell 3 is
    # %%bash, cell 5 markdown, cell 8 raw; `!ls`, `files = !ls`, `%time ...` and `?` help
    # lines are skipped.
    assert found == [
        (4, 2, "tf.compat.v1.estimator.RunConfig", "supported"),
        (6, 3, "tf.compat.v1.layers.dense", "supported"),
        (7, 1, "tf.compat.v1.contrib.slim", "not-supported"),
        (9, 2, "tf.compat.v1.estimator.LinearRegressor", "supported"),
    ]
    assert report["errors"] == []
    assert status == 1


def test_notebook_text_locations(capsys):
    _, out, _ = run(capsys, fixture("notebook.ipynb"))
    assert out.splitlines()[0].startswith(
        f"{fixture('notebook.ipynb')}[cell 4]:2: tf.compat.v1.estimator.RunConfig [supported]"
    )


def test_a_notebook_cell_that_does_not_parse_is_reported_and_the_next_ones_checked(
    capsys, tmp_path
):
    cells = [
        {"cell_type": "code", "source": "import tensorflow as tf\n"},
        {"cell_type": "code", "source": "x = 1\ndef broken(:\n    pass\n"},
        {"cell_type": "code", "source": "tf.estimator.Estimator\n"},
    ]
    path = write(tmp_path, "nb.ipynb", json.dumps({"cells": cells}))
    status, out, _ = run(capsys, str(path))
    assert out.splitlines()[:2] == [
        f"{path}[cell 2]:2: warning: not checked, cannot parse: invalid syntax",
        f"{path}[cell 3]:1: tf.estimator.Estimator [supported] -> a keras.Model whose "
        "train_step/test_step/predict_step do what model_fn did; fit/evaluate/predict "
        "(migration_guide/replacements.md#estimator)",
    ]
    assert status == 0


def test_notebook_source_may_be_a_string_or_a_list_of_lines(capsys, tmp_path):
    cells = [
        {"cell_type": "code", "source": "import tensorflow as tf\n"},
        {"cell_type": "code", "source": ["x = 1\n", "tf.estimator.Estimator\n"]},
    ]
    path = write(tmp_path, "nb.ipynb", json.dumps({"cells": cells}))
    _, report = check_json(capsys, str(path))
    assert [(f["cell"], f["line"]) for f in report["findings"]] == [(2, 2)]


# --- Reports ---------------------------------------------------------------------------------


def test_json_schema(capsys):
    status, report = check_json(capsys, FIXTURES)
    assert set(report) == {"version", "guide_root", "findings", "errors", "summary"}
    assert report["version"] == 1
    for finding in report["findings"]:
        assert set(finding) == {
            "path",
            "line",
            "column",
            "cell",
            "written",
            "name",
            "status",
            "replacement",
            "guide",
        }
        assert finding["status"] in api_surface.STATUSES
        assert isinstance(finding["line"], int) and isinstance(finding["column"], int)
        assert finding["cell"] is None or isinstance(finding["cell"], int)
        assert finding["guide"].startswith("migration_guide/") and "#" in finding["guide"]
    for error in report["errors"]:
        assert set(error) == {"path", "kind", "message", "line", "cell"}
    summary = report["summary"]
    assert set(summary) == {
        "files",
        "findings",
        "by_status",
        "unparsed",
        "unreadable",
        "by_api",
        "by_file",
    }
    assert list(summary["by_status"]) == list(api_surface.STATUSES)
    assert sum(summary["by_status"].values()) == summary["findings"] == len(report["findings"])
    assert summary["files"] == 7 and summary["unparsed"] == 0 and summary["unreadable"] == 0
    assert status == 1


def test_json_keeps_what_was_written(capsys, tmp_path):
    path = write(
        tmp_path, "prog.py", "import tensorflow as tf\nest = tf.estimator\nest.Estimator\n"
    )
    _, report = check_json(capsys, str(path))
    assert [(f["written"], f["name"], f["column"]) for f in report["findings"]] == [
        ("tf.estimator", "tf.estimator", 7),
        ("est.Estimator", "tf.estimator.Estimator", 1),
    ]


def test_text_has_one_line_per_finding_and_a_summary(capsys):
    _, out, _ = run(capsys, fixture("tf1_bare.py"))
    *lines, summary = out.splitlines()
    lines = lines[: lines.index("")]
    matches = [_FINDING_LINE.match(line) for line in lines]
    assert all(matches), lines
    assert [(int(m["line"]), m["name"], m["status"]) for m in matches] == annotations(
        fixture("tf1_bare.py")
    )
    assert summary == (
        "1 file(s) checked, 13 finding(s): 0 supported, 12 supported-with-run --tf1, "
        "1 not-supported"
    )


# --- Exit status and errors ------------------------------------------------------------------


def test_exit_status_is_0_when_the_shim_runs_everything(capsys, tmp_path):
    path = write(tmp_path, "prog.py", "import tensorflow as tf\ntf.estimator.DNNClassifier\n")
    assert run(capsys, str(path))[0] == 0
    assert run(capsys, fixture("clean_tf2.py"))[0] == 0


def test_exit_status_is_1_when_something_is_not_supported(capsys):
    assert run(capsys, fixture("tf1_bare.py"))[0] == 1
    assert run(capsys, fixture("aliases.py"))[0] == 1


def test_a_missing_path_is_exit_2_and_named(capsys, tmp_path):
    missing = str(tmp_path / "nope.py")
    status, out, err = run(capsys, fixture("clean_tf2.py"), missing)
    assert status == 2
    assert missing in err and "no such file" in err
    assert "1 file(s) checked" in out


def test_an_unreadable_notebook_is_exit_2_and_the_rest_is_still_checked(capsys, tmp_path):
    write(tmp_path, "broken.ipynb", "{not json")
    write(tmp_path, "prog.py", "import tensorflow as tf\ntf.estimator.Estimator\n")
    status, out, err = run(capsys, "--format", "json", str(tmp_path))
    report = json.loads(out)
    assert status == 2
    assert [(e["path"], e["kind"]) for e in report["errors"]] == [
        (str(tmp_path / "broken.ipynb"), "unreadable")
    ]
    assert [f["name"] for f in report["findings"]] == ["tf.estimator.Estimator"]
    assert str(tmp_path / "broken.ipynb") in err


def test_hostile_files_are_each_reported_and_the_run_goes_on(tmp_path):
    """A deep but valid expression is checked; one too deep for Python, a
    notebook with a `null` line, and a FIFO named `.py` (never opened: reading
    it would block) are each named with why, and the other files are checked."""
    tf_use = "import tensorflow as tf\ntf.estimator.Estimator\n"
    write(tmp_path, "a_deep.py", tf_use + "x = " + " + ".join(["1"] * 2500) + "\n")
    write(tmp_path, "b_too_deep.py", "x = " + " + ".join(["1"] * 5000) + "\n")
    cells = [
        {"cell_type": "code", "source": ["import tensorflow as tf\n", None]},
        {"cell_type": "code", "source": ["import tensorflow as tf\n", "tf.estimator.Estimator\n"]},
    ]
    write(tmp_path, "c_null.ipynb", json.dumps({"cells": cells}))
    os.mkfifo(tmp_path / "d_fifo.py")
    write(tmp_path, "e_ok.py", tf_use)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "tfestimator_compat.command.check",
            "--format",
            "json",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env=dict(os.environ, PYTHONPATH=REPO),
    )
    assert done.returncode == 2, done.stderr[-3000:]
    report = json.loads(done.stdout)
    errors = {(os.path.basename(e["path"]), e["cell"]): e for e in report["errors"]}
    assert sorted(errors) == [("b_too_deep.py", None), ("c_null.ipynb", 1), ("d_fifo.py", None)]
    assert "recursion" in errors["b_too_deep.py", None]["message"]
    assert "not text" in errors["c_null.ipynb", 1]["message"]
    assert "not a regular file" in errors["d_fifo.py", None]["message"]
    found = sorted((os.path.basename(f["path"]), f["cell"]) for f in report["findings"])
    assert found == [("a_deep.py", None), ("c_null.ipynb", 2), ("e_ok.py", None)]


def test_usage_errors_exit_2(capsys):
    with pytest.raises(SystemExit) as no_paths:
        check.main([])
    with pytest.raises(SystemExit) as bad_format:
        check.main(["--format", "xml", fixture("clean_tf2.py")])
    assert no_paths.value.code == 2 and bad_format.value.code == 2


def test_a_syntax_error_is_reported_and_the_run_goes_on(capsys, tmp_path):
    write(tmp_path, "a_python2.py", 'import tensorflow as tf\nprint "hello"\n')
    write(tmp_path, "b_ok.py", "import tensorflow as tf\ntf.estimator.Estimator\n")
    write(tmp_path, "c_nul.py", "x = 1\0\n")
    status, out, _ = run(capsys, str(tmp_path))
    assert status == 0
    assert f"{tmp_path / 'a_python2.py'}:2: warning: not checked, cannot parse" in out
    assert f"{tmp_path / 'c_nul.py'}" in out
    assert f"{tmp_path / 'b_ok.py'}:2: tf.estimator.Estimator [supported]" in out
    assert out.endswith("; 2 file(s) or cell(s) not parsed\n")


def test_directories_are_searched_for_python_and_notebooks(capsys, tmp_path):
    write(tmp_path, "z.py", "x = 1\n")
    write(tmp_path, "sub/a.py", "x = 1\n")
    write(tmp_path, "sub/n.ipynb", json.dumps({"cells": []}))
    write(tmp_path, "sub/notes.txt", "tf.estimator.Estimator\n")
    write(tmp_path, ".venv/lib/big.py", "import tensorflow as tf\ntf.estimator.Estimator\n")
    write(tmp_path, "__pycache__/c.py", "x = 1\n")
    _, report = check_json(capsys, str(tmp_path))
    assert report["summary"]["files"] == 3 and report["findings"] == []


# --- It never runs what it reads -------------------------------------------------------------


def test_check_never_imports_or_runs_the_programs(capsys, tmp_path):
    shutil.copy(fixture("would_execute.py"), tmp_path)
    cells = [
        {
            "cell_type": "code",
            "source": "import pathlib\npathlib.Path('executed.marker').write_text('x')\n"
            "!touch executed.marker\n%run would_execute.py\n",
        }
    ]
    write(tmp_path, "would_execute.ipynb", json.dumps({"cells": cells}))
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        status, out, _ = run(capsys, str(tmp_path))
    finally:
        os.chdir(cwd)
    assert status == 0
    [(line, name, status)] = annotations(fixture("would_execute.py"))
    assert f"would_execute.py:{line}: {name} [{status}]" in out
    assert not (tmp_path / "executed.marker").exists()
    assert "would_execute" not in sys.modules


def test_module_entry_point_and_subcommand_wiring(tmp_path, capsys):
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    result = subprocess.run(
        [sys.executable, "-m", "tfestimator_compat.command.check", "--format", "json", FIXTURES],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 1, result.stderr
    assert json.loads(result.stdout)["summary"]["files"] == 7

    parser = argparse.ArgumentParser(prog="tfestimator-compat")
    commands = parser.add_subparsers(dest="command", required=True)
    check.add_check_arguments(commands.add_parser("check"))
    options = parser.parse_args(["check", fixture("clean_tf2.py"), "--format", "json"])
    assert check.run_check(options) == 0
    assert json.loads(capsys.readouterr().out)["findings"] == []


# --- The API surface -------------------------------------------------------------------------


def _snapshot():
    with open(fixture("tf215_estimator_api.txt")) as f:
        return [line.strip() for line in f if line.strip() and not line.startswith("#")]


def test_api_surface_covers_every_public_estimator_name_of_2_15():
    assert set(api_surface.ESTIMATOR_SYMBOLS) == set(_snapshot())
    for name in _snapshot():
        symbol = api_surface.classify(name)
        assert symbol.name == name and symbol.status in api_surface.STATUSES


def test_v1_only_names_under_tf_estimator_need_run_tf1():
    # TF 1.x programs wrote tf.estimator.inputs with a plain `import tensorflow`.
    plain = api_surface.classify("tf.estimator.inputs.numpy_input_fn")
    assert (plain.name, plain.status) == (
        "tf.compat.v1.estimator.inputs.numpy_input_fn",
        "supported-with-run --tf1",
    )
    compat = api_surface.classify("tf.compat.v1.estimator.inputs.numpy_input_fn")
    assert (compat.name, compat.status) == (plain.name, "supported")
    assert api_surface.classify("tf.estimator.tpu.TPUEstimator").status == (
        "supported-with-run --tf1"
    )
    unknown = api_surface.classify("tf.estimator.inputs.no_such_fn")
    assert unknown.status == "not-supported" and unknown.guide.endswith("#unknown-estimator-names")


def test_names_tensorflow_2_21_still_has_are_not_findings():
    for path in ["tf", "tf.nn.relu", "tf.compat.v1", "tf.compat.v1.placeholder", "keras.Model"]:
        assert api_surface.classify(path) is None


def _headings(markdown):
    """GitHub's anchors for the headings of a Markdown text, outside code blocks."""
    anchors, in_code = set(), False
    for line in markdown.splitlines():
        if line.startswith("```"):
            in_code = not in_code
        elif not in_code and re.match(r"^#{1,6} ", line):
            title = line.lstrip("#").strip().lower()
            anchors.add(re.sub(r"[^\w\- ]", "", title).replace(" ", "-"))
    return anchors


def test_every_known_name_has_a_status_and_a_guide_section_that_exists():
    paths = api_surface.known_paths()
    assert len(paths) > 800
    pages = {}
    for path in paths:
        symbol = api_surface.classify(path)
        assert symbol is not None, path
        assert symbol.status in api_surface.STATUSES, path
        assert symbol.replacement, path
        page, anchor = symbol.guide.split("#")
        if page not in pages:
            with open(os.path.join(check_report.GUIDE_ROOT, page)) as f:
                pages[page] = _headings(f.read())
        assert anchor in pages[page], f"{path}: no section #{anchor} in {page}"


def test_links_between_guide_pages_resolve():
    guide = os.path.join(REPO, "migration_guide")
    pages = {}
    for name in os.listdir(guide):
        if name.endswith(".md"):
            with open(os.path.join(guide, name)) as f:
                pages[name] = f.read()
    links = [
        (name, target, anchor)
        for name, text in pages.items()
        for target, anchor in re.findall(r"\]\(([\w.]*\.md)?(?:#([\w-]+))?\)", text)
    ]
    assert len(links) > 40
    for name, target, anchor in links:
        page = target or name
        assert page in pages, f"{name} links to missing {page}"
        assert not anchor or anchor in _headings(pages[page]), f"{name} -> {page}#{anchor}"


# --- Summary, verdicts, guide links ----------------------------------------------------------


def test_summary_counts_each_api_and_gives_each_file_a_verdict(capsys, tmp_path):
    write(tmp_path, "a_tf2.py", "import tensorflow as tf\nest = tf.estimator.Estimator(fn)\n")
    write(tmp_path, "b_tf1.py", "import tensorflow as tf\ntf.placeholder\ntf.placeholder\n")
    write(tmp_path, "c_broken.py", "def (:\n")
    status, report = check_json(capsys, str(tmp_path), fixture("tf1_bare.py"))
    by_file = {os.path.basename(f["path"]): f for f in report["summary"]["by_file"]}
    assert {name: entry["verdict"] for name, entry in by_file.items()} == {
        "a_tf2.py": check_report.RUNS_UNCHANGED,
        "b_tf1.py": check_report.NEEDS_TF1,
        "c_broken.py": check_report.NOT_CHECKED,
        "tf1_bare.py": check_report.DOES_NOT_RUN,
    }
    assert by_file["b_tf1.py"]["because"] == ["tf.compat.v1.placeholder"]
    assert by_file["tf1_bare.py"]["because"] == ["tf.compat.v1.nn.rnn_cell.LSTMCell"]
    assert by_file["tf1_bare.py"]["findings"] == 13
    by_api = report["summary"]["by_api"]
    assert by_api[0]["status"] == "not-supported", "what blocks a run comes first"
    placeholder = next(a for a in by_api if a["name"] == "tf.compat.v1.placeholder")
    assert (placeholder["count"], placeholder["status"]) == (3, "supported-with-run --tf1")
    assert sum(a["count"] for a in by_api) == report["summary"]["findings"]

    _, out, _ = run(capsys, str(tmp_path))
    assert (
        f"  {tmp_path / 'b_tf1.py'}: 2 finding(s); needs run --tf1: tf.compat.v1.placeholder"
        in (out.splitlines())
    )
    assert re.search(r"^\s+2  supported-with-run --tf1  tf.compat.v1.placeholder$", out, re.M)


def _printed_guide_links(capsys):
    """Every guide link `check` prints, for the fixtures and for every name it knows."""
    _, report = check_json(capsys, FIXTURES)
    links = {f["guide"] for f in report["findings"]}
    links |= {api_surface.classify(path).guide for path in api_surface.known_paths()}
    return links


def test_every_guide_link_resolves_to_a_page_the_built_package_ships(capsys, tmp_path):
    # Build the wheel from a copy of the sources, offline, with the setuptools already here.
    source = tmp_path / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md", "tfestimator_compat_command.py"):
        shutil.copy(os.path.join(REPO, name), source)
    for name in ("tfestimator_compat", "migration_guide"):
        shutil.copytree(
            os.path.join(REPO, name),
            source / name,
            symlinks=True,
            ignore=shutil.ignore_patterns("__pycache__"),
        )
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q"]
        + ["-w", str(tmp_path / "dist"), str(source)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    [wheel] = (tmp_path / "dist").glob("*.whl")
    with zipfile.ZipFile(wheel) as archive:
        shipped = {
            name: archive.read(name).decode()
            for name in archive.namelist()
            if name.startswith("tfestimator_compat/migration_guide/")
        }
        assert "tfestimator_compat_command.py" in archive.namelist()
        [entry_points] = [n for n in archive.namelist() if n.endswith("entry_points.txt")]
        assert "tfestimator-compat = tfestimator_compat_command:main" in (
            archive.read(entry_points).decode()
        )
    links = _printed_guide_links(capsys)
    assert len(links) > 30
    for link in links:
        page, anchor = link.split("#")
        shipped_page = f"tfestimator_compat/{page}"
        assert shipped_page in shipped, f"{link}: {page} is not in the wheel"
        assert anchor in _headings(shipped[shipped_page]), f"{link}: no such section"
        assert os.path.isfile(os.path.join(check_report.GUIDE_ROOT, page)), link


_NO_TENSORFLOW = """
import sys
import zipfile

class RefuseTensorFlow:
    imported = []

    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("tensorflow", "keras"):
            self.imported.append(name)
            raise ImportError(f"check imported {name}")
        return None

refuse = RefuseTensorFlow()
sys.meta_path.insert(0, refuse)
import tfestimator_compat_command

try:
    status = tfestimator_compat_command.main(sys.argv[1:])
except SystemExit as exit:
    status = exit.code
loaded = sorted(m for m in sys.modules if m.split(".")[0] in ("tensorflow", "keras"))
print("IMPORTED", refuse.imported + loaded, file=sys.stderr)
sys.exit(status)
"""


@pytest.mark.parametrize(
    "argv, expected_status",
    [(["check", FIXTURES], 1), (["check", "--help"], 0), (["--help"], 0)],
)
def test_the_command_checks_without_importing_tensorflow(argv, expected_status):
    result = subprocess.run(
        [sys.executable, "-c", _NO_TENSORFLOW, *argv],
        cwd=REPO,
        env=dict(os.environ, PYTHONPATH=REPO),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == expected_status, result.stderr
    assert "IMPORTED []" in result.stderr, result.stderr
    assert result.stdout


def test_what_check_knows_without_tensorflow_is_what_the_shim_provides():
    import tensorflow as tf

    import tfestimator_compat
    from tfestimator_compat.legacy import contrib
    from tfestimator_compat.shim.api_surface import estimator_modules

    for submodule in contrib.SUBMODULES:
        assert contrib.provided_names(submodule) == tuple(contrib.namespace(submodule).__all__)
    for module, names in estimator_modules.original_names().items():
        for name in names:
            provided = estimator_modules.resolve(module, name) is not None
            assert estimator_modules.provides(module, name) == provided, (module, name)
    for name, symbol in api_surface.ESTIMATOR_SYMBOLS.items():
        namespace = tf
        for part in name.split(".")[1:]:
            namespace = getattr(namespace, part, None)
        if namespace is None:
            assert symbol.status != api_surface.SUPPORTED, f"{name} is missing from the shim"
    for member in api_surface.estimator_names.ESTIMATOR_METHODS:
        symbol = api_surface.estimator_member("tf.estimator.Estimator", member)
        has = hasattr(tfestimator_compat.Estimator, member)
        assert has == (symbol.status == api_surface.SUPPORTED), member
