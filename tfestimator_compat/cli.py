"""`tfestimator-compat run PROGRAM.py [ARGS...]`: run a legacy program with the shim active."""

import argparse
import os
import runpy
import sys


def run_program(path, args):
    """Runs `path` as `__main__` with `sys.argv = [path, *args]`, tf.estimator installed.

    The program's directory comes first on `sys.path`, as `python PROGRAM.py`
    would put it, so its sibling modules import.
    """
    from tfestimator_compat.activation import install

    install()
    program_dir = os.path.dirname(os.path.abspath(path))
    saved_argv, saved_path = sys.argv, list(sys.path)
    sys.argv = [path, *args]
    sys.path.insert(0, program_dir)
    try:
        runpy.run_path(path, run_name="__main__")
    finally:
        sys.argv, sys.path[:] = saved_argv, saved_path


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="tfestimator-compat",
        description="Run legacy tf.estimator programs on TensorFlow >= 2.16.",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run", help="run a Python program with tf.estimator available")
    run.add_argument("program", help="path to the .py program")
    run.add_argument("args", nargs=argparse.REMAINDER, help="arguments for the program")
    options = parser.parse_args(argv)
    run_program(options.program, options.args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
