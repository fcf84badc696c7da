"""An input_fn's `(features, labels)` taken apart and put back (engine/inputs/input_structure.py).

Whatever a Session fed the model_fn must reach it again: dicts with mixed
keys, bare tensors, labels of None, NumPy arrays and Python values left as
given, composite tensors carried as their components.
"""

import collections

import numpy as np
import pytest
import tensorflow as tf

from tfestimator_compat.engine.inputs import input_structure

Pair = collections.namedtuple("Pair", ["first", "second"])


def _sparse():
    return tf.SparseTensor(indices=[[0, 1]], values=[5.0], dense_shape=[2, 3])


# --- is_tensor ---


def test_tensors_and_composite_tensors_are_carried_by_the_pipeline():
    assert input_structure.is_tensor(tf.constant(1.0))
    assert input_structure.is_tensor(_sparse())
    assert input_structure.is_tensor(tf.ragged.constant([[1], [2, 3]]))


def test_numpy_arrays_and_python_values_are_constants():
    assert not input_structure.is_tensor(np.ones(3))
    assert not input_structure.is_tensor(3)
    assert not input_structure.is_tensor("x")
    assert not input_structure.is_tensor(None)


# --- map_leaves ---


def test_map_leaves_applies_fn_to_each_tensor_and_leaves_other_values_as_they_are():
    array = np.arange(3)
    structure = {"b": tf.constant(1), "a": [tf.constant(2), array], "c": None}
    mapped = input_structure.map_leaves(lambda t: int(t) * 10, structure)
    assert mapped == {"b": 10, "a": [20, array], "c": None}
    assert mapped["a"][1] is array


def test_map_leaves_keeps_dict_key_order_and_container_types():
    structure = collections.OrderedDict([("z", tf.constant(1)), (0, (tf.constant(2),))])
    mapped = input_structure.map_leaves(lambda t: int(t), structure)
    assert type(mapped) is collections.OrderedDict
    assert list(mapped.items()) == [("z", 1), (0, (2,))]


def test_map_leaves_rebuilds_named_tuples():
    mapped = input_structure.map_leaves(lambda t: int(t), Pair(tf.constant(1), [tf.constant(2)]))
    assert mapped == Pair(1, [2])
    assert type(mapped) is Pair


def test_map_leaves_takes_another_notion_of_leaf():
    mapped = input_structure.map_leaves(
        str.upper, {"a": ["x", "y"]}, is_leaf=lambda v: isinstance(v, str)
    )
    assert mapped == {"a": ["X", "Y"]}


# --- leaves ---


def test_leaves_are_the_tensors_with_dict_keys_sorted_as_tf_nest_sorts_them():
    b, a, c = tf.constant(1), tf.constant(2), tf.constant(3)
    found = input_structure.leaves({"b": b, "a": [a, np.ones(2)], "c": "text", "d": c})
    assert [id(t) for t in found] == [id(a), id(b), id(c)]


def test_leaves_of_a_dict_whose_keys_do_not_sort_go_by_type_name_then_repr():
    one, x, two = tf.constant(1), tf.constant(2), tf.constant(3)
    found = input_structure.leaves({"x": x, 2: two, 1: one})
    assert [id(t) for t in found] == [id(one), id(two), id(x)]  # int before str


def test_a_bare_tensor_is_its_own_leaf():
    tensor = tf.constant(1)
    assert input_structure.leaves(tensor) == [tensor]


# --- features_and_labels ---


def test_a_pair_is_features_and_labels():
    assert input_structure.features_and_labels(("f", "l")) == ("f", "l")
    assert input_structure.features_and_labels(["f", "l"]) == ("f", "l")


def test_anything_else_is_features_without_labels():
    features = {"x": tf.constant(1)}
    assert input_structure.features_and_labels(features) == (features, None)


def test_a_tuple_of_another_length_is_refused_as_the_original_refused_it():
    with pytest.raises(ValueError, match=r"\(features, labels\) as a len 2 tuple"):
        input_structure.features_and_labels(("f", "l", "w"))


# --- flat_tensors ---


def test_flat_tensors_are_features_then_labels_with_composites_as_their_components():
    sparse, dense, label = _sparse(), tf.constant([1.0]), tf.constant([0])
    flat = input_structure.flat_tensors({"s": sparse, "d": dense}, label)
    assert [id(t) for t in flat] == [
        id(dense),
        id(sparse.indices),
        id(sparse.values),
        id(sparse.dense_shape),
        id(label),
    ]


def test_flat_tensors_without_labels_are_the_features_alone():
    dense = tf.constant([1.0])
    assert input_structure.flat_tensors(dense) == [dense]


# --- NestedStructure (a user's dataset) ---


def test_a_nested_element_is_features_and_labels_or_features_alone():
    with_labels = input_structure.NestedStructure(has_labels=True)
    features_only = input_structure.NestedStructure(has_labels=False)
    assert with_labels.unpack(("f", "l")) == ("f", "l")
    assert features_only.unpack("f") == ("f", None)
    assert with_labels.key != features_only.key


# --- FlatStructure ---


def test_split_then_unpack_gives_back_the_users_structure():
    x, y, label = tf.constant([1.0]), tf.constant([2.0]), tf.constant([0])
    array = np.array([7, 8])
    features = {1: x, "name": [y, array, "text"], "none": None}
    structure, tensors = input_structure.FlatStructure.split(features, label)
    assert [id(t) for t in tensors] == [id(x), id(y), id(label)]  # dict order, then labels
    rebuilt_features, rebuilt_label = structure.unpack(tuple(tensors))
    assert rebuilt_features[1] is x
    assert rebuilt_features["name"][0] is y
    assert rebuilt_features["name"][1] is array  # NumPy arrays reach the model_fn as given
    assert rebuilt_features["name"][2] == "text"
    assert rebuilt_features["none"] is None
    assert rebuilt_label is label
    assert structure.has_labels


def test_unpack_puts_the_elements_tensors_in_the_slots():
    structure, _ = input_structure.FlatStructure.split({"a": tf.constant(1)}, tf.constant(2))
    assert structure.unpack(("A", "L")) == ({"a": "A"}, "L")


def test_features_only_drops_the_labels():
    structure, _ = input_structure.FlatStructure.split({"a": tf.constant(1)}, tf.constant(2))
    features_only = structure.features_only()
    assert not features_only.has_labels
    assert features_only.unpack(("A",)) == ({"a": "A"}, None)


def test_structures_with_the_same_shape_and_constants_share_a_key():
    first, _ = input_structure.FlatStructure.split({"a": tf.constant(1), "n": np.ones(2)}, None)
    second, _ = input_structure.FlatStructure.split({"a": tf.constant(5), "n": np.ones(2)}, None)
    assert first.key == second.key
    assert not first.has_labels


@pytest.mark.parametrize(
    "one, other",
    [
        (np.ones(2), np.zeros(2)),
        (np.ones(2), np.ones(3)),
        (np.ones(2, np.float32), np.ones(2, np.float64)),
        (3, 4),
        ("a", "b"),
        (1, True),
    ],
)
def test_different_constants_give_different_keys(one, other):
    first, _ = input_structure.FlatStructure.split({"a": tf.constant(1), "c": one}, None)
    second, _ = input_structure.FlatStructure.split({"a": tf.constant(1), "c": other}, None)
    assert first.key != second.key


def test_a_constant_that_cannot_be_compared_never_shares_a_key():
    value = object()
    first, _ = input_structure.FlatStructure.split({"c": value}, None)
    second, _ = input_structure.FlatStructure.split({"c": value}, None)
    assert first.key != second.key


def test_a_different_structure_gives_a_different_key():
    first, _ = input_structure.FlatStructure.split({"a": tf.constant(1)}, None)
    second, _ = input_structure.FlatStructure.split({"b": tf.constant(1)}, None)
    third, _ = input_structure.FlatStructure.split({"a": tf.constant(1)}, tf.constant(0))
    assert len({first.key, second.key, third.key}) == 3
