"""`tf.keras.layers.DenseFeatures`: feature columns to one dense tensor, as a Keras 3 layer.

The feature-column tutorials look at what columns produce through this
layer, and Keras models on feature columns start with it; Keras 3 dropped
it. TensorFlow still has the columns and their maths
(`tf.feature_column`), so this layer only has to own their state: it hands
the columns a state manager that makes their variables with `add_weight`
(trained by `fit`, saved with the model) and keeps their lookup tables.

Variables keep the original's paths (`dense_features/color_embedding/
embedding_weights`); columns are concatenated in the order of their names;
`tf.feature_column.shared_embeddings` tables stay outside the layer, as in
2.15 (`first_second_shared_embedding`).
"""

from __future__ import annotations

import contextlib
import inspect

import keras
import tensorflow as tf

from tfestimator_compat.canned import feature_layers
from tfestimator_compat.engine import keras_flavours
from tfestimator_compat.engine.internals import keras_internals
from tfestimator_compat.engine.internals import tensorflow_internals as tf_internals


@keras.saving.register_keras_serializable(package="tfestimator_compat")
class DenseFeatures(keras.layers.Layer):
    """Turns a dict of features into `[batch, sum of column widths]` through feature columns.

    Args:
        feature_columns: dense columns (`numeric_column`, `bucketized_column`,
            `embedding_column`, `indicator_column`, `shared_embeddings`, ...).
        trainable: whether the columns' variables (embedding tables) train.
        name: the layer's name; default `dense_features`.

    Example:

    ```python
    price = tf.feature_column.numeric_column("price")
    color = tf.feature_column.embedding_column(
        tf.feature_column.categorical_column_with_vocabulary_list("color", ["red", "blue"]), 4
    )
    layer = tf.keras.layers.DenseFeatures([price, color])
    layer({"price": [[1.0]], "color": [["red"]]})  # shape (1, 5)
    ```
    """

    def __init__(self, feature_columns, trainable=True, name=None, partitioner=None, **kwargs):
        if partitioner is not None:
            raise ValueError(
                "DenseFeatures(partitioner=...) is not supported: the layer's variables are "
                "Keras 3 weights, which are not partitioned (tf.compat.v1.get_variable "
                "variables are; see migration_guide/checkpoints.md#partitioned-variables). "
                "Remove `partitioner`."
            )
        super().__init__(trainable=trainable, name=name or "dense_features", **kwargs)
        self._feature_columns = _dense_columns(feature_columns)
        self._state_manager = _StateManager(self)
        self._column_variables = []
        object.__setattr__(self, "_outputs_by_column", None)

    @property
    def feature_columns(self) -> list:
        return list(self._feature_columns)

    def build(self, input_shape=None):
        for column in self._feature_columns:
            column.create_state(self._state_manager)
        self.built = True

    def __call__(self, features, *args, cols_to_output_tensors=None, **kwargs):
        # Keras 3 copies the arguments it passes to `call` (and the dicts set on
        # a layer), so `call` fills the caller's own dict, kept out of tracking.
        object.__setattr__(self, "_outputs_by_column", cols_to_output_tensors)
        try:
            return super().__call__(_python_values_as_tensors(features), *args, **kwargs)
        finally:
            object.__setattr__(self, "_outputs_by_column", None)

    def call(self, features, training=None):
        if not isinstance(features, dict):
            raise ValueError(
                f"DenseFeatures expects a dict of features by name; got {type(features).__name__}."
            )
        cache = tf_internals.FeatureTransformationCache(features)
        shared = [
            c for c in self._feature_columns if isinstance(c, tf_internals.SharedEmbeddingColumn)
        ]
        by_column = {}
        if shared:
            with _outside_keras_name_scopes():
                by_column = feature_layers.shared_embedding_tensors(cache, shared)
        outputs = []
        for column in self._feature_columns:
            if column in by_column:
                tensor = by_column[column]
            else:
                with tf.name_scope(column.name):
                    tensor = self._dense_tensor(column, cache, training)
                    tensor = tf.reshape(tensor, [tf.shape(tensor)[0], _width(column)])
            outputs.append(tensor)
            if self._outputs_by_column is not None:
                self._outputs_by_column[column] = tensor
        return tf.concat(outputs, -1)

    def _dense_tensor(self, column, cache, training):
        if "training" in inspect.signature(column.get_dense_tensor).parameters:
            return column.get_dense_tensor(cache, self._state_manager, training=training)
        return column.get_dense_tensor(cache, self._state_manager)

    def compute_output_spec(self, features, training=None):
        # Symbolic calls need only the width; running the columns on placeholders
        # would make their lookup tables in a throwaway graph.
        batch = next(iter(tf.nest.flatten(features))).shape[0]
        width = sum(_width(column) for column in self._feature_columns)
        return keras.KerasTensor((batch, width), dtype="float32")

    def get_config(self) -> dict:
        config = super().get_config()
        config["feature_columns"] = tf_internals.serialize_feature_columns(self._feature_columns)
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        config["feature_columns"] = tf_internals.deserialize_feature_columns(
            config["feature_columns"], custom_objects=custom_objects
        )
        return cls(**config)


class _StateManager(tf_internals.StateManager):
    """The columns' variables as the layer's weights; their tables kept for reuse."""

    def __init__(self, layer):
        self._layer = layer
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
        key = (feature_column.name, name)
        if key in self._variables:
            raise ValueError(f"Variable {name} of column {feature_column.name} already exists.")
        # Under the column's scope, as the original: `dense_features/<column>/<name>`
        # (`add_weight` would reset the path to the layer's).
        with keras.name_scope(self._layer.name, caller=self._layer):
            with keras.name_scope(feature_column.name):
                variable = keras.Variable(
                    initializer or "zeros",
                    shape=shape,
                    dtype=dtype or "float32",
                    trainable=self._layer.trainable and trainable,
                    name=name,
                )
        self._layer._column_variables.append(variable)  # tracked: trained, saved
        self._variables[key] = variable
        return variable

    def get_variable(self, feature_column, name):
        key = (feature_column.name, name)
        if key not in self._variables:
            raise ValueError(f"Variable {name} of column {feature_column.name} does not exist.")
        return _tf_value(self._variables[key])

    def add_resource(self, feature_column, resource_name, resource):
        self._resources[(feature_column.name, resource_name)] = resource

    def has_resource(self, feature_column, resource_name):
        return (feature_column.name, resource_name) in self._resources

    def get_resource(self, feature_column, resource_name):
        return self._resources[(feature_column.name, resource_name)]


@contextlib.contextmanager
def _outside_keras_name_scopes():
    """Shared embedding tables are made outside the layer, where the original made them."""
    stack = keras_internals.name_scope_stack()
    keras_internals.set_name_scope_stack([])
    try:
        yield
    finally:
        keras_internals.set_name_scope_stack(stack)


def _python_values_as_tensors(features):
    """Python lists and scalars in the features dict, made tensors as Keras 2 made them.

    Keras 2's `__call__` turned each Python number or string into a tensor and
    the feature columns packed the lists of them, so `{"type": [0, 1, 2]}`
    worked (three cells of TensorFlow's feature-column guide call the layer so)
    and a list mixing ints and floats failed; Keras 3 refuses any of them.
    """
    if not isinstance(features, dict):
        return features
    return {key: _as_tensor(value) for key, value in features.items()}


def _as_tensor(value):
    if isinstance(value, (list, tuple)):
        leaves = tf.nest.map_structure(tf.convert_to_tensor, value)
        if len({leaf.dtype for leaf in tf.nest.flatten(leaves)}) > 1:
            # Packing fails here as it failed in Keras 2 (no silent int -> float).
            return tf.convert_to_tensor(leaves)
        return tf.convert_to_tensor(value)
    if isinstance(value, (bool, int, float, str, bytes)):
        return tf.convert_to_tensor(value)
    return value


def _tf_value(variable):
    """The `tf.Variable` behind a Keras variable, which the columns' TF ops take."""
    return getattr(variable, "value", variable)


def _dense_columns(feature_columns) -> list:
    """The columns, checked to be dense and sorted by name, as the original did."""
    if isinstance(feature_columns, tf_internals.FeatureColumn):
        feature_columns = [feature_columns]
    columns = list(feature_columns or [])
    if not columns:
        raise ValueError("DenseFeatures needs at least one feature column.")
    for column in columns:
        if not isinstance(column, tf_internals.DenseColumn):
            raise ValueError(
                f"Items of feature_columns must be a DenseColumn; {column.name} is a "
                f"{type(column).__name__}. Wrap categorical columns in "
                "`embedding_column` or `indicator_column`."
            )
    names = [column.name for column in columns]
    if len(set(names)) != len(names):
        raise ValueError(f"Duplicate feature column names: {sorted(names)}.")
    return sorted(columns, key=lambda column: column.name)


def _width(column) -> int:
    shape = (
        column.variable_shape
        if isinstance(column, tf_internals.FeatureColumn)
        else tf_internals.v1_variable_shape(column)
    )
    return int(tf.TensorShape(shape).num_elements())


def install() -> None:
    """Binds `tf.keras.layers.DenseFeatures` and `tf.compat.v1.keras.layers.DenseFeatures`."""
    seen = set()
    for keras_module in (tf.keras, getattr(tf.compat.v1, "keras", None)):
        try:
            layers = keras_module.layers
        except (AttributeError, ImportError):
            continue
        # tf_keras (legacy Keras mode) has the original layer: left alone.
        if id(layers) not in seen and not keras_flavours.is_tf_keras_module(layers):
            seen.add(id(layers))
            layers.DenseFeatures = DenseFeatures
