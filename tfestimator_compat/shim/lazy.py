"""Names a module offers before the modules that define them are imported.

`import tfestimator_compat` runs beside TensorFlow's own import in every
program, notebook and `tfestimator-compat run`, so it must not import what a
program never reads: the canned families, heads, exporters, TPU, BoostedTrees,
KMeans. The package's `__init__`s and the installed `tf.estimator` namespaces
list every name (`dir()`, `__all__`) and import its module when it is first
read; the object is then the same as an eager import gave, and later reads are
plain attribute reads.

A source is the full name of the module that defines the name (read as the
same name there), `"module:attribute"` where it is spelled differently there,
or the package's submodule of that name.
"""

import importlib
import sys
import types
from typing import Callable
from typing import Iterable
from typing import Mapping
from typing import Tuple
from typing import Union

Source = Union[str, types.ModuleType]


def resolve(source: Source, name: str, owner: str = ""):
    """The object `source` holds as `name` (see the module docstring), importing it if needed."""
    if isinstance(source, types.ModuleType):
        return getattr(source, name)
    path, _, attribute = source.partition(":")
    module = importlib.import_module(path)
    if path == f"{owner}.{name}":  # the package's submodule itself
        return module
    return getattr(module, attribute or name)


def attributes(module_name: str, sources: Mapping[str, str]) -> Tuple[Callable, Callable]:
    """A module's PEP 562 `__getattr__` and `__dir__` for the names in `sources`.

    Each name is imported from its source when first read and then bound on
    the module, so `__getattr__` runs once per name.

    Example:

    ```python
    _SOURCES = {"DNNClassifier": "tfestimator_compat.canned.dnn"}
    __getattr__, __dir__ = lazy.attributes(__name__, _SOURCES)
    ```
    """

    def __getattr__(name: str):
        source = sources.get(name)
        if source is None:
            raise AttributeError(f"module {module_name!r} has no attribute {name!r}")
        value = resolve(source, name, owner=module_name)
        setattr(sys.modules[module_name], name, value)
        return value

    def __dir__():
        return sorted(set(vars(sys.modules[module_name])) | set(sources))

    return __getattr__, __dir__


class Namespace(types.ModuleType):
    """A module (`tf.estimator`, ...) whose names are read from other modules on first access.

    `provide()` says where each name comes from; a name read is then bound on
    the namespace. A `__getattr__` set on the namespace itself (the error for
    a name the original had and the shim lacks) answers the names it does not
    provide, after them; hence the plain object attribute lookup, which leaves
    that hook to this class.
    """

    __getattribute__ = object.__getattribute__

    def __init__(self, name: str, doc: str = None):
        super().__init__(name, doc)
        self.__dict__["_lazy_sources"] = {}

    def provide(self, sources: Iterable[Tuple[Source, Iterable[str]]]) -> list:
        """Makes the names of each `(source, names)` this namespace's names; a later source wins.

        Names provided before and bound since are dropped, so they are read
        again from their (possibly new) sources. Returns the sorted names.
        """
        table = {}
        for source, names in sources:
            table.update(dict.fromkeys(names, source))
        old = self.__dict__["_lazy_sources"]
        for name in old:
            self.__dict__.pop(name, None)
        self.__dict__["_lazy_sources"] = table
        return sorted(table)

    def __getattr__(self, name: str):
        source = self.__dict__["_lazy_sources"].get(name)
        if source is not None:
            value = resolve(source, name)
            setattr(self, name, value)
            return value
        hook = self.__dict__.get("__getattr__")
        if hook is not None:
            return hook(name)
        raise AttributeError(f"module {self.__name__!r} has no attribute {name!r}")

    def __dir__(self):
        names = set(self.__dict__) | set(self.__dict__["_lazy_sources"])
        return sorted(names - {"_lazy_sources"})
