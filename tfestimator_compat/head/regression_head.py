"""Regression heads: `RegressionHead`, `PoissonRegressionHead`, `LogisticRegressionHead`."""

from __future__ import annotations

import keras
import tensorflow as tf

from tfestimator_compat.export import PredictOutput
from tfestimator_compat.export import RegressionOutput
from tfestimator_compat.head import base_head
from tfestimator_compat.head import head_utils
from tfestimator_compat.head import metrics as metrics_lib
from tfestimator_compat.head.metric_keys import MetricKeys
from tfestimator_compat.head.prediction_keys import PredictionKeys


class RegressionHead(base_head.SingleHead):
    """Head for regression of `label_dimension` values per example.

    Logits and labels have shape `[D0, ..., DN, label_dimension]` (labels may
    drop the last dimension when it is 1). The loss is the mean squared error
    unless `loss_fn` is given. With `inverse_link_fn`, the `predictions` are
    `inverse_link_fn(logits)` and the logits are predicted as well.

    Args:
        label_dimension: number of regression targets per example.
        weight_column: name or `numeric_column` of the weights; per example, or
            per example and target (`[D0, ..., DN, label_dimension]`).
        loss_reduction: `tf.losses.Reduction` `SUM_OVER_BATCH_SIZE` or `SUM`.
        loss_fn: `loss_fn(labels, logits[, features])` returning the
            unreduced loss of shape `[D0, ..., DN, label_dimension]`.
        inverse_link_fn: maps logits to predictions (e.g. `tf.math.exp`).
        name: suffix of metric keys and summaries.
    """

    def __init__(
        self,
        label_dimension=1,
        weight_column=None,
        loss_reduction=head_utils.SUM_OVER_BATCH_SIZE,
        loss_fn=None,
        inverse_link_fn=None,
        name=None,
    ):
        if label_dimension < 1:
            raise ValueError(f"Invalid label_dimension {label_dimension}.")
        super().__init__(weight_column, loss_reduction, loss_fn, name)
        self._logits_dimension = label_dimension
        self._inverse_link_fn = inverse_link_fn

    @property
    def logits_dimension(self):
        return self._logits_dimension

    def _processed_labels(self, logits, labels):
        labels = head_utils.check_labels(labels, logits, self._logits_dimension)
        return tf.cast(labels, tf.float32)

    def _unweighted_loss_and_weights(self, logits, labels, features):
        if self._loss_fn:
            loss = head_utils.call_loss_fn(
                self._loss_fn, labels, logits, features, self._logits_dimension
            )
        else:
            loss = tf.math.squared_difference(logits, labels)
        weights = head_utils.example_weights(
            features, self._weight_column, logits, allow_per_logit_weights=True
        )
        return loss, weights

    def predictions(self, logits, keys=None):
        logits = head_utils.check_logits(logits, self._logits_dimension)
        with tf.name_scope("predictions"):
            if self._inverse_link_fn:
                return {
                    PredictionKeys.PREDICTIONS: self._inverse_link_fn(logits),
                    PredictionKeys.LOGITS: logits,
                }
            return {PredictionKeys.PREDICTIONS: logits}

    def metrics(self, regularization_losses=None):
        key = self._summary_key
        with tf.name_scope("metrics"):
            eval_metrics = {
                key(MetricKeys.LOSS_MEAN): keras.metrics.Mean(name=MetricKeys.LOSS_MEAN),
                key(MetricKeys.PREDICTION_MEAN): keras.metrics.Mean(
                    name=MetricKeys.PREDICTION_MEAN
                ),
                key(MetricKeys.LABEL_MEAN): keras.metrics.Mean(name=MetricKeys.LABEL_MEAN),
            }
            if regularization_losses is not None:
                eval_metrics[key(MetricKeys.LOSS_REGULARIZATION)] = keras.metrics.Mean(
                    name=MetricKeys.LOSS_REGULARIZATION
                )
        return eval_metrics

    def update_metrics(self, eval_metrics, features, logits, labels, regularization_losses=None):
        key = self._summary_key
        predicted = self.predictions(logits)[PredictionKeys.PREDICTIONS]
        logits = head_utils.check_logits(logits, self._logits_dimension)
        labels = self._processed_labels(logits, labels)
        loss, weights = self._unweighted_loss_and_weights(logits, labels, features)
        metrics_lib.update_mean(eval_metrics[key(MetricKeys.LOSS_MEAN)], loss, weights)
        metrics_lib.update_mean(eval_metrics[key(MetricKeys.LABEL_MEAN)], labels, weights)
        metrics_lib.update_mean(eval_metrics[key(MetricKeys.PREDICTION_MEAN)], predicted, weights)
        base_head.regularization_loss_metric(
            eval_metrics, key(MetricKeys.LOSS_REGULARIZATION), regularization_losses
        )
        return eval_metrics

    def _export_outputs(self, predictions):
        regression = RegressionOutput(value=predictions[PredictionKeys.PREDICTIONS])
        return {
            base_head.DEFAULT_SERVING_KEY: regression,
            base_head.REGRESS_SERVING_KEY: regression,
            base_head.PREDICT_SERVING_KEY: PredictOutput(predictions),
        }


class PoissonRegressionHead(RegressionHead):
    """Regression of counts: Poisson loss on log-rates, `predictions = exp(logits)`.

    Args:
        label_dimension: number of targets per example.
        weight_column: name or `numeric_column` of the example weights.
        loss_reduction: `tf.losses.Reduction` `SUM_OVER_BATCH_SIZE` or `SUM`.
        compute_full_loss: add the Stirling term of `tf.nn.log_poisson_loss`.
        name: suffix of metric keys and summaries.
    """

    def __init__(
        self,
        label_dimension=1,
        weight_column=None,
        loss_reduction=head_utils.SUM_OVER_BATCH_SIZE,
        compute_full_loss=True,
        name=None,
    ):
        self._compute_full_loss = compute_full_loss
        super().__init__(
            label_dimension=label_dimension,
            weight_column=weight_column,
            loss_reduction=loss_reduction,
            loss_fn=self._poisson_loss,
            inverse_link_fn=tf.math.exp,
            name=name,
        )

    def _poisson_loss(self, labels, logits):
        return tf.nn.log_poisson_loss(
            targets=labels, log_input=logits, compute_full_loss=self._compute_full_loss
        )


class LogisticRegressionHead(RegressionHead):
    """Regression of values in [0, 1]: sigmoid cross-entropy, `predictions = sigmoid(logits)`.

    Args:
        weight_column: name or `numeric_column` of the example weights.
        loss_reduction: `tf.losses.Reduction` `SUM_OVER_BATCH_SIZE` or `SUM`.
        name: suffix of metric keys and summaries.
    """

    def __init__(
        self,
        weight_column=None,
        loss_reduction=head_utils.SUM_OVER_BATCH_SIZE,
        name=None,
    ):
        super().__init__(
            label_dimension=1,
            weight_column=weight_column,
            loss_reduction=loss_reduction,
            loss_fn=self._logistic_loss,
            inverse_link_fn=tf.math.sigmoid,
            name=name,
        )

    def _logistic_loss(self, labels, logits):
        labels = head_utils.check_label_range(labels, 2, message="Labels must be in range [0, 1]")
        return tf.nn.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits)
