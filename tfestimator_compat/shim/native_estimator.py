"""TensorFlow <= 2.15 ships its own `tf.estimator`: there the package steps aside.

A code base that adds `import tfestimator_compat` (or runs through
`tfestimator-compat run`) before it moves to TensorFlow 2.16 must keep running
on the TensorFlow it has. Those versions have the original estimator and
Keras 2, which this package's Keras 3 engine cannot share a process with, so
the package leaves `tf.estimator` in place, says so once at INFO, and gives
the original's names as its own: `tfestimator_compat.Estimator` is
`tf.estimator.Estimator`.
"""

import tensorflow as tf

from tfestimator_compat.engine import process_state
from tfestimator_compat.shim.requirements import major_minor

FIRST_VERSION_WITHOUT_ESTIMATOR = (2, 16)


def tensorflow_has_estimator() -> bool:
    """True on the TensorFlow versions that still ship `tf.estimator` (2.15 and older)."""
    return major_minor(tf.__version__) < FIRST_VERSION_WITHOUT_ESTIMATOR


def announce():
    """Logs, once per process, that TensorFlow's own estimator is in use."""
    if process_state.warn_once("tensorflow-has-its-own-estimator"):
        tf.get_logger().info(
            "TensorFlow %s ships its own tf.estimator: tfestimator_compat leaves it in place "
            "(the shim takes over from TensorFlow 2.16).",
            tf.__version__,
        )


def install(force: bool = False):
    """Leaves TensorFlow's own `tf.estimator` in place; returns None as nothing is installed."""
    if force:
        raise RuntimeError(
            f"install(force=True) needs TensorFlow >= 2.16: TensorFlow {tf.__version__} has "
            "Keras 2, which the shim's Keras 3 engine cannot run beside. Its own tf.estimator "
            "is already there."
        )
    announce()
    return None


def _native_names():
    """tf.estimator's public names, and tf.keras.estimator's model_to_estimator."""
    names = {name: getattr(tf.estimator, name) for name in dir(tf.estimator) if name[0] != "_"}
    keras_estimator = getattr(tf.keras, "estimator", None)
    names["model_to_estimator"] = getattr(keras_estimator, "model_to_estimator", None)
    return names


if tensorflow_has_estimator():
    _names = _native_names()
    globals().update(_names)
    __all__ = sorted({*_names, "install"} - {"model_to_estimator"})
else:
    __all__ = ["install"]
