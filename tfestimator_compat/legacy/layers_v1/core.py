"""`Dense`, `Dropout` and `Flatten`, as TF1's `tf.compat.v1.layers` had them."""

from __future__ import annotations

import functools
import operator
from typing import Any
from typing import Callable

import keras
import tensorflow as tf

from tfestimator_compat.legacy.layers_v1.base import ZEROS
from tfestimator_compat.legacy.layers_v1.base import Layer
from tfestimator_compat.legacy.layers_v1.base import WeightedLayer
from tfestimator_compat.legacy.layers_v1.base import normalize_data_format
from tfestimator_compat.legacy.layers_v1.base import smart_cond


class Dense(WeightedLayer):
    """Densely connected layer: `activation(inputs @ kernel + bias)`.

    Inputs of rank > 2 are multiplied along their last axis. Variables:
    `kernel` of shape `[input_dim, units]` and `bias` of shape `[units]`.
    """

    def __init__(
        self,
        units: int,
        activation: Callable | str | None = None,
        use_bias: bool = True,
        kernel_initializer: Any = None,
        bias_initializer: Any = ZEROS,
        kernel_regularizer: Callable | None = None,
        bias_regularizer: Callable | None = None,
        activity_regularizer: Callable | None = None,
        kernel_constraint: Callable | None = None,
        bias_constraint: Callable | None = None,
        trainable: bool = True,
        name: str | None = None,
        **kwargs,
    ):
        super().__init__(
            activation=activation,
            use_bias=use_bias,
            bias_initializer=bias_initializer,
            bias_regularizer=bias_regularizer,
            bias_constraint=bias_constraint,
            activity_regularizer=activity_regularizer,
            trainable=trainable,
            name=name,
            **kwargs,
        )
        self.units = int(units)
        self.kernel_initializer = kernel_initializer
        self.kernel_regularizer = kernel_regularizer
        self.kernel_constraint = kernel_constraint
        self.input_spec = keras.InputSpec(min_ndim=2)

    def build(self, input_shape):
        input_dim = input_shape[-1]
        if input_dim is None:
            raise ValueError(
                f"The last dimension of the inputs to Dense should be defined: {input_shape}"
            )
        self.input_spec = keras.InputSpec(min_ndim=2, axes={-1: input_dim})
        self.kernel = self.add_weight(
            "kernel",
            (input_dim, self.units),
            initializer=self.kernel_initializer,
            regularizer=self.kernel_regularizer,
            constraint=self.kernel_constraint,
        )
        self._add_bias(self.units)

    def call(self, inputs):
        rank = inputs.shape.rank
        if rank == 2 or rank is None:
            outputs = tf.matmul(inputs, self.kernel)
        else:
            outputs = tf.tensordot(inputs, self.kernel, [[rank - 1], [0]])
            outputs.set_shape(inputs.shape[:-1].concatenate([self.units]))
        return self._finish(outputs)


class Dropout(Layer):
    """Sets a fraction `rate` of inputs to 0 when training, scaling the rest up.

    `training` defaults to False, as in TF1: pass `training=True` (or a bool
    tensor) in training. `noise_shape` entries that are None take the input's
    size on that axis.
    """

    def __init__(
        self,
        rate: float = 0.5,
        noise_shape=None,
        seed: int | None = None,
        name: str | None = None,
        **kwargs,
    ):
        super().__init__(name=name, **kwargs)
        self.rate = rate
        self.noise_shape = noise_shape
        self.seed = seed

    def _noise_shape(self, inputs):
        if self.noise_shape is None:
            return None
        shape = tf.shape(inputs)
        return tf.stack([shape[i] if n is None else n for i, n in enumerate(self.noise_shape)])

    def call(self, inputs, training=False):
        if isinstance(self.rate, (int, float)) and self.rate == 0:
            return tf.identity(inputs)

        def dropped():
            return tf.nn.dropout(
                inputs, rate=self.rate, noise_shape=self._noise_shape(inputs), seed=self.seed
            )

        return smart_cond(training, dropped, lambda: tf.identity(inputs))


class Flatten(Layer):
    """Flattens all axes but the first: `[batch, ...] -> [batch, prod(...)]`.

    With 'channels_first' the channel axis is moved last first, so the order
    of the flattened values matches 'channels_last' inputs.
    """

    def __init__(self, data_format: str | None = None, **kwargs):
        super().__init__(**kwargs)
        self.data_format = normalize_data_format(data_format)
        self.input_spec = keras.InputSpec(min_ndim=1)

    def call(self, inputs):
        rank = inputs.shape.rank
        if self.data_format == "channels_first" and rank is not None and rank > 2:
            inputs = tf.transpose(inputs, [0] + list(range(2, rank)) + [1])
        if rank == 1:
            return tf.expand_dims(inputs, 1)
        batch, rest = inputs.shape[0], inputs.shape[1:]
        if rest.is_fully_defined():
            return tf.reshape(inputs, [-1, functools.reduce(operator.mul, rest, 1)])
        if batch is not None:
            return tf.reshape(inputs, [batch, -1])
        return tf.reshape(inputs, tf.stack([tf.shape(inputs)[0], -1]))
