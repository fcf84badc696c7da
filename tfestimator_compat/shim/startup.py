"""Activates tfestimator_compat when a program imports TensorFlow; nothing before that.

`tfestimator-compat enable` copies this file into site-packages (as
`_tfestimator_compat_startup.py`) next to a `.pth` file that imports it at
interpreter start-up, so plain `python old.py` and Jupyter kernels get
`tf.estimator` without an edit. It uses the standard library only and never
imports TensorFlow or this package itself: a program that does not import
TensorFlow pays for one small module and a name check per import.

The hook wraps the loaders of `tensorflow` and `keras`. When the outermost of
the two finishes importing, it imports `tfestimator_compat`, whose import
installs the shim. Waiting for the outermost matters: `import keras` imports
TensorFlow half-way through its own initialization, and the shim needs a
whole Keras.

Set `TFESTIMATOR_COMPAT_AUTO=0` in the environment to turn the hook off for
one run. Once the package is uninstalled (its directory, which the `.pth`
line names, is gone), the hook deletes its two files at the next start-up
rather than cost every later interpreter its import.
"""

import importlib.abc
import os
import sys
import warnings

_WATCHED = ("tensorflow", "keras")
_PACKAGE = "tfestimator_compat"
_SWITCH = "TFESTIMATOR_COMPAT_AUTO"
# The `.pth` file beside this module (`auto_activation.PTH_NAME`).
_PTH_NAME = "tfestimator_compat_autoactivate.pth"


class _Activator(importlib.abc.MetaPathFinder):
    """Finds nothing itself; hands the watched packages a loader that activates after them."""

    def __init__(self):
        self._loading = set()
        self._done = False

    def find_spec(self, fullname, path=None, target=None):
        if self._done or fullname not in _WATCHED:
            return None
        spec = _spec_from_others(self, fullname, path, target)
        if spec is None or spec.loader is None:
            return spec
        spec.loader = _ActivatingLoader(self, spec.loader)
        return spec

    def started(self, fullname):
        self._loading.add(fullname)

    def failed(self, fullname):
        self._loading.discard(fullname)

    def finished(self, fullname):
        self._loading.discard(fullname)
        if self._done or self._loading or "tensorflow" not in sys.modules:
            return
        self._done = True
        _remove(self)
        if _needs_shim():
            _activate()


class _ActivatingLoader(importlib.abc.Loader):
    """Runs the real loader, then tells the activator the module is complete."""

    def __init__(self, activator, loader):
        self._activator = activator
        self._loader = loader

    def __getattr__(self, name):
        return getattr(self._loader, name)

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module):
        module.__loader__ = self._loader
        if module.__spec__ is not None:
            module.__spec__.loader = self._loader
        self._activator.started(module.__name__)
        try:
            self._loader.exec_module(module)
        except BaseException:
            self._activator.failed(module.__name__)
            raise
        self._activator.finished(module.__name__)


def _spec_from_others(activator, fullname, path, target):
    for finder in sys.meta_path:
        if finder is activator:
            continue
        find_spec = getattr(finder, "find_spec", None)
        if find_spec is None:
            continue
        spec = find_spec(fullname, path, target)
        if spec is not None:
            return spec
    return None


def _needs_shim():
    """True when the imported TensorFlow has no `tf.estimator` of its own (>= 2.16)."""
    return "estimator" not in vars(sys.modules["tensorflow"])


def _activate():
    try:
        __import__(_PACKAGE)
    except ModuleNotFoundError as error:
        if error.name == _PACKAGE:
            return  # the package was uninstalled and left the hook behind
        _warn(error)
    except Exception as error:  # a broken shim must not break the program's import
        _warn(error)


def _warn(error):
    warnings.warn(
        f"tfestimator_compat could not activate tf.estimator: {error!r}. "
        "Run `tfestimator-compat disable` to stop this start-up hook.",
        RuntimeWarning,
        stacklevel=2,
    )


def _remove(activator):
    if activator in sys.meta_path:
        sys.meta_path.remove(activator)


def _remove_hook_files():
    """Deletes the `.pth` file and this module (best effort: a read-only
    site-packages keeps them, and they stay harmless)."""
    directory = os.path.dirname(os.path.abspath(__file__))
    paths = [os.path.join(directory, _PTH_NAME), __file__, globals().get("__cached__")]
    for path in paths:
        try:
            os.remove(path)
        except (OSError, TypeError):  # TypeError: no cached bytecode (None)
            pass


def install(package_dir=None):
    """Activates now if TensorFlow is already imported, else when it is.

    `package_dir` is where `enable` found the package; when it is gone, the
    package was uninstalled and the hook removes itself instead.
    """
    if os.environ.get(_SWITCH, "1") == "0":
        return
    if package_dir is not None and not os.path.isdir(package_dir):
        _remove_hook_files()
        return
    activate_on_import()


def activate_on_import():
    """Activates now if TensorFlow is already imported, else when it is, whatever the switch.

    `tfestimator-compat run` asks for the shim explicitly: its notebook kernel
    activates through here.
    """
    if "tensorflow" in sys.modules:
        if _needs_shim():
            _activate()
        return
    if not any(isinstance(finder, _Activator) for finder in sys.meta_path):
        sys.meta_path.insert(0, _Activator())
