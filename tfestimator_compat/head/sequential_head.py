"""`SequentialHeadWrapper`: a head over every real step of a sequence.

`RNNClassifier(return_sequences=True)` predicts at every step of its input
sequences. Its head is a static head (`BinaryClassHead`, ...) wrapped here:
in training and evaluation the logits `[batch, T, D]`, the labels
`[batch, T]` and the weight features are reduced to the real steps (those
the sequence mask, a `[batch, T]` boolean feature, marks) before the static
head computes its loss and metrics; predictions keep their `[batch, T, ...]`
shape and carry the mask under its feature name.

As in tensorflow-estimator, the class was not exported under `tf.estimator`;
programs imported it from
`tensorflow_estimator.python.estimator.head.sequential_head`.
"""

from __future__ import annotations

import abc
from collections.abc import Iterable

import tensorflow as tf

from tfestimator_compat.head.base_head import Head
from tfestimator_compat.head.multi_head import MultiHead
from tfestimator_compat.mode_keys import ModeKeys


class _SequentialHead(Head):
    """A head whose features hold a sequence mask under `input_sequence_mask_key`."""

    @property
    @abc.abstractmethod
    def input_sequence_mask_key(self) -> str:
        """Key of the `[batch, T]` boolean sequence mask in the features."""


class SequentialHeadWrapper(_SequentialHead):
    """Applies a static head to the real steps of sequences.

    Args:
        static_head: the `Head` to wrap (not a `MultiHead`).
        sequence_length_mask: name of the `[batch, T]` mask feature.
        feature_columns: name (or names) of the `[batch, T]` features, such
            as example weights, that the static head reads and that are
            reduced to the real steps with the logits.

    Example:

    ```python
    head = SequentialHeadWrapper(
        tf.estimator.BinaryClassHead(weight_column="weights"),
        sequence_length_mask="mask", feature_columns="weights")
    estimator = tf.estimator.experimental.RNNEstimator(
        head, sequence_feature_columns=[...], units=[16], cell_type="gru",
        return_sequences=True)
    ```
    """

    def __init__(
        self, static_head, sequence_length_mask="sequence_length_mask", feature_columns=None
    ):
        if not isinstance(sequence_length_mask, str):
            raise TypeError(
                "`sequence_mask` column must be a string. "
                f"Given type: {type(sequence_length_mask)}."
            )
        feature_columns = feature_columns or []
        if not isinstance(feature_columns, Iterable):
            raise TypeError(
                "`feature_columns` must be either a string or an iterable of strings got "
                f"{type(feature_columns)} instead."
            )
        if isinstance(feature_columns, str):
            feature_columns = [feature_columns]
        feature_columns = list(feature_columns)
        for column in feature_columns:
            if not isinstance(column, str):
                raise TypeError(f"Column must a string. Given type: {type(column)}.")
        if isinstance(static_head, MultiHead):
            raise ValueError("`MultiHead` is not supported with `SequentialHeadWrapper`.")
        self._sequence_length_mask = sequence_length_mask
        self._feature_columns = feature_columns
        self._static_head = static_head

    @property
    def input_sequence_mask_key(self) -> str:
        return self._sequence_length_mask

    @property
    def static_head(self):
        return self._static_head

    @property
    def logits_dimension(self):
        return self._static_head.logits_dimension

    @property
    def loss_reduction(self):
        return self._static_head.loss_reduction

    @property
    def name(self):
        if self._static_head.name:
            return f"{self._static_head.name}_sequential"
        return None

    def loss(self, logits, labels, features=None, mode=None, regularization_losses=None):
        """The static head's loss over the real steps (`logits` first, as in the original)."""
        flat_labels, flat_logits, flat_features = self._flatten(labels, logits, features)
        return self._static_head.loss(
            labels=flat_labels,
            logits=flat_logits,
            features=flat_features,
            mode=mode,
            regularization_losses=regularization_losses,
        )

    def predictions(self, logits, keys=None):
        return self._static_head.predictions(logits, keys=keys)

    def metrics(self, regularization_losses=None):
        return self._static_head.metrics(regularization_losses)

    def update_metrics(self, eval_metrics, features, logits, labels, regularization_losses=None):
        flat_labels, flat_logits, flat_features = self._flatten(labels, logits, features)
        return self._static_head.update_metrics(
            eval_metrics,
            flat_features,
            flat_logits,
            flat_labels,
            regularization_losses=regularization_losses,
        )

    def create_estimator_spec(
        self,
        features,
        mode,
        logits,
        labels=None,
        optimizer=None,
        trainable_variables=None,
        train_op_fn=None,
        update_ops=None,
        regularization_losses=None,
    ):
        """The static head's spec on the real steps; in PREDICT, every step plus the mask."""
        if mode == ModeKeys.PREDICT:
            spec = self._static_head.create_estimator_spec(features, mode, logits)
            predictions = dict(spec.predictions)
            predictions[self.input_sequence_mask_key] = features[self.input_sequence_mask_key]
            return spec._replace(predictions=predictions)
        flat_labels, flat_logits, flat_features = self._flatten(labels, logits, features)
        return self._static_head.create_estimator_spec(
            flat_features,
            mode,
            flat_logits,
            labels=flat_labels,
            optimizer=optimizer,
            trainable_variables=trainable_variables,
            train_op_fn=train_op_fn,
            update_ops=update_ops,
            regularization_losses=regularization_losses,
        )

    def _flatten(self, labels, logits, features):
        """`(labels, logits, features)` of the real steps, `[steps, ...]` each."""
        if self.input_sequence_mask_key not in features:
            raise ValueError(
                f"The provided sequence_length_mask key `{self.input_sequence_mask_key}` should "
                "be included in the features dictionary, but was not found. Found keys: "
                f"{list(features.keys())}."
            )
        sequence_mask = features[self.input_sequence_mask_key]
        if sequence_mask.shape.ndims != 2:
            raise ValueError(
                f"Mask is expected to have two dimensions, got {sequence_mask.shape.ndims} instead."
            )
        with tf.name_scope("flatten"):
            steps = tf.reduce_sum(tf.cast(sequence_mask, tf.int32))
            flat_logits = _flatten_tensor(logits, sequence_mask, steps)
            flat_labels = _flatten_tensor(labels, sequence_mask, steps)
            flat_features = {}
            for column in self._feature_columns:
                if column not in features:
                    raise ValueError(f"`{column}` column expected in features dictionary.")
                flat_features[column] = _flatten_tensor(features[column], sequence_mask, steps)
        return flat_labels, flat_logits, flat_features


def _flatten_tensor(tensor, sequence_mask, steps):
    """The real steps of `[batch, T, ...]` as `[steps, ...]` (`[steps, 1]` for `[batch, T]`).

    A `SparseTensor` gives its values in index order; a dense tensor its
    entries where the mask is true. A count other than the mask's raises
    when the graph runs.
    """
    shape = tensor.shape
    if shape.ndims is None or shape.ndims < 2:
        raise ValueError(
            f"Input tensor expected to have at least 2 dimensions, got {shape.ndims} instead."
        )
    if isinstance(tensor, tf.sparse.SparseTensor):
        flat = tf.sparse.reorder(tensor).values
        if shape.ndims > 2:
            flat = tf.reshape(flat, tf.concat([[-1], shape[2:]], axis=0))
    elif tf.is_tensor(tensor):
        flat = tf.boolean_mask(tensor, sequence_mask)
    else:
        raise ValueError(
            f"`tensor` expected to be a `Tensor` or `SparseTensor` got `{tensor}` instead."
        )
    if shape.ndims == 2:
        flat = tf.expand_dims(flat, -1)
        expected = tf.stack([steps, 1])
    else:
        expected = tf.concat([[steps], shape[2:]], axis=0)
    check = tf.compat.v1.debugging.assert_equal(
        tf.shape(flat), expected, message="Tensor shape is incompatible with provided mask."
    )
    with tf.control_dependencies([check]):
        return tf.identity(flat)
