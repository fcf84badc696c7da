"""Serving input receivers: what a `serving_input_receiver_fn` returns.

A receiver names the tensors a served model is fed (`receiver_tensors`, often
placeholders or serialized `tf.Example`s) and the features the `model_fn`
gets from them. The receiver function runs inside the export graph, where
`tf.compat.v1.placeholder` is legal, exactly as in the original.
"""

import collections

import numpy as np
import tensorflow as tf

from tfestimator_compat.engine.internals.tensorflow_internals import SINGLE_FEATURE_DEFAULT_NAME
from tfestimator_compat.engine.internals.tensorflow_internals import SINGLE_LABEL_DEFAULT_NAME
from tfestimator_compat.engine.internals.tensorflow_internals import SINGLE_RECEIVER_DEFAULT_NAME

_DEFAULT_NAMES = {
    "feature": SINGLE_FEATURE_DEFAULT_NAME,
    "label": SINGLE_LABEL_DEFAULT_NAME,
    "receiver_tensor": SINGLE_RECEIVER_DEFAULT_NAME,
    "receiver_tensors_alternative": SINGLE_RECEIVER_DEFAULT_NAME,
}


def _as_checked_dict(tensors, field, allow_int_keys=False):
    """`tensors` as a dict (a single tensor gets the field's default key), checked."""
    if tensors is None:
        raise ValueError(f"{field}s must be defined.")
    if not isinstance(tensors, dict):
        tensors = {_DEFAULT_NAMES[field]: tensors}
    checked = {}
    for key, tensor in tensors.items():
        if not isinstance(key, str) and not (allow_int_keys and isinstance(key, int)):
            kinds = "strings or ints" if allow_int_keys else "strings"
            raise ValueError(f"{field} keys must be {kinds}: {key}.")
        checked[key] = _as_tensor(tensor, f"{field} {key}")
    return checked


def _as_tensor(value, label):
    """`value` as a Tensor, SparseTensor or RaggedTensor, or the original's ValueError.

    Like the original, an object with a `.tensor` that converts (a
    LabeledTensor) is accepted; so is any other type with a registered tensor
    conversion. Python and NumPy values are refused, as they were.
    """
    if isinstance(value, _TENSOR_TYPES):
        return value
    error = ValueError(f"{label} must be a Tensor, SparseTensor, or RaggedTensor.")
    if isinstance(value, _PLAIN_VALUES) or value is None:
        raise error
    try:
        return tf.convert_to_tensor(value)
    except (TypeError, ValueError):
        raise error from None


_TENSOR_TYPES = (tf.Tensor, tf.SparseTensor, tf.RaggedTensor)
_PLAIN_VALUES = (bool, int, float, complex, str, bytes, list, tuple, dict, np.ndarray, np.generic)


class ServingInputReceiver(
    collections.namedtuple(
        "ServingInputReceiver", ["features", "receiver_tensors", "receiver_tensors_alternatives"]
    )
):
    """Features for the model_fn and the tensors a served model is fed.

    `features` (a tensor or dict; a single tensor becomes `{"feature": t}`) go
    to the model_fn; `receiver_tensors` (a tensor or dict) are the serving
    signature's inputs; each entry of `receiver_tensors_alternatives` adds
    signatures fed at another point of the receiver graph.
    """

    def __new__(cls, features, receiver_tensors, receiver_tensors_alternatives=None):
        features = _as_checked_dict(features, "feature", allow_int_keys=True)
        receiver_tensors = _as_checked_dict(receiver_tensors, "receiver_tensor")
        if receiver_tensors_alternatives is not None:
            if not isinstance(receiver_tensors_alternatives, dict):
                raise ValueError(
                    "receiver_tensors_alternatives must be a dict: "
                    f"{receiver_tensors_alternatives}."
                )
            receiver_tensors_alternatives = {
                name: _as_checked_dict(tensors, "receiver_tensors_alternative")
                for name, tensors in receiver_tensors_alternatives.items()
            }
        return super().__new__(cls, features, receiver_tensors, receiver_tensors_alternatives)


class TensorServingInputReceiver(
    collections.namedtuple(
        "TensorServingInputReceiver",
        ["features", "receiver_tensors", "receiver_tensors_alternatives"],
    )
):
    """Like `ServingInputReceiver`, for a model_fn that takes one feature tensor as is."""

    def __new__(cls, features, receiver_tensors, receiver_tensors_alternatives=None):
        if features is None:
            raise ValueError("features must be defined.")
        features = _as_tensor(features, "feature")  # one tensor, not a dict
        receiver = ServingInputReceiver(features, receiver_tensors, receiver_tensors_alternatives)
        return super().__new__(
            cls,
            receiver.features[SINGLE_FEATURE_DEFAULT_NAME],
            receiver.receiver_tensors,
            receiver.receiver_tensors_alternatives,
        )


class SupervisedInputReceiver(
    collections.namedtuple("SupervisedInputReceiver", ["features", "labels", "receiver_tensors"])
):
    """Features and labels, for exporting TRAIN and EVAL graphs."""

    def __new__(cls, features, labels, receiver_tensors):
        _as_checked_dict(features, "feature", allow_int_keys=True)
        _as_checked_dict(labels, "label", allow_int_keys=True)
        receiver_tensors = _as_checked_dict(receiver_tensors, "receiver_tensor")
        return super().__new__(cls, features, labels, receiver_tensors)


class UnsupervisedInputReceiver(ServingInputReceiver):
    """A `ServingInputReceiver` without alternatives, for unsupervised models."""

    def __new__(cls, features, receiver_tensors):
        return super().__new__(cls, features, receiver_tensors, None)


def _placeholder_like(tensor, default_batch_size=None):
    """A placeholder for batches of `tensor`'s shape, named after it where it can be."""
    shape = tf.TensorShape([default_batch_size]).concatenate(tensor.shape[1:])
    try:
        name = tensor.op.name
    except AttributeError:  # eager template tensors have no op
        name = None
    return tf.compat.v1.placeholder(dtype=tensor.dtype, shape=shape, name=name)


def _placeholders_like(tensors, default_batch_size=None):
    return {key: _placeholder_like(t, default_batch_size) for key, t in tensors.items()}


def build_parsing_serving_input_receiver_fn(feature_spec, default_batch_size=None):
    """A receiver fn fed serialized `tf.Example`s (input `examples`), parsed by `feature_spec`."""

    def serving_input_receiver_fn():
        serialized = tf.compat.v1.placeholder(
            dtype=tf.string, shape=[default_batch_size], name="input_example_tensor"
        )
        features = tf.compat.v1.io.parse_example(serialized, feature_spec)
        return ServingInputReceiver(features, {"examples": serialized})

    return serving_input_receiver_fn


def build_raw_serving_input_receiver_fn(features, default_batch_size=None):
    """A receiver fn fed the features directly; `features` are template tensors."""

    def serving_input_receiver_fn():
        receiver_tensors = _placeholders_like(features, default_batch_size)
        return ServingInputReceiver(receiver_tensors, receiver_tensors)

    return serving_input_receiver_fn


def build_raw_supervised_input_receiver_fn(features, labels, default_batch_size=None):
    """A supervised receiver fn fed features and labels directly (dicts or tensors)."""
    if isinstance(features, dict) and isinstance(labels, dict):
        overlap = set(features) & set(labels)
        if overlap:
            raise ValueError(
                f"Features and labels must have distinct keys. Found overlapping keys: {overlap}"
            )

    def supervised_input_receiver_fn():
        if isinstance(features, dict):
            feature_tensors = _placeholders_like(features, default_batch_size)
            receiver = dict(feature_tensors)
        else:
            feature_tensors = _placeholder_like(features, default_batch_size)
            receiver = {SINGLE_RECEIVER_DEFAULT_NAME: feature_tensors}
        if isinstance(labels, dict):
            label_tensors = _placeholders_like(labels, default_batch_size)
            receiver.update(label_tensors)
        else:
            label_tensors = _placeholder_like(labels, default_batch_size)
            receiver[SINGLE_LABEL_DEFAULT_NAME] = label_tensors
        return SupervisedInputReceiver(feature_tensors, label_tensors, receiver)

    return supervised_input_receiver_fn
