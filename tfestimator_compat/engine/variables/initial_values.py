"""The initial values of a model_fn's new variables, computed in one function.

The store creates each variable eagerly, when the model_fn asks for it.
Computing its initial value then, in a graph and a function of its own (for
TF1's op seeds, see `random_seeds`), cost about 5 ms a variable: 0.6 s of a
BERT-sized model_fn's first `train()` call, most of it making and running 121
one-off functions. A variable whose shape and dtype are known is instead
created holding zeros, and its initializer is built into one graph shared with
the other new variables', with the op seeds it takes at that point, followed
by assignments to the variable. The store runs that graph, once, when its scope
ends and before it reads a value, so no one sees the zeros.
"""

import tensorflow as tf

from tfestimator_compat.engine.internals import tensorflow_internals as tf_internals
from tfestimator_compat.engine.tracing.random_seeds import without_graph_optimizations


class DeferredInitialValues:
    """Variables created holding zeros, and the graph that assigns them their
    initial values.

    Args:
        seeds: the store's `GraphSeeds`.
    """

    def __init__(self, seeds):
        self._seeds = seeds
        self._graph = None
        self._assigned = None  # the last variable's assignments
        self._keys = []

    @staticmethod
    def can_defer(kwargs) -> bool:
        """Whether a variable made with `kwargs` can start as zeros: its shape
        and a numeric dtype are given, as `get_variable` gives them."""
        shape, dtype = kwargs.get("shape"), kwargs.get("dtype")
        if shape is None or dtype is None or not tf.TensorShape(shape).is_fully_defined():
            return False
        dtype = tf.as_dtype(dtype).base_dtype
        return dtype.is_floating or dtype.is_integer or dtype.is_bool or dtype.is_complex

    @staticmethod
    def stand_in(kwargs):
        """The zeros a deferred variable is created with."""
        return tf.zeros(kwargs["shape"], tf.as_dtype(kwargs["dtype"]).base_dtype)

    def add(self, key, name, initializer, copies, first_op_seed):
        """Builds the `initializer` of variable `name` with op seeds from
        `first_op_seed` on, and the assignment of its value to `copies` (the
        per-device variables of the store's variable `key`). Returns the op
        seed after the ones it took.

        Everything runs in the order it was added: an initializer that reads an
        earlier variable reads its initial value.
        """
        if self._graph is None:
            self._graph = tf_internals.FuncGraph("initial_values")
        after = [self._assigned] if self._assigned is not None else []
        with self._graph.as_default(), tf.control_dependencies(after):
            value, end = self._seeds.build_initial_value(name, initializer, first_op_seed)
            self._assigned = tf.group(*[copy.assign(value, read_value=False) for copy in copies])
        self._keys.append(key)
        return end

    def compute(self) -> list:
        """Runs the assignments built so far; returns the keys of their variables.

        If that fails, they stay pending (for `discard`)."""
        if not self._keys:
            return []
        graph, assigned, keys = self._graph, self._assigned, self._keys

        def done():
            with tf.control_dependencies([assigned]):
                return tf.constant(True)

        with tf.init_scope(), without_graph_optimizations():
            graph = tf_internals.func_graph_from_py_func(
                "initial_values",
                done,
                args=None,
                kwargs=None,
                signature=[],
                func_graph=graph,
                add_control_dependencies=False,
            )
            tf_internals.WrappedFunction(graph, tf_internals.VariableHolder(), signature=[])()
        self.discard()
        return keys

    def discard(self) -> list:
        """Forgets the variables not yet computed; returns their keys."""
        keys = self._keys
        self._graph, self._assigned, self._keys = None, None, []
        return keys
