"""Running a legacy program (or notebook) as its own `__main__`, with the shim active.

`run_program` behaves as `python PROGRAM.py ARGS...` would: the program sees
`sys.argv == [PROGRAM.py, *ARGS]`, `__name__ == "__main__"`, its directory
first on `sys.path`; `sys.exit(n)` ends the process with `n`, and an uncaught
exception prints the program's traceback (not the runner's frames) and ends it
with status 1. A `.ipynb` path runs the notebook's code cells instead
(`notebook.py`), in the notebook's directory as a Jupyter kernel would;
`tf1=True` runs the program as TensorFlow 1.x code (`tf1_mode.py`).
`run_module` does the same for `python -m MODULE ARGS...`, how cloud trainer
packages run (`python -m trainer.task --flags`).
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
    program = os.path.abspath(path)
    directory = program if os.path.isdir(program) else os.path.dirname(program)
    with _as_main([path, *args], directory, chdir=is_notebook), mode:
        if is_notebook:
            return notebook.run_notebook(program)
        return _run_python(path)


def run_module(name: str, args: List[str], tf1: bool = False) -> int:
    """Runs module `name` as `python -m NAME ARGS...` would; returns its exit status.

    The module runs as `__main__` inside its package (relative imports work),
    with `sys.argv == [its file, *args]` and the current directory first on
    `sys.path`; a package runs its `__main__` submodule. A module that cannot
    be found ends the run with status 1 and Python's message, without a
    traceback; an exception from the module or its packages' `__init__`
    prints their frames, as `run PROGRAM.py` does.

    Args:
        name: the module's absolute dotted name, e.g. `trainer.task`.
        args: the module's command-line arguments.
        tf1: run TensorFlow 1.x code (see `run_program`).
    """
    tfestimator_compat.install()
    mode = tf1_mode.tf1_imports() if tf1 else contextlib.nullcontext()
    # Python sets argv[0] to "-m" while it finds the module, then to the module's file.
    with _as_main(["-m", *args], os.getcwd(), chdir=False), mode:
        try:
            runpy.run_module(name, run_name="__main__", alter_sys=True)
        except SystemExit:
            raise
        except ImportError as error:
            if not _raised_by_runpy(error):
                return _report_uncaught(error)
            print(f"tfestimator-compat: {error}", file=sys.stderr)
            return 1
        except BaseException as error:
            return _report_uncaught(error)
    return 0


@contextlib.contextmanager
def _as_main(argv, path0, chdir):
    """`sys.argv` and `sys.path[0]` as Python sets them for a program; restored after.

    A notebook also runs in `path0`, its own directory, as a Jupyter kernel starts there.
    """
    saved_argv, saved_path, saved_cwd = sys.argv, list(sys.path), os.getcwd()
    sys.argv = argv
    sys.path[0:1] = [path0]
    if chdir:
        os.chdir(path0)
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
        return _reported(error, main_file)
    return 0


def _reported(error, filename):
    """Prints `error`'s traceback from `filename` on; returns the exit status Python gives."""
    print_traceback(error, filename)
    return 130 if isinstance(error, KeyboardInterrupt) else 1


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


def _raised_by_runpy(error):
    """True for runpy's own "No module named ..." (a missing module, or a package
    without `__main__`), which Python prints without a traceback."""
    traceback = error.__traceback__
    while traceback.tb_next is not None:
        traceback = traceback.tb_next
    return _is_runpy(traceback.tb_frame.f_code)


def _is_runpy(code):
    return code.co_filename == runpy.run_module.__code__.co_filename


def _report_uncaught(error):
    """Prints `error` from the first frame of the program's own code (a module, or
    its package's `__init__`), past the frames of this runner, runpy and importlib."""
    traceback = error.__traceback__
    while traceback is not None and _is_machinery(traceback.tb_frame.f_code):
        traceback = traceback.tb_next
    filename = traceback.tb_frame.f_code.co_filename if traceback else ""
    return _reported(error, filename)


def _is_machinery(code):
    return (
        code.co_filename == __file__
        or _is_runpy(code)
        or code.co_filename.startswith("<frozen ")
        or code.co_filename.startswith(os.path.dirname(importlib.machinery.__file__) + os.sep)
    )
