"""Keras metrics the heads report that Keras does not have as such.

Heads return Keras `Metric` objects in `eval_metric_ops`; the Estimator
resets their variables before each evaluation and reads `result()` after it.
"""

import keras
import tensorflow as tf


class AccuracyBaseline(keras.metrics.Mean):
    """The accuracy of always predicting the more frequent of two classes.

    Updated with the binary labels (and weights); the result is
    `max(mean, 1 - mean)` of the labels: what a model reaches by predicting
    one class for everything. A trained model's accuracy should be above it.
    """

    def __init__(self, name="accuracy_baseline", dtype=None):
        super().__init__(name=name, dtype=dtype)

    def result(self):
        positives = self.total
        negatives = self.count - self.total
        return tf.math.divide_no_nan(tf.maximum(positives, negatives), self.count)


def update_mean(metric, values, weights):
    """Updates a `Mean` with `values`, each weighted by its example's weight."""
    values = tf.cast(values, tf.float32)
    if isinstance(weights, float) and weights == 1.0:
        metric.update_state(values)
        return
    metric.update_state(values, sample_weight=tf.broadcast_to(weights, tf.shape(values)))


def sample_weight(weights):
    """The `sample_weight` for a Keras metric: None when every weight is 1."""
    if isinstance(weights, float) and weights == 1.0:
        return None
    return weights


class AUCV1(keras.metrics.AUC):
    """The area under the ROC or PR curve as `tf.compat.v1.metrics.auc` computed it.

    The TF1 heads summed trapezoids on both curves and added 1e-6 to the
    rates' numerators and denominators; Keras interpolates the PR curve and
    adds nothing. On the same thresholds and counts the two differ (a
    constant prediction scores 0.75 PR AUC in TF1, 0.5 in Keras), so the
    `tf.compat.v1.estimator` heads report this one.
    """

    _EPSILON = 1.0e-6

    def result(self):
        tp, fp = self.true_positives, self.false_positives
        tn, fn = self.true_negatives, self.false_negatives
        recall = (tp + self._EPSILON) / (tp + fn + self._EPSILON)
        if self.curve.value == "ROC":
            x, y = fp / (fp + tn + self._EPSILON), recall
        else:
            x, y = recall, (tp + self._EPSILON) / (tp + fp + self._EPSILON)
        return tf.reduce_sum((x[:-1] - x[1:]) * (y[:-1] + y[1:]) / 2.0)
