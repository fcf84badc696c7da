"""`var.initializer` and `var.initial_value` inside a traced model_fn, as TF1 gave them.

The store's variables are created eagerly, so TensorFlow gives them no
initializer op: `var.initializer`, `tf.compat.v1.global_variables_initializer()`
and `get_global_step().initializer` were None, and `tf.group` of them raised.
In a TF1 graph the initializer was an op that assigns the variable its initial
value whenever it runs: a train_op may reset a counter with it, a Scaffold's
`init_op` or `local_init_op` groups them. Here the op is built in the graph
being traced, on first use, from what the variable was created with (its
initializer callable, or the constant it was given).
"""

import contextlib
import weakref

import tensorflow as tf

from tfestimator_compat.engine.internals import tensorflow_internals as tf_internals
from tfestimator_compat.engine.variables.identity_tables import WeakIdentityTable

# Store variable -> its `_Remembered` (`remember_initial_value`).
_REMEMBERED = WeakIdentityTable()


class _Remembered:
    """How a store variable got its value, and its initializer op in each graph."""

    def __init__(self, initial_value, copies):
        self.initial_value = initial_value
        self.copies = copies
        self.initializers = weakref.WeakKeyDictionary()


def remember_initial_value(variable, initial_value, copies):
    """Keeps how `variable` got its value, to rebuild its initializer in later graphs.

    Args:
        variable: a variable of the store.
        initial_value: a function of no argument computing its initial
            value again (`GraphSeeds.initial_value`; cheap to keep), or the
            constant it was given.
        copies: the variables that hold its value (one per device when it is
            a distributed variable), which the initializer assigns.
    """
    _REMEMBERED[variable] = _Remembered(initial_value, copies)


def graph_mode_members(base, tf1_name):
    """Members that give a store variable of class `base` its TF1 graph-mode face.

    `tf1_name(variable)` is the name TF1 graph mode gave it, which its
    initializer's ops are named under. Eagerly, each behaves as `base`'s own.
    """

    def initializer(self):
        if tf.executing_eagerly() or self not in _REMEMBERED:
            return base.initializer.__get__(self)
        graph = tf.compat.v1.get_default_graph()
        override = tf_internals.variable_initializer_op(self)
        if isinstance(override, tf.Operation) and override.graph is graph:
            # `init_from_checkpoint` made it restore from a checkpoint instead.
            return override
        initializers = _REMEMBERED.get(self).initializers
        if graph not in initializers:
            initializers[graph] = _assign_initial_value(self, tf1_name(self), graph)
        return initializers[graph]

    def initial_value(self):
        if tf.executing_eagerly() or self not in _REMEMBERED:
            return base.initial_value.__get__(self)
        with _detached(tf.compat.v1.get_default_graph(), tf1_name(self)):
            return _initial_value_tensor(self)

    def as_graph_element(self):
        # `tf.control_dependencies([var])` and `graph.as_graph_element(var)`:
        # a TF1 graph gave the variable's read tensor.
        if tf.executing_eagerly():
            return tf_internals.graph_element_of(base, self)
        return self.read_value()

    return {
        "initializer": property(initializer),
        "initial_value": property(initial_value),
        tf_internals.GRAPH_ELEMENT_METHOD: as_graph_element,
    }


def _assign_initial_value(variable, name, graph):
    with _detached(graph, name):
        value = _initial_value_tensor(variable)
        copies = _REMEMBERED.get(variable).copies
        assigns = [copy.assign(value, read_value=False) for copy in copies]
        return tf.group(*assigns, name="Assign")


def _initial_value_tensor(variable):
    """The initial value, computed in the current graph.

    A random initializer runs again in a graph of its own with the op seeds it
    had when the variable was made (`random_seeds`), so the op computes the
    value the variable started with.
    """
    recipe = _REMEMBERED.get(variable).initial_value
    value = recipe() if callable(recipe) else recipe
    return tf.convert_to_tensor(value, dtype=variable.dtype.base_dtype)


@contextlib.contextmanager
def _detached(graph, name):
    """Builds ops at the top of `graph`, under `<variable name>/`, outside any
    control dependency or control-flow context of where they were asked for."""
    with graph.as_default(), graph.control_dependencies(None):
        with tf.compat.v1.name_scope(name + "/"):
            yield
