"""`BinaryClassHead`: one logit per example, sigmoid cross-entropy loss."""

from __future__ import annotations

import keras
import tensorflow as tf

from tfestimator_compat.export import ClassificationOutput
from tfestimator_compat.export import PredictOutput
from tfestimator_compat.export import RegressionOutput
from tfestimator_compat.head import base_head
from tfestimator_compat.head import head_utils
from tfestimator_compat.head import metrics as metrics_lib
from tfestimator_compat.head.metric_keys import MetricKeys
from tfestimator_compat.head.prediction_keys import PredictionKeys

_KEYS = (
    PredictionKeys.LOGITS,
    PredictionKeys.LOGISTIC,
    PredictionKeys.PROBABILITIES,
    PredictionKeys.CLASS_IDS,
    PredictionKeys.CLASSES,
    PredictionKeys.ALL_CLASS_IDS,
    PredictionKeys.ALL_CLASSES,
)


class BinaryClassHead(base_head.SingleHead):
    """Head for binary classification: `logistic = sigmoid(logits)`.

    Logits have shape `[D0, ..., DN, 1]`. Labels are `[D0, ..., DN]` or
    `[D0, ..., DN, 1]`, integers or floats in `[0, 1]`, or strings of
    `label_vocabulary`. The loss is the sigmoid cross-entropy, weighted by
    `weight_column` and reduced by `loss_reduction`.

    Args:
        weight_column: name or `numeric_column` of the example weights.
        thresholds: values in (0, 1) at which `accuracy`, `precision` and
            `recall` are also reported (`accuracy/positive_threshold_0.7`).
        label_vocabulary: the two class names, when labels are strings.
        loss_reduction: `tf.losses.Reduction` `SUM_OVER_BATCH_SIZE` or `SUM`.
        loss_fn: `loss_fn(labels, logits[, features])` returning the
            unreduced loss of shape `[D0, ..., DN, 1]`.
        name: suffix of metric keys and summaries (`auc/name`), needed in a
            `MultiHead`.

    Example:

    ```python
    head = tf.estimator.BinaryClassHead(thresholds=[0.3, 0.7])
    estimator = tf.estimator.DNNEstimator(head, hidden_units=[16], feature_columns=columns)
    ```
    """

    def __init__(
        self,
        weight_column=None,
        thresholds=None,
        label_vocabulary=None,
        loss_reduction=head_utils.SUM_OVER_BATCH_SIZE,
        loss_fn=None,
        name=None,
    ):
        head_utils.validate_label_vocabulary(label_vocabulary)
        self._thresholds = head_utils.validate_thresholds(thresholds)
        super().__init__(weight_column, loss_reduction, loss_fn, name)
        self._label_vocabulary = label_vocabulary

    @property
    def logits_dimension(self):
        return 1

    def _processed_labels(self, logits, labels):
        labels = head_utils.check_labels(labels, logits, 1)
        if self._label_vocabulary is not None:
            if labels.dtype != tf.string:
                raise ValueError(
                    "Labels dtype should be string if there is a vocabulary. "
                    f"Instead got {labels.dtype}"
                )
            labels = head_utils.class_id_table(self._label_vocabulary).lookup(labels)
        return head_utils.check_label_range(tf.cast(labels, tf.float32), 2)

    def _unweighted_loss_and_weights(self, logits, labels, features):
        if self._loss_fn:
            loss = head_utils.call_loss_fn(self._loss_fn, labels, logits, features)
        else:
            loss = tf.nn.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits)
        weights = head_utils.example_weights(features, self._weight_column, logits)
        return loss, weights

    def predictions(self, logits, keys=None):
        keys = head_utils.requested_prediction_keys(keys, _KEYS)
        logits = head_utils.check_logits(logits, 1)
        predictions = {}
        with tf.name_scope("predictions"):
            if PredictionKeys.LOGITS in keys:
                predictions[PredictionKeys.LOGITS] = logits
            logistic = tf.sigmoid(logits, name=PredictionKeys.LOGISTIC)
            if PredictionKeys.LOGISTIC in keys:
                predictions[PredictionKeys.LOGISTIC] = logistic
            two_class_logits = tf.concat(
                [tf.zeros_like(logits), logits], -1, name="two_class_logits"
            )
            if PredictionKeys.PROBABILITIES in keys:
                predictions[PredictionKeys.PROBABILITIES] = tf.nn.softmax(
                    two_class_logits, name=PredictionKeys.PROBABILITIES
                )
            class_ids = tf.expand_dims(
                tf.argmax(two_class_logits, axis=-1, name=PredictionKeys.CLASS_IDS), -1
            )
            if PredictionKeys.CLASS_IDS in keys:
                predictions[PredictionKeys.CLASS_IDS] = class_ids
            if PredictionKeys.CLASSES in keys:
                if self._label_vocabulary is not None:
                    classes = head_utils.class_name_table(self._label_vocabulary).lookup(class_ids)
                else:
                    classes = tf.strings.as_string(class_ids, name="str_classes")
                predictions[PredictionKeys.CLASSES] = classes
            if PredictionKeys.ALL_CLASS_IDS in keys:
                predictions[PredictionKeys.ALL_CLASS_IDS] = head_utils.all_class_ids(logits, 2)
            if PredictionKeys.ALL_CLASSES in keys:
                predictions[PredictionKeys.ALL_CLASSES] = head_utils.all_classes(
                    logits, 2, self._label_vocabulary
                )
        return predictions

    def metrics(self, regularization_losses=None):
        key = self._summary_key
        with tf.name_scope("metrics"):
            eval_metrics = {
                key(MetricKeys.LOSS_MEAN): keras.metrics.Mean(name=MetricKeys.LOSS_MEAN),
                key(MetricKeys.ACCURACY): keras.metrics.Accuracy(name=MetricKeys.ACCURACY),
                key(MetricKeys.PRECISION): keras.metrics.Precision(name=MetricKeys.PRECISION),
                key(MetricKeys.RECALL): keras.metrics.Recall(name=MetricKeys.RECALL),
                key(MetricKeys.PREDICTION_MEAN): keras.metrics.Mean(
                    name=MetricKeys.PREDICTION_MEAN
                ),
                key(MetricKeys.LABEL_MEAN): keras.metrics.Mean(name=MetricKeys.LABEL_MEAN),
                key(MetricKeys.ACCURACY_BASELINE): metrics_lib.AccuracyBaseline(
                    name=MetricKeys.ACCURACY_BASELINE
                ),
                key(MetricKeys.AUC): self._auc(curve="ROC", name=MetricKeys.AUC),
                key(MetricKeys.AUC_PR): self._auc(curve="PR", name=MetricKeys.AUC_PR),
            }
            if regularization_losses is not None:
                eval_metrics[key(MetricKeys.LOSS_REGULARIZATION)] = keras.metrics.Mean(
                    name=MetricKeys.LOSS_REGULARIZATION
                )
            eval_metrics.update(self._threshold_metrics())
        return eval_metrics

    def _auc(self, curve, name):
        return keras.metrics.AUC(curve=curve, name=name)

    def update_metrics(self, eval_metrics, features, logits, labels, regularization_losses=None):
        key = self._summary_key
        predictions = self.predictions(logits, [PredictionKeys.CLASS_IDS, PredictionKeys.LOGISTIC])
        class_ids = predictions[PredictionKeys.CLASS_IDS]
        logistic = predictions[PredictionKeys.LOGISTIC]
        logits = head_utils.check_logits(logits, 1)
        labels = self._processed_labels(logits, labels)
        loss, weights = self._unweighted_loss_and_weights(logits, labels, features)
        sample_weight = metrics_lib.sample_weight(weights)
        metrics_lib.update_mean(eval_metrics[key(MetricKeys.LOSS_MEAN)], loss, weights)
        for name in (MetricKeys.ACCURACY, MetricKeys.PRECISION, MetricKeys.RECALL):
            eval_metrics[key(name)].update_state(labels, class_ids, sample_weight=sample_weight)
        metrics_lib.update_mean(eval_metrics[key(MetricKeys.PREDICTION_MEAN)], logistic, weights)
        metrics_lib.update_mean(eval_metrics[key(MetricKeys.LABEL_MEAN)], labels, weights)
        metrics_lib.update_mean(eval_metrics[key(MetricKeys.ACCURACY_BASELINE)], labels, weights)
        for name in (MetricKeys.AUC, MetricKeys.AUC_PR):
            eval_metrics[key(name)].update_state(labels, logistic, sample_weight=sample_weight)
        base_head.regularization_loss_metric(
            eval_metrics, key(MetricKeys.LOSS_REGULARIZATION), regularization_losses
        )
        self._update_threshold_metrics(eval_metrics, labels, logistic, sample_weight)
        return eval_metrics

    def _export_outputs(self, predictions):
        classification = ClassificationOutput(
            scores=predictions[PredictionKeys.PROBABILITIES],
            classes=predictions[PredictionKeys.ALL_CLASSES],
        )
        return {
            base_head.DEFAULT_SERVING_KEY: classification,
            base_head.CLASSIFY_SERVING_KEY: classification,
            base_head.REGRESS_SERVING_KEY: RegressionOutput(
                value=predictions[PredictionKeys.LOGISTIC]
            ),
            base_head.PREDICT_SERVING_KEY: PredictOutput(predictions),
        }
