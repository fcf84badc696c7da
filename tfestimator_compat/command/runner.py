"""Running a legacy program (or notebook) as its own `__main__`, with the shim active.

`run_program` behaves as `python PROGRAM.py ARGS...` would: the program sees
`sys.argv == [PROGRAM.py, *ARGS]`, `__name__ == "__main__"`, its directory
first on `sys.path`; `sys.exit(n)` ends the process with `n`, and an uncaught
exception prints the program's traceback (not the runner's frames) and ends it
with status 1. A `.ipynb` path runs the notebook's code cells instead
(`notebook.py`), in the notebook's directory as a Jupyter kernel would;
`tf1=True` runs the program as TensorFlow 1.x code (`tf1_mode.py`).
"""

import builtins
import contextlib
import importlib.machinery
import io
import os
import runpy
import sys
import types
from typing import List

import tfestimator_compat
from tfestimator_compat.command import notebook
from tfestimator_compat.command import notebook_kernel
from tfestimator_compat.command import tf1_mode
from tfestimator_compat.command.user_traceback import print_traceback


def run_program(path: str, args: List[str], tf1: bool = False, output=None) -> int:
    """Runs `path` with `args`; returns its exit status (or raises its `SystemExit`).

    Args:
        path: a Python program, a directory or zip with `__main__.py`, or a
            Jupyter notebook (`.ipynb`).
        args: the program's command-line arguments.
        tf1: run a TensorFlow 1.x program: its `import tensorflow` gives
            `tf.compat.v1` with the shim, in graph mode.
        output: for a notebook, where to write it executed, with its outputs.
    """
    if not os.path.exists(path):
        print(f"tfestimator-compat: can't open file {path!r}: no such file", file=sys.stderr)
        return 2
    is_notebook = path.endswith(".ipynb")
    if output and not is_notebook:
        print("tfestimator-compat: --output is for notebooks (.ipynb) only", file=sys.stderr)
        return 2
    if is_notebook and notebook_kernel.available():
        return notebook_kernel.run_notebook(path, args, output=output, tf1=tf1)
    if is_notebook and output:
        print(f"tfestimator-compat: --output: {notebook_kernel.MISSING_EXTRA}", file=sys.stderr)
        return 2
    if is_notebook:
        print(
            f"tfestimator-compat: {notebook_kernel.MISSING_EXTRA}; running the code cells "
            "in this process instead (no figures).",
            file=sys.stderr,
        )
    tfestimator_compat.install()
    mode = tf1_mode.tf1_imports() if tf1 else contextlib.nullcontext()
    notebook_path = os.path.abspath(path)
    with _as_main(path, args, chdir=is_notebook), mode:
        if is_notebook:
            return notebook.run_notebook(notebook_path)
        return _run_python(path)


@contextlib.contextmanager
def _as_main(path, args, chdir):
    """`sys.argv` and `sys.path[0]` as Python sets them for a script; restored after.

    A notebook also runs in its own directory, as a Jupyter kernel starts there.
    """
    program = os.path.abspath(path)
    directory = program if os.path.isdir(program) else os.path.dirname(program)
    saved_argv, saved_path, saved_cwd = sys.argv, list(sys.path), os.getcwd()
    sys.argv = [path, *args]
    sys.path[0:1] = [directory]
    if chdir:
        os.chdir(directory)
    try:
        yield
    finally:
        sys.argv, sys.path[:] = saved_argv, saved_path
        if chdir:
            os.chdir(saved_cwd)


def _run_python(path):
    program = os.path.abspath(path)
    main_file = os.path.join(program, "__main__.py") if os.path.isdir(program) else program
    try:
        if main_file == program:
            _exec_as_main(program)
        else:
            runpy.run_path(path, run_name="__main__")
    except SystemExit:
        raise
    except BaseException as error:
        print_traceback(error, main_file)
        return 130 if isinstance(error, KeyboardInterrupt) else 1
    return 0


def _exec_as_main(program):
    """Executes a .py file as `__main__`, as the interpreter does (`runpy` would change argv[0])."""
    with io.open_code(program) as file:
        code = compile(file.read(), program, "exec")
    main = types.ModuleType("__main__")
    main.__dict__.update(
        __file__=program,
        __builtins__=builtins,
        __loader__=importlib.machinery.SourceFileLoader("__main__", program),
    )
    saved = sys.modules.get("__main__")
    sys.modules["__main__"] = main
    try:
        exec(code, main.__dict__)
    finally:
        sys.modules["__main__"] = saved
