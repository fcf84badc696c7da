"""What every TF1 layer shares: a variable scope, weights, losses and updates.

Also the small argument helpers (tuples, padding, data format, `training`
flags) the layer modules use.
"""

from __future__ import annotations

import collections
import re
import weakref
from typing import Any
from typing import Callable

import keras
import tensorflow as tf

from tfestimator_compat.engine.internals import keras_internals
from tfestimator_compat.engine.internals import tensorflow_internals as tf_internals
from tfestimator_compat.legacy.layers_v1 import keras_style

_GraphKeys = tf.compat.v1.GraphKeys
# TF1's defaults: one initializer object each, shared by every layer.
ZEROS = tf.compat.v1.zeros_initializer()
ONES = tf.compat.v1.ones_initializer()


def resolve(getter, value):
    """A Keras identifier (`"relu"`, `"glorot_uniform"`) as its object;
    callables and None pass through."""
    return getter(value) if isinstance(value, (str, dict)) else value


def _default_initializer(initializer, scope, dtype):
    """The initializer a v1 layer's weight gets: the given one, else its
    variable scope's, else for a float weight Keras's `glorot_uniform`, not
    `get_variable`'s. That one seeds itself from Python's `random` module, not
    from the graph's op seeds (see `engine/tracing/random_seeds.py`)."""
    initializer = resolve(keras.initializers.get, initializer)
    if initializer is None:
        initializer = scope.initializer
    if initializer is None and dtype.is_floating:
        initializer = keras.initializers.GlorotUniform()
    return initializer


def _snake_case(name: str) -> str:
    name = re.sub(r"(.)([A-Z][a-z0-9]+)", r"\1_\2", name)
    return re.sub(r"([a-z])([A-Z])", r"\1_\2", name).lower()


def as_tuple(value, n: int, what: str) -> tuple:
    values = (value,) * n if isinstance(value, int) else tuple(value)
    if len(values) != n or not all(isinstance(v, int) for v in values):
        raise ValueError(f"`{what}` must be an int or {n} ints. Given: {value!r}")
    return values


def normalize_padding(value: str, allowed=("valid", "same")) -> str:
    padding = value.lower() if isinstance(value, str) else value
    if padding not in allowed:
        raise ValueError(f"`padding` must be one of {allowed}. Given: {value!r}")
    return padding


def normalize_data_format(value: str | None) -> str:
    data_format = (value or keras.config.image_data_format()).lower()
    if data_format not in ("channels_last", "channels_first"):
        raise ValueError(
            f"`data_format` must be 'channels_last' or 'channels_first'. Given: {value!r}"
        )
    return data_format


def tf_data_format(data_format: str, spatial_rank: int) -> str:
    """The name TF ops give a layout: 'NHWC' / 'NCHW' for 2 spatial axes, 'NWC', 'NCDHW', ..."""
    spatial = "DHW"[-spatial_rank:]
    return f"NC{spatial}" if data_format == "channels_first" else f"N{spatial}C"


class ChannelsLayout:
    """Runs a channels_first layer's ops channels_last where no GPU is visible.

    TF 1.x programs written for GPUs ask for channels_first, which
    TensorFlow's CPU convolution and pooling kernels take only in oneDNN
    builds on recent CPUs ("only supports the NHWC tensor format on the
    CPU" elsewhere). Transposing around the ops gives the same numbers on
    every CPU. Subclasses define `compute(inputs, data_format)`.
    """

    def call(self, inputs):
        if self.data_format == "channels_last" or tf.config.list_logical_devices("GPU"):
            return self.compute(inputs, self.data_format)
        rank = inputs.shape.rank
        outputs = self.compute(tf.transpose(inputs, [0, *range(2, rank), 1]), "channels_last")
        return tf.transpose(outputs, [0, rank - 1, *range(1, rank - 1)])


def static_bool(value) -> bool | None:
    """A `training` argument as a Python bool, or None when only known at run time."""
    if value is None:
        return False
    if tf.is_tensor(value) or isinstance(value, tf.Variable):
        value = tf.get_static_value(value)
        return None if value is None else bool(value)
    return bool(value)


def smart_cond(pred, true_fn, false_fn):
    """`true_fn()` or `false_fn()` when `pred` is known now, else a `tf.cond`."""
    static = static_bool(pred)
    if static is None:
        return tf.cond(tf.cast(pred, tf.bool), true_fn, false_fn)
    return true_fn() if static else false_fn()


def _unique_name(base: str) -> str:
    """The name of an unnamed layer object: `base_N`, N counted by Keras.

    TF1's layers counted in Keras's own name counter (from 1, where Keras
    layers start unsuffixed), so a `tf.keras.layers.Dense` built after a
    `dense()` was `dense_1`. Counting there keeps the names, and so the
    checkpoint keys, of Keras layers built next to these. Variable scopes
    are numbered separately, by `variable_scope`.
    """
    _count_names_per_graph()
    return f"{base}_{keras.backend.get_uid(base)}"


# Keras's name counters of each plain TF1 graph, as Keras 2 kept them.
_NAME_UIDS_BY_GRAPH = weakref.WeakKeyDictionary()


def _count_names_per_graph():
    """Gives a plain TF1 graph its own layer-name count, as Keras 2 did (Keras 3 has one
    per process). An Estimator's traces (function graphs) already have their own."""
    graph = tf.compat.v1.get_default_graph()
    if tf.executing_eagerly() or isinstance(graph, tf_internals.FuncGraph):
        return
    uids = _NAME_UIDS_BY_GRAPH.setdefault(graph, collections.defaultdict(int))
    keras_internals.set_name_uids(uids)


def _value(variable):
    """`variable`, or its value where it is a reference variable (TF1 mode),
    whose `float32_ref` dtype Keras 3 regularizers and constraints reject."""
    if variable.dtype != variable.dtype.base_dtype:
        return tf.convert_to_tensor(variable)
    return variable


def _on_value(constraint):
    """`constraint` applied to `_value(variable)`, as optimizers apply it."""
    if constraint is None:
        return None
    return lambda variable: constraint(_value(variable))


def _graph():
    """The graph layers add to, or None when executing eagerly."""
    return None if tf.executing_eagerly() else tf.compat.v1.get_default_graph()


class Layer:
    """Base class of the TF1 layers: a variable scope, weights and losses.

    The scope is chosen at the first call (or at construction by the
    functional forms): `name`, or the snake-cased class name made unique in
    the enclosing scope (`dense`, `dense_1`, ...). Variables are made by
    `tf.compat.v1.get_variable` in that scope, so `reuse` and enclosing
    `variable_scope`s work as in TF1. Subclasses implement `build(input_shape)`
    with `add_weight` and `call(inputs, ...)`.

    Args:
        trainable: whether the layer's variables are trainable.
        name: the layer's variable scope name. Layer objects given the same
            name get unique scopes (`foo`, `foo_1`); the functional forms use
            the name as is, so repeating it needs `reuse`.
        dtype: the variables' dtype; by default the (floating) dtype of the
            first inputs, else float32.
        activity_regularizer: a function of each output whose value, divided
            by the batch size, is a regularization loss.
        _scope, _reuse: the scope and `reuse` the functional forms pass.

    Example:

    ```python
    class Scale(tf.compat.v1.layers.Layer):
        def build(self, input_shape):
            self.w = self.add_weight("w", [input_shape[-1]], initializer=tf.ones_initializer())

        def call(self, inputs):
            return inputs * self.w

    outputs = Scale()(inputs)  # variable `scale/w`
    ```
    """

    def __init__(
        self,
        trainable: bool = True,
        name: str | None = None,
        dtype: Any = None,
        activity_regularizer: Callable | None = None,
        _scope: str | None = None,
        _reuse: Any = None,
    ):
        self._keras_style = keras_style.in_keras_style()
        if self._keras_style:
            keras_style.refuse("scope", _scope or None)
            keras_style.refuse("reuse", _reuse)
        self.trainable = trainable
        self._base_name = name or _snake_case(type(self).__name__)
        self._name = name or _unique_name(self._base_name)
        self.dtype = None if dtype is None else tf.as_dtype(dtype)
        self.activity_regularizer = resolve(keras.regularizers.get, activity_regularizer)
        self._reuse = _reuse
        self._scope = None
        if _scope:
            with tf.compat.v1.variable_scope(_scope) as scope:
                self._scope = scope
        self.input_spec = None
        self.built = False
        self._graph = None
        self._trainable_weights = []
        self._non_trainable_weights = []
        self._losses = []
        self._updates = []

    @property
    def name(self) -> str:
        return self._name

    @property
    def scope_name(self) -> str:
        if self._scope is None:
            raise ValueError(
                f"Layer {self.name!r} has no scope yet: it is chosen at the first call. "
                "Call the layer before reading `scope_name`."
            )
        return self._scope.name

    @property
    def trainable_weights(self) -> list:
        return list(self._trainable_weights) if self.trainable else []

    @property
    def non_trainable_weights(self) -> list:
        if self.trainable:
            return list(self._non_trainable_weights)
        return self._trainable_weights + self._non_trainable_weights

    @property
    def weights(self) -> list:
        return self.trainable_weights + self.non_trainable_weights

    trainable_variables = trainable_weights
    non_trainable_variables = non_trainable_weights
    variables = weights

    @property
    def losses(self) -> list:
        return list(self._losses)

    @property
    def updates(self) -> list:
        return list(self._updates)

    def build(self, input_shape):
        self.built = True

    def call(self, inputs, **kwargs):
        return inputs

    def _set_scope(self, scope=None):
        if self._scope is not None:
            return
        if self._keras_style:
            # A scope of its own, named after the layer, like a Keras layer's weights.
            context = tf.compat.v1.variable_scope(None, default_name=self._name)
        elif self._reuse:
            context = tf.compat.v1.variable_scope(scope or self._base_name)
        else:
            context = tf.compat.v1.variable_scope(scope, default_name=self._base_name)
        with context as captured:
            self._scope = captured

    @property
    def _reusing(self):
        if self._keras_style:
            # Its own scope only holds its own variables, whatever reuse encloses it.
            return tf.compat.v1.AUTO_REUSE
        return True if self.built else self._reuse

    def add_weight(
        self,
        name: str,
        shape,
        dtype: Any = None,
        initializer: Any = None,
        regularizer: Callable | None = None,
        trainable: bool = True,
        constraint: Callable | None = None,
        **kwargs,
    ):
        """Gets or creates the variable `<scope>/<name>` with `get_variable`.

        `regularizer(variable)` becomes a loss only when the variable is new
        to the graph: a reused variable is regularized once.
        """
        self._set_scope()
        graph = _graph()
        variables = [] if graph is None else graph.get_collection(_GraphKeys.GLOBAL_VARIABLES)
        known = {id(v) for v in variables}
        dtype = tf.as_dtype(dtype or self.dtype or tf.float32)
        with tf.compat.v1.variable_scope(
            self._scope, reuse=self._reusing, auxiliary_name_scope=False
        ) as scope:
            variable = tf.compat.v1.get_variable(
                name,
                shape,
                dtype=dtype,
                initializer=_default_initializer(initializer, scope, dtype),
                trainable=trainable and self.trainable,
                constraint=_on_value(resolve(keras.constraints.get, constraint)),
                **kwargs,
            )
        weights = self._trainable_weights if trainable else self._non_trainable_weights
        weights.append(variable)
        regularizer = resolve(keras.regularizers.get, regularizer)
        if regularizer is not None and id(variable) not in known:
            with (
                tf.name_scope(self._scope.original_name_scope),
                tf.name_scope(f"{name}/Regularizer"),
            ):
                self.add_loss(regularizer(_value(variable)))
        return variable

    def add_loss(self, losses):
        """Adds losses to the layer, and to `REGULARIZATION_LOSSES` in a graph."""
        losses = [loss for loss in tf.nest.flatten(losses) if loss is not None]
        self._losses.extend(losses)
        if _graph() is not None:
            for loss in losses:
                tf.compat.v1.add_to_collection(_GraphKeys.REGULARIZATION_LOSSES, loss)

    def add_update(self, updates):
        """Adds ops to run with training, and to `UPDATE_OPS` in a graph."""
        updates = [update for update in tf.nest.flatten(updates) if update is not None]
        self._updates.extend(updates)
        if _graph() is not None:
            for update in updates:
                tf.compat.v1.add_to_collection(_GraphKeys.UPDATE_OPS, update)

    def __call__(self, inputs, *args, **kwargs):
        """Builds the layer on first use, then applies it to `inputs`."""
        graph = _graph()
        if self.built and graph is not self._graph:
            raise ValueError(
                f"Layer {self.name!r} was built in another graph. TF1 layers cannot be "
                "shared between graphs: create the layer inside the function that "
                "builds the graph (the model_fn)."
            )
        scope = kwargs.pop("scope", None)
        if self._keras_style:
            keras_style.refuse("scope", scope)
        self._set_scope(scope)
        with (
            tf.compat.v1.variable_scope(
                self._scope, reuse=self._reusing, auxiliary_name_scope=False
            ),
            tf.name_scope(self._scope.original_name_scope),
        ):
            inputs = tf.nest.map_structure(tf.convert_to_tensor, inputs)
            first = tf.nest.flatten(inputs)[0]
            _check_input_spec(self, first)
            if not self.built:
                if self.dtype is None:
                    self.dtype = first.dtype if first.dtype.is_floating else tf.float32
                self._graph = graph
                self.build(tf.nest.map_structure(lambda x: x.shape, inputs))
                self.built = True
            outputs = self.call(inputs, *args, **kwargs)
            if self.activity_regularizer is not None:
                for output in tf.nest.flatten(outputs):
                    with tf.name_scope("ActivityRegularizer"):
                        loss = self.activity_regularizer(output)
                        batch = tf.cast(tf.shape(output)[0], loss.dtype)
                        self.add_loss(loss / batch)
        return outputs


def _check_input_spec(layer, inputs):
    spec = layer.input_spec
    if spec is None:
        return
    ndim = inputs.shape.rank
    problem = None
    if spec.ndim is not None and ndim != spec.ndim:
        problem = f"expected ndim={spec.ndim}, found ndim={ndim}"
    elif spec.min_ndim is not None and ndim is not None and ndim < spec.min_ndim:
        problem = f"expected min_ndim={spec.min_ndim}, found ndim={ndim}"
    for axis, size in (spec.axes or {}).items():
        if problem is None and ndim is not None and inputs.shape[axis] not in (None, size):
            problem = f"expected axis {axis} to have value {size}, found shape {inputs.shape}"
    if problem:
        raise ValueError(f"Input of layer {layer.name!r} is incompatible with the layer: {problem}")


class WeightedLayer(Layer):
    """A layer with a kernel-like weight, an optional bias and an activation."""

    def __init__(
        self,
        activation=None,
        use_bias=True,
        bias_initializer=None,
        bias_regularizer=None,
        bias_constraint=None,
        **kwargs,
    ):
        super().__init__(**kwargs)
        self.activation = resolve(keras.activations.get, activation)
        self.use_bias = use_bias
        self.bias_initializer = bias_initializer
        self.bias_regularizer = bias_regularizer
        self.bias_constraint = bias_constraint
        self.bias = None

    def _add_bias(self, size):
        if self.use_bias:
            self.bias = self.add_weight(
                "bias",
                (size,),
                initializer=self.bias_initializer,
                regularizer=self.bias_regularizer,
                constraint=self.bias_constraint,
            )

    def _finish(self, outputs, data_format="channels_last"):
        if self.bias is not None:
            tf_format = "NCHW" if data_format == "channels_first" else "NHWC"
            outputs = tf.nn.bias_add(outputs, self.bias, data_format=tf_format)
        return outputs if self.activation is None else self.activation(outputs)
