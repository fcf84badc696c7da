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
