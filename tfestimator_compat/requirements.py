"""What the package needs at import time, checked before anything imports it.

TensorFlow is not a hard requirement of the distribution (installing the
package must not replace the TensorFlow wheel an environment already has:
`tensorflow-cpu`, `tensorflow[and-cuda]`, `tensorflow-macos`, `tf-nightly`),
so an environment without one gets this error instead of a bare
`ModuleNotFoundError`.
"""

import importlib.util

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
