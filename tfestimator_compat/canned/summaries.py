"""The training summaries the original canned estimators wrote about their layers."""

from __future__ import annotations

import contextlib
import warnings

import tensorflow as tf


@contextlib.contextmanager
def _v1_summaries():
    # v1 summary ops warn that no v2 writer is set; the Estimator writes them.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        yield


def add_layer_summary(value, tag):
    """`<tag>/fraction_of_zero_values` and the `<tag>/activation` histogram."""
    with _v1_summaries():
        tf.compat.v1.summary.scalar(f"{tag}/fraction_of_zero_values", tf.math.zero_fraction(value))
        tf.compat.v1.summary.histogram(f"{tag}/activation", value)


def add_linear_summaries(weights, bias, units):
    """The linear model's `bias` and `fraction_of_zero_weights`."""
    with _v1_summaries():
        if bias is not None:
            if units > 1:
                tf.compat.v1.summary.histogram("bias", bias)
            else:
                tf.compat.v1.summary.scalar("bias", bias[0])
        if weights:
            zeros = tf.add_n(
                [tf.math.zero_fraction(w) * tf.cast(tf.size(w), tf.float32) for w in weights]
            )
            total = float(sum(w.shape.num_elements() for w in weights))
            tf.compat.v1.summary.scalar("fraction_of_zero_weights", zeros / total)
