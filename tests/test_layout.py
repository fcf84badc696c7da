"""The package's layout: what its tree promises a reader, checked from the source.

The public API sits at the package root; the engine below it imports nothing of
the API but the contract a model_fn returns (`spec`, `mode_keys`); the command
starts without TensorFlow; no modules import each other, not even inside functions.
"""

import ast
import os
import subprocess
import sys

import pytest

PACKAGE = "tfestimator_compat"
PACKAGE_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), PACKAGE)
# What a model_fn returns and the modes it is called in: the engine runs model_fns against them.
ENGINE_CONTRACT = {f"{PACKAGE}.spec", f"{PACKAGE}.mode_keys"}
# Known imports from the engine upward, each to be removed (not added to).
ENGINE_KNOWN_UPWARD = {
    # Keras 3 optimizers in a model_fn run as the canned estimators' Keras 2 equivalents.
    (f"{PACKAGE}.engine.tracing.keras_optimizers_in_graph", f"{PACKAGE}.canned.optimizers"),
}
MAX_ROOT_MODULES = 20
# TensorFlow's and Keras's private modules: reached only through the boundary.
PRIVATE_MODULES = (
    "tensorflow.python",
    "tensorflow.core",
    "keras.src",
    "tf_keras.src",
    "tf_keras.python",
)
INTERNALS = f"{PACKAGE}.engine.internals"
MAX_INTERNALS_MODULES = 3
# The original estimator's module path, which the shim itself provides (not TensorFlow's).
OWN_LEGACY_PATH = "tensorflow.python.estimator"


def _modules():
    """Each module's dotted name and path."""
    found = {}
    for folder, _, files in os.walk(PACKAGE_DIR):
        for name in files:
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                relative = os.path.relpath(path, os.path.dirname(PACKAGE_DIR))[:-3]
                dotted = relative.replace(os.sep, ".").removesuffix(".__init__")
                found[dotted] = path
    return found


MODULES = _modules()


def _owner(name):
    """The package module an imported dotted name lives in."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def _imports(path):
    """The package's modules that `path` imports, at module level or inside functions."""
    tree = ast.parse(open(path, encoding="utf-8").read())
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names = [f"{node.module}.{alias.name}" for alias in node.names]
        else:
            continue
        for name in names:
            if name.split(".")[0] == PACKAGE:
                yield _owner(name)


def _private_modules_named(path):
    """The private TensorFlow and Keras modules `path` imports, or names in a string
    (as the boundary hands them to its resolver); docstrings aside."""
    tree = ast.parse(open(path, encoding="utf-8").read())
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        and node.body
        and isinstance(node.body[0], ast.Expr)
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names = [node.module]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            names = [] if id(node) in docstrings else [node.value]
        else:
            continue
        for name in names:
            private = any(name == p or name.startswith(p + ".") for p in PRIVATE_MODULES)
            own = name == OWN_LEGACY_PATH or name.startswith(OWN_LEGACY_PATH + ".")
            if private and not own:
                yield name


def _graph():
    """Module -> the package's modules it imports, at module level or inside functions."""
    return {
        module: {target for target in _imports(path) if target and target != module}
        for module, path in MODULES.items()
    }


def _cycles(graph):
    """The strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in graph[node]:
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_modules_import_each_other_even_inside_functions():
    assert _cycles(_graph()) == []


def test_the_engine_imports_nothing_above_it_but_the_model_fn_contract():
    upward = []
    for module, targets in _graph().items():
        if not module.startswith(f"{PACKAGE}.engine"):
            continue
        for target in sorted(targets):
            inside = target.startswith(f"{PACKAGE}.engine")
            if inside or target in ENGINE_CONTRACT or (module, target) in ENGINE_KNOWN_UPWARD:
                continue
            upward.append(f"{module} imports {target}")
    assert upward == []


def test_the_package_root_holds_the_public_api_only():
    root = sorted(name for name in os.listdir(PACKAGE_DIR) if name.endswith(".py"))
    assert len(root) <= MAX_ROOT_MODULES, root
    folders = sorted(
        name
        for name in os.listdir(PACKAGE_DIR)
        if os.path.isfile(os.path.join(PACKAGE_DIR, name, "__init__.py"))
    )
    assert folders == [
        "canned",
        "command",
        "engine",
        "export",
        "head",
        "legacy",
        "shim",
        "tpu",
    ]


def test_nothing_imports_the_command_but_its_entry_points():
    """The command is the top layer: only `python -m tfestimator_compat` reaches into it."""
    graph = _graph()
    importers = sorted(
        module
        for module, targets in graph.items()
        if not module.startswith(f"{PACKAGE}.command")
        and any(target.startswith(f"{PACKAGE}.command") for target in targets)
    )
    assert importers == [f"{PACKAGE}.__main__"]


# `runner` and `tf1_mode` run a program, so they import TensorFlow; `cli` imports them when it does.
STARTS_WITHOUT_TENSORFLOW = [
    f"{PACKAGE}.command.{name}"
    for name in (
        "cli",
        "check",
        "check_report",
        "check_imports",
        "notebook",
        "notebook_kernel",
        "user_traceback",
    )
]


@pytest.mark.parametrize("module", STARTS_WITHOUT_TENSORFLOW)
def test_the_command_imports_no_tensorflow_until_it_runs_a_program(module):
    code = (
        "import importlib.util, sys\n"
        f"spec = importlib.util.find_spec({PACKAGE!r})\n"
        f"sys.modules[{PACKAGE!r}] = importlib.util.module_from_spec(spec)\n"
        f"import {module}\n"
        "print(sorted(m for m in ('tensorflow', 'keras', 'tf_keras') if m in sys.modules))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=os.path.dirname(PACKAGE_DIR),
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]", f"{module} imported {result.stdout.strip()}"


def test_private_tensorflow_and_keras_modules_are_reached_only_through_the_boundary():
    """`engine/internals` is the one place that names a private TensorFlow or Keras
    module (issue #35 item 2): a TensorFlow release that moves one breaks there,
    and `tests/test_internals.py` says which."""
    users = {
        module: sorted(set(_private_modules_named(path)))
        for module, path in MODULES.items()
        if any(_private_modules_named(path))
    }
    outside = {module: names for module, names in users.items() if not module.startswith(INTERNALS)}
    assert outside == {}
    assert len(users) <= MAX_INTERNALS_MODULES, sorted(users)
