"""Seeded random ops of a model_fn graph, drawing as in one TF1 Session.

In the original each `train()`, `evaluate()` and `predict()` call built a
fresh graph and Session, so a seeded random op (a dropout mask, noise from
`tf.random.normal`) drew the same sequence in every call, one draw a step.
Here one traced graph serves many calls and several functions pruned from it
(a step that writes a summary fetches more than one that does not); with
stateful kernels each function would keep a random state of its own and every
call would go on where the last one stopped.

So each seeded stateful random op is replaced by its stateless counterpart,
given the stateful kernel's Philox key and a counter kept in a variable: every
function pruned from the graph advances the same counter, and each call
starts it from zero (`RandomOpCounters.restart`). The values are the stateful
kernel's, draw for draw. Random ops this cannot rewrite (a kind with no
stateless twin that draws the same numbers, or one inside a `tf.cond` or
`tf.while_loop` body) keep their kernels, with a warning.

An input_fn runs eagerly, and TF keeps an eager op's kernel, random state and
all, by the op's attributes: a second call's `tf.random.normal` with the same
seeds would go on from the first call's. `restarting_eager_random_ops` drops
those kernels after a call that ran one.
"""

import contextlib
import functools

import tensorflow as tf

from tfestimator_compat.engine.inputs.input_structure import map_leaves
from tfestimator_compat.engine.internals import tensorflow_internals as tf_internals

_logging = tf.compat.v1.logging

# Stateful op type -> the stateless op that draws the same numbers from the same
# Philox key and counter.
_STATELESS_TWINS = {
    "RandomUniform": tf_internals.stateless_random_uniform,
    "RandomStandardNormal": tf_internals.stateless_random_normal,
    "TruncatedNormal": tf_internals.stateless_truncated_normal,
    "RandomUniformInt": tf_internals.stateless_random_uniform_int,
}
_PHILOX = 1  # `tf.random.Algorithm.PHILOX`
# A stateful kernel moves its 128-bit Philox counter this far per output element
# at each run (its conservative reservation).
_COUNTER_STRIDE = 256


class RandomOpCounters:
    """The counters of one graph's rewritten random ops, and the tensors that
    took the place of the stateful ops' outputs (by the outputs' names)."""

    def __init__(self, counters=(), replacements=None):
        self._counters = list(counters)
        self._replacements = dict(replacements or {})

    def restart(self):
        """Makes the random ops draw from the start again, as a new Session's did."""
        for counter in self._counters:
            counter.assign(0)

    def substitute(self, structure):
        """`structure` (of tensors) with the replaced ops' outputs swapped for their twins'."""
        return map_leaves(lambda tensor: self._replacements.get(tensor.name, tensor), structure)


def make_restartable(graph) -> RandomOpCounters:
    """Replaces the seeded stateful random ops of `graph` (the model_fn graph
    being traced) by stateless ones drawing from counters; returns those."""
    counters, replacements, kept = [], {}, []
    for op in graph.get_operations():
        if not _is_seeded_random(op):
            continue
        if op.type in _STATELESS_TWINS:
            counter, replacements[op.outputs[0].name] = _replace(op)
            counters.append(counter)
        else:
            kept.append(op.name)
    kept += _random_ops_in_functions(graph)
    if kept:
        _logging.warning(
            "tf_random_seed: these random ops keep their state from one train(), "
            "evaluate() or predict() call to the next, and functions pruned from the "
            "graph draw from states of their own, where the original's fresh Session "
            "started them over: %s. The values differ from the original's. Rewrite "
            "them with tf.random.stateless_* ops to draw the same values in every "
            "call; see migration_guide/concepts.md (tf_random_seed).",
            ", ".join(kept),
        )
    return RandomOpCounters(counters, replacements)


@contextlib.contextmanager
def restarting_eager_random_ops():
    """Seeded random ops run eagerly inside (an input_fn's `tf.random.normal`
    outside a Dataset function) draw from the start again when run again.

    When one ran, the eager context drops its kernels at the end, as
    `tf.random.set_seed` does. Functions are then instantiated again at their
    next call (a fraction of a second), so nothing is dropped otherwise.
    """
    ran = []
    try:
        with eager_ops_run(_is_seeded_random_kind) as ran:
            yield
    finally:
        if ran:
            tf_internals.clear_eager_kernel_caches()


@contextlib.contextmanager
def eager_ops_run(wanted):
    """Yields a list that gets the type of each op run eagerly inside for which
    `wanted(op_type, attrs)` is true (`attrs`: attribute name -> value)."""
    ran = []

    def callback(op_type, inputs, attrs, outputs, op_name=None, graph=None):
        if graph is None and wanted(op_type, dict(_pairs(attrs))):
            ran.append(op_type)

    tf_internals.add_op_callback(callback)
    try:
        yield ran
    finally:
        tf_internals.remove_op_callback(callback)


def is_stateful_kind(op_type, attrs=None) -> bool:
    """Whether ops of `op_type` may hold state; a function call's op, which has
    no registered definition, counts as stateful."""
    op_def = tf_internals.registered_op_def(op_type)
    return op_def is None or op_def.is_stateful


def _pairs(attrs):
    """An eager op callback's flat `(name, value, name, value, ...)` attributes, paired."""
    return zip(attrs[::2], attrs[1::2]) if attrs else ()


def _is_seeded_random(op) -> bool:
    """A stateful op drawing from seeds it was given: TF1's random ops."""
    return _takes_seeds(op.type) and (op.get_attr("seed"), op.get_attr("seed2")) != (0, 0)


def _is_seeded_random_kind(op_type, attrs) -> bool:
    """`_is_seeded_random` for an op known by its type and `attrs` (name -> int
    or `AttrValue`)."""
    if not _takes_seeds(op_type):
        return False
    return [getattr(attrs[name], "i", attrs[name]) for name in ("seed", "seed2")] != [0, 0]


@functools.cache
def _takes_seeds(op_type) -> bool:
    """Whether ops of `op_type` are stateful and take `seed` and `seed2`. With
    both seeds 0 such a kernel seeds itself at random, and nothing repeats."""
    op_def = tf_internals.registered_op_def(op_type)
    if op_def is None or not op_def.is_stateful:
        return False
    return {"seed", "seed2"} <= {attr.name for attr in op_def.attr}


def _replace(op):
    """Puts a stateless twin of random op `op` in its place; returns its counter
    and its output."""
    with tf.init_scope():
        counter = tf_internals.ResourceVariable(
            0, dtype=tf.int64, trainable=False, name=f"{op.name}/counter"
        )
    shape = op.inputs[0]
    with (
        tf.name_scope(f"{op.name}_stateless"),
        tf.device(op.device or None),
        tf.control_dependencies(op.control_inputs),
    ):
        stride = tf.reduce_prod(tf.cast(shape, tf.int64)) * _COUNTER_STRIDE
        start = counter.assign_add(stride) - stride
        key = tf.bitcast(tf.constant([op.get_attr("seed")], tf.int64), tf.uint64)
        seed2 = tf.constant(op.get_attr("seed2"), tf.int64)
        position = tf.bitcast(tf.stack([start, seed2]), tf.uint64)
        twin = _STATELESS_TWINS[op.type]
        if op.type == "RandomUniformInt":
            value = twin(shape, key, position, _PHILOX, op.inputs[1], op.inputs[2])
        else:
            value = twin(shape, key, position, _PHILOX, dtype=op.get_attr("dtype"))
    _reroute(op, value)
    return counter, value


def _reroute(op, value):
    """Makes everything that consumed `op`'s output or waited for it use `value`."""
    output = op.outputs[0]
    for consumer in output.consumers():
        for index, tensor in enumerate(consumer.inputs):
            if tensor.name == output.name:
                tf_internals.update_input(consumer, index, value)
    for waiting in tf_internals.control_outputs(op):
        others = [dep for dep in waiting.control_inputs if dep is not op]
        tf_internals.replace_control_inputs(waiting, others + [value.op])


def _random_ops_in_functions(graph) -> list:
    """Seeded stateful random ops in the bodies of the graph's functions (the
    branches of a `tf.cond`, the body of a `tf.while_loop`)."""
    found = []
    for function in tf_internals.graph_functions(graph):
        definition = getattr(function, "cached_definition", None) or function.definition
        for node in definition.node_def:
            if _is_seeded_random_kind(node.op, node.attr):
                found.append(f"{node.name} (in {definition.signature.name})")
    return found
