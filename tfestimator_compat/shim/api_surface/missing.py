"""Errors for a name the original had that the shim does not provide.

A bare `AttributeError: module has no attribute 'BoostedTreesClassifier'`
leaves the user guessing whether they mistyped; these errors say that the
name was real, that the shim lacks it, what replaces it and where the
migration guide explains the move.
"""

from __future__ import annotations

import types

from tfestimator_compat.shim.api_surface.symbol import GUIDE_PAGE


class NotProvidedError(ImportError):
    """`from <module> import <name>` of a name the original had and the shim lacks.

    An ImportError, not an AttributeError: Python replaces an AttributeError
    raised during `from ... import` with its own message, losing this one.
    """


class NotProvidedAttributeError(AttributeError):
    """`namespace.<name>` for a name the original had and the shim lacks.

    An AttributeError, so `hasattr` and `getattr(..., default)` still answer.
    """


def not_provided(path: str, for_import: bool = False) -> Exception:
    """The error for `path`, with the replacement and guide section `check` knows."""
    from tfestimator_compat.shim import api_surface

    symbol = api_surface.classify(_tf_spelling(path))
    if symbol is not None and symbol.status != api_surface.SUPPORTED:
        advice, guide = symbol.replacement, symbol.guide
    elif symbol is not None:  # planned, not in the package yet
        advice, guide = f"natively, {symbol.replacement}", symbol.guide
    else:
        advice, guide = "use the public tf.estimator name it maps to", GUIDE_PAGE
    release = api_surface.estimator_names.DROPPED_ESTIMATOR_RELEASES.get(_tf_spelling(path), "2.15")
    message = (
        f"{path} was part of tensorflow-estimator {release}, but tfestimator_compat does not "
        f"provide it (yet): {advice}. See {guide}; `tfestimator-compat check` lists every "
        "such name a program uses."
    )
    return (NotProvidedError if for_import else NotProvidedAttributeError)(message)


def _tf_spelling(path: str) -> str:
    """`tf.estimator.X` for the module name `tensorflow.estimator.X`."""
    if path.startswith(("tensorflow.estimator", "tensorflow.compat.")):
        return "tf." + path[len("tensorflow.") :]
    return path


def install_hooks(namespaces) -> None:
    """Gives each of the shim's namespaces a `__getattr__` that names missing pieces."""
    for namespace in namespaces:
        if isinstance(namespace, types.ModuleType) and "__getattr__" not in vars(namespace):
            namespace.__getattr__ = _missing_attribute(namespace.__name__)


def _missing_attribute(module_name: str):
    from tfestimator_compat.shim import api_surface

    def __getattr__(name: str):
        path = f"{module_name}.{name}"
        spelled = _tf_spelling(path)
        known = (api_surface.ESTIMATOR_SYMBOLS, api_surface.DROPPED_ESTIMATOR_SYMBOLS)
        if not name.startswith("_") and any(spelled in names for names in known):
            raise not_provided(path)
        raise AttributeError(f"module {module_name!r} has no attribute {name!r}")

    return __getattr__
