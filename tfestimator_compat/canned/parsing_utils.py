"""Parsing specs for `tf.io.parse_example` that include the label (and weight).

A canned estimator reading `tf.Example` protos needs its feature columns'
parsing spec plus the label's; these build it in one call, as
`tf.estimator.classifier_parse_example_spec` and
`tf.estimator.regressor_parse_example_spec` did.

Example:

```python
spec = tf.estimator.classifier_parse_example_spec(columns, label_key="clicked")
def input_fn():
    dataset = tf.data.TFRecordDataset(files).batch(64)
    return dataset.map(lambda serialized: tf.io.parse_example(serialized, spec)).map(
        lambda features: (features, features.pop("clicked")))
```
"""

from __future__ import annotations

import tensorflow as tf

from tfestimator_compat.engine.internals import tensorflow_internals as tf_internals


def _spec_with_label(feature_columns, label_key, label_spec, weight_column):
    columns = list(feature_columns)
    if weight_column is not None:
        if isinstance(weight_column, str):
            weight_column = tf.feature_column.numeric_column(weight_column)
        if not isinstance(weight_column, tf_internals.NumericColumn):
            raise ValueError(
                "weight_column should be an instance of tf.feature_column.numeric_column. "
                f"Given type: {type(weight_column)} value: {weight_column}"
            )
        columns.append(weight_column)
    spec = tf.feature_column.make_parse_example_spec(columns)
    if label_key in spec:
        raise ValueError(
            f"label should not be used as feature. label_key: {label_key}, features: {spec.keys()}"
        )
    spec[label_key] = label_spec
    return spec


def classifier_parse_example_spec(
    feature_columns, label_key, label_dtype=tf.int64, label_default=None, weight_column=None
) -> dict:
    """The parsing spec of the columns, the weight column and a class label.

    Args:
        feature_columns: the columns the classifier reads.
        label_key: the label's key in the `tf.Example`.
        label_dtype: `tf.int64` for class ids, `tf.string` with a vocabulary.
        label_default: value when the label is missing (error when None).
        weight_column: name or `numeric_column` of the example weights.
    """
    label_spec = tf.io.FixedLenFeature((1,), label_dtype, label_default)
    return _spec_with_label(feature_columns, label_key, label_spec, weight_column)


def regressor_parse_example_spec(
    feature_columns,
    label_key,
    label_dtype=tf.float32,
    label_default=None,
    label_dimension=1,
    weight_column=None,
) -> dict:
    """The parsing spec of the columns, the weight column and a regression label.

    Args are those of `classifier_parse_example_spec`, plus `label_dimension`,
    the number of values of the label.
    """
    label_spec = tf.io.FixedLenFeature((label_dimension,), label_dtype, label_default)
    return _spec_with_label(feature_columns, label_key, label_spec, weight_column)
