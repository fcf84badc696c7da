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
    """The names the module's top level binds: definitions, assignments, imports.

    Also the names it offers lazily: the keys of the table it hands to
    `lazy.attributes` (`shim/lazy.py`), each imported when first read.
    """
    names = set()
    tables = {}
    for statement in _tree(module).body:
        if isinstance(statement, ast.Assign) and isinstance(statement.value, ast.Dict):
            keys = [key.value for key in statement.value.keys if isinstance(key, ast.Constant)]
            tables.update(
                {target.id: keys for target in statement.targets if isinstance(target, ast.Name)}
            )
        names.update(_lazy_names(statement, tables))
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


def _lazy_names(statement: ast.stmt, tables: dict) -> list:
    """The keys of `TABLE` for `... = lazy.attributes(__name__, TABLE)`, else nothing."""
    call = getattr(statement, "value", None)
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)):
        return []
    if call.func.attr != "attributes" or len(call.args) != 2:
        return []
    table = call.args[1]
    return tables.get(table.id, []) if isinstance(table, ast.Name) else []
