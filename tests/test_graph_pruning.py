"""graph_pruning.prune makes the functions WrappedFunction.prune made, from the GraphDef."""

import numpy as np
import pytest
import tensorflow as tf

from tfestimator_compat.engine.tracing import graph_pruning


def _wrapped(build):
    """`build`'s graph wrapped as the model_fn's is, and what `build` returned."""
    made = {}

    def fn():
        made.update(build())

    return tf.compat.v1.wrap_function(fn, signature=[]), made


def _train_graph():
    v = tf.compat.v1.get_variable("dense/kernel", [2], initializer=tf.ones_initializer())
    x = tf.compat.v1.placeholder(tf.float32, [None, 2], name="features/x")
    hidden = tf.identity(x * v, name="hidden")
    loss = tf.reduce_sum(hidden, name="loss")
    global_step = tf.compat.v1.train.get_or_create_global_step()
    train_op = tf.compat.v1.train.AdamOptimizer(0.1).minimize(loss, global_step=global_step)
    indices = tf.where(hidden > 1.5)
    sparse = tf.SparseTensor(indices, tf.gather_nd(hidden, indices), tf.shape(hidden, tf.int64))
    # A while loop and a cond: ops calling functions of the graph's library.
    total = tf.while_loop(lambda i, s: i < 3, lambda i, s: (i + 1, s + loss), (0, 0.0))[1]
    chosen = tf.cond(loss > 0, lambda: loss * 2, lambda: loss)
    return dict(
        x=x,
        v=v,
        hidden=hidden,
        loss=loss,
        train_op=train_op,
        sparse=sparse,
        total=total,
        chosen=chosen,
        global_step=global_step,
    )


@pytest.fixture()
def train_graph():
    return _wrapped(_train_graph)


def test_a_pruned_function_returns_what_the_original_prune_returns(train_graph):
    wrapped, t = train_graph
    fetches = {"loss": t["loss"], "total": t["total"], "chosen": t["chosen"], "sparse": t["sparse"]}
    batch = tf.constant([[1.0, 2.0], [0.5, 3.0]])
    ours = graph_pruning.prune(wrapped, [t["x"]], fetches)(batch)
    theirs = wrapped.prune([t["x"]], fetches)(batch)
    for key in ("loss", "total", "chosen"):
        assert float(ours[key]) == pytest.approx(float(theirs[key]))
    assert float(ours["loss"]) == pytest.approx(6.5)
    assert float(ours["total"]) == pytest.approx(19.5)
    np.testing.assert_array_equal(ours["sparse"].indices, theirs["sparse"].indices)
    np.testing.assert_array_equal(ours["sparse"].values, [2.0, 3.0])


def test_a_fetched_op_runs_and_comes_back_as_none_and_the_variables_are_shared(train_graph):
    wrapped, t = train_graph
    step = graph_pruning.prune(wrapped, [t["x"]], {"loss": t["loss"], "train": t["train_op"]})
    outputs = step(tf.constant([[1.0, 1.0]]))
    assert outputs["train"] is None
    assert float(outputs["loss"]) == pytest.approx(2.0)
    # The step trained the variable the graph captured: another function sees it.
    with wrapped.graph.as_default():
        step_read, v_read = t["global_step"].read_value(), t["v"].read_value()
    read = graph_pruning.prune(wrapped, [], {"step": step_read})
    value = graph_pruning.prune(wrapped, [], v_read)
    assert int(read()["step"]) == 1
    np.testing.assert_allclose(value(), [0.9, 0.9], rtol=1e-5)


def test_a_fed_intermediate_tensor_cuts_the_graph_above_it(train_graph):
    wrapped, t = train_graph
    # As a Session fed `hidden`: `x` is then not needed, and not fed.
    function = graph_pruning.prune(wrapped, [t["hidden"]], {"loss": t["loss"]})
    assert float(function(tf.constant([[4.0, 5.0]]))["loss"]) == 9.0
    # A fetched feed comes back as given.
    echo = graph_pruning.prune(wrapped, [t["x"]], {"x": t["x"]})
    np.testing.assert_array_equal(echo(tf.constant([[7.0, 8.0]]))["x"], [[7.0, 8.0]])


def test_an_unfed_placeholder_the_fetches_need_is_named():
    wrapped, t = _wrapped(_train_graph)
    with pytest.raises(tf.errors.InvalidArgumentError, match="features/x"):
        graph_pruning.prune(wrapped, [], {"loss": t["loss"]})


def test_ops_added_after_the_graph_was_cached_are_found(train_graph):
    wrapped, t = train_graph
    cache = graph_pruning.GraphDefCache(wrapped.graph)
    graph_pruning.prune(wrapped, [t["x"]], {"loss": t["loss"]}, cache)
    with wrapped.graph.as_default():
        doubled = tf.multiply(t["loss"], 2.0, name="added_later")
        # Only control-depends on a variable's read: the capture is still fed.
        with tf.control_dependencies([t["v"].read_value().op]):
            marker = tf.constant(1.0) + 0.0
    function = graph_pruning.prune(wrapped, [t["x"]], {"d": doubled, "m": marker}, cache)
    outputs = function(tf.constant([[1.0, 1.0]]))
    assert float(outputs["d"]) == 4.0
    assert float(outputs["m"]) == 1.0


def _gated_graph():
    made = _train_graph()
    counter = tf.compat.v1.get_variable(
        "counter", [], initializer=tf.zeros_initializer(), trainable=False
    )
    # Only the gated fetches need these: a summary of the layer, a read of a
    # variable the train step does not use, and an update that waits for the
    # train op (as hooks' fetches may).
    made["summary"] = tf.compat.v1.summary.histogram("hidden", made["hidden"])
    with tf.control_dependencies([made["train_op"]]):
        made["count"] = tf.identity(counter.assign_add(1.0))
    made["counter"] = counter
    return made


def test_gated_fetches_run_only_when_asked_and_are_zeros_otherwise():
    wrapped, t = _wrapped(_gated_graph)
    gated = {"summary": t["summary"], "count": t["count"], "loss_again": t["loss"]}
    step = graph_pruning.prune(
        wrapped, [t["x"]], {"loss": t["loss"], "train": t["train_op"]}, gated=gated
    )
    batch = tf.constant([[1.0, 1.0]])
    outputs, extras = step(tf.constant(True), batch)
    assert float(outputs["loss"]) == pytest.approx(2.0)
    summary = tf.compat.v1.Summary.FromString(extras["summary"].numpy())
    assert summary.value[0].tag == "hidden_1"  # "hidden" names the layer already
    assert float(extras["count"]) == 1.0
    assert float(extras["loss_again"]) == float(outputs["loss"])
    outputs, extras = step(tf.constant(False), batch)
    assert extras["summary"].numpy() == b""
    assert float(extras["count"]) == 0.0
    # The ungated step trained (global step 2) and the gated update did not run.
    with wrapped.graph.as_default():
        reads = {"step": t["global_step"].read_value(), "count": t["counter"].read_value()}
    values = graph_pruning.prune(wrapped, [], reads)()
    assert int(values["step"]) == 2
    assert float(values["count"]) == 1.0


def test_a_gated_read_of_a_variable_runs_outside_the_branch_unless_it_waits_for_a_gated_op():
    wrapped, t = _wrapped(_gated_graph)
    with wrapped.graph.as_default():
        read = t["counter"].read_value()
        doubled = read * 2.0
    gated = {"doubled": doubled, "count": t["count"]}
    step = graph_pruning.prune(wrapped, [t["x"]], {"loss": t["loss"]}, gated=gated)
    outer = {op.name for op in step.graph.get_operations()}
    # A Session ran such a read as early as its inputs allowed, so a summary
    # mostly saw the value from before the step's update: the read is not
    # delayed behind the branch. The update and its result stay gated.
    variable_read = read.op.inputs[0].op  # read_value() is an Identity of the read
    assert variable_read.type == "ReadVariableOp"
    assert variable_read.name in outer
    assert doubled.op.name not in outer
    assert t["count"].op.name not in outer
