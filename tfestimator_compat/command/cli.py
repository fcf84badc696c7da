"""The `tfestimator-compat` command (also `python -m tfestimator_compat`).

- `run [--tf1] PROGRAM.py|NOTEBOOK.ipynb [ARGS...]`: run a legacy program unchanged;
  `run [--tf1] -m MODULE [ARGS...]` runs a module as `python -m MODULE` does.
- `check PATH... [--format json]`: report what a migration will meet.
- `enable` / `disable` / `status [--site-dir DIR]`: the start-up hook that
  activates the shim in every Python of this environment that imports TensorFlow.

Only `run` imports TensorFlow, and only once it starts a program: every other
command (and `run --help`) answers in a fraction of a second.
"""

import argparse
import os
import sys
from typing import List
from typing import Optional
from typing import Tuple

from tfestimator_compat.command import check
from tfestimator_compat.shim import auto_enable

_PACKAGE = "tfestimator_compat"
_PROG = "tfestimator-compat"
_DISTRIBUTION = "tfestimator-compat"
_RUN_OPTIONS_WITH_VALUE = ("--output",)
_RUN_FLAGS = ("--tf1",)


class _VersionAction(argparse.Action):
    """`--version`, which reads the installed version only when asked (no import of the package)."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, **kwargs):
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        import importlib.metadata  # a tenth of a second: only for --version

        try:
            version = importlib.metadata.version(_DISTRIBUTION)
        except importlib.metadata.PackageNotFoundError:
            version = "(not installed: imported from a source tree)"
        print(f"{_PROG} {version}")
        parser.exit()


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=_PROG,
        description="Run legacy tf.estimator programs on TensorFlow >= 2.16.",
    )
    parser.add_argument("--version", action=_VersionAction, help="print the version and exit")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    run = commands.add_parser(
        "run",
        help="run a program or notebook with tf.estimator available",
        description=(
            "Run PROGRAM as `python PROGRAM ARGS...` would, with tf.estimator available "
            "(`-m MODULE` as `python -m MODULE ARGS...` would). A .ipynb notebook runs on a "
            "Jupyter kernel with the shim active (the `notebook` extra), cell by cell. "
            "Options go before PROGRAM or -m MODULE (before or after a notebook); everything "
            "else after it is the program's."
        ),
    )
    run.add_argument(
        "--tf1",
        action="store_true",
        help="the program is TensorFlow 1.x code: its `import tensorflow` gives tf.compat.v1, "
        "in graph mode",
    )
    run.add_argument(
        "--output",
        metavar="EXECUTED.ipynb",
        help="for a notebook: write it, executed, with its outputs and figures",
    )
    target = run.add_mutually_exclusive_group(required=True)
    target.add_argument(
        "-m",
        dest="module",
        metavar="MODULE",
        help="run a module of a package, as `python -m MODULE` (e.g. `-m trainer.task`)",
    )
    target.add_argument("program", nargs="?", help="path to the .py program or .ipynb notebook")
    run.add_argument("args", nargs="*", metavar="ARGS", help="arguments for the program")
    check.add_check_arguments(
        commands.add_parser("check", help="report what legacy code needs to migrate")
    )
    for name, text in (
        ("enable", "activate the shim in every Python of this environment that imports TF"),
        ("disable", "remove the start-up hook that `enable` installed"),
        ("status", "tell whether the start-up hook is installed"),
    ):
        command = commands.add_parser(name, help=text, description=text)
        command.add_argument(
            "--site-dir",
            help="the site directory for the hook (default: this environment's site-packages, "
            f"{auto_enable.default_site_dir()})",
        )
    return parser


def _split_run(argv: List[str]) -> Tuple[List[str], List[str]]:
    """`run`'s own options up to the program path, and the program's arguments.

    Everything after a program's path (or `-m MODULE`) belongs to the program,
    even `--help`; after a notebook's, `run`'s own options are still taken
    (`_notebook_options`).
    """
    index = 1
    while index < len(argv):
        if argv[index] == "--":
            return [*argv[:index], *argv[index + 1 : index + 2]], argv[index + 2 :]
        if argv[index] == "-m":
            return argv[: index + 2], argv[index + 2 :]
        if argv[index].startswith("-m"):  # `-mtrainer.task`, as Python takes it
            return argv[: index + 1], argv[index + 1 :]
        if argv[index] in _RUN_OPTIONS_WITH_VALUE:
            index += 2
            continue
        if not argv[index].startswith("-"):
            if argv[index].endswith(".ipynb"):
                return _notebook_options(argv[: index + 1], argv[index + 1 :])
            return argv[: index + 1], argv[index + 1 :]
        index += 1
    return argv, []


def _notebook_options(own: List[str], after: List[str]) -> Tuple[List[str], List[str]]:
    """`run`'s options found after a notebook, kept for `run`; the rest are the notebook's.

    A notebook is opened, not typed after a command, so `run nb.ipynb --output
    out.ipynb` means the option. Its cells still see the other arguments in
    `sys.argv`, and all of those after a `--`.
    """
    options, args = [], []
    index = 0
    while index < len(after):
        arg = after[index]
        if arg == "--":
            args += after[index + 1 :]
            break
        if arg in _RUN_OPTIONS_WITH_VALUE:
            options += after[index : index + 2]
            index += 2
            continue
        if arg in _RUN_FLAGS or arg.partition("=")[0] in _RUN_OPTIONS_WITH_VALUE:
            options.append(arg)
        else:
            args.append(arg)
        index += 1
    return [*own, *options], args


def main(argv: Optional[List[str]] = None) -> int:
    """Runs the command in `argv` (default `sys.argv[1:]`); returns the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    program_args = []
    if argv and argv[0] == "run":
        argv, program_args = _split_run(argv)
    options = _parser().parse_args(argv)
    if options.command == "run" and _runs_on_a_kernel(options.program):
        from tfestimator_compat.command import notebook_kernel

        return notebook_kernel.run_notebook(
            options.program, program_args, output=options.output, tf1=options.tf1
        )
    if options.command == "run":
        return _run(options, program_args)
    if options.command == "check":
        return check.run_check(options)
    return _hook_command(options.command, options.site_dir)


def _run(options: argparse.Namespace, program_args: List[str]) -> int:
    _import_the_shim()
    from tfestimator_compat.command import runner

    if options.module is None:
        return runner.run_program(
            options.program, program_args, tf1=options.tf1, output=options.output
        )
    if options.output:
        print(f"{_PROG}: --output is for notebooks (.ipynb) only", file=sys.stderr)
        return 2
    return runner.run_module(options.module, program_args, tf1=options.tf1)


def _import_the_shim() -> None:
    """Completes `import tfestimator_compat`, which imports TensorFlow and installs the shim.

    The console script (`tfestimator_compat_command.py`) registers the package
    without running its `__init__`, so that no command but `run` waits for
    TensorFlow; `run` runs it here, before the program starts. Under
    `python -m tfestimator_compat` the package is already imported whole.
    """
    package = sys.modules[_PACKAGE]
    if not hasattr(package, "install"):
        package.__spec__.loader.exec_module(package)


def _runs_on_a_kernel(program: Optional[str]) -> bool:
    """A notebook for a Jupyter kernel: the kernel imports TensorFlow and the shim, not `run`.

    Importing them here too would cost a second TensorFlow start-up before the
    kernel even starts.
    """
    from tfestimator_compat.command import notebook_kernel

    if program is None or not program.endswith(".ipynb") or not os.path.isfile(program):
        return False
    return notebook_kernel.available()


def _hook_command(command: str, site_dir: Optional[str]) -> int:
    paths = auto_enable.hook_files(site_dir)
    where = f" --site-dir {site_dir}" if site_dir else ""
    try:
        if command == "enable":
            auto_enable.enable(site_dir)
            print("Wrote:\n" + "".join(f"  {path}\n" for path in paths), end="")
            print(
                "Python in this environment now activates tf.estimator when a program imports "
                f"TensorFlow (TFESTIMATOR_COMPAT_AUTO=0 skips it). Undo: {_PROG} disable{where}"
            )
        elif command == "disable":
            removed = auto_enable.disable(site_dir)
            if removed:
                print("Removed:\n" + "".join(f"  {path}\n" for path in removed), end="")
            else:
                print(
                    f"The start-up hook is not installed in {paths[0].parent}: nothing to remove."
                )
        else:
            state = auto_enable.status(site_dir)
            print(f"{state}: start-up hook in {paths[0].parent}")
            if state == "outdated":
                print(f"Run `{_PROG} enable{where}` to update it.")
    except OSError as error:
        print(
            f"{_PROG} {command}: {error}. Use a virtual environment you can write to, "
            "or --site-dir.",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
