"""The module paths TF 1.x programs imported estimator names from, as aliases.

`from tensorflow.python.estimator.model_fn import ModeKeys` and
`from tensorflow_estimator.python.estimator.canned import dnn` were how TF 1.x
code (and some 2.x code) reached the estimator. `estimator_modules.json`
(written from tensorflow-estimator 2.15 by `make_estimator_modules.py`) lists
the public names each of those modules held and the public API name each one
had; `install()` registers every module under both prefixes, resolving each
name to the shim's public object (`tf.estimator.DNNClassifier` for
`canned.dnn.DNNClassifierV2`) when first read. A name the shim lacks raises
`NotProvidedError`, naming it and the migration guide page.

Libraries built on tf.estimator also imported names the generated table
leaves out, private ones (`canned.head._Head`) and ones a module took from
TensorFlow (`util.fn_args`), and names it cannot place (the shim's object has
another name in another module). `library_names.json`, written by hand from a
survey of public code, lists them per module with the shim's object for each
(`"package.module:attribute"`), or null where the shim lacks it; its entries
win over the generated table's. Any other private name of the original's
(`estimator_private_names.json`, generated too) raises `NotProvidedError`.
"""

from __future__ import annotations

import functools
import importlib
import json
import os
import sys
import types

from tfestimator_compat.shim.api_surface import source_names
from tfestimator_compat.shim.api_surface.estimator_names import ESTIMATOR_SYMBOLS
from tfestimator_compat.shim.api_surface.symbol import SUPPORTED

PREFIXES = ("tensorflow.python.estimator", "tensorflow_estimator.python.estimator")
_HERE = os.path.dirname(os.path.abspath(__file__))
_MARKER = "_tfestimator_compat_alias"


@functools.cache
def original_names() -> dict:
    """`{module relative to the prefix: {name: "v2:estimator.X" | "v1:..." | "module:M"}}`."""
    with open(os.path.join(_HERE, "estimator_modules.json")) as f:
        return json.load(f)


@functools.cache
def library_names() -> dict:
    """`{module: {name: "package.module:attribute" | None}}`: names libraries imported
    that `original_names()` leaves out (private ones), and where the shim has each."""
    with open(os.path.join(_HERE, "library_names.json")) as f:
        return json.load(f)


@functools.cache
def private_names() -> dict:
    """`{module: [name, ...]}`: every private name the original's modules held (generated)."""
    with open(os.path.join(_HERE, "estimator_private_names.json")) as f:
        return {module: frozenset(names) for module, names in json.load(f).items()}


def known(module: str, name: str) -> bool:
    """Whether the original's `module` had `name`, as far as the tables know."""
    return (
        name in original_names().get(module, {})
        or name in library_names().get(module, {})
        or name in private_names().get(module, ())
    )


def resolve(module: str, name: str):
    """The shim's object for `name` of the original's `module`, or None."""
    if name in library_names().get(module, {}):
        return _library_object(library_names()[module][name])
    origin = original_names().get(module, {}).get(name)
    if origin is None:
        return None
    kind, _, where = origin.partition(":")
    if kind in ("v1", "v2"):
        found = _public(kind, where)
        if found is not None:
            return found
    return _same_name(module, name)


def provides(module: str, name: str) -> bool:
    """Whether `resolve(module, name)` finds the shim's object, answered without TensorFlow.

    A public name counts when `api_surface` calls it supported; any other name
    when the shim's module binds it.
    """
    if name in library_names().get(module, {}):
        target = library_names()[module][name]
        if target is None:
            return False
        own_module, _, attribute = target.partition(":")
        return attribute in source_names.bound_names(own_module)
    origin = original_names().get(module, {}).get(name)
    if origin is None:
        return False
    kind, _, where = origin.partition(":")
    if kind in ("v1", "v2"):
        public = ("tf." if kind == "v2" else "tf.compat.v1.") + where
        symbol = ESTIMATOR_SYMBOLS.get(public)
        if symbol is not None and symbol.status == SUPPORTED:
            return True
    return _RENAMED.get(name, name) in source_names.bound_names(_own_module(module, name))


def _library_object(target):
    """The object `"package.module:attribute"` names, or None for None."""
    if target is None:
        return None
    own_module, _, attribute = target.partition(":")
    return getattr(importlib.import_module(own_module), attribute)


def _public(version: str, api_name: str):
    """`tf.estimator.X` (v2) or `tf.compat.v1.estimator.X` (v1), as the shim installed them."""
    import tensorflow as tf

    namespace = tf.estimator if version == "v2" else tf.compat.v1.estimator
    for part in api_name.split(".")[1:]:
        # getattr, not vars(): the namespaces import each name's module when it is first read.
        is_module = isinstance(namespace, types.ModuleType)
        namespace = getattr(namespace, part, None) if is_module else None
        if namespace is None:
            return None
    return namespace


# The shim's module holding what an original module defined, where it is named differently.
_OWN_MODULES = {
    "model_fn": "tfestimator_compat.spec",
    "exporter": "tfestimator_compat.export",
    "export.export": "tfestimator_compat.export",
    "export.export_lib": "tfestimator_compat.export",
    "export.export_output": "tfestimator_compat.export",
    "inputs.inputs": "tfestimator_compat.inputs",
    "inputs.numpy_io": "tfestimator_compat.inputs",
    "inputs.pandas_io": "tfestimator_compat.inputs",
    "canned.head": "tfestimator_compat.head",
    "canned.metric_keys": "tfestimator_compat.head.metric_keys",
    "canned.prediction_keys": "tfestimator_compat.head.prediction_keys",
    "hooks.hooks": "tfestimator_compat.experimental",
    "estimator_lib": "tfestimator_compat",
}


# Names the shim spells differently, for the same behaviour.
_RENAMED = {
    "classifier_parse_example_spec_v2": "classifier_parse_example_spec",
    "regressor_parse_example_spec_v2": "regressor_parse_example_spec",
    "get_optimizer_instance_v2": "get_optimizer",
}


# Functions whose original module holds nothing else the shim has.
_OWN_MODULE_OF_NAME = {
    "call_logit_fn": "tfestimator_compat.canned.logit_fn",
    "dnn_logit_fn_builder": "tfestimator_compat.canned.logit_fn",
    "linear_logit_fn_builder": "tfestimator_compat.canned.logit_fn",
}


def _own_module(module: str, name: str) -> str:
    """The shim's module that holds what the original's `module` had as `name`."""
    return _OWN_MODULE_OF_NAME.get(name) or _OWN_MODULES.get(module, f"tfestimator_compat.{module}")


def _same_name(module: str, name: str):
    try:
        return getattr(
            importlib.import_module(_own_module(module, name)), _RENAMED.get(name, name), None
        )
    except ImportError:
        return None


def _module(path: str, relative: str, not_provided) -> types.ModuleType:
    module = sys.modules.get(path)
    if module is None or not getattr(module, _MARKER, False):
        module = types.ModuleType(path, f"`{path}`, as the shim provides it.")
        setattr(module, _MARKER, True)
        module.__path__ = []  # a package, so submodules import
    module.__getattr__ = _lazy_attribute(path, relative, not_provided)
    # `__all__` too is computed when first read: resolving every name imports the whole shim.
    vars(module).pop("__all__", None)
    sys.modules[path] = module
    return module


def _lazy_attribute(path: str, relative: str, not_provided):
    def __getattr__(name: str):
        if name == "__all__":
            names = original_names().get(relative, {})
            module = sys.modules[path]
            module.__all__ = sorted(n for n in names if resolve(relative, n) is not None)
            return module.__all__
        value = resolve(relative, name)
        if value is not None:
            return value
        if known(relative, name):
            raise not_provided(f"{path}.{name}", for_import=True)
        raise AttributeError(f"module {path!r} has no attribute {name!r}")

    return __getattr__


def install(not_provided) -> list:
    """Registers every module path under both prefixes; returns their full names.

    `not_provided(path, for_import)` is the error for a name the original's
    module had and the shim lacks (`missing.not_provided`, which classifies
    names with the tables this module's paths feed).
    """
    relatives = set(original_names())
    for relative in list(relatives):  # the packages above each module
        parts = relative.split(".")
        relatives.update(".".join(parts[:end]) for end in range(1, len(parts)))
    installed = []
    for prefix in PREFIXES:
        root = _module(prefix, "", not_provided)
        for relative in sorted(relatives, key=lambda name: name.count(".")):
            module = _module(f"{prefix}.{relative}", relative, not_provided)
            parent, _, leaf = f"{prefix}.{relative}".rpartition(".")
            setattr(sys.modules[parent], leaf, module)
            installed.append(module.__name__)
        _attach(prefix, root)
    return installed


def _attach(prefix: str, root: types.ModuleType) -> None:
    """`tensorflow.python.estimator` onto `tensorflow.python`; `tensorflow_estimator.python`."""
    parent_name, _, leaf = prefix.rpartition(".")
    parent = sys.modules.get(parent_name)
    if parent is None:  # `tensorflow_estimator.python`
        parent = types.ModuleType(parent_name, "The original's private modules, as aliases.")
        parent.__path__ = []
        sys.modules[parent_name] = parent
    grand_name, _, python = parent_name.rpartition(".")
    grand = sys.modules.get(grand_name)
    if grand is not None and getattr(grand, python, None) is not parent:
        setattr(grand, python, parent)
    setattr(parent, leaf, root)
