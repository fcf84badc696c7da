"""Feature columns to tensors, with the original's variable names.

Keras 3 dropped `DenseFeatures` and `LinearModel`, the layers the original
canned estimators turned feature columns into tensors with. TensorFlow still
has their TF1 forms, `tf.compat.v1.feature_column.input_layer` and
`linear_model`, which take the same v2 (and v1) columns, compute the same
values, and, inside the scopes used here, create the same variables:
`dnn/input_from_feature_columns/input_layer/<column>_embedding/embedding_weights`,
`linear/linear_model/<column>/weights`, `linear/linear_model/bias_weights`.
"""

from __future__ import annotations

import contextlib
import warnings

import tensorflow as tf

from tfestimator_compat.engine.internals import tensorflow_internals as tf_internals


def validate_features(features) -> None:
    if not isinstance(features, dict):
        raise ValueError(
            f"features should be a dictionary of `Tensor`s. Given type: {type(features)}"
        )


def validate_feature_columns(feature_columns) -> list:
    if feature_columns is None:
        raise ValueError("feature_columns must be given.")
    if isinstance(feature_columns, dict):
        raise ValueError("Expected feature_columns to be iterable, found dict.")
    try:
        columns = list(feature_columns)
    except TypeError:
        columns = [feature_columns]
    if not columns:
        raise ValueError("feature_columns must not be empty.")
    return columns


def require_v2_columns(feature_columns) -> None:
    """Refuses TF1-only feature columns in a `tf.estimator` (V2) class, as the original did.

    The V2 classes built their inputs with Keras layers that took only v2
    columns; v1-only ones (`tf.compat.v1.feature_column.shared_embedding_columns`,
    the private `_numeric_column` family) were refused when the model was
    built. Here they would work, so refusing keeps a V2 program from relying
    on what the original could not run.
    """
    if not tf_internals.is_feature_column_v2(list(feature_columns or [])):
        raise ValueError(
            "Received a feature column from TensorFlow v1, but this is a TensorFlow v2 "
            "Estimator. Use the v2 columns of tf.feature_column with this class, or the "
            "tf.compat.v1.estimator class of the same name, which takes v1 columns."
        )


@contextlib.contextmanager
def _quiet():
    """Silences the deprecation notices every TF1 feature-column call logs."""
    with tf_internals.deprecation_notices_silenced(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def dense_input(features, feature_columns, trainable=True, partitioner=None):
    """The columns' dense values concatenated: `[batch, sum of column widths]`.

    Called inside a variable scope (`dnn`), variables go to
    `<scope>/input_from_feature_columns/input_layer/...` as in the original,
    partitioned by `partitioner` when one is given.
    Columns are concatenated in the order of their names, as `DenseFeatures`
    and `input_layer` both did.
    """
    feature_columns = list(feature_columns)
    shared = [c for c in feature_columns if isinstance(c, tf_internals.SharedEmbeddingColumn)]
    others = [c for c in feature_columns if not isinstance(c, tf_internals.SharedEmbeddingColumn)]
    outputs = {}
    with _quiet():
        if others:
            with tf.compat.v1.variable_scope("input_from_feature_columns", partitioner=partitioner):
                tf.compat.v1.feature_column.input_layer(
                    features, others, trainable=trainable, cols_to_output_tensors=outputs
                )
        if shared:
            cache = tf_internals.FeatureTransformationCache(features)
            outputs.update(shared_embedding_tensors(cache, shared))
    ordered = sorted(feature_columns, key=lambda column: column.name)
    return tf.concat([outputs[column] for column in ordered], axis=1)


def shared_embedding_tensors(cache, columns) -> dict:
    """Dense values of `tf.feature_column.shared_embeddings` columns, by column.

    `cache` is the `FeatureTransformationCache` of the features.

    `input_layer` does not take them. Their table is the variable
    `<columns>_shared_embedding` at the top-level variable scope, where the
    original's `DenseFeatures` created it; being outside `dnn/`, it is not
    among the DNN's trainable variables, as it was not in the original (whose
    checkpoints have no optimizer slots for it). The v1
    `shared_embedding_columns` go through `input_layer` and are trained.
    """
    outputs = {}
    for column in columns:
        # The creator caches its table per graph key, which every traced graph
        # shares with the program's graph; asked again, it gets the table from
        # the variable store, which records it in this graph too.
        tf_internals.forget_shared_embedding_tables(column)
    with tf.compat.v1.variable_scope(tf.compat.v1.VariableScope(reuse=None, name="")):
        for column in columns:
            dense = column.get_dense_tensor(cache, None)
            outputs[column] = tf.reshape(dense, [-1, column.variable_shape.num_elements()])
    return outputs


def linear_logits(features, feature_columns, units, sparse_combiner="sum", cols_to_vars=None):
    """A linear model of the columns: `[batch, units]`, with a bias.

    Variables are `<scope>/linear_model/<column>/weights` and
    `<scope>/linear_model/bias_weights`, all starting at zero. `cols_to_vars`,
    a dict, receives each column's variables (and the bias's, as `"bias"`),
    each a list of its parts.
    """
    if sparse_combiner not in ("mean", "sqrtn", "sum"):
        raise ValueError(
            f"sparse_combiner must be one of 'mean', 'sqrtn' or 'sum'. Given: {sparse_combiner}"
        )
    with _quiet():
        return tf.compat.v1.feature_column.linear_model(
            features,
            feature_columns,
            units=units,
            sparse_combiner=sparse_combiner,
            cols_to_vars=cols_to_vars,
        )
