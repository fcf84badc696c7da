"""Making the shim reachable as `tf.estimator`, where TensorFlow no longer has it.

`import tfestimator_compat` calls `install()`. On TensorFlow >= 2.16 it puts
this package's API everywhere legacy code looks for it:

- `tf.estimator` (`import tensorflow.estimator`, `from tensorflow import estimator`),
  with `tf.estimator.export` and `tf.estimator.experimental`;
- `tf.compat.v1.estimator`, with the V1 canned estimators (`canned.v1`), also
  `inputs`, on both the `tf.compat.v1` attribute
  and the `tensorflow.compat.v1` module (`import tensorflow.compat.v1 as tf`),
  and as `tf.compat.v2.compat.v1.estimator`;
- the old package: `import tensorflow_estimator`, `tensorflow_estimator.estimator`;
- `tf.keras.estimator.model_to_estimator`, once the package provides it;
- a working `tf.compat.v1.layers`, once the package provides it;
- the Keras 2 pieces estimator code used (`tf.keras.optimizers.legacy`, ...);
- the private module paths TF 1.x programs imported from
  (`tensorflow.python.estimator.model_fn`, ...), as aliases.

Each namespace is built from the `__all__` of the module that holds its
names, so a name added there appears under `tf.estimator` too. A TensorFlow
that still ships its own estimator keeps it, unless `install(force=True)`.
"""

import importlib
import sys
import types
from typing import Iterable
from typing import Optional

import tensorflow as tf

from tfestimator_compat.shim import lazy

_MARKER = "_tfestimator_compat"
_NOT_API = frozenset({"install"})
_namespaces = {}


def install(package: types.ModuleType, force: bool = False) -> Optional[types.ModuleType]:
    """Sets `tf.estimator`, `tf.compat.v1.estimator` and the old import paths to `package`.

    Does nothing on a TensorFlow that still ships its own estimator, unless
    `force=True`. Safe to call more than once: every call refreshes the same
    module objects from the package's current names. The package hands
    itself in (`tfestimator_compat.install()`), so the installer imports
    nothing above it.

    Args:
        package: `tfestimator_compat`, whose `__all__` fills `tf.estimator`.
        force: install even over a TensorFlow that has its own `tf.estimator`.

    Returns:
        The module installed as `tf.estimator`, or None when nothing was installed.

    Example:

    ```python
    import tensorflow as tf
    import tfestimator_compat

    tfestimator_compat.install()  # already done by the import
    estimator = tf.estimator.Estimator(model_fn)
    ```
    """
    current = _own_estimator()
    if current is not None and not getattr(current, _MARKER, False) and not force:
        return None
    v2, v1 = _build_namespaces(package)
    compat_v1, compat_v2 = _compat_modules()
    _set_everywhere([tf, *compat_v2], "estimator", v2)
    _set_everywhere(compat_v1, "estimator", v1)
    _register("tensorflow.estimator", v2)
    _register("tensorflow.compat.v2.estimator", v2)
    _register("tensorflow.compat.v1.estimator", v1)
    for outer in ("v1", "v2"):  # `import tensorflow.compat.v2.compat.v1.estimator`
        _register(f"tensorflow.compat.{outer}.compat.v2.estimator", v2)
        _register(f"tensorflow.compat.{outer}.compat.v1.estimator", v1)
    _register("tensorflow_estimator.estimator", v1)
    legacy = _namespace("tensorflow_estimator", "The tensorflow_estimator package, as before.")
    legacy.estimator = v1
    sys.modules["tensorflow_estimator"] = legacy
    _install_keras_estimator(compat_v1, package)
    _install_layers_v1()
    _install_keras_legacy()
    _install_module_paths()
    return v2


def _own_estimator():
    """`tf.estimator` as it is now (TensorFlow's own, or ours), or None."""
    try:
        return getattr(tf, "estimator", None)
    except (AttributeError, ImportError):
        return None


def _namespace(name, doc):
    """A module object kept across `install()` calls, so `tf.estimator` stays one object."""
    if name not in _namespaces:
        module = lazy.Namespace(name, doc)
        setattr(module, _MARKER, True)
        _namespaces[name] = module
    return _namespaces[name]


def _fill(namespace, source, overrides=()):
    """Makes the public names of `source` (its `__all__`) the names of `namespace`, and only those.

    Each is read from `source` when first used (`lazy.Namespace`), so
    installing imports none of the modules behind the names. `overrides` are
    `(module name, names)` that replace their namesakes, read from that module.
    """
    names = getattr(source, "__all__", None)
    if names is None:
        names = [name for name in vars(source) if not name.startswith("_")]
    names = set(names) - _NOT_API
    namespace.__all__ = namespace.provide([(source, names), *overrides])
    return namespace


def _build_namespaces(package):
    """`tf.estimator` (v2) and `tf.compat.v1.estimator` (v1, with `inputs` and `tpu`)."""
    from tfestimator_compat import experimental
    from tfestimator_compat import experimental_v1
    from tfestimator_compat import export
    from tfestimator_compat import inputs
    from tfestimator_compat.shim.api_surface import source_names

    doc = "tf.estimator, provided by tfestimator_compat."
    v2 = _fill(_namespace("tensorflow.estimator", doc), package)
    # The canned estimators of TF1 (SUM loss, TF1 optimizers) replace their V2 namesakes;
    # their names are read from the module's source, which is imported when one is used.
    canned_v1 = "tfestimator_compat.canned.v1"
    v1_overrides = [(canned_v1, source_names.declared_all(canned_v1))]
    v1 = _fill(_namespace("tensorflow.compat.v1.estimator", doc), package, v1_overrides)
    v2.export = v1.export = _fill(_namespace("tensorflow.estimator.export", export.__doc__), export)
    v2.experimental = _fill(
        _namespace("tensorflow.estimator.experimental", experimental.__doc__), experimental
    )
    v1.experimental = _fill(
        _namespace("tensorflow.compat.v1.estimator.experimental", experimental_v1.__doc__),
        experimental_v1,
    )
    v1.inputs = _fill(_namespace("tensorflow.compat.v1.estimator.inputs", inputs.__doc__), inputs)
    try:
        tpu = importlib.import_module("tfestimator_compat.tpu")
    except ImportError:
        tpu = None
    if hasattr(tpu, "__all__"):
        v1.tpu = _fill(_namespace("tensorflow.compat.v1.estimator.tpu", tpu.__doc__), tpu)
    return v2, v1


def _compat_modules():
    """Every object legacy code may reach as `tf.compat.v1` and as `tf.compat.v2`.

    `import tensorflow.compat.v1` creates a module object of its own and
    rebinds `tf.compat.v1` to it, while code that read `tf.compat.v1` before
    keeps the first one. Importing both now fixes the objects that later
    imports find; the earlier ones get the names too.
    """
    # Here, not at the top: a TensorFlow <= 2.15 (which `install` leaves alone)
    # lacks internals the boundary resolves as it is imported.
    from tfestimator_compat.engine.internals import tensorflow_internals as tf_internals

    found = {"v1": [], "v2": []}
    for version in found:
        found[version].append(getattr(tf.compat, version))
        found[version].append(tf_internals.loaded_compat_api_module(version))
        found[version].append(importlib.import_module(f"tensorflow.compat.{version}"))
        found[version].append(getattr(tf.compat, version))
    # `tf.compat.v1.compat.v1` (TF 1.15 code reached it) and `tf.compat.v2.compat.v1`
    # (code written for both TF 1.15 and 2.x), and their `compat.v2` twins.
    outer = found["v1"] + found["v2"]
    for version in found:
        found[version] += [getattr(getattr(api, "compat", None), version, None) for api in outer]
    return _unique(found["v1"]), _unique(found["v2"])


def _unique(modules: Iterable) -> list:
    seen, result = set(), []
    for module in modules:
        if module is not None and id(module) not in seen:
            seen.add(id(module))
            result.append(module)
    return result


def _set_everywhere(modules, name, value):
    for module in modules:
        setattr(module, name, value)


def _register(name, namespace):
    """Makes `import NAME` and `import NAME.<subpackage>` find `namespace`."""
    sys.modules[name] = namespace
    for attribute, value in vars(namespace).items():
        if isinstance(value, types.ModuleType) and getattr(value, _MARKER, False):
            sys.modules[f"{name}.{attribute}"] = value


def _install_keras_estimator(compat_v1, package):
    """`tf.keras.estimator.model_to_estimator`, where the package has `model_to_estimator`."""
    from tfestimator_compat.engine.internals import keras_internals

    if "model_to_estimator" not in dir(package):  # read when first used, not here
        return
    namespace = _namespace("tensorflow.keras.estimator", "tf.keras.estimator.")
    namespace.__all__ = namespace.provide([(package, ["model_to_estimator"])])
    kerases = [tf.keras, keras_internals.loaded_tf_keras_namespace()]
    for module in compat_v1:
        try:
            kerases.append(module.keras)
        except (AttributeError, ImportError):
            pass
    _set_everywhere(_unique(kerases), "estimator", namespace)
    sys.modules["tensorflow.keras.estimator"] = namespace


def _install_layers_v1():
    try:
        from tfestimator_compat.legacy import layers_v1
    except ImportError:
        return
    layers_v1.install()


def _install_keras_legacy():
    """The Keras 2 pieces estimator code used: `tf.keras.optimizers.legacy`, ..."""
    from tfestimator_compat.legacy import keras2

    keras2.install()


def _install_module_paths():
    """`tensorflow.python.estimator.*` and `tensorflow_estimator.python.estimator.*` as
    aliases, and errors naming what the original had and the shim lacks."""
    from tfestimator_compat.shim.api_surface import estimator_modules
    from tfestimator_compat.shim.api_surface import missing

    estimator_modules.install(missing.not_provided)
    missing.install_hooks(_namespaces.values())
