"""What the package needs at import time, checked before anything imports it.

TensorFlow is not a hard requirement of the distribution (installing the
package must not replace the TensorFlow wheel an environment already has:
`tensorflow-cpu`, `tensorflow[and-cuda]`, `tensorflow-macos`, `tf-nightly`),
so an environment without one gets this error instead of a bare
`ModuleNotFoundError`.
"""

import importlib.util
import re

INSTALL_HINT = (
    "tfestimator_compat needs TensorFlow >= 2.16, and this environment has none. "
    "Install one: pip install 'tfestimator-compat[tensorflow]' (or [cpu] for "
    "tensorflow-cpu), or pip install tensorflow."
)


def check_tensorflow():
    """Raises ImportError with an install hint when TensorFlow cannot be imported."""
    try:
        found = importlib.util.find_spec("tensorflow") is not None
    except (ImportError, ValueError):  # a None entry in sys.modules, say
        found = False
    if not found:
        raise ImportError(INSTALL_HINT, name="tensorflow")


# Older Keras 3 releases (3.0-3.6, which TensorFlow 2.16 accepts) make Keras
# metric variables global and create layer variables from tensors, so
# canned-estimator checkpoints and Keras layers in a model_fn fail there.
MINIMUM_KERAS = (3, 7)


def major_minor(version: str) -> tuple:
    """(major, minor) of a version string such as '2.15.1', '2.16.0rc0' or '3.7.0.dev1'."""
    return tuple(int(part) for part in re.findall(r"\d+", version)[:2])


def check_keras(version=None):
    """Raises ImportError naming the upgrade when Keras is older than `MINIMUM_KERAS`."""
    if version is None:
        import keras

        version = keras.__version__
    if major_minor(version) < MINIMUM_KERAS:
        wanted = ".".join(map(str, MINIMUM_KERAS))
        raise ImportError(
            f"tfestimator_compat needs Keras >= {wanted} with TensorFlow >= 2.16, and this "
            f"environment has Keras {version}. Upgrade it: pip install 'keras>={wanted}'.",
            name="keras",
        )
