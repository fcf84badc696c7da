"""Module paths of earlier releases, which moved when the package took its current layout.

Libraries and notebooks imported engine modules by path (`tfestimator_compat.checkpoints`, ...).
Those imports keep working: the old name is the same module object as the new one, so state
and `isinstance` checks are shared, and a `DeprecationWarning` names the new path.
"""

import importlib
import importlib.abc
import importlib.util
import sys
import warnings
from typing import Optional

_PACKAGE = "tfestimator_compat"

# Old path -> new path, both relative to the package.
MOVED = {
    "activation": "shim.installer",
    "api_surface": "shim.api_surface",
    "auto_activation": "shim.auto_enable",
    "check": "command.check",
    "check_report": "command.check_report",
    "checkpoints": "engine.state.checkpoints",
    "cli": "command.cli",
    "cluster": "engine.distributed.cluster",
    "contrib": "legacy.contrib",
    "distribution": "engine.distributed.distribution",
    "engine.coordinated_training": "engine.distributed.coordinated_training",
    "engine.eager": "engine.tracing.eager",
    "engine.graph_pruning": "engine.tracing.graph_pruning",
    "engine.initial_values": "engine.variables.initial_values",
    "engine.input_errors": "engine.inputs.input_errors",
    "engine.input_fn": "engine.inputs.input_fn",
    "engine.input_structure": "engine.inputs.input_structure",
    "engine.keras_adapter": "engine.loop.keras_adapter",
    "engine.keras_callbacks": "engine.loop.keras_callbacks",
    "engine.keras_optimizers_in_graph": "engine.tracing.keras_optimizers_in_graph",
    "engine.model_fn_graph": "engine.tracing.model_fn_graph",
    "engine.partitioned_variables": "engine.variables.partitioned_variables",
    "engine.random_ops": "engine.tracing.random_ops",
    "engine.random_seeds": "engine.tracing.random_seeds",
    "engine.stop_signal": "engine.loop.stop_signal",
    "engine.stored_tables": "engine.variables.stored_tables",
    "engine.summaries": "engine.state.event_files",
    "engine.tensor_semantics": "engine.tracing.tensor_semantics",
    "engine.text_protos": "engine.state.text_protos",
    "engine.tf1_input_graph": "engine.inputs.tf1_input_graph",
    "engine.training_loop": "engine.loop.loop_callbacks",
    "engine.variable_initializers": "engine.variables.variable_initializers",
    "engine.variable_store": "engine.variables.variable_store",
    "engine.variable_writes": "engine.variables.variable_writes",
    "fn_args": "engine.tracing.fn_args",
    "keras_checkpoint_keys": "engine.state.keras_checkpoint_keys",
    "keras_flavours": "engine.keras_flavours",
    "keras_legacy": "legacy.keras2",
    "keras_legacy.optimizer": "legacy.keras2.optimizer_base",
    "kernel_launcher": "command.kernel_launcher",
    "layers_v1": "legacy.layers_v1",
    "logs": "engine.logs",
    "native_estimator": "shim.native_estimator",
    "notebook": "command.notebook",
    "notebook_kernel": "command.notebook_kernel",
    "object_checkpoints": "engine.state.object_checkpoints",
    "parameter_servers": "engine.distributed.parameter_servers",
    "requirements": "shim.requirements",
    "runner": "command.runner",
    "scaffold": "engine.state.scaffold",
    "session_config": "engine.distributed.session_config",
    "startup": "shim.startup",
    "tf1_mode": "command.tf1_mode",
    "user_traceback": "command.user_traceback",
}


# A package's path before its modules' (`keras_legacy.optimizer` before `keras_legacy`).
_LONGEST_FIRST = sorted(MOVED, key=len, reverse=True)


def new_name(fullname: str) -> Optional[str]:
    """The current name of `fullname`, or None where it did not move."""
    prefix = _PACKAGE + "."
    if not fullname.startswith(prefix):
        return None
    relative = fullname[len(prefix) :]
    for old in _LONGEST_FIRST:
        if relative == old or relative.startswith(old + "."):
            return prefix + MOVED[old] + relative[len(old) :]
    return None


class _MovedModuleLoader(importlib.abc.Loader):
    def __init__(self, current: str):
        self._current = current

    def create_module(self, spec):
        warnings.warn(
            f"{spec.name} moved to {self._current}; import it from there.",
            DeprecationWarning,
            stacklevel=2,
        )
        return importlib.import_module(self._current)

    def exec_module(self, module):
        """Nothing to run: the module under its current name is already imported."""


class _MovedModuleFinder(importlib.abc.MetaPathFinder):
    """Answers imports of old paths with the module at its new path."""

    def find_spec(self, fullname, path=None, target=None):
        current = new_name(fullname)
        if current is None:
            return None
        return importlib.util.spec_from_loader(fullname, _MovedModuleLoader(current))


def install() -> None:
    """Makes the old paths importable; first on `sys.meta_path`, so no second copy loads."""
    if not any(isinstance(finder, _MovedModuleFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, _MovedModuleFinder())
