"""A Jupyter kernel with the shim active.

Run as `python -m tfestimator_compat.command.kernel_launcher -f CONN`.

`tfestimator-compat run notebook.ipynb` starts this instead of the plain
IPython kernel, so the notebook's `import tensorflow as tf` finds
`tf.estimator`. With `--tf1` first, the notebook's own imports of TensorFlow
give `tf.compat.v1`, as `run --tf1` gives a program. The cells' `sys.argv`
is the notebook path and the arguments given to `run`.
"""

import json
import os
import sys

NOTEBOOK_ARGV = "TFESTIMATOR_COMPAT_NOTEBOOK_ARGV"
_TF1_IMPORTS = None


def main(argv):
    tf1 = bool(argv) and argv[0] == "--tf1"
    kernel_argv = argv[1:] if tf1 else argv
    import tfestimator_compat

    tfestimator_compat.install()
    if tf1:
        from tfestimator_compat.command import tf1_mode

        global _TF1_IMPORTS  # kept: a collected context manager would undo itself
        _TF1_IMPORTS = tf1_mode.tf1_imports()
        _TF1_IMPORTS.__enter__()  # for the kernel's whole life
    from ipykernel import kernelapp

    if NOTEBOOK_ARGV in os.environ:
        # The notebook's cells see `sys.argv` as a program run with these arguments would.
        sys.argv = json.loads(os.environ.pop(NOTEBOOK_ARGV))

    kernelapp.launch_new_instance(argv=kernel_argv)


if __name__ == "__main__":
    main(sys.argv[1:])
