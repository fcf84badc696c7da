"""BoostedTrees' features: each column's values as bucket ids, one id per feature."""

from __future__ import annotations

import tensorflow as tf

from tfestimator_compat.engine.internals import tensorflow_internals as tf_internals


class Layout:
    """The model's features: each column's values as bucket ids, one id per feature.

    Columns are taken in the order of their names, as the original did; an
    `indicator_column` gives one two-bucket feature per vocabulary entry, a
    `bucketized_column` one feature per source dimension, a numeric column one
    quantile-bucketized feature per dimension.
    """

    def __init__(self, feature_columns, num_quantiles):
        self.columns = sorted(feature_columns, key=lambda column: column.name)
        self.num_quantiles = num_quantiles
        self.names = []  # column name per feature id
        self.num_buckets = []  # per feature id
        self.equality = []  # per feature id: an id split (== goes left), not a threshold
        self.float_columns = []  # (column, dimension), numeric ones
        for column in self.columns:
            if isinstance(column, tf_internals.BucketizedColumn):
                width = _rank1_width(column.source_column)
                self._add(column.name, width, len(column.boundaries) + 1)
            elif isinstance(column, tf_internals.IndicatorColumn):
                categorical = column.categorical_column
                self._add(categorical.name, categorical.num_buckets, 2)
            elif isinstance(column, tf_internals.NumericColumn):
                width = _rank1_width(column)
                self.float_columns.append((column, width))
                self._add(column.name, width, num_quantiles)
            elif isinstance(column, tf_internals.CategoricalColumn) and not isinstance(
                column, (tf_internals.WeightedCategoricalColumn, tf_internals.CrossedColumn)
            ):
                # One more bucket than ids, so every id is a candidate split.
                self._add(column.name, 1, column.num_buckets + 1, equality=True)
            else:
                raise ValueError(f"Got unexpected feature column type: {column}")
        self.num_features = len(self.names)
        self.max_buckets = max(self.num_buckets)
        self.num_float_features = sum(width for _, width in self.float_columns)

    def _add(self, name, width, num_buckets, equality=False):
        self.names.extend([name] * width)
        self.num_buckets.extend([num_buckets] * width)
        self.equality.extend([equality] * width)


def _rank1_width(column):
    shape = column.shape
    if len(shape) > 1:
        raise ValueError(
            "For now, we only support Dense column with rank of 1, but column "
            f"`{column.name}` got: {shape}"
        )
    return int(shape[0]) if len(shape) else 1


def float_values(cache, layout):
    """`[num_float_features, batch]` float32 values of the numeric columns."""
    parts = []
    for column, width in layout.float_columns:
        value = tf.cast(cache.get(column, None), tf.float32)
        parts.append(tf.reshape(value, [-1, width]))
    return tf.transpose(tf.concat(parts, axis=1))


def bucketized(features, layout, boundaries):
    """`[batch, num_features]` int32 bucket ids, the float features bucketized by `boundaries`."""
    cache = tf_internals.FeatureTransformationCache(features)
    float_buckets = None
    if layout.float_columns:
        values = float_values(cache, layout)
        float_buckets = tf.transpose(
            tf.searchsorted(boundaries, values, side="right", out_type=tf.int32)
        )
    parts, float_offset = [], 0
    for column in layout.columns:
        if isinstance(column, tf_internals.NumericColumn):
            width = _rank1_width(column)
            parts.append(float_buckets[:, float_offset : float_offset + width])
            float_offset += width
        elif isinstance(column, tf_internals.BucketizedColumn):
            value = cache.get(column, None)
            parts.append(
                tf.reshape(tf.cast(value, tf.int32), [-1, _rank1_width(column.source_column)])
            )
        elif isinstance(column, tf_internals.IndicatorColumn):
            value = cache.get(column, None)
            width = column.categorical_column.num_buckets
            parts.append(tf.cast(tf.reshape(value, [-1, width]) > 0, tf.int32))
        else:
            # One id per example, as the original's equality splits took (missing: 0).
            ids = column.get_sparse_tensors(cache, None).id_tensor
            dense = tf.sparse.to_dense(ids, default_value=0)
            parts.append(tf.cast(dense[:, :1], tf.int32))
    return tf.concat(parts, axis=1)
