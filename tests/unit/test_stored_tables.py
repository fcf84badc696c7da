"""Mutable lookup tables a model_fn makes, kept in the store (engine/variables/stored_tables.py).

A table made while the model_fn is traced is made once, eagerly, by the
`VariableStore`: every trace (every step, every mode) gets the same table, so
its contents last, and one made with `checkpoint=True` is listed for saving.
"""

import tensorflow as tf

from tfestimator_compat.engine.variables import stored_tables
from tfestimator_compat.engine.variables.variable_store import TABLES
from tfestimator_compat.engine.variables.variable_store import VariableStore

MutableHashTable = tf.lookup.experimental.MutableHashTable
DenseHashTable = tf.lookup.experimental.DenseHashTable


def _counts(name="counts", **kwargs):
    return MutableHashTable(tf.string, tf.int64, default_value=-1, name=name, **kwargs)


def _trace(store, make):
    """`make()` called as a model_fn's trace calls it (in a wrapped function's graph,
    under the store's scope); returns what it made and the graph."""
    made = []

    def build():
        with store.scope():
            made.append(make())

    wrapped = tf.compat.v1.wrap_function(build, signature=[])
    return made[0], wrapped.graph


def test_every_trace_gets_the_same_table():
    store = VariableStore()
    first, _ = _trace(store, _counts)
    second, _ = _trace(store, _counts)
    kept = store.tables_of(["counts"])["counts"]
    assert first.resource_handle is kept.resource_handle
    assert second.resource_handle is kept.resource_handle


def test_its_contents_last_from_one_trace_to_the_next():
    store = VariableStore()
    first, _ = _trace(store, _counts)
    first.insert(tf.constant(["a"]), tf.constant([30], tf.int64))
    second, _ = _trace(store, _counts)
    assert second.lookup(tf.constant(["a", "b"])).numpy().tolist() == [30, -1]


def test_the_table_is_made_eagerly_whatever_graph_the_trace_is_in():
    table, graph = _trace(VariableStore(), _counts)
    assert not tf.is_symbolic_tensor(table.resource_handle)
    assert (
        table.resource_handle.graph is not graph
        if hasattr(table.resource_handle, "graph")
        else True
    )


def test_a_name_taken_in_a_trace_is_suffixed_as_tf1_suffixed_it():
    store = VariableStore()
    (first, second), _ = _trace(store, lambda: (_counts(), _counts()))
    assert first.resource_handle is not second.resource_handle
    assert set(store.tables_of(["counts", "counts_1", "counts_2"])) == {"counts", "counts_1"}


def test_a_checkpointed_table_is_listed_in_the_traces_graph():
    store = VariableStore()
    _, graph = _trace(store, lambda: (_counts(), _counts("cache", checkpoint=False)))
    assert graph.get_collection(TABLES) == ["counts"]
    assert set(store.tables_of(["counts", "cache"])) == {"counts", "cache"}
    _, next_graph = _trace(store, _counts)
    assert next_graph.get_collection(TABLES) == ["counts"]


def test_dense_hash_tables_are_kept_too():
    def make():
        return DenseHashTable(
            tf.int64, tf.int64, default_value=0, empty_key=-1, deleted_key=-2, name="dense"
        )

    store = VariableStore()
    first, _ = _trace(store, make)
    second, _ = _trace(store, make)
    assert first.resource_handle is second.resource_handle
    assert "dense" in store.tables_of(["dense"])


def test_outside_the_store_tables_are_made_as_tensorflow_makes_them():
    inits = (MutableHashTable.__init__, DenseHashTable.__init__)
    store = VariableStore()
    with stored_tables.kept_in(store, lambda name: name):
        assert (MutableHashTable.__init__, DenseHashTable.__init__) != inits
    assert (MutableHashTable.__init__, DenseHashTable.__init__) == inits
    first, second = _counts(), _counts()
    assert first.resource_handle is not second.resource_handle
    assert store.tables_of(["counts"]) == {}


def test_the_classes_are_put_back_when_the_trace_raises():
    inits = (MutableHashTable.__init__, DenseHashTable.__init__)
    try:
        with stored_tables.kept_in(VariableStore(), lambda name: name):
            raise ValueError("the model_fn failed")
    except ValueError:
        pass
    assert (MutableHashTable.__init__, DenseHashTable.__init__) == inits
