"""How the boundary modules get a private TensorFlow or Keras name, or say why not.

Imports no private module itself: `internal` takes the module's dotted name.
"""

import importlib
import importlib.metadata
import sys

_REQUIRED = object()
# The distributions whose versions a missing internal's message names, by top-level module.
_DISTRIBUTIONS = (("TensorFlow", "tensorflow"), ("Keras", "keras"), ("tf_keras", "tf_keras"))


class MissingInternalError(ImportError):
    """A private TensorFlow or Keras name the package relies on is not where it was.

    Attributes:
        module: the private module's dotted name.
        attribute: the name looked up in it (dotted for an attribute of a class).
    """

    def __init__(self, module, attribute, cause=None):
        self.module = module
        self.attribute = attribute
        where = f"`{attribute}` of" if attribute else "the module"
        found = f" ({type(cause).__name__}: {cause})" if cause is not None else ""
        super().__init__(
            f"tfestimator_compat relies on {where} {_owner(module)}'s private module `{module}`, "
            f"which this installation does not have{found}. Installed: {installed_versions()}. "
            f"This {_owner(module)} is newer than tfestimator_compat knows: please report it "
            "in the project's GitHub issues, with this message.",
            name=module,
        )


def internal(module, attribute=None, default=_REQUIRED):
    """`attribute` of the private module named `module` (the module itself when None).

    `attribute` may be dotted (`"Operation._add_control_input"`): the
    attribute of a class in the module. With `default`, a missing attribute
    (not a missing module) gives `default` instead.

    Raises:
        MissingInternalError: the module does not import, or lacks the attribute.
    """
    try:
        value = importlib.import_module(module)
    except ImportError as error:
        raise MissingInternalError(module, attribute, error) from error
    for part in attribute.split(".") if attribute else ():
        try:
            value = getattr(value, part)
        except AttributeError as error:
            if default is not _REQUIRED:
                return default
            raise MissingInternalError(module, attribute) from error
    return value


def _owner(module) -> str:
    top = module.split(".")[0]
    return {"keras": "Keras", "tf_keras": "tf_keras"}.get(top, "TensorFlow")


def installed_versions() -> str:
    """`TensorFlow 2.21.0, Keras 3.15.1` (tf_keras's too where installed)."""
    found = []
    for label, name in _DISTRIBUTIONS:
        version = getattr(sys.modules.get(name), "__version__", None)
        if version is None:
            try:
                version = importlib.metadata.version(name)
            except (importlib.metadata.PackageNotFoundError, ValueError):
                if name == "tf_keras":
                    continue
                version = "not installed"
        found.append(f"{label} {version}")
    return ", ".join(found)
