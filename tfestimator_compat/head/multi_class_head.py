"""`MultiClassHead`: one logit per class, softmax cross-entropy loss."""

from __future__ import annotations

import keras
import tensorflow as tf

from tfestimator_compat.export import ClassificationOutput
from tfestimator_compat.export import PredictOutput
from tfestimator_compat.head import base_head
from tfestimator_compat.head import head_utils
from tfestimator_compat.head import metrics as metrics_lib
from tfestimator_compat.head.metric_keys import MetricKeys
from tfestimator_compat.head.prediction_keys import PredictionKeys

_KEYS = (
    PredictionKeys.LOGITS,
    PredictionKeys.PROBABILITIES,
    PredictionKeys.CLASS_IDS,
    PredictionKeys.CLASSES,
    PredictionKeys.ALL_CLASS_IDS,
    PredictionKeys.ALL_CLASSES,
)


class MultiClassHead(base_head.SingleHead):
    """Head for classification into `n_classes` (> 2) exclusive classes.

    Logits have shape `[D0, ..., DN, n_classes]`. Labels are class ids in
    `[0, n_classes)` of shape `[D0, ..., DN]` or `[D0, ..., DN, 1]`, or
    strings of `label_vocabulary`. The loss is the softmax cross-entropy.

    Args:
        n_classes: number of classes, more than 2 (use `BinaryClassHead` for 2).
        weight_column: name or `numeric_column` of the example weights.
        label_vocabulary: the class names, when labels are strings.
        loss_reduction: `tf.losses.Reduction` `SUM_OVER_BATCH_SIZE` or `SUM`.
        loss_fn: `loss_fn(labels, logits[, features])` returning the
            unreduced loss of shape `[D0, ..., DN, 1]`.
        name: suffix of metric keys and summaries.
    """

    def __init__(
        self,
        n_classes,
        weight_column=None,
        label_vocabulary=None,
        loss_reduction=head_utils.SUM_OVER_BATCH_SIZE,
        loss_fn=None,
        name=None,
    ):
        if n_classes is None:
            raise ValueError("n_classes cannot be None")
        head_utils.validate_label_vocabulary(label_vocabulary, n_classes)
        super().__init__(weight_column, loss_reduction, loss_fn, name)
        if isinstance(n_classes, int) and n_classes <= 2:
            raise ValueError(f"n_classes must be > 2: {n_classes}.")
        self._n_classes = n_classes
        self._label_vocabulary = label_vocabulary

    @property
    def logits_dimension(self):
        return self._n_classes

    def _processed_labels(self, logits, labels):
        labels = head_utils.check_labels(labels, logits, 1)
        if self._label_vocabulary is None:
            if not labels.dtype.is_integer:
                raise ValueError(f"Labels dtype should be integer. Instead got {labels.dtype}.")
            label_ids = labels
        else:
            if labels.dtype != tf.string:
                raise ValueError(
                    "Labels dtype should be string if there is a vocabulary. "
                    f"Instead got {labels.dtype}"
                )
            label_ids = head_utils.class_id_table(self._label_vocabulary).lookup(labels)
        return head_utils.check_label_range(label_ids, self._n_classes)

    def _unweighted_loss_and_weights(self, logits, label_ids, features):
        if self._loss_fn:
            loss = head_utils.call_loss_fn(self._loss_fn, label_ids, logits, features)
        else:
            loss = tf.expand_dims(
                tf.nn.sparse_softmax_cross_entropy_with_logits(
                    labels=tf.squeeze(label_ids, -1), logits=logits
                ),
                -1,
            )
        weights = head_utils.example_weights(features, self._weight_column, logits)
        return loss, weights

    def predictions(self, logits, keys=None):
        keys = head_utils.requested_prediction_keys(keys, _KEYS)
        logits = head_utils.check_logits(logits, self._n_classes)
        predictions = {}
        with tf.name_scope("predictions"):
            if PredictionKeys.LOGITS in keys:
                predictions[PredictionKeys.LOGITS] = logits
            if PredictionKeys.PROBABILITIES in keys:
                predictions[PredictionKeys.PROBABILITIES] = tf.nn.softmax(
                    logits, name=PredictionKeys.PROBABILITIES
                )
            class_ids = tf.expand_dims(
                tf.argmax(logits, axis=-1, name=PredictionKeys.CLASS_IDS), -1
            )
            if PredictionKeys.CLASS_IDS in keys:
                predictions[PredictionKeys.CLASS_IDS] = class_ids
            if PredictionKeys.CLASSES in keys:
                if self._label_vocabulary:
                    classes = head_utils.class_name_table(self._label_vocabulary).lookup(class_ids)
                else:
                    classes = tf.strings.as_string(class_ids, name="str_classes")
                predictions[PredictionKeys.CLASSES] = classes
            if PredictionKeys.ALL_CLASS_IDS in keys:
                predictions[PredictionKeys.ALL_CLASS_IDS] = head_utils.all_class_ids(
                    logits, self._n_classes
                )
            if PredictionKeys.ALL_CLASSES in keys:
                predictions[PredictionKeys.ALL_CLASSES] = head_utils.all_classes(
                    logits, self._n_classes, self._label_vocabulary
                )
        return predictions

    def metrics(self, regularization_losses=None):
        key = self._summary_key
        with tf.name_scope("metrics"):
            eval_metrics = {
                key(MetricKeys.LOSS_MEAN): keras.metrics.Mean(name=MetricKeys.LOSS_MEAN),
                key(MetricKeys.ACCURACY): keras.metrics.Accuracy(name=MetricKeys.ACCURACY),
            }
            if regularization_losses is not None:
                eval_metrics[key(MetricKeys.LOSS_REGULARIZATION)] = keras.metrics.Mean(
                    name=MetricKeys.LOSS_REGULARIZATION
                )
        return eval_metrics

    def update_metrics(self, eval_metrics, features, logits, labels, regularization_losses=None):
        key = self._summary_key
        class_ids = self.predictions(logits, [PredictionKeys.CLASS_IDS])[PredictionKeys.CLASS_IDS]
        logits = head_utils.check_logits(logits, self._n_classes)
        label_ids = self._processed_labels(logits, labels)
        loss, weights = self._unweighted_loss_and_weights(logits, label_ids, features)
        metrics_lib.update_mean(eval_metrics[key(MetricKeys.LOSS_MEAN)], loss, weights)
        eval_metrics[key(MetricKeys.ACCURACY)].update_state(
            label_ids, class_ids, sample_weight=metrics_lib.sample_weight(weights)
        )
        base_head.regularization_loss_metric(
            eval_metrics, key(MetricKeys.LOSS_REGULARIZATION), regularization_losses
        )
        return eval_metrics

    def _export_outputs(self, predictions):
        classification = ClassificationOutput(
            scores=predictions[PredictionKeys.PROBABILITIES],
            classes=predictions[PredictionKeys.ALL_CLASSES],
        )
        return {
            base_head.DEFAULT_SERVING_KEY: classification,
            base_head.CLASSIFY_SERVING_KEY: classification,
            base_head.PREDICT_SERVING_KEY: PredictOutput(predictions),
        }
