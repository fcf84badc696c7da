"""Which ops of a graph write given variables (engine/variables/variable_writes.py).

A Keras 3 metric lists no updates: the ops that assign to its variables stand
for them, whether the variables were made in the graph or captured by a trace.
"""

import keras
import tensorflow as tf

from tfestimator_compat.engine.variables import variable_writes


def test_the_handle_of_a_tf_variable_is_its_own():
    variable = tf.Variable(1.0)
    assert variable_writes.handles(variable) == [variable.handle]


def test_the_handle_of_a_keras_variable_is_its_tf_variables():
    variable = keras.Variable(1.0)
    assert variable_writes.handles(variable) == [variable.value.handle]


def test_a_distributed_variable_has_a_handle_per_copy():
    with tf.distribute.MirroredStrategy(["/cpu:0"]).scope():
        variable = tf.Variable(1.0)
    assert variable_writes.handles(variable) == [copy.handle for copy in variable.values]


def test_writes_in_a_graph_are_the_assignments_without_the_initializer():
    graph = tf.Graph()
    with graph.as_default():
        total = tf.Variable(0.0, name="total")
        other = tf.Variable(0.0, name="other")
        assign = total.assign(1.0)
        add = total.assign_add(2.0)
        sub = total.assign_sub(3.0)
        other.assign(4.0)
        total.read_value()
    writes = variable_writes.ops_writing([total], graph)
    assert writes == [assign.op, add.op, sub.op]
    assert total.initializer not in writes


def test_scatter_updates_are_writes():
    graph = tf.Graph()
    with graph.as_default():
        table = tf.Variable([0.0, 0.0], name="table")
        table.scatter_update(tf.IndexedSlices(tf.constant([1.0]), tf.constant([0])))
        table.scatter_add(tf.IndexedSlices(tf.constant([1.0]), tf.constant([1])))
    ops = [op.type for op in variable_writes.ops_writing([table], graph)]
    assert ops == ["ResourceScatterUpdate", "ResourceScatterAdd"]


def test_writes_default_to_the_default_graph():
    graph = tf.Graph()
    with graph.as_default():
        count = tf.Variable(0, name="count")
        add = count.assign_add(1)
        assert variable_writes.ops_writing([count]) == [add.op]


def test_writes_in_a_trace_are_those_to_the_captured_variables():
    count = tf.Variable(0)
    untouched = tf.Variable(0)

    @tf.function
    def step():
        count.assign_add(1)
        return untouched.read_value()

    graph = step.get_concrete_function().graph
    writes = variable_writes.ops_writing([count], graph)
    assert [op.type for op in writes] == ["AssignAddVariableOp"]
    assert variable_writes.ops_writing([untouched], graph) == []


def test_a_keras_metrics_updates_in_a_trace_are_the_writes_to_its_variables():
    mean = keras.metrics.Mean()
    other = keras.metrics.Sum()

    @tf.function
    def step(x):
        mean.update_state(x)
        return x

    graph = step.get_concrete_function(tf.TensorSpec([None], tf.float32)).graph
    writes = variable_writes.ops_writing(mean.variables, graph)
    assert len(writes) == 2  # its total and its count (Keras 3 adds with an assign)
    assert {op.type for op in writes} <= variable_writes.WRITE_OPS
    assert variable_writes.ops_writing(other.variables, graph) == []


def test_internal_handles_include_the_placeholder_a_trace_captures_a_variable_by():
    count = tf.Variable(0)

    @tf.function
    def step():
        return count.assign_add(1)

    graph = step.get_concrete_function().graph
    (inner,) = [inner for outer, inner in graph.captures if outer is count.handle]
    assert variable_writes.internal_handles([count], graph) == {id(count.handle), id(inner)}


def test_eager_variables_come_from_no_graph_and_graph_ones_from_theirs():
    assert variable_writes.graphs_of([tf.Variable(0)]) == []
    graph = tf.Graph()
    with graph.as_default():
        first, second = tf.Variable(0), tf.Variable(1)
    found = variable_writes.graphs_of([first, second])
    assert len(found) == 1 and found[0] is graph


def test_uses_asks_for_the_op_type_and_the_variable():
    graph = tf.Graph()
    with graph.as_default():
        count = tf.Variable(0)
        add = count.assign_add(1).op
    ids = variable_writes.internal_handles([count], graph)
    assert variable_writes.uses(add, ids, {"AssignAddVariableOp"})
    assert not variable_writes.uses(add, ids, {"AssignVariableOp"})
    assert not variable_writes.uses(add, set(), {"AssignAddVariableOp"})
