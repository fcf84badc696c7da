"""tf.estimator for TensorFlow >= 2.16, on Keras 3.

`import tfestimator_compat as estimator` gives the original API names;
`tfestimator_compat.install()` makes them reachable as `tf.estimator`, so
legacy programs run unchanged. On TensorFlow <= 2.15, which still ships
`tf.estimator`, the package leaves it in place and its names are TensorFlow's.
"""

from tfestimator_compat.shim import moved_modules
from tfestimator_compat.shim.requirements import check_tensorflow

moved_modules.install()
check_tensorflow()

from tfestimator_compat.shim import native_estimator

if native_estimator.tensorflow_has_estimator():
    from tfestimator_compat.shim.native_estimator import *  # noqa: F403
    from tfestimator_compat.shim.native_estimator import __all__  # noqa: F401
    from tfestimator_compat.shim.native_estimator import model_to_estimator  # noqa: F401
else:
    from tfestimator_compat.shim.requirements import check_keras

    check_keras()

    from tfestimator_compat.api import *  # noqa: F403
    from tfestimator_compat.api import __all__  # noqa: F401

    # tf.keras.estimator.model_to_estimator, not tf.estimator's: kept out of __all__.
    from tfestimator_compat.api import model_to_estimator  # noqa: F401

__version__ = "0.1.0"

install()  # noqa: F405
