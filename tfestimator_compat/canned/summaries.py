"""The training summaries the original canned estimators wrote about their layers.

The V1 (`tf.compat.v1.estimator`) models wrote them from inside their model's
name scope, so their tags start with the part they describe once more:
`dnn/dnn/hiddenlayer_0/activation`, `linear/bias`, `linear/linear/activation`
where the V2 models wrote `dnn/hiddenlayer_0/activation`, `bias` and
`linear/activation`. Within `tf1_tags()` the tags are the V1 ones.
"""

from __future__ import annotations

import contextlib
import contextvars

import tensorflow as tf

_TF1_TAGS = contextvars.ContextVar("tf1_summary_tags", default=False)


@contextlib.contextmanager
def tf1_tags():
    """Within: summaries get the tags the V1 canned estimators gave them."""
    token = _TF1_TAGS.set(True)
    try:
        yield
    finally:
        _TF1_TAGS.reset(token)


def tag_for(part, tag):
    """`tag`, or `<part>/<tag>` within `tf1_tags()`."""
    return f"{part}/{tag}" if _TF1_TAGS.get() else tag


def add_layer_summary(value, tag, part):
    """`<tag>/fraction_of_zero_values` and the `<tag>/activation` histogram.

    `part` is the model part (`dnn`, `linear`) the layer belongs to.
    """
    tag = tag_for(part, tag)
    tf.compat.v1.summary.scalar(f"{tag}/fraction_of_zero_values", tf.math.zero_fraction(value))
    tf.compat.v1.summary.histogram(f"{tag}/activation", value)


def add_linear_summaries(weights, bias, units):
    """The linear model's `bias` and `fraction_of_zero_weights`."""
    if bias is not None:
        if units > 1:
            tf.compat.v1.summary.histogram(tag_for("linear", "bias"), bias)
        else:
            tf.compat.v1.summary.scalar(tag_for("linear", "bias"), bias[0])
    if weights:
        zeros = tf.add_n(
            [tf.math.zero_fraction(w) * tf.cast(tf.size(w), tf.float32) for w in weights]
        )
        total = float(sum(w.shape.num_elements() for w in weights))
        tf.compat.v1.summary.scalar(tag_for("linear", "fraction_of_zero_weights"), zeros / total)
