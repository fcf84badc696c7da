"""A Jupyter kernel with the shim active.

Run as `python .../command/kernel_launcher.py [--tf1] -f CONN` (by path, not
with `-m`: `-m` would run the package's `__init__`, which imports TensorFlow).

`tfestimator-compat run notebook.ipynb` starts this instead of the plain
IPython kernel. TensorFlow is imported after the kernel has put its own
`sys.stdout` in place and become interactive, as in Jupyter where a cell
imports it: TensorFlow's logger then logs at INFO to that stdout, so its
lines land in the cell that logs them. Without `--tf1` the notebook's own
`import tensorflow` imports it and activates the shim (the start-up hook's
mechanism), so the kernel is ready without waiting for TensorFlow. With
`--tf1` TensorFlow is imported before the first cell, and the notebook's
imports of it give `tf.compat.v1`, as `run --tf1` gives a program. The
cells' `sys.argv` is the notebook path and the arguments given to `run`.
"""

import importlib.util
import json
import os
import sys

NOTEBOOK_ARGV = "TFESTIMATOR_COMPAT_NOTEBOOK_ARGV"
_PACKAGE = "tfestimator_compat"
_PACKAGE_PARENT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_TF1_IMPORTS = None


def kernel_argv(tf1: bool = False) -> list:
    """The command that starts this kernel, with `{connection_file}` for Jupyter to fill in."""
    argv = [sys.executable, os.path.abspath(__file__)]
    return [*argv, *(["--tf1"] if tf1 else []), "-f", "{connection_file}"]


def main(argv):
    tf1 = bool(argv) and argv[0] == "--tf1"
    _as_module_run()
    from ipykernel.kernelapp import IPKernelApp

    if NOTEBOOK_ARGV in os.environ:
        # The notebook's cells see `sys.argv` as a program run with these arguments would.
        sys.argv = json.loads(os.environ.pop(NOTEBOOK_ARGV))
    app = IPKernelApp.instance()
    app.initialize(argv[1:] if tf1 else argv)
    if tf1:
        _enter_tf1_mode()
    else:
        _activate_shim_on_import()
    app.start()


def _as_module_run():
    """`sys.path` as `python -m` gives a kernel: the working directory first, not this folder.

    The package stays importable when only the `run` that started the kernel
    could see it (a source checkout): its folder goes last.
    """
    sys.path[0] = os.getcwd()
    if importlib.util.find_spec(_PACKAGE) is None:
        sys.path.append(_PACKAGE_PARENT)


def _activate_shim_on_import():
    """Installs the start-up hook's import watcher, which imports the shim after TensorFlow."""
    path = os.path.join(_PACKAGE_PARENT, _PACKAGE, "shim", "startup.py")
    spec = importlib.util.spec_from_file_location("_tfestimator_compat_kernel_startup", path)
    startup = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(startup)
    startup.activate_on_import()


def _enter_tf1_mode():
    import tfestimator_compat
    from tfestimator_compat.command import tf1_mode

    tfestimator_compat.install()
    global _TF1_IMPORTS  # kept: a collected context manager would undo itself
    _TF1_IMPORTS = tf1_mode.tf1_imports()
    _TF1_IMPORTS.__enter__()  # for the kernel's whole life


if __name__ == "__main__":
    main(sys.argv[1:])
