"""Checks and small computations every head shares.

Heads receive logits of shape `[D0, ..., DN, logits_dimension]` and labels and
example weights in several accepted shapes. These helpers bring them to one
shape, with the original's error messages, and compute the reduced loss the
way Keras 2's `compute_weighted_loss` did, so canned estimators report the
numbers they reported before. They work in a traced graph (where shape
mismatches become runtime assertions) and eagerly.
"""

from __future__ import annotations

import tensorflow as tf

from tfestimator_compat.engine.internals import tensorflow_internals as tf_internals
from tfestimator_compat.engine.tracing import fn_args

SUM = "sum"
SUM_OVER_BATCH_SIZE = "sum_over_batch_size"
_VALID_REDUCTIONS = ("auto", SUM, SUM_OVER_BATCH_SIZE)

LABEL_NONE_MESSAGE = (
    "You must provide a labels Tensor. Given: None. Suggested troubleshooting "
    "steps: Check that your data contains your label feature. Check that your "
    "input_fn properly parses and returns labels."
)
_LABEL_SHAPE_MESSAGE = (
    "labels shape must be [D0, D1, ... DN, {}]. Suggested Fix: check your "
    "n_classes argument to the head and/or the shape of your label."
)


def validate_loss_reduction(loss_reduction: str) -> None:
    if loss_reduction not in _VALID_REDUCTIONS:
        raise ValueError(
            f"Invalid loss_reduction: {loss_reduction}. See `tf.losses.Reduction` "
            f"for valid options: {', '.join(_VALID_REDUCTIONS)}."
        )


def validate_loss_fn_args(loss_fn) -> None:
    """`loss_fn` must take `labels` and `logits`, and may take `features`."""
    args = set(fn_args.fn_args(loss_fn))
    for required in ("labels", "logits"):
        if required not in args:
            raise ValueError(
                f"loss_fn must contain argument: {required}. Given arguments: {sorted(args)}"
            )
    unexpected = sorted(args - {"labels", "logits", "features", "loss_reduction"})
    if unexpected:
        raise ValueError(f"loss_fn has unexpected args: {unexpected}")


def validate_label_vocabulary(label_vocabulary, n_classes=None) -> None:
    if label_vocabulary is None:
        return
    if not isinstance(label_vocabulary, (list, tuple)):
        raise ValueError(
            f"label_vocabulary should be a list or a tuple. Given type: {type(label_vocabulary)}"
        )
    if n_classes is not None and len(label_vocabulary) != n_classes:
        raise ValueError(
            '"label_vocabulary" does not have "n_classes" items. '
            f"len(label_vocabulary)={len(label_vocabulary)}, n_classes={n_classes}, "
            f"label_vocabulary={label_vocabulary}"
        )


def validate_thresholds(thresholds) -> tuple:
    thresholds = tuple(thresholds) if thresholds else ()
    for threshold in thresholds:
        if threshold <= 0.0 or threshold >= 1.0:
            raise ValueError(f"thresholds not in (0, 1): {thresholds}.")
    return thresholds


def check_logits(logits, expected_dimension: int):
    """Logits as float32, checked to be `[D0, ..., DN, expected_dimension]`."""
    with tf.name_scope("logits"):
        logits = tf.cast(logits, tf.float32)
        message = "logits shape must be [D0, D1, ... DN, logits_dimension]"
        shape = logits.shape
        if shape.rank is not None:
            if shape.rank < 2:
                raise ValueError(f"{message}, got {shape}.")
            if shape[-1] is not None and shape[-1] != expected_dimension:
                raise ValueError(f"{message}, got {shape}.")
            if shape[-1] is not None:
                return logits
        checks = [
            tf.debugging.assert_rank_at_least(logits, 2, message=message),
            tf.debugging.assert_equal(tf.shape(logits)[-1], expected_dimension, message=message),
        ]
        with tf.control_dependencies(checks):
            return tf.identity(logits)


def check_labels(labels, logits, expected_dimension: int):
    """Dense labels shaped like the logits, with `expected_dimension` last.

    Labels of shape `[D0, ..., DN]` are expanded to `[D0, ..., DN, 1]`.
    """
    if labels is None:
        raise ValueError(LABEL_NONE_MESSAGE)
    if isinstance(labels, tf.SparseTensor):
        raise ValueError(
            "SparseTensor labels are not supported. Labels must be a Tensor of shape "
            f"[D0, D1, ..., DN, {expected_dimension}], e.g. [batch_size, "
            f"{expected_dimension}]. Suggested Fix: in your input_fn, use "
            "tf.sparse.to_dense() to turn labels into a Tensor."
        )
    with tf.name_scope("labels") as scope:
        labels = tf.convert_to_tensor(labels)
        if (
            labels.shape.rank is not None
            and logits.shape.rank is not None
            and labels.shape.rank == logits.shape.rank - 1
        ):
            labels = tf.expand_dims(labels, -1)
        message = _LABEL_SHAPE_MESSAGE.format(expected_dimension)
        if labels.shape.rank is not None:
            if labels.shape.rank < 2:
                raise ValueError(
                    f"labels must have rank at least 2. Received rank {labels.shape.rank}, "
                    f"shape {labels.shape}"
                )
            last = labels.shape[-1]
            if last is not None and last != expected_dimension:
                raise ValueError(
                    f"Mismatched label shape. Expected labels dimension={expected_dimension}. "
                    f"Received {last}. Suggested Fix: If your classifier expects one-hot "
                    "encoding label, check your n_classes argument to the estimator and/or "
                    "the shape of your label. Otherwise, check the shape of your label."
                )
        expected_shape = tf.concat([tf.shape(logits)[:-1], [expected_dimension]], axis=0)
        check = tf.debugging.assert_equal(expected_shape, tf.shape(labels), message=message)
        with tf.control_dependencies([check]):
            labels = tf.identity(labels, name=scope)  # `head/labels`, as TF1 graphs named it
        return with_static_shape(labels, logits.shape[:-1].concatenate([expected_dimension]))


def with_static_shape(tensor, shape: tf.TensorShape):
    """`tensor`, its static shape refined to the `shape` a runtime check asserts.

    Labels and weights parsed from `tf.train.Example`s and passed through a
    queue have no static rank; TF1's metrics took such tensors, Keras 3's
    metrics need the rank. A shape that cannot match is left to the runtime
    check, so the error stays the one the original raised.
    """
    if tensor.shape.is_compatible_with(shape):
        tensor.set_shape(shape)
    return tensor


def check_label_range(labels, n_classes: int, message: str | None = None):
    """Labels, checked to lie in `[0, n_classes)`."""
    with tf.name_scope("check_label_range"):
        checks = [
            tf.debugging.assert_less_equal(
                labels,
                tf.cast(n_classes - 1, labels.dtype),
                message=message or f"Labels must be <= n_classes - 1 ({n_classes - 1})",
            ),
            tf.debugging.assert_non_negative(labels, message=message or "Labels must be >= 0"),
        ]
        with tf.control_dependencies(checks):
            return tf.identity(labels)


def example_weights(features, weight_column, logits, allow_per_logit_weights=False):
    """The weight of each example from `features`, shaped to broadcast over logits.

    Returns the Python float 1.0 when there is no `weight_column`. Weights of
    shape `[D0, ..., DN]` become `[D0, ..., DN, 1]`; with
    `allow_per_logit_weights` they may also be shaped like the logits.
    """
    if weight_column is None:
        return 1.0
    if isinstance(weight_column, str):
        weight_column = tf.feature_column.numeric_column(key=weight_column, shape=(1,))
    if isinstance(weight_column, tf_internals.NumericColumn):
        weights = weight_column.get_dense_tensor(
            tf_internals.FeatureTransformationCache(features), None
        )
    elif isinstance(weight_column, tf_internals.V1NumericColumn):
        weights = tf_internals.v1_dense_tensor(weight_column, features)
    else:
        raise TypeError(
            "Weight column must be either a string or NumericColumn. "
            f"Given type: {type(weight_column)}."
        )
    if not (weights.dtype.is_floating or weights.dtype.is_integer):
        raise ValueError(f"Weight column should be castable to float. Given dtype: {weights.dtype}")
    with tf.name_scope("weights"):
        weights = tf.cast(weights, tf.float32)
        logits_shape = tf.shape(logits)
        if (
            weights.shape.rank is not None
            and logits.shape.rank is not None
            and weights.shape.rank == logits.shape.rank - 1
        ):
            check = tf.debugging.assert_equal(
                logits_shape[:-1],
                tf.shape(weights),
                message="weights shape must be [D0, D1, ... DN] or [D0, D1, ... DN, 1]",
            )
            with tf.control_dependencies([check]):
                return tf.expand_dims(weights, -1)
        per_example_shape = tf.concat([logits_shape[:-1], [1]], axis=0)
        weights_shape = tf.shape(weights)
        matches_example = shapes_equal(weights_shape, per_example_shape)
        if allow_per_logit_weights:
            condition = tf.logical_or(matches_example, shapes_equal(weights_shape, logits_shape))
            message = (
                "weights shape must be [D0, D1, ... DN], [D0, D1, ... DN, 1] or "
                "[D0, D1, ... DN, logits_dimension]"
            )
        else:
            condition = matches_example
            message = "weights shape must be [D0, D1, ... DN] or [D0, D1, ... DN, 1]"
        check = tf.debugging.Assert(
            condition, [message, "logits_shape: ", logits_shape, "weights_shape: ", weights_shape]
        )
        with tf.control_dependencies([check]):
            weights = tf.identity(weights)
        last = None if allow_per_logit_weights else 1
        return with_static_shape(weights, logits.shape[:-1].concatenate([last]))


def shapes_equal(shape, other):
    """Whether two dynamic shapes (1-D int tensors) are equal, ranks included."""
    size = tf.size(other)
    padded = tf.pad(shape, [[0, tf.maximum(size - tf.size(shape), 0)]])[:size]
    return tf.logical_and(tf.equal(tf.size(shape), size), tf.reduce_all(tf.equal(padded, other)))


def call_loss_fn(loss_fn, labels, logits, features, expected_loss_dimension=1):
    """The user's `loss_fn`, checked to return `[D0, ..., DN, expected_loss_dimension]`."""
    kwargs = {"features": features} if "features" in fn_args.fn_args(loss_fn) else {}
    with tf.name_scope("call_loss_fn"):
        loss = loss_fn(labels=labels, logits=logits, **kwargs)
        expected = tf.concat([tf.shape(logits)[:-1], [expected_loss_dimension]], axis=0)
        check = tf.debugging.Assert(
            shapes_equal(tf.shape(loss), expected),
            [
                "loss_fn must return Tensor of shape "
                f"[D0, D1, ... DN, {expected_loss_dimension}]. logits_shape: ",
                tf.shape(logits),
                "loss_shape: ",
                tf.shape(loss),
            ],
        )
        with tf.control_dependencies([check]):
            return tf.identity(loss)


def weighted_loss(unweighted_loss, weights, reduction: str):
    """The training loss: `sum(loss * weights)`, over the number of elements
    unless `reduction` is `SUM`, as Keras 2 reduced it."""
    with tf.name_scope("weighted_loss"):  # `head/losses/weighted_loss/value`, as Keras 2 named it
        weighted = tf.multiply(tf.cast(unweighted_loss, tf.float32), weights)
        total = tf.reduce_sum(weighted)
        if reduction == SUM:
            return total
        num_elements = tf.cast(tf.size(weighted, name="num_elements"), tf.float32)
        return tf.math.divide_no_nan(total, num_elements, name="value")


def add_regularization(loss, regularization_losses):
    if regularization_losses is None:
        return loss
    return loss + tf.math.add_n(list(regularization_losses))


def requested_prediction_keys(keys, valid_keys):
    """The prediction keys asked for (all of `valid_keys` when none), each one checked."""
    for key in keys or ():
        if key not in valid_keys:
            raise ValueError(
                f"Prediction key must be in PredictionKeys, given: {key}. "
                f"Valid prediction keys include {valid_keys}."
            )
    return keys or valid_keys


def all_class_ids(logits, n_classes: int):
    """`[0, 1, ..., n_classes - 1]` for each example, int32."""
    batch_size = tf.shape(logits)[0]
    return tf.tile(tf.expand_dims(tf.range(n_classes), 0), [batch_size, 1])


def all_classes(logits, n_classes: int, label_vocabulary=None):
    """The class names (vocabulary or ids as strings) for each example."""
    batch_size = tf.shape(logits)[0]
    if label_vocabulary:
        names = tf.expand_dims(tf.constant(list(label_vocabulary), tf.string), 0)
    else:
        names = tf.strings.as_string(tf.expand_dims(tf.range(n_classes), 0))
    return tf.tile(names, [batch_size, 1])


def class_id_table(label_vocabulary):
    """A table from class name to id (-1 when unknown)."""
    ids = list(range(len(label_vocabulary)))
    return _static_table(list(label_vocabulary), tf.string, ids, tf.int64, -1, "class_id_lookup")


def class_name_table(label_vocabulary):
    """A table from class id to name ("UNK" when out of range)."""
    ids = list(range(len(label_vocabulary)))
    return _static_table(
        ids, tf.int64, list(label_vocabulary), tf.string, "UNK", "class_string_lookup"
    )


def _static_table(keys, key_dtype, values, value_dtype, default_value, name):
    """A lookup table, created and filled outside the traced graph.

    Feature columns make their vocabulary tables the same way: the graph only
    looks up, so no initializer has to run in it.
    """
    with tf.init_scope():
        initializer = tf.lookup.KeyValueTensorInitializer(
            tf.constant(keys, key_dtype), tf.constant(values, value_dtype)
        )
        return tf.lookup.StaticHashTable(initializer, default_value, name=name)


def binary_or_multi_class(n_classes, binary, multi_class, **kwargs):
    """`binary(**kwargs)` for 2 classes, else `multi_class(n_classes, **kwargs)`: how
    every classifier, V1, V2 and TF1's private factories, picked its head."""
    if n_classes == 2:
        return binary(**kwargs)
    return multi_class(n_classes, **kwargs)
