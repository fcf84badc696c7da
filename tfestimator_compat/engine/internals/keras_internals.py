"""Keras's internals (`keras.src.*`, and private attributes of Keras and tf_keras objects).

Module-level names are resolved when this module is imported (`import keras`
has already loaded every module named here), so a Keras without one fails at
`import tfestimator_compat`; attributes an object gets when it is made are
read by one function each, which says what the package assumes of it.
tf_keras is never imported from here: its objects' attributes are only read
from objects a program made with it. `tests/test_internals.py` checks them.
"""

import sys

from tfestimator_compat.engine.internals.resolver import internal

_GLOBAL_STATE = "keras.src.backend.common.global_state"

# --- Keras's process-wide state -------------------------------------------------------

_get_global_attribute = internal(_GLOBAL_STATE, "get_global_attribute")
_set_global_attribute = internal(_GLOBAL_STATE, "set_global_attribute")
# The global attribute Keras keeps its global `SeedGenerator` under (a named
# constant only in newer Keras 3 releases).
_SEED_GENERATOR = internal(
    "keras.src.random.seed_generator", "GLOBAL_SEED_GENERATOR", default="global_seed_generator"
)
# Class-name stem -> count so far: Keras's automatic object names (`dense`, `dense_1`).
_NAME_UIDS = "object_name_uids"
# The stack of `keras.name_scope`s entered (each with `.name`), or None.
_NAME_SCOPE_STACK = "name_scope_stack"


def name_uids():
    """Keras's counts of automatic object names (a `defaultdict(int)`), or None."""
    return _get_global_attribute(_NAME_UIDS)


def set_name_uids(uids):
    """Makes Keras count automatic object names in `uids` (None: start a new count)."""
    _set_global_attribute(_NAME_UIDS, uids)


def name_scope_stack():
    """The `keras.name_scope`s entered, innermost last (each with `.name`), or None."""
    return _get_global_attribute(_NAME_SCOPE_STACK)


def set_name_scope_stack(stack):
    """Makes `stack` (a list of `keras.name_scope`s) the ones Keras is inside."""
    _set_global_attribute(_NAME_SCOPE_STACK, stack)


def global_seed_generator():
    """Keras's global `SeedGenerator` (what unseeded `keras.random` calls draw
    from), or None before one is made."""
    return _get_global_attribute(_SEED_GENERATOR)


def set_global_seed_generator(generator):
    """Makes `generator` Keras's global `SeedGenerator` (None: Keras makes a new one,
    seeded from Python's `random`, when next asked)."""
    _set_global_attribute(_SEED_GENERATOR, generator)


# --- Keras's modules -----------------------------------------------------------------


def loaded_tf_keras_namespace(submodule=None):
    """Keras 3's `keras._tf_keras.keras` (the module `tf.keras` gives with Keras 3),
    or its `submodule` (`"optimizers.legacy"`), once imported; None before."""
    name = "keras._tf_keras.keras" + (f".{submodule}" if submodule else "")
    return sys.modules.get(name)


# --- Names and classes ----------------------------------------------------------------

# `to_snake_case(class_name)`: the stem of Keras's automatic names for objects of
# a class (`"Adam"` -> `"adam"`, `"SGD"` -> `"sgd"`).
to_snake_case = internal("keras.src.utils.naming", "to_snake_case")
# The class of Keras 3 functional models (a `keras.Model` called with inputs and
# outputs; `keras.Sequential` is not one).
Functional = internal("keras.src.models.functional", "Functional")

# --- Attributes of Keras objects ------------------------------------------------------


def backing_variable(variable):
    """The `tf.Variable` a Keras 3 variable keeps its value in (its `_value`), or
    `variable` itself when it has none (a `tf.Variable`, a tf_keras variable)."""
    return getattr(variable, "_value", variable)


def compiled_metrics(model):
    """What a compiled Keras 3 model's `metrics=` became: its `CompileMetrics`
    container, or None when it was compiled without metrics."""
    return model._compile_metrics


def learning_rate_variable(optimizer):
    """The variable (or schedule, or number) a Keras optimizer keeps its learning
    rate in, or None."""
    return getattr(optimizer, "_learning_rate", None)


def is_graph_network(model) -> bool:
    """Whether a tf_keras model is Sequential or functional (not subclassed)."""
    return getattr(model, "_is_graph_network", False)


def compile_arguments(model) -> dict:
    """What a compiled tf_keras model was compiled with: `optimizer`, `loss`,
    `metrics` (as the user passed them), `loss_weights`, `weighted_metrics`."""
    return model._get_compile_args(user_metrics=True)
