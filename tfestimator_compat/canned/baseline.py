"""Baselines: models that ignore the features and learn one bias.

`BaselineClassifier` learns the class prior (its predictions are the label
distribution), `BaselineRegressor` the mean label; they give the numbers a
real model should beat. The variable is the original's `baseline/bias`.
"""

from __future__ import annotations

import tensorflow as tf

from tfestimator_compat.canned import feature_layers
from tfestimator_compat.canned import optimizers
from tfestimator_compat.canned.heads import classification_head
from tfestimator_compat.canned.heads import regression_head
from tfestimator_compat.engine.internals import tensorflow_internals as tf_internals
from tfestimator_compat.estimator import Estimator
from tfestimator_compat.head import head_utils
from tfestimator_compat.mode_keys import ModeKeys

LEARNING_RATE = 0.3


def _weight_column_key(weight_column):
    if weight_column is None or isinstance(weight_column, str):
        return weight_column
    if not isinstance(weight_column, tf_internals.NumericColumn):
        raise TypeError(
            "Weight column must be either a string or NumericColumn. "
            f"Given type: {type(weight_column)}."
        )
    return weight_column.key


def _batch_size(features, weight_column_key):
    """The batch size, read from the features, checked to agree among them.

    The weight column is left out, so serving does not depend on it.
    """
    batch_size, checks = None, []
    for key, feature in features.items():
        if key == weight_column_key:
            continue
        first_dimension = tf.shape(feature, out_type=tf.int32)[0]
        if batch_size is None:
            batch_size = first_dimension
        else:
            checks.append(tf.debugging.assert_equal(batch_size, first_dimension))
    if batch_size is None:
        raise ValueError("The baseline needs at least one feature to know the batch size.")
    return batch_size, checks


def baseline_logits(features, units, weight_column=None):
    """`baseline/bias`, repeated for each example. Returns `(logits, [bias])`."""
    batch_size, checks = _batch_size(features, _weight_column_key(weight_column))
    with tf.control_dependencies(checks), tf.name_scope("baseline"):
        bias = tf.Variable(lambda: tf.zeros([units]), name="bias")
        logits = tf.multiply(bias, tf.ones(tf.stack([batch_size, units])))
    return logits, [bias]


def baseline_model_fn(features, labels, mode, head, optimizer="Ftrl", weight_column=None):
    """The `model_fn` of the baselines: `head` on the bias."""
    feature_layers.validate_features(features)
    logits, variables = baseline_logits(features, head.logits_dimension, weight_column)

    def train_op_fn(loss):
        resolved = optimizers.get_optimizer(optimizer, learning_rate=LEARNING_RATE)
        return optimizers.minimize(resolved, loss, variables)

    return head.create_estimator_spec(
        features,
        mode,
        logits,
        labels=labels,
        train_op_fn=train_op_fn if mode == ModeKeys.TRAIN else None,
    )


class BaselineEstimator(Estimator):
    """A baseline with any head: one learned bias, features ignored.

    Args:
        head: a `Head` defining loss, metrics and predictions.
        model_dir: where checkpoints and summaries go.
        optimizer: 'Ftrl' (default), 'Adagrad', 'Adam', 'RMSProp' or 'SGD' at
            learning rate 0.3, a Keras optimizer, a `tf.compat.v1.train`
            optimizer, or a callable returning one.
        config: a `RunConfig`.
    """

    def __init__(self, head, model_dir=None, optimizer="Ftrl", config=None):
        def _model_fn(features, labels, mode):
            return baseline_model_fn(features, labels, mode, head, optimizer=optimizer)

        super().__init__(model_fn=_model_fn, model_dir=model_dir, config=config)


class BaselineClassifier(Estimator):
    """Predicts the class distribution of the training labels, whatever the input.

    Args:
        model_dir: where checkpoints and summaries go.
        n_classes: number of classes (2: binary).
        weight_column: name or `numeric_column` of the example weights.
        label_vocabulary: class names, when labels are strings.
        optimizer: see `BaselineEstimator`.
        config: a `RunConfig`.
        loss_reduction: `tf.losses.Reduction` `SUM_OVER_BATCH_SIZE` or `SUM`.
    """

    def __init__(
        self,
        model_dir=None,
        n_classes=2,
        weight_column=None,
        label_vocabulary=None,
        optimizer="Ftrl",
        config=None,
        loss_reduction=head_utils.SUM_OVER_BATCH_SIZE,
    ):
        head = classification_head(n_classes, weight_column, label_vocabulary, loss_reduction)

        def _model_fn(features, labels, mode):
            return baseline_model_fn(
                features, labels, mode, head, optimizer=optimizer, weight_column=weight_column
            )

        super().__init__(model_fn=_model_fn, model_dir=model_dir, config=config)


class BaselineRegressor(Estimator):
    """Predicts the mean of the training labels, whatever the input.

    Args:
        model_dir: where checkpoints and summaries go.
        label_dimension: number of regression targets per example.
        weight_column: name or `numeric_column` of the example weights.
        optimizer: see `BaselineEstimator`.
        config: a `RunConfig`.
        loss_reduction: `tf.losses.Reduction` `SUM_OVER_BATCH_SIZE` or `SUM`.
    """

    def __init__(
        self,
        model_dir=None,
        label_dimension=1,
        weight_column=None,
        optimizer="Ftrl",
        config=None,
        loss_reduction=head_utils.SUM_OVER_BATCH_SIZE,
    ):
        head = regression_head(label_dimension, weight_column, loss_reduction)

        def _model_fn(features, labels, mode):
            return baseline_model_fn(
                features, labels, mode, head, optimizer=optimizer, weight_column=weight_column
            )

        super().__init__(model_fn=_model_fn, model_dir=model_dir, config=config)
