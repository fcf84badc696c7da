"""`RunConfig.tf_random_seed` seeds one Estimator's graphs, and nothing else.

The original called `tf.compat.v1.set_random_seed` on each Estimator's own
graph: random ops repeated from run to run, while the process-wide seeds
(`tf.random.set_seed`, NumPy, Python's `random`) and other Estimators were
left alone. A random op without an op seed took the graph's next one, in
creation order: first the input_fn's (a Dataset's `shuffle`), then the
model_fn's, its variables' initializers among them (a dropout between two
layers shifts the second layer's initial values).

Here the same counter runs through the same calls: the input_fn is called
with its random ops seeded as that graph seeded them (`input_fn_seeds`), the
model_fn's trace continues from where the input_fn stopped, and each variable's
initializer takes the trace's next op seeds when the variable is made. The
initializer is computed outside the trace, in a graph of its own or with the
other new variables' (`initial_values`), starting from those seeds. Running it
in a graph (not eagerly) also gives two initializers with the same explicit op
seed the same values, as in TF1; eagerly, the second one would continue the
first one's random stream.
"""

import contextlib
import random

import tensorflow as tf

from tfestimator_compat.engine import process_state
from tfestimator_compat.engine.internals import keras_internals
from tfestimator_compat.engine.internals import tensorflow_internals as tf_internals

_logging = tf.compat.v1.logging
_PYTHON_RANDOM_DRAWN = (
    "tf_random_seed: Keras layers here start from the same values on every run, "
    "but not from the original's, whose Keras 2 initializers drew their seeds from "
    "Python's random module instead (so they changed from run to run unless the "
    "program seeded it). To start both from the same values, pass initializers "
    "with a seed; see migration_guide/concepts.md (tf_random_seed)."
)


class GraphSeeds:
    """The random seeds of one Estimator's graphs.

    Args:
        seed: `RunConfig.tf_random_seed`, or None for unseeded graphs (random
            ops then take their own op seed, or none, as in TF1).
    """

    def __init__(self, seed=None):
        self.seed = seed

    @contextlib.contextmanager
    def tracing(self, first_op_seed=0):
        """Seeds the model_fn graph being traced, for the duration of the trace.

        Its random ops take op seeds from `first_op_seed` on: the input_fn took
        the ones before (`InputFnResult.op_seeds`). Keras layers draw their
        initializers' and dropouts' seeds from Python's `random` when they are
        built (`tf.compat.v1.layers`' default initializer too), so that is
        seeded too, and put back afterwards. The original's Keras 2 initializers
        drew from the process's `random` instead: a warning says so once.
        """
        graph = tf.compat.v1.get_default_graph()
        graph.seed = self.seed
        tf_internals.set_graph_op_seed(graph, first_op_seed)
        if self.seed is None:
            yield
            return
        state = random.getstate()
        keras_generator = keras_internals.global_seed_generator()
        random.seed(self.seed)
        seeded = random.getstate()
        keras_internals.set_global_seed_generator(None)
        try:
            yield
        finally:
            drawn = random.getstate() != seeded
            random.setstate(state)
            keras_internals.set_global_seed_generator(keras_generator)
            if drawn:
                _warn_of_python_random()

    @staticmethod
    def next_op_seed() -> int:
        """The op seed the next random op of the graph being built takes."""
        if tf.executing_eagerly():
            return 0
        return tf_internals.graph_op_seed(tf.compat.v1.get_default_graph(), 0)

    @staticmethod
    def skip_op_seeds(count):
        """Moves the graph being built past `count` op seeds: those an existing
        variable's initializer took when it was made, as in the fresh graph of
        each of the original's calls."""
        if count and not tf.executing_eagerly():
            graph = tf.compat.v1.get_default_graph()
            tf_internals.set_graph_op_seed(graph, GraphSeeds.next_op_seed() + count)

    def initial_value(self, name, initializer, first_op_seed):
        """Runs a variable's `initializer` callable in a graph of its own, with op
        seeds from `first_op_seed` on, as a TF1 graph would have.

        Returns the value, the op seed after the ones it took, and a function of
        no argument that computes it again with the same op seeds (in the
        current graph, when called in one), as the variable's TF1 initializer
        op did.
        """
        value, end = self._run(name, initializer, first_op_seed)
        return value, end, self.recipe(name, initializer, first_op_seed)

    def build_initial_value(self, name, initializer, first_op_seed):
        """Builds the initializer of variable `name` in the current graph, under
        the name scope TF1 gave it, with op seeds from `first_op_seed` on;
        returns its value and the op seed after them."""
        graph = tf.compat.v1.get_default_graph()
        graph.seed = self.seed
        tf_internals.set_graph_op_seed(graph, first_op_seed)
        with tf.name_scope(f"{name}/Initializer/"):
            value = initializer()
        return value, tf_internals.graph_op_seed(graph, first_op_seed)

    def recipe(self, name, initializer, first_op_seed):
        """The function of no argument `initial_value` returns last."""
        return lambda: self._run(name, initializer, first_op_seed)[0]

    def _run(self, name, initializer, first_op_seed):
        """`build_initial_value` in a graph of its own, run once, without Grappler."""
        ends = []

        def build():
            value, end = self.build_initial_value(name, initializer, first_op_seed)
            ends.append(end)
            return value

        with without_graph_optimizations():
            value = tf.compat.v1.wrap_function(build, signature=[])()
        return value, ends[0]


@contextlib.contextmanager
def input_fn_seeds(seed):
    """Seeds the random ops an input_fn makes as the original's graph seeded them.

    The original called the input_fn in the Estimator's graph, so with a
    `tf_random_seed` a Dataset's `shuffle()` (and any random op without its own
    seed) repeated its order from run to run. Here the input_fn runs eagerly
    (or in a graph of its own): inside, random ops take graph seed `seed` and op
    seeds counted from 0, and so do the Dataset functions traced meanwhile.
    Yields an object whose `.count` is the number of op seeds taken, once the
    block ends; the model_fn's trace goes on from there. Without a seed the
    input_fn's graph had none either, so a process-wide `tf.random.set_seed`
    does not reach its random ops; it is put back afterwards.
    """
    taken = _OpSeedsTaken()
    if tf.executing_eagerly():
        ctx = tf_internals.eager_context()
        # The op-seed generator exists once a process-wide seed was set.
        held = tf_internals.eager_seeds(ctx)
        tf_internals.set_eager_seeds(ctx, seed, taken)
        try:
            yield taken
        finally:
            tf_internals.set_eager_seeds(ctx, *held)
    else:
        # Called while a function is traced (a parameter-server worker's input).
        graph = tf.compat.v1.get_default_graph()
        held = graph.seed, tf_internals.graph_op_seed(graph, None)
        graph.seed = seed
        tf_internals.set_graph_op_seed(graph, 0)
        try:
            yield taken
        finally:
            taken.count = tf_internals.graph_op_seed(graph)
            graph.seed = held[0]
            if held[1] is None:
                tf_internals.forget_graph_op_seed(graph)
            else:
                tf_internals.set_graph_op_seed(graph, held[1])


@contextlib.contextmanager
def taking_no_op_seeds():
    """Random ops made inside leave the op-seed counter where it was.

    For the pieces of a pipeline that stand in for something of the original's
    that took no op seed: `numpy_input_fn`'s one-shot iterator (its queue took
    none unless it shuffled) must not shift the model_fn's initial values.
    """
    if tf.executing_eagerly():
        taken = tf_internals.eager_seeds(tf_internals.eager_context())[1]
        held = getattr(taken, "count", None)
        try:
            yield
        finally:
            if isinstance(taken, _OpSeedsTaken):
                taken.count = held
        return
    graph = tf.compat.v1.get_default_graph()
    held = tf_internals.graph_op_seed(graph, None)
    try:
        yield
    finally:
        if held is None:
            tf_internals.forget_graph_op_seed(graph)
        else:
            tf_internals.set_graph_op_seed(graph, held)


class _OpSeedsTaken:
    """Stands in for the eager context's op-seed generator: where a TF1 graph's
    counter would give 0, 1, 2, ... to random ops without an op seed, so does this."""

    def __init__(self):
        self.count = 0

    def randint(self, low, high):
        value, self.count = self.count, self.count + 1
        return value


@contextlib.contextmanager
def without_graph_optimizations():
    """Runs functions called inside without Grappler.

    Initializers' graphs are small and run once; optimizing one took as long
    as everything else (about 4 ms a variable, a second for a BERT-sized
    model_fn). Grappler never changes what random ops draw, so the values are
    the same.
    """
    ctx = tf_internals.eager_context()
    options = ctx.function_call_options
    config = tf.compat.v1.ConfigProto()
    if options.config_proto_serialized:
        config.ParseFromString(options.config_proto_serialized)
    config.graph_options.rewrite_options.disable_meta_optimizer = True
    # What the context held (None: options made anew from its config).
    held = tf_internals.held_function_call_options(ctx)
    ctx.function_call_options = tf_internals.FunctionCallOptions(
        executor_type=options.executor_type, config_proto=config
    )
    try:
        yield
    finally:
        tf_internals.hold_function_call_options(ctx, held)


def _warn_of_python_random():
    # Said once per process: the difference is the same for every Estimator.
    if process_state.warn_once("keras-initializers-draw-from-python-random"):
        _logging.warning(_PYTHON_RANDOM_DRAWN)
