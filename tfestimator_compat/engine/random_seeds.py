"""`RunConfig.tf_random_seed` seeds one Estimator's graphs, and nothing else.

The original called `tf.compat.v1.set_random_seed` on each Estimator's own
graph: initial values and random ops repeated from run to run, while the
process-wide seeds (`tf.random.set_seed`, NumPy, Python's `random`) and other
Estimators were left alone. Here the model_fn is traced into a graph that gets
the seed in the same way, and each variable's initial value is computed the way
a TF1 graph computed it: in a graph of its own, with this Estimator's graph
seed, and op seeds handed out in creation order. Running the initializer in a
fresh graph (not eagerly) also gives two initializers with the same explicit
op seed the same values, as in TF1; eagerly, the second one would continue the
first one's random stream.
"""

import contextlib
import random

import tensorflow as tf
from keras.src.backend.common import global_state
from keras.src.random import seed_generator
from tensorflow.core.protobuf import config_pb2
from tensorflow.python.eager import context
from tensorflow.python.framework import random_seed

# Where Keras keeps its global SeedGenerator (a named constant only in newer Keras 3 releases).
KERAS_SEED_GENERATOR = getattr(seed_generator, "GLOBAL_SEED_GENERATOR", "global_seed_generator")


class GraphSeeds:
    """The random seeds of one Estimator's graphs.

    Args:
        seed: `RunConfig.tf_random_seed`, or None for unseeded graphs (random
            ops then take their own op seed, or none, as in TF1).
    """

    def __init__(self, seed=None):
        self.seed = seed
        self._next_op_seed = 0

    @contextlib.contextmanager
    def tracing(self):
        """Seeds the model_fn graph being traced, for the duration of the trace.

        Keras 3 layers draw their initializers' seeds from Python's `random`
        when they are built, so that is seeded too, and put back afterwards.
        """
        tf.compat.v1.get_default_graph().seed = self.seed
        if self.seed is None:
            yield
            return
        state = random.getstate()
        keras_generator = global_state.get_global_attribute(KERAS_SEED_GENERATOR)
        random.seed(self.seed)
        global_state.set_global_attribute(KERAS_SEED_GENERATOR, None)
        try:
            yield
        finally:
            random.setstate(state)
            global_state.set_global_attribute(KERAS_SEED_GENERATOR, keras_generator)

    def initial_value(self, initializer):
        """Runs a variable's `initializer` callable as a TF1 graph would have.

        Returns the value, and a function of no argument that computes it again
        with the same op seeds (in the current graph, when called in one), as
        the variable's TF1 initializer op did.
        """
        first_op_seed = self._next_op_seed
        value = self._run(initializer, first_op_seed, advance=True)
        return value, lambda: self._run(initializer, first_op_seed, advance=False)

    def _run(self, initializer, first_op_seed, advance):
        def build():
            graph = tf.compat.v1.get_default_graph()
            graph.seed = self.seed
            random_seed._graph_to_seed_dict[graph] = first_op_seed
            value = initializer()
            if advance:
                self._next_op_seed = random_seed._graph_to_seed_dict.get(graph, first_op_seed)
            return value

        with _without_graph_optimizations():
            return tf.compat.v1.wrap_function(build, signature=[])()


@contextlib.contextmanager
def _without_graph_optimizations():
    """Runs functions called inside without Grappler.

    An initializer's graph is a few ops that run once; optimizing it took as
    long as everything else (about 4 ms a variable, a second for a BERT-sized
    model_fn). Grappler never changes what random ops draw, so the values are
    the same.
    """
    ctx = context.context()
    options = ctx.function_call_options
    config = config_pb2.ConfigProto()
    if options.config_proto_serialized:
        config.ParseFromString(options.config_proto_serialized)
    config.graph_options.rewrite_options.disable_meta_optimizer = True
    # What the context held (None: options made anew from its config).
    held = ctx._thread_local_data.function_call_options
    ctx.function_call_options = context.FunctionCallOptions(
        executor_type=options.executor_type, config_proto=config
    )
    try:
        yield
    finally:
        ctx._thread_local_data.function_call_options = held
