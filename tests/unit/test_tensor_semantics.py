"""Tensors compared by identity, as in a TF1 graph (engine/tracing/tensor_semantics.py).

TF1 code keys dicts by tensors and tests `tensor in list`; in a traced
function (where the model_fn runs) TensorFlow 2's element-wise equality
refuses both. The switch is process-wide, so it must be put back as it was.
"""

import pytest
import tensorflow as tf
from tensorflow.python.framework import tensor as tensor_lib

from tfestimator_compat.engine.tracing.tensor_semantics import tf1_tensor_semantics


def _in_a_trace(body):
    """What `body(a, b)` returns, called on two equal tensors of a traced function."""
    seen = []

    @tf.function(autograph=False)
    def trace():
        seen.append(body(tf.constant(1.0, name="a"), tf.constant(1.0, name="b")))
        return tf.constant(0)

    trace.get_concrete_function()
    return seen[0]


def _as_keys(a, b):
    try:
        names = {a: "a", b: "b"}
    except TypeError as error:
        return str(error)
    return names[a], names[b]


def _compared(a, b):
    return a == a, a == b


def _membership(a, b):
    try:
        return b in [a, b], a in [b]
    except TypeError as error:  # a symbolic tensor used as a Python bool
        return type(error).__name__


def test_outside_traced_tensors_follow_tensorflow_2():
    assert _in_a_trace(_as_keys).startswith("Tensor is unhashable")
    same, other = _in_a_trace(_compared)
    assert tf.is_tensor(same) and tf.is_tensor(other)  # element-wise, not a bool
    assert _in_a_trace(_membership) == "OperatorNotAllowedInGraphError"


def test_inside_traced_tensors_are_dict_keys_and_compare_by_identity():
    with tf1_tensor_semantics():
        assert _in_a_trace(_as_keys) == ("a", "b")
        # Equal values, different tensors: only identity counts.
        assert _in_a_trace(_compared) == (True, False)
        assert _in_a_trace(_membership) == (True, False)


def test_tensor_equality_is_put_back_after():
    with tf1_tensor_semantics():
        assert not tensor_lib.Tensor._USE_EQUALITY
    assert tensor_lib.Tensor._USE_EQUALITY
    equal = tf.constant([1, 2]) == tf.constant([1, 3])
    assert equal.numpy().tolist() == [True, False]


def test_tensor_equality_is_put_back_when_the_block_raises():
    with pytest.raises(RuntimeError):
        with tf1_tensor_semantics():
            raise RuntimeError("the model_fn failed")
    assert tensor_lib.Tensor._USE_EQUALITY


def test_a_nested_use_keeps_identity_until_the_outer_one_ends():
    with tf1_tensor_semantics():
        with tf1_tensor_semantics():
            pass
        assert not tensor_lib.Tensor._USE_EQUALITY
        assert _in_a_trace(_as_keys) == ("a", "b")
    assert tensor_lib.Tensor._USE_EQUALITY


def test_a_process_that_disabled_equality_itself_keeps_it_disabled():
    tf.compat.v1.disable_tensor_equality()
    try:
        with tf1_tensor_semantics():
            pass
        assert not tensor_lib.Tensor._USE_EQUALITY
    finally:
        tf.compat.v1.enable_tensor_equality()
