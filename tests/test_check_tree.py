"""`tfestimator-compat check` on a project tree: verdicts a team lead can trust (issue #38 item 4).

The tree under `fixtures/check_tree/` is a small project: a trainer that imports
a module that does not run, a chain of imports that needs `run --tf1`, an import
cycle, TF1 flags, and a notebook written in IPython syntax. The files that must
not parse are written beside a copy of it (`_UNPARSEABLE`), since ruff parses
everything the repository holds.
"""

import json
import os
import shutil

import pytest
from helpers import check_json

from tfestimator_compat.command import check
from tfestimator_compat.command import check_report

TREE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "check_tree")
_CODE = {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None}
_UNPARSEABLE = {
    "broken.py": '"""Python 2."""\n\nprint "hello"\n',
    "notebooks/half_parsed.ipynb": json.dumps(
        {
            "cells": [
                dict(_CODE, source="import tensorflow as tf\nCONFIG = tf.estimator.RunConfig()\n"),
                dict(_CODE, source="x = 1\ndef broken(:\n    pass\n"),
            ]
        }
    ),
}
DOES_NOT_RUN = check_report.DOES_NOT_RUN
NEEDS_TF1 = check_report.NEEDS_TF1
NOT_CHECKED = check_report.NOT_CHECKED
RUNS = check_report.RUNS_UNCHANGED


@pytest.fixture
def tree(tmp_path):
    """A copy of the fixture tree, with the files that do not parse added."""
    root = tmp_path / "project"
    shutil.copytree(TREE, root)
    for name, source in _UNPARSEABLE.items():
        (root / name).write_text(source)
    return root


def by_file(capsys, tree):
    """(exit status, report, summary entry per path relative to the tree)."""
    status, report = check_json(capsys, tree)
    entries = {os.path.relpath(e["path"], tree): e for e in report["summary"]["by_file"]}
    return status, report, entries


def test_a_file_gets_the_worst_verdict_of_what_it_imports(capsys, tree):
    status, _, entries = by_file(capsys, tree)
    assert {path: entry["verdict"] for path, entry in entries.items()} == {
        "broken.py": NOT_CHECKED,
        "cycle_a.py": NEEDS_TF1,  # through cycle_b, which imports it back
        "cycle_b.py": NEEDS_TF1,
        "evaluate.py": NEEDS_TF1,  # from inputs import input_fn
        "export.py": NEEDS_TF1,  # import evaluate -> inputs
        "flags_main.py": NEEDS_TF1,
        "inputs.py": NEEDS_TF1,
        "report_tool.py": NOT_CHECKED,  # import broken
        "train.py": DOES_NOT_RUN,  # from models import legacy_net
        "models/__init__.py": RUNS,
        "models/clean.py": RUNS,
        "models/head.py": DOES_NOT_RUN,  # from .legacy_net import model_fn
        "models/legacy_net.py": DOES_NOT_RUN,
        "notebooks/half_parsed.ipynb": NOT_CHECKED,
        "notebooks/ipython_syntax.ipynb": RUNS,  # from models import clean
    }
    assert status == 1


def test_the_verdict_names_the_import_that_brings_the_blocker(capsys, tree):
    _, _, entries = by_file(capsys, tree)
    legacy_net = str(tree / "models" / "legacy_net.py")
    assert entries["train.py"]["via"] == [
        {"import": "models.legacy_net", "line": 4, "cell": None, "path": legacy_net}
    ]
    assert entries["train.py"]["because"] == ["tf.contrib.slim", "tf.contrib.slim.fully_connected"]
    assert entries["models/head.py"]["via"] == [
        {"import": ".legacy_net", "line": 3, "cell": None, "path": legacy_net}
    ]
    assert [(step["import"], step["line"]) for step in entries["export.py"]["via"]] == [
        ("evaluate", 3),
        ("inputs", 4),
    ]
    assert entries["export.py"]["because"] == ["tf.compat.v1.placeholder"]
    assert entries["models/legacy_net.py"]["via"] == [], "its own uses decide it"
    assert entries["evaluate.py"]["findings"] == 0

    _, out, _ = run(capsys, tree)
    assert (
        f"  {tree / 'export.py'}: 0 finding(s); needs run --tf1 via import evaluate (line 3) "
        f"-> {tree / 'evaluate.py'}, import inputs (line 4) -> {tree / 'inputs.py'}: "
        "tf.compat.v1.placeholder"
    ) in out.splitlines()


def test_what_is_not_in_the_tree_or_not_a_module_of_it_is_not_followed(capsys, tmp_path):
    """Imports resolve as Python would from the importer's folder or one above it;
    a same-named module in a folder beside it is another program's."""
    (tmp_path / "tools").mkdir()
    (tmp_path / "app").mkdir()
    (tmp_path / "tools" / "utils.py").write_text("import tensorflow as tf\ntf.contrib.slim\n")
    (tmp_path / "app" / "main.py").write_text("import os\nimport utils\nimport numpy\n")
    (tmp_path / "app" / "utils.py").write_text("import tensorflow as tf\ntf.placeholder\n")
    _, _, entries = by_file(capsys, tmp_path)
    assert entries["app/main.py"]["verdict"] == NEEDS_TF1
    assert [step["path"] for step in entries["app/main.py"]["via"]] == [
        str(tmp_path / "app" / "utils.py")
    ]


def test_a_file_or_cell_that_did_not_parse_is_not_checked_and_says_where(capsys, tree):
    _, report, entries = by_file(capsys, tree)
    [reason] = entries["broken.py"]["because"]
    assert reason.startswith("line 3: cannot parse: "), reason
    assert entries["notebooks/half_parsed.ipynb"]["because"] == [
        "cell 2, line 2: cannot parse: invalid syntax"
    ]
    assert entries["notebooks/half_parsed.ipynb"]["findings"] == 1, "the other cells are checked"
    assert entries["report_tool.py"]["via"][0]["path"] == str(tree / "broken.py")
    assert entries["report_tool.py"]["because"] == [reason]


def test_a_notebook_cell_that_is_not_text_leaves_the_notebook_not_checked(capsys, tmp_path):
    cells = [dict(_CODE, source=["import tensorflow as tf\n", None])]
    (tmp_path / "nb.ipynb").write_text(json.dumps({"cells": cells}))
    _, _, entries = by_file(capsys, tmp_path)
    assert entries["nb.ipynb"]["verdict"] == NOT_CHECKED
    assert entries["nb.ipynb"]["because"] == ["cell 1: the cell's source is not text"]


def test_ipython_syntax_is_skipped_not_reported_as_unparsed(capsys, tree):
    """`!cmd \\` and `%magic \\` continuation lines, `var = !cmd \\`, `?`/`??` help
    (`?tf.estimator.*Classifier` too), `%%bash` and `%%time` cells."""
    _, report = check_json(capsys, tree / "notebooks" / "ipython_syntax.ipynb")
    assert report["errors"] == []
    assert [(f["cell"], f["line"], f["name"]) for f in report["findings"]] == [
        (7, 2, "tf.estimator.LinearRegressor")
    ]


@pytest.mark.parametrize(
    "source",
    [
        "!ls \\\n  -la \\\n  /tmp\nx = 1\n",
        "if True:\n    !ls \\\n      /tmp\nx = 1\n",
        "files = !ls \\\n  /tmp\nx = 1\n",
        "%cd \\\n  /tmp\nx = 1\n",
        "tf.estimator.*Classifier?\nx = 1\n",
        "tf.estimator.Estimator.train??\nx = 1\n",
    ],
)
def test_ipython_line_forms_are_skipped(source):
    python = check._python_cell(source)
    compile(python, "cell", "exec")
    assert python.splitlines()[-1] == "x = 1"
    assert len(python.splitlines()) == len(source.splitlines()), "line numbers are kept"


def test_flags_reads_fold_into_one_api(capsys, tree):
    _, report = check_json(capsys, tree / "flags_main.py")
    flags = [a for a in report["summary"]["by_api"] if "flags" in a["name"].lower()]
    # Lines 6, 7, 8, three reads on 12, one on 13 (absl's FLAGS is not TensorFlow's), one on 14.
    assert [(a["name"], a["count"], a["status"]) for a in flags] == [
        ("tf.compat.v1.flags", 8, "supported-with-run --tf1")
    ]
    assert all("FLAGS" not in f["name"] for f in report["findings"])
    assert [f["written"] for f in report["findings"] if f["line"] == 12] == [
        "FLAGS.steps",
        "FLAGS.model_dir",
        "FLAGS.batch_size",
    ]


def test_tf2_flags_are_not_findings(capsys, tmp_path):
    path = tmp_path / "prog.py"
    path.write_text(
        "import tensorflow as tf\nFLAGS = tf.compat.v1.app.flags.FLAGS\nFLAGS.steps\n"
        "tf.compat.v1.flags.DEFINE_integer('n', 1, 'n')\n"
    )
    _, report = check_json(capsys, path)
    assert report["findings"] == []


def run(capsys, *argv):
    status = check.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_summary_for_a_ticket_lists_files_by_verdict_and_what_blocks(capsys, tree):
    status, out, _ = run(capsys, "--format", "summary", tree)
    assert status == 1

    def section(heading):
        lines = out.splitlines()
        start = lines.index(heading) + 1
        end = next((i for i in range(start, len(lines)) if lines[i].startswith("#")), len(lines))
        return [line for line in lines[start:end] if line]

    assert out.startswith("# tfestimator-compat check\n")
    assert ("15 file(s): 3 does not run, 3 not checked, 6 needs run --tf1, 3 runs unchanged") in out
    legacy_net = tree / "models" / "legacy_net.py"
    assert section("### does not run (3)") == [
        f"- `{tree / 'train.py'}` (via `{legacy_net}`)",
        f"- `{tree / 'models' / 'head.py'}` (via `{legacy_net}`)",
        f"- `{legacy_net}`",
    ]
    assert section("### not checked (3)")[0].startswith(
        f"- `{tree / 'broken.py'}`: line 3: cannot parse: "
    )
    assert section("### runs unchanged (3)") == [
        f"- `{tree / 'models' / '__init__.py'}`",
        f"- `{tree / 'models' / 'clean.py'}`",
        f"- `{tree / 'notebooks' / 'ipython_syntax.ipynb'}`",
    ]
    assert section("## APIs that block a run") == [
        f"- `tf.contrib.slim` (1 use): `{legacy_net}`. Guide: "
        "migration_guide/replacements.md#contrib",
        f"- `tf.contrib.slim.fully_connected` (1 use): `{legacy_net}`. Guide: "
        "migration_guide/replacements.md#contrib",
    ]
    tf1 = section("## APIs that need `run --tf1`")
    assert (
        f"- `tf.compat.v1.flags` (8 uses): `{tree / 'flags_main.py'}`. Guide: "
        "migration_guide/replacements.md#tf1-names-under-import-tensorflow"
    ) in tf1
    assert out.rstrip().endswith(f"Guide links are relative to {check_report.GUIDE_ROOT}")


def test_summary_of_a_tree_that_runs_says_nothing_blocks(capsys, tree):
    status, out, _ = run(capsys, "--format", "summary", tree / "models" / "clean.py")
    assert status == 0
    assert "1 file(s): 1 runs unchanged" in out
    assert "## APIs that block a run\n\nNone.\n" in out
