"""Running a Jupyter notebook's code cells in order, as "Run All" would.

The cells share one `__main__` namespace; each shows its output, and the value
of its last expression as `Out[n]: ...` (not when the line ends with `;`).
With IPython installed, cells run in an IPython shell, so magics (`%time`,
`%%bash`) and shell lines (`!pip list`) work as in Jupyter. Without it, cells
run as plain Python and those lines are skipped with a notice on stderr. The
first failing cell stops the run, which reports the cell's number (counting
every cell of the notebook from 1) and its first line.
"""

import ast
import builtins
import contextlib
import io
import json
import linecache
import re
import sys
import tokenize
import types
from typing import List
from typing import Optional
from typing import Tuple

from tfestimator_compat.command.user_traceback import print_traceback

_IPYTHON_LINE = re.compile(r"^\s*(?:[\w.]+\s*=\s*)?[!%]")


def run_notebook(path: str) -> int:
    """Runs the code cells of the notebook at `path`; returns the exit status."""
    cells = read_code_cells(path)
    main = types.ModuleType("__main__")
    main.__dict__["__builtins__"] = builtins
    with _as_main_module(main):
        shell = _ipython_shell(main)
        for count, (number, source) in enumerate(cells, start=1):
            if shell is not None:
                ok = _run_ipython_cell(shell, source)
            else:
                ok = _run_python_cell(main.__dict__, source, number, count)
            if not ok:
                print(
                    f"tfestimator-compat: {path}: cell {number} failed: {_first_line(source)}",
                    file=sys.stderr,
                )
                return 1
    return 0


def read_code_cells(path: str) -> List[Tuple[int, str]]:
    """(number, source) of each non-empty code cell; numbers count every cell from 1."""
    with open(path, encoding="utf-8") as file:
        document = json.load(file)
    cells = document.get("cells")
    if cells is None:  # nbformat 3
        cells = [cell for sheet in document.get("worksheets", []) for cell in sheet["cells"]]
    code = []
    for number, cell in enumerate(cells, start=1):
        if cell.get("cell_type") != "code":
            continue
        source = cell.get("source", cell.get("input", ""))
        if isinstance(source, list):
            source = "".join(source)
        if source.strip():
            code.append((number, source))
    return code


def _first_line(source):
    return next(line.strip() for line in source.splitlines() if line.strip())


@contextlib.contextmanager
def _as_main_module(main):
    """`sys.modules["__main__"]` is the notebook's, so its classes pickle, as in a kernel."""
    saved = sys.modules.get("__main__")
    sys.modules["__main__"] = main
    try:
        yield
    finally:
        sys.modules["__main__"] = saved


def _ipython_shell(main):
    try:
        from IPython.core.interactiveshell import InteractiveShell
        from traitlets.config import Config
    except ImportError:
        return None
    config = Config()
    config.HistoryManager.hist_file = ":memory:"
    config.InteractiveShell.colors = "nocolor" if not sys.stdout.isatty() else "neutral"
    return InteractiveShell.instance(config=config, user_module=main)


def _run_ipython_cell(shell, source):
    result = shell.run_cell(source, store_history=True)
    error = result.error_in_exec
    if isinstance(error, SystemExit):
        raise SystemExit(error.code)
    return result.success


def _run_python_cell(namespace, source, number, count):
    filename = f"<cell {number}>"
    code = _without_ipython_lines(source, number)
    linecache.cache[filename] = (len(code), None, code.splitlines(True), filename)
    try:
        body, last = _compile_cell(code, filename)
        exec(body, namespace)
        if last is not None:
            value = eval(last, namespace)
            if value is not None and not _ends_with_semicolon(code):
                namespace["_"] = value
                print(f"Out[{count}]: {value!r}")
    except SystemExit:
        raise
    except BaseException as error:
        print_traceback(error, filename)
        return False
    return True


def _compile_cell(code, filename) -> Tuple[types.CodeType, Optional[types.CodeType]]:
    """The cell's statements, and its last expression separately (None if it ends otherwise)."""
    tree = ast.parse(code, filename)
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = compile(ast.Expression(tree.body.pop().value), filename, "eval")
    return compile(tree, filename, "exec"), last


def _ends_with_semicolon(code):
    """True when the cell's last token is `;`, which hides its value in Jupyter."""
    skipped = {tokenize.NEWLINE, tokenize.NL, tokenize.COMMENT, tokenize.ENDMARKER}
    skipped |= {tokenize.INDENT, tokenize.DEDENT}
    tokens = tokenize.generate_tokens(io.StringIO(code).readline)
    meaningful = [token for token in tokens if token.type not in skipped]
    return bool(meaningful) and meaningful[-1].string == ";"


def _without_ipython_lines(source, number):
    """`source`, with IPython-only lines replaced by `pass` when it is not plain Python."""
    try:
        ast.parse(source)
        return source
    except SyntaxError:
        pass
    if source.lstrip().startswith("%%"):
        _notice(number, source.lstrip().splitlines()[0])
        return "pass\n"
    lines = []
    for line in source.splitlines(True):
        if _IPYTHON_LINE.match(line):
            _notice(number, line.strip())
            indent = line[: len(line) - len(line.lstrip())]
            line = f"{indent}pass\n"
        lines.append(line)
    return "".join(lines)


def _notice(number, line):
    print(
        f"tfestimator-compat: cell {number}: skipped {line!r}: IPython magics and shell "
        "commands need IPython (pip install ipython)",
        file=sys.stderr,
    )
