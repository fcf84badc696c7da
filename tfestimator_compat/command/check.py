"""`tfestimator-compat check PATH...`: what a legacy program needs before it moves.

Lists every use of the estimator API, and of the TF1 APIs that TensorFlow >=
2.16 with Keras 3 lost, in `.py` files and Jupyter notebooks (directories are
searched recursively). Each use comes with its canonical name, whether the shim
runs it, the native TF2/Keras replacement, and a link into `migration_guide/`
(which ships in the package; `check_report` prints the report). A summary follows: each API
used, with its count and status, and a verdict per file (`runs unchanged`,
`needs run --tf1`, `does not run`, `not checked`): the worst of the file's own
and of the checked files it imports (`check_imports` follows them).

Programs are parsed with `ast`, never imported or run: aliases are followed as
written (`import tensorflow.compat.v1 as tf`, `est = tf.estimator`,
`from tensorflow.estimator import DNNClassifier`), in source order. Methods are
followed on the estimators a program makes (`est = DNNClassifier(...)`,
`self.estimator = ...`), and the methods only estimators have
(`export_savedmodel`) on any object. Nothing here imports TensorFlow, so the
`tfestimator-compat` command starts `check` in a fraction of a second.

Exit status: 0 when everything found runs on the shim, 1 when something does
not, 2 for usage errors and unreadable files. A file or notebook cell that does
not parse is reported, and its file is `not checked`.

Example:

```sh
tfestimator-compat check train.py notebooks/
tfestimator-compat check --format json src/ > report.json
tfestimator-compat check --format summary src/ > ticket.md
```
"""

import argparse
import ast
import contextlib
import json
import os
import re
import stat
import sys
from typing import Dict
from typing import Iterator
from typing import List
from typing import Optional
from typing import Tuple

from tfestimator_compat.command.check_imports import Import
from tfestimator_compat.command.check_report import FileError
from tfestimator_compat.command.check_report import Finding
from tfestimator_compat.command.check_report import Report
from tfestimator_compat.command.check_report import format_json
from tfestimator_compat.command.check_report import format_summary
from tfestimator_compat.command.check_report import format_text
from tfestimator_compat.shim import api_surface

_SKIPPED_DIRS = frozenset(["__pycache__", "node_modules", "site-packages"])
# Cell magics whose body is still Python.
_PYTHON_CELL_MAGICS = frozenset(["time", "timeit", "capture", "prun", "debug"])
# `name?`, `name??`: IPython help.
_HELP_LINE = re.compile(r"^[\w.*\[\]()'\"]+\?\??$")
# `files = !ls`, `t = %timeit -o f()`: shell or magic output assigned to names.
_MAGIC_ASSIGNMENT = re.compile(r"^[\w.,\s\[\]()]+=\s*[%!]")
# Python parses expressions nested about 3,000 deep; walking such a tree takes
# two or three Python frames per level, past the default limit of 1,000.
_WALK_RECURSION_LIMIT = 20_000


def _canonical(path: str) -> str:
    """Spells a dotted path the way `api_surface.classify` expects."""
    parts = path.split(".")
    if parts[0] == "tensorflow" and parts[1:2] != ["python"]:
        parts[0] = "tf"
    elif parts[0] == "tensorflow_estimator" and parts[1:2] == ["estimator"]:
        parts[:2] = ["tf", "compat", "v1", "estimator"]  # the package's API was v1
    while parts[:2] == ["tf", "compat"] and parts[2:3] in (["v2"], ["v1"]):
        if parts[2] == "v2":
            parts[:3] = ["tf"]  # tf.compat.v2 is tf
        elif parts[3:5] == ["compat", "v1"]:
            parts[:5] = ["tf", "compat", "v1"]
        elif parts[3:5] == ["compat", "v2"]:
            parts[:5] = ["tf"]
        else:
            break
    return ".".join(parts)


def _folded(path: str) -> str:
    """`tf.flags` for any name in TF1's flags module (`tf.app.flags.FLAGS.steps`,
    `tf.flags.DEFINE_string`): a program's flags are one API, however many it reads."""
    parts = path.split(".")
    root = 3 if parts[:3] == ["tf", "compat", "v1"] else 1 if parts[:1] == ["tf"] else 0
    rest = parts[root:] if root else []
    if rest[:2] == ["app", "flags"]:
        rest = rest[1:]
    return ".".join([*parts[:root], "flags"]) if rest[:1] == ["flags"] else path


def _tracked_module(module: str) -> Optional[str]:
    """The canonical path an imported module binds, or None for modules not tracked."""
    if module.split(".")[0] in ("tensorflow", "tensorflow_estimator", "keras"):
        return _canonical(module)
    return None


def _attribute_chain(node: ast.AST) -> Optional[Tuple[str, List[str]]]:
    """`a.b.c` -> ("a", ["b", "c"]); None when the chain does not start at a name."""
    attributes = []
    while isinstance(node, ast.Attribute):
        attributes.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        return node.id, attributes[::-1]
    return None


class _Resolver(ast.NodeVisitor):
    """Follows the names a module binds to TensorFlow APIs, and records their uses.

    One resolver reads a whole file; for a notebook it reads the cells in
    order, so an import in one cell resolves uses in the later ones.
    """

    def __init__(self) -> None:
        self.aliases: Dict[str, str] = {}
        # Names (`est`, `self.estimator`) bound to an estimator object -> its class's name.
        self.estimators: Dict[str, str] = {}
        self.uses: List[Tuple[ast.AST, str, api_surface.Symbol]] = []
        # (statement, level, module, names) of each import, for the verdicts across files.
        self.imports: List[Tuple[ast.AST, int, str, Tuple[str, ...]]] = []
        self._fallback = False

    def _bind(self, name: str, path: Optional[str]) -> None:
        if self._fallback and name in self.aliases:
            return  # `except ImportError:` alternatives don't replace what the `try` bound
        self.estimators.pop(name, None)
        if path is None:
            self.aliases.pop(name, None)
        else:
            self.aliases[name] = path

    def _record(self, node: ast.AST, written: str, path: Optional[str]) -> None:
        if path is None:
            return
        symbol = api_surface.classify(_folded(_canonical(path)))
        if symbol is not None:
            self.uses.append((node, written, symbol))

    def _constructed(self, node: ast.AST) -> Optional[str]:
        """The class name when `node` is a call making an estimator, like `DNNClassifier(...)`."""
        if not isinstance(node, ast.Call):
            return None
        resolved = self._resolve(node.func)
        if resolved is None:
            return None
        symbol = api_surface.classify(resolved[1])
        return api_surface.estimator_class(symbol.name) if symbol is not None else None

    def _estimator_class(self, receiver: ast.AST) -> Optional[str]:
        """The class name of the estimator `receiver` holds, when the program made one there."""
        chain = _attribute_chain(receiver)
        if chain is not None:
            return self.estimators.get(".".join([chain[0], *chain[1]]))
        return self._constructed(receiver)

    def _resolve(self, node: ast.AST) -> Optional[Tuple[str, str]]:
        """(written, canonical path) of a name or attribute chain bound to a tracked API."""
        chain = _attribute_chain(node)
        if chain is None or chain[0] not in self.aliases:
            return None
        base, attributes = chain
        written = ".".join([base, *attributes])
        return written, _canonical(".".join([self.aliases[base], *attributes]))

    def _record_package(self, node: ast.AST, module: str) -> None:
        """Importing anything from the tensorflow-estimator package is itself a finding."""
        if module.split(".")[0] == "tensorflow_estimator":
            private = module.startswith("tensorflow_estimator.python")
            self._record(node, module, module if private else "tensorflow_estimator")

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self.imports.append((node, 0, alias.name, ()))
            path = _tracked_module(alias.name)
            self._record_package(node, alias.name)
            if not (path or "").startswith("tensorflow_estimator"):
                self._record(node, alias.name, path)
            if alias.asname:
                self._bind(alias.asname, path)
            else:
                top = alias.name.split(".")[0]
                self._bind(top, _tracked_module(top))

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        names = tuple(alias.name for alias in node.names if alias.name != "*")
        self.imports.append((node, node.level or 0, node.module or "", names))
        if node.level or not node.module:
            return  # relative imports are the program's own modules
        module = _tracked_module(node.module)
        self._record_package(node, node.module)
        for alias in node.names:
            if alias.name == "*":
                if not (module or "").startswith("tensorflow_estimator"):
                    self._record(node, f"{node.module}.*", module)
                continue
            path = _canonical(f"{module}.{alias.name}") if module is not None else None
            if not (path or "").startswith("tensorflow_estimator"):
                self._record(node, f"{node.module}.{alias.name}", path)
            self._bind(alias.asname or alias.name, path)

    def _visit_assignment(self, targets: List[ast.AST], value: Optional[ast.AST]) -> None:
        if value is not None:
            self.visit(value)
        resolved = self._resolve(value) if value is not None else None
        made = self._constructed(value) if value is not None else None
        for target in targets:
            if isinstance(target, ast.Name):
                self._bind(target.id, resolved[1] if resolved else None)
            else:
                for name in ast.walk(target):
                    if isinstance(name, ast.Name):
                        self._bind(name.id, None)
                self.visit(target)
            chain = _attribute_chain(target)
            if chain is not None:
                written = ".".join([chain[0], *chain[1]])
                self.estimators.pop(written, None)
                if made is not None:
                    self.estimators[written] = made

    def visit_Assign(self, node: ast.Assign) -> None:
        self._visit_assignment(node.targets, node.value)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        self.visit(node.annotation)
        self._visit_assignment([node.target], node.value)

    def _visit_definition(self, node: ast.AST) -> None:
        self._bind(node.name, None)
        self.generic_visit(node)

    visit_FunctionDef = _visit_definition
    visit_AsyncFunctionDef = _visit_definition
    visit_ClassDef = _visit_definition

    def visit_Try(self, node: ast.AST) -> None:
        for statement in node.body:
            self.visit(statement)
        fallback, self._fallback = self._fallback, True
        for handler in node.handlers:
            self.visit(handler)
        self._fallback = fallback
        for statement in node.orelse + node.finalbody:
            self.visit(statement)

    visit_TryStar = visit_Try

    def visit_Attribute(self, node: ast.Attribute) -> None:
        resolved = self._resolve(node)
        if resolved is not None:
            self._record(node, *resolved)
            return
        self._record_member(node)
        self.generic_visit(node)

    def _record_member(self, node: ast.Attribute) -> None:
        """`est.export_savedmodel`: a member of an estimator the program made, or one only
        estimators have (`export_savedmodel`, `get_variable_value`) on any other object."""
        owner = self._estimator_class(node.value)
        if owner is None and node.attr in api_surface.ESTIMATOR_ONLY_METHODS:
            if self._resolve(node.value) is None:
                owner = f"{api_surface.ESTIMATOR_V2}.Estimator"
        symbol = api_surface.estimator_member(owner, node.attr) if owner else None
        if symbol is not None:
            chain = _attribute_chain(node)
            written = ".".join([chain[0], *chain[1]]) if chain else f"(...).{node.attr}"
            self.uses.append((node, written, symbol))

    def visit_Name(self, node: ast.Name) -> None:
        if isinstance(node.ctx, ast.Load):
            resolved = self._resolve(node)
            if resolved is not None:
                self._record(node, *resolved)


def _python_cell(source: str) -> Optional[str]:
    """A notebook cell as Python: IPython magics, shell escapes and help lines become `pass`.

    Line numbers stay those of the cell. None when a cell magic makes it another language.
    """
    lines = source.splitlines()
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first is not None and lines[first].lstrip().startswith("%%"):
        magic = lines[first].lstrip()[2:].split(" ", 1)[0]
        if magic not in _PYTHON_CELL_MAGICS:
            return None
        lines[first] = ""
    continued = False
    for i, line in enumerate(lines):
        if continued or _is_ipython_line(line.strip()):
            # A backslash continues a shell or magic line onto the next, as in IPython.
            lines[i] = "" if continued else line[: len(line) - len(line.lstrip())] + "pass"
            continued = line.rstrip().endswith("\\")
    return "\n".join(lines) + "\n"


def _is_ipython_line(stripped: str) -> bool:
    """A shell escape, a line magic, a help request, or their output assigned to a name."""
    return bool(
        stripped.startswith(("%", "!", "?"))
        or _HELP_LINE.match(stripped)
        or _MAGIC_ASSIGNMENT.match(stripped)
    )


def _findings(resolver: _Resolver, path: str, cell: Optional[int]) -> List[Finding]:
    findings = [
        Finding(
            path=path,
            line=node.lineno,
            column=node.col_offset + 1,
            cell=cell,
            written=written,
            name=symbol.name,
            status=symbol.status,
            replacement=symbol.replacement,
            guide=symbol.guide,
        )
        for node, written, symbol in resolver.uses
    ]
    resolver.uses.clear()
    return findings


def _imports(resolver: _Resolver, path: str, cell: Optional[int]) -> List[Import]:
    imports = [
        Import(path, node.lineno, cell, level, module, names)
        for node, level, module, names in resolver.imports
    ]
    resolver.imports.clear()
    return imports


def _syntax_error(path: str, error: Exception, cell: Optional[int] = None) -> FileError:
    line = getattr(error, "lineno", None)
    message = getattr(error, "msg", None) or str(error)
    return FileError(path, "syntax", f"cannot parse: {message}", line, cell)


@contextlib.contextmanager
def _deep_recursion():
    """Lets a walk of any tree `ast.parse` made finish (Python-level frames only:
    the limit is raised around the walk, never around parsing)."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, _WALK_RECURSION_LIMIT))
    try:
        yield
    finally:
        sys.setrecursionlimit(limit)


def _check_source(
    source, resolver: _Resolver, path: str, cell: Optional[int], report: Report
) -> None:
    """Parses one file's or cell's source and adds its findings, or why it could not."""
    try:
        tree = ast.parse(source, filename=path)
    except (SyntaxError, ValueError, RecursionError) as error:
        report.errors.append(_syntax_error(path, error, cell))
        return
    try:
        with _deep_recursion():
            resolver.visit(tree)
    except RecursionError as error:
        resolver.uses.clear()
        resolver.imports.clear()
        report.errors.append(_syntax_error(path, error, cell))
        return
    report.findings.extend(_findings(resolver, path, cell))
    report.imports.extend(_imports(resolver, path, cell))


def check_python(path: str, report: Report) -> None:
    """Adds the findings of one `.py` file (or its error) to `report`."""
    try:
        with open(path, "rb") as f:
            source = f.read()
    except OSError as error:
        report.errors.append(FileError(path, "unreadable", error.strerror or str(error)))
        return
    report.files.append(path)
    _check_source(source, _Resolver(), path, None, report)


def _notebook_cells(path: str) -> List[Tuple[int, Optional[str]]]:
    """(1-based cell number among all cells, source) of each code cell; raises ValueError.

    The source is None for a cell whose source is not text (a `null` line).
    """
    with open(path, encoding="utf-8") as f:
        notebook = json.load(f)
    cells = notebook.get("cells") if isinstance(notebook, dict) else None
    if not isinstance(cells, list):
        raise ValueError("not a Jupyter notebook (no list of cells)")
    code = []
    for number, cell in enumerate(cells, start=1):
        if isinstance(cell, dict) and cell.get("cell_type") == "code":
            source = cell.get("source", "")
            if isinstance(source, list):
                text = all(isinstance(line, str) for line in source)
                source = "".join(source) if text else None
            elif not isinstance(source, str):
                source = None
            code.append((number, source))
    return code


def check_notebook(path: str, report: Report) -> None:
    """Adds the findings of one `.ipynb` notebook's code cells to `report`."""
    try:
        cells = _notebook_cells(path)
    except (OSError, ValueError) as error:  # JSONDecodeError and UnicodeDecodeError too
        message = getattr(error, "strerror", None) or str(error)
        report.errors.append(FileError(path, "unreadable", message))
        return
    report.files.append(path)
    resolver = _Resolver()
    for number, source in cells:
        if source is None:
            message = "the cell's source is not text"
            report.errors.append(FileError(path, "unreadable", message, cell=number))
            continue
        python = _python_cell(source)
        if python is not None:
            _check_source(python, resolver, path, number, report)


def _is_notebook(path: str) -> bool:
    return path.endswith(".ipynb")


def iter_files(path: str) -> Iterator[str]:
    """`path` itself when a file; else the `.py` and `.ipynb` files below it, sorted.

    Hidden directories, `__pycache__`, `node_modules` and `site-packages` are skipped.
    """
    if not os.path.isdir(path):
        yield path
        return
    for root, dirs, files in os.walk(path):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in _SKIPPED_DIRS)
        for name in sorted(files):
            if name.endswith(".py") or _is_notebook(name):
                yield os.path.join(root, name)


def _not_a_regular_file(path: str) -> Optional[str]:
    """Why `path` is not read (a FIFO would block, a device never ends), or None."""
    try:
        mode = os.stat(path).st_mode
    except OSError as error:
        return error.strerror or str(error)
    if stat.S_ISREG(mode):
        return None
    return "not a regular file (a FIFO, socket or device): skipped without reading it"


def check_paths(paths: List[str]) -> Report:
    """Checks files and directories; a missing path or one that is not a regular
    file is an "unreadable" error, and the other paths are still checked."""
    report = Report()
    for path in paths:
        if not os.path.exists(path):
            report.errors.append(FileError(path, "unreadable", "no such file or directory"))
            continue
        for file in iter_files(path):
            problem = _not_a_regular_file(file)
            if problem is not None:
                report.errors.append(FileError(file, "unreadable", problem))
            else:
                (check_notebook if _is_notebook(file) else check_python)(file, report)
    return report


def add_check_arguments(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Adds the `check` arguments to `parser` (a parser or a subcommand parser)."""
    parser.add_argument(
        "paths", nargs="+", metavar="PATH", help=".py or .ipynb files, or directories"
    )
    parser.add_argument(
        "--format",
        choices=("text", "json", "summary"),
        default="text",
        help="text (default): one line per finding, then a summary; json: a stable schema; "
        "summary: files by verdict and the APIs in the way, in Markdown for a ticket",
    )
    return parser


def run_check(options: argparse.Namespace) -> int:
    """Checks `options.paths` and prints the report; returns the exit status (0, 1 or 2)."""
    report = check_paths(options.paths)
    formatter = {"json": format_json, "summary": format_summary}.get(options.format, format_text)
    formatted = formatter(report)
    sys.stdout.write(formatted)
    for error in report.errors:
        if error.kind == "unreadable":
            print(
                f"tfestimator-compat check: error: {error.path}: {error.message}", file=sys.stderr
            )
    return report.exit_status()


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(
        prog="tfestimator-compat check",
        description="List the estimator and TF1 APIs that programs use, and what replaces them.",
    )
    add_check_arguments(parser)
    return run_check(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
