"""tf.estimator for TensorFlow >= 2.16, on Keras 3.

`import tfestimator_compat as estimator` gives the original API names;
`tfestimator_compat.install()` makes them reachable as `tf.estimator`, so
legacy programs run unchanged. On TensorFlow <= 2.15, which still ships
`tf.estimator`, the package leaves it in place and its names are TensorFlow's.
"""

import sys

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

    from tfestimator_compat import api
    from tfestimator_compat.shim import installer
    from tfestimator_compat.shim import lazy

    # Each name imports its module when first read (`api.SOURCES`), so a
    # program pays only for the pieces it uses.
    __getattr__, __dir__ = lazy.attributes(__name__, api.SOURCES)

    def install(force: bool = False):
        """Makes this package `tf.estimator`, `tf.compat.v1.estimator` and the old import paths.

        `import tfestimator_compat` already called it. Does nothing on a
        TensorFlow that still ships its own estimator, unless `force=True`;
        safe to call again (it refreshes the same namespaces from `__all__`).
        Returns the module installed as `tf.estimator`, or None.
        """
        return installer.install(sys.modules[__name__], force=force)

    __all__ = sorted([*api.__all__, "install"])

__version__ = "0.1.0"

install()  # noqa: F405
