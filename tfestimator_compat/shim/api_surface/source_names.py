"""The names a module of this package binds, read from its source instead of importing it.

`tfestimator-compat check` must start without TensorFlow, yet it must say what
the shim provides: the `__all__` of a `tf.contrib` module, the names of a
module the old import paths alias. Those modules import TensorFlow, so `check`
parses their source; the tests compare the answers with the imported modules.
"""

import ast
import functools
import os
from typing import FrozenSet
from typing import Tuple

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@functools.cache
def _tree(module: str) -> ast.Module:
    """The parsed source of `tfestimator_compat.<...>` (a `.py` file or a package).

    An empty module for one the package does not have, which binds nothing.
    """
    path = os.path.join(_PACKAGE_DIR, *module.split(".")[1:])
    for candidate in (path + ".py", os.path.join(path, "__init__.py")):
        if os.path.isfile(candidate):
            with open(candidate, encoding="utf-8") as f:
                return ast.parse(f.read(), filename=candidate)
    return ast.Module(body=[], type_ignores=[])


def declared_all(module: str) -> Tuple[str, ...]:
    """The module's `__all__`, which must be a literal list or tuple of names."""
    for statement in _tree(module).body:
        if isinstance(statement, ast.Assign) and any(
            isinstance(target, ast.Name) and target.id == "__all__" for target in statement.targets
        ):
            return tuple(ast.literal_eval(statement.value))
    return ()


def bound_names(module: str) -> FrozenSet[str]:
    """The names the module's top level binds: definitions, assignments, imports."""
    names = set()
    for statement in _tree(module).body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(statement.name)
        elif isinstance(statement, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in statement.names)
        elif isinstance(statement, (ast.Assign, ast.AnnAssign)):
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            names.update(
                node.id for t in targets for node in ast.walk(t) if isinstance(node, ast.Name)
            )
    return frozenset(names)
