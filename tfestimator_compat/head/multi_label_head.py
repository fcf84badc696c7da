"""`MultiLabelHead`: any number of `n_classes` labels per example."""

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

_KEYS = (PredictionKeys.LOGITS, PredictionKeys.PROBABILITIES, PredictionKeys.CLASSES)


class MultiLabelHead(base_head.SingleHead):
    """Head for multi-label classification: an independent sigmoid per class.

    Logits have shape `[D0, ..., DN, n_classes]`. Labels are a multi-hot
    integer tensor of that shape, or a `SparseTensor` of class ids (or of
    strings of `label_vocabulary`). The loss is the sigmoid cross-entropy,
    averaged over classes, then weighted and reduced over examples.

    Args:
        n_classes: number of classes, more than 1.
        weight_column: name or `numeric_column` of the example weights.
        thresholds: values in (0, 1) at which `accuracy`, `precision` and
            `recall` are also reported.
        label_vocabulary: the class names, when labels are strings.
        loss_reduction: `tf.losses.Reduction` `SUM_OVER_BATCH_SIZE` or `SUM`.
        loss_fn: `loss_fn(labels, logits[, features])` returning the
            unreduced loss of shape `[D0, ..., DN, 1]`.
        classes_for_class_based_metrics: class ids or names for which
            `probability_mean/<class>`, `auc/<class>` and
            `auc_precision_recall/<class>` are reported.
        name: suffix of metric keys and summaries.
    """

    def __init__(
        self,
        n_classes,
        weight_column=None,
        thresholds=None,
        label_vocabulary=None,
        loss_reduction=head_utils.SUM_OVER_BATCH_SIZE,
        loss_fn=None,
        classes_for_class_based_metrics=None,
        name=None,
    ):
        if n_classes is None or n_classes < 2:
            raise ValueError(
                f"n_classes must be > 1 for multi-label classification. Given: {n_classes}"
            )
        self._thresholds = head_utils.validate_thresholds(thresholds)
        if label_vocabulary is not None:
            if not isinstance(label_vocabulary, (list, tuple)):
                raise ValueError(
                    "label_vocabulary must be a list or tuple. "
                    f"Given type: {type(label_vocabulary)}"
                )
            if len(label_vocabulary) != n_classes:
                raise ValueError(
                    f"Length of label_vocabulary must be n_classes ({n_classes}). "
                    f"Given: {len(label_vocabulary)}"
                )
        super().__init__(weight_column, loss_reduction, loss_fn, name)
        self._n_classes = n_classes
        self._label_vocabulary = label_vocabulary
        self._metric_classes = self._class_ids_for_metrics(classes_for_class_based_metrics)

    def _class_ids_for_metrics(self, classes):
        if not classes:
            return ()
        classes = tuple(classes)
        if isinstance(classes[0], str):
            if not self._label_vocabulary:
                raise ValueError(
                    "label_vocabulary must be provided when classes_for_class_based_metrics "
                    "are strings."
                )
            return tuple(self._label_vocabulary.index(name) for name in classes)
        for class_id in classes:
            if class_id < 0 or class_id >= self._n_classes:
                raise ValueError(
                    "All classes_for_class_based_metrics must be in range "
                    f"[0, {self._n_classes - 1}]. Given: {class_id}"
                )
        return classes

    @property
    def logits_dimension(self):
        return self._n_classes

    def _class_keys(self, class_id):
        """Keys of the metrics of one class: by vocabulary name when there is one."""
        if self._label_vocabulary is None:
            names = (
                MetricKeys.PROBABILITY_MEAN_AT_CLASS % class_id,
                MetricKeys.AUC_AT_CLASS % class_id,
                MetricKeys.AUC_PR_AT_CLASS % class_id,
            )
        else:
            label = self._label_vocabulary[class_id]
            names = (
                MetricKeys.PROBABILITY_MEAN_AT_NAME % label,
                MetricKeys.AUC_AT_NAME % label,
                MetricKeys.AUC_PR_AT_NAME % label,
            )
        return tuple(self._summary_key(name) for name in names)

    def _processed_labels(self, logits, labels):
        if labels is None:
            raise ValueError(head_utils.LABEL_NONE_MESSAGE)
        if isinstance(labels, tf.SparseTensor):
            if labels.dtype == tf.string:
                table = head_utils.class_id_table(self._label_vocabulary)
                labels = tf.SparseTensor(
                    labels.indices, table.lookup(labels.values), labels.dense_shape
                )
            elif not labels.dtype.is_integer:
                raise ValueError(f"Labels dtype should be integer. Instead got {labels.dtype}.")
            values = head_utils.check_label_range(
                labels.values,
                self._n_classes,
                message=f"labels must be an integer SparseTensor with values in "
                f"[0, {self._n_classes})",
            )
            labels = tf.SparseTensor(labels.indices, values, labels.dense_shape)
            processed = tf.cast(tf.sparse.to_indicator(labels, self._n_classes), tf.int64)
        else:
            processed = head_utils.check_label_range(
                tf.convert_to_tensor(labels),
                2,
                message="labels must be an integer indicator Tensor with values in [0, 1]",
            )
        return head_utils.check_labels(processed, logits, self._n_classes)

    def _unweighted_loss_and_weights(self, logits, labels, features):
        if self._loss_fn:
            loss = head_utils.call_loss_fn(self._loss_fn, labels, logits, features)
        else:
            loss = tf.reduce_mean(
                tf.nn.sigmoid_cross_entropy_with_logits(
                    labels=tf.cast(labels, logits.dtype), logits=logits
                ),
                axis=-1,
                keepdims=True,
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
                predictions[PredictionKeys.PROBABILITIES] = tf.sigmoid(
                    logits, name=PredictionKeys.PROBABILITIES
                )
            if PredictionKeys.CLASSES in keys:
                predictions[PredictionKeys.CLASSES] = head_utils.all_classes(
                    logits, self._n_classes, self._label_vocabulary
                )
        return predictions

    def metrics(self, regularization_losses=None):
        key = self._summary_key
        with tf.name_scope("metrics"):
            eval_metrics = {
                key(MetricKeys.LOSS_MEAN): keras.metrics.Mean(name=MetricKeys.LOSS_MEAN),
                key(MetricKeys.AUC): keras.metrics.AUC(name=MetricKeys.AUC),
                key(MetricKeys.AUC_PR): keras.metrics.AUC(curve="PR", name=MetricKeys.AUC_PR),
            }
            if regularization_losses is not None:
                eval_metrics[key(MetricKeys.LOSS_REGULARIZATION)] = keras.metrics.Mean(
                    name=MetricKeys.LOSS_REGULARIZATION
                )
            eval_metrics.update(self._threshold_metrics())
            for class_id in self._metric_classes:
                probability_mean, auc, auc_pr = self._class_keys(class_id)
                eval_metrics[probability_mean] = keras.metrics.Mean(name=probability_mean)
                eval_metrics[auc] = keras.metrics.AUC(name=auc)
                eval_metrics[auc_pr] = keras.metrics.AUC(curve="PR", name=auc_pr)
        return eval_metrics

    def update_metrics(self, eval_metrics, features, logits, labels, regularization_losses=None):
        key = self._summary_key
        logits = head_utils.check_logits(logits, self._n_classes)
        labels = self._processed_labels(logits, labels)
        loss, weights = self._unweighted_loss_and_weights(logits, labels, features)
        probabilities = self.predictions(logits, [PredictionKeys.PROBABILITIES])[
            PredictionKeys.PROBABILITIES
        ]
        sample_weight = metrics_lib.sample_weight(weights)
        metrics_lib.update_mean(eval_metrics[key(MetricKeys.LOSS_MEAN)], loss, weights)
        for name in (MetricKeys.AUC, MetricKeys.AUC_PR):
            eval_metrics[key(name)].update_state(labels, probabilities, sample_weight=sample_weight)
        base_head.regularization_loss_metric(
            eval_metrics, key(MetricKeys.LOSS_REGULARIZATION), regularization_losses
        )
        self._update_threshold_metrics(eval_metrics, labels, probabilities, sample_weight)
        for class_id in self._metric_classes:
            probability_mean, auc, auc_pr = self._class_keys(class_id)
            class_probabilities = probabilities[..., class_id : class_id + 1]
            class_labels = labels[..., class_id : class_id + 1]
            metrics_lib.update_mean(eval_metrics[probability_mean], class_probabilities, weights)
            for name in (auc, auc_pr):
                eval_metrics[name].update_state(
                    class_labels, class_probabilities, sample_weight=sample_weight
                )
        return eval_metrics

    def _export_outputs(self, predictions):
        classification = ClassificationOutput(
            scores=predictions[PredictionKeys.PROBABILITIES],
            classes=predictions[PredictionKeys.CLASSES],
        )
        return {
            base_head.DEFAULT_SERVING_KEY: classification,
            base_head.CLASSIFY_SERVING_KEY: classification,
            base_head.PREDICT_SERVING_KEY: PredictOutput(predictions),
        }
