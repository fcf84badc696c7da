"""Making the shim reachable as `tf.estimator`, where TensorFlow no longer has it."""

import sys
import types

import tensorflow as tf

from tfestimator_compat import experimental
from tfestimator_compat import export


def _estimator_module():
    """A module object holding the public API, as `tf.estimator` did."""
    import tfestimator_compat

    module = types.ModuleType(
        "tensorflow.estimator", "tf.estimator, provided by tfestimator_compat."
    )
    for name in tfestimator_compat.__all__:
        if name != "install":
            setattr(module, name, getattr(tfestimator_compat, name))
    module.experimental = experimental
    module.export = export
    return module


def _has_own_estimator():
    try:
        return getattr(tf, "estimator", None) is not None
    except (AttributeError, ImportError):
        return False


def install(force=False):
    """Sets `tf.estimator` and `tf.compat.v1.estimator` to this package's API.

    Does nothing on a TensorFlow that still ships its own estimator, unless
    `force=True`. Safe to call more than once. Returns the module installed, or
    None when nothing was installed.
    """
    if _has_own_estimator() and not force:
        current = tf.estimator
        return current if getattr(current, "__doc__", "").endswith("tfestimator_compat.") else None
    module = _estimator_module()
    tf.estimator = module
    tf.compat.v1.estimator = module
    sys.modules["tensorflow.estimator"] = module
    return module
