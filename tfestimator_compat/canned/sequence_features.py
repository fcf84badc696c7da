"""Sequence feature columns to a padded `[batch, time, depth]` tensor and lengths.

The original RNN estimators read their sequence columns through Keras 2's
`tf.keras.experimental.SequenceFeatures` and their context columns through
`DenseFeatures`, both gone with Keras 3. TensorFlow still has the columns
(`sequence_numeric_column`, `sequence_categorical_column_with_*` in an
`embedding_column` or `indicator_column`) and their maths
(`get_sequence_dense_tensor`), so this module only gives them their state:
variables made with `tf.compat.v1.get_variable` under the paths the Keras 2
layers gave them, `sequence_features/<column>/<name>` and
`dense_features/<column>/<name>`
(`sequence_features/token_embedding/embedding_weights`), which are the keys
in the original's checkpoints.
"""

from __future__ import annotations

import re

import tensorflow as tf

from tfestimator_compat.canned import feature_layers
from tfestimator_compat.engine.internals import tensorflow_internals as tf_internals

SEQUENCE_SCOPE = "sequence_features"
CONTEXT_SCOPE = "dense_features"
_NOT_IN_SCOPE_NAMES = re.compile(r"[^A-Za-z0-9_.\-]")


def sequence_columns(columns, argument="sequence_feature_columns") -> list:
    """The sequence columns, checked, in the order of their names."""
    columns = _columns(columns, argument)
    for column in columns:
        if not isinstance(column, tf_internals.SequenceDenseColumn):
            raise ValueError(
                f"Items of {argument} must be a SequenceDenseColumn "
                "(sequence_numeric_column, or an embedding_column or indicator_column of a "
                f"sequence_categorical_column_with_*). Given: {column.name} "
                f"({type(column).__name__})."
            )
    return columns


def context_columns(columns) -> list:
    """The context columns (dense, not sequential), checked, in the order of their names."""
    columns = _columns(columns, "context_feature_columns")
    for column in columns:
        if not isinstance(column, tf_internals.DenseColumn) or _is_sequential(column):
            raise ValueError(
                "Items of context_feature_columns must be a DenseColumn that is not a "
                f"sequence column (numeric_column, embedding_column, ...). Given: {column.name} "
                f"({type(column).__name__})."
            )
    return columns


def sequence_input(
    features, sequence_feature_columns, context_feature_columns=None, trainable=True
):
    """The RNN's input: `(inputs, sequence_length)`.

    `inputs` is `[batch, T, D]`: the sequence columns' values side by side
    (in the order of their names), then the context columns' values repeated
    at every step; `T` is the longest sequence of the batch. `sequence_length`
    is `[batch]` int64, the same for every sequence column (checked when the
    graph runs, as the original did).
    """
    cache = tf_internals.FeatureTransformationCache(features)
    state = _StateManager(trainable)
    # At the root: the Keras 2 layers' paths did not start with the model's.
    with tf.compat.v1.variable_scope(tf.compat.v1.VariableScope(reuse=None, name="")):
        tensors, lengths = [], []
        for column in sequence_feature_columns:
            with tf.compat.v1.variable_scope(SEQUENCE_SCOPE):
                with tf.compat.v1.variable_scope(_scope_name(column.name)):
                    column.create_state(state)
            with tf.name_scope(column.name):
                dense, length = column.get_sequence_dense_tensor(cache, state)
                width = column.variable_shape.num_elements()
                shape = tf.shape(dense)
                tensors.append(tf.reshape(dense, [shape[0], shape[1], width]))
                lengths.append(length)
        _check_batch_sizes(tensors, sequence_feature_columns)
        inputs = tf.concat(tensors, -1)
        sequence_length = tf_internals.equal_sequence_lengths(lengths)
        if context_feature_columns:
            context = []
            for column in context_feature_columns:
                with tf.compat.v1.variable_scope(CONTEXT_SCOPE):
                    with tf.compat.v1.variable_scope(_scope_name(column.name)):
                        column.create_state(state)
                with tf.name_scope(column.name):
                    dense = column.get_dense_tensor(cache, state)
                    width = column.variable_shape.num_elements()
                    context.append(tf.reshape(dense, [tf.shape(dense)[0], width]))
            inputs = tf_internals.concatenate_context_input(tf.concat(context, -1), inputs)
    return inputs, sequence_length


class _StateManager(tf_internals.StateManager):
    """Column variables from `tf.compat.v1.get_variable`; lookup tables kept per graph."""

    def __init__(self, trainable):
        self._trainable = trainable
        self._variables = {}
        self._resources = {}

    def create_variable(
        self,
        feature_column,
        name,
        shape,
        dtype=None,
        trainable=True,
        use_resource=True,
        initializer=None,
    ):
        with feature_layers._quiet():
            variable = tf.compat.v1.get_variable(
                name,
                shape=shape,
                dtype=dtype or tf.float32,
                initializer=initializer,
                trainable=self._trainable and trainable,
                use_resource=True,
            )
        self._variables[(feature_column.name, name)] = variable
        return variable

    def get_variable(self, feature_column, name):
        return self._variables[(feature_column.name, name)]

    def add_resource(self, feature_column, resource_name, resource):
        self._resources[(feature_column.name, resource_name)] = resource

    def has_resource(self, feature_column, resource_name):
        return (feature_column.name, resource_name) in self._resources

    def get_resource(self, feature_column, resource_name):
        return self._resources[(feature_column.name, resource_name)]


def _columns(columns, argument) -> list:
    if isinstance(columns, tf_internals.FeatureColumn):
        columns = [columns]
    if isinstance(columns, dict):
        raise ValueError(f"Expected {argument} to be iterable, found dict.")
    columns = list(columns or [])
    if not columns:
        raise ValueError(f"{argument} must not be empty.")
    names = {}
    for column in columns:
        if not isinstance(column, tf_internals.FeatureColumn):
            raise ValueError(
                f"Items of {argument} must be a FeatureColumn. Given (type {type(column)}): "
                f"{column}."
            )
        if column.name in names:
            raise ValueError(
                f"Duplicate feature column name found for columns: {column} and "
                f"{names[column.name]}. This usually means that these columns refer to the same "
                "base feature."
            )
        names[column.name] = column
    return sorted(columns, key=lambda column: column.name)


def _is_sequential(column) -> bool:
    """Whether a column reads sequence features (directly or through the column it wraps)."""
    if isinstance(
        column, (tf_internals.SequenceCategoricalColumn, tf_internals.SequenceNumericColumn)
    ):
        return True
    inner = getattr(column, "categorical_column", None)
    return inner is not None and _is_sequential(inner)


def _check_batch_sizes(tensors, columns) -> None:
    expected = None
    for tensor, column in zip(tensors, columns):
        size = tf.compat.dimension_value(tensor.shape[0])
        if size is None:
            continue
        if expected is None:
            expected = (size, column)
        elif size != expected[0]:
            raise ValueError(
                "Batch size (first dimension) of each feature must be same. Batch size of "
                f"columns ({expected[1].name}, {column.name}): ({expected[0]}, {size})"
            )


def _scope_name(column_name: str) -> str:
    return _NOT_IN_SCOPE_NAMES.sub("_", column_name)
