"""`BatchNormalization`, with TF1's moving averages updated through `UPDATE_OPS`."""

from __future__ import annotations

from typing import Any
from typing import Callable

import tensorflow as tf

from tfestimator_compat.legacy.layers_v1.base import ONES
from tfestimator_compat.legacy.layers_v1.base import ZEROS
from tfestimator_compat.legacy.layers_v1.base import Layer
from tfestimator_compat.legacy.layers_v1.base import smart_cond
from tfestimator_compat.legacy.layers_v1.base import static_bool
from tfestimator_compat.legacy.layers_v1.base import tf_data_format

_HALF = (tf.float16, tf.bfloat16)


class BatchNormalization(Layer):
    """Normalizes inputs by batch statistics in training, moving averages otherwise.

    `gamma` and `beta` (trainable) and `moving_mean` and `moving_variance`
    (not trainable) have the size of `axis`. With `training=True` (or a
    tensor that is True) the outputs use the batch's statistics and the
    moving averages are updated by ops added to `GraphKeys.UPDATE_OPS`; run
    them with the train op, as TF1 code did:

    ```python
    with tf.control_dependencies(tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.UPDATE_OPS)):
        train_op = optimizer.minimize(loss, global_step=global_step)
    ```

    As in TF1, 4D and 5D inputs normalized over their channel axis (first
    after the batch or last) use the fused kernel, whose moving variance takes
    the unbiased batch variance; other inputs take the biased one.
    `renorm`, `virtual_batch_size` and `adjustment` are not supported.
    """

    def __init__(
        self,
        axis=-1,
        momentum: float = 0.99,
        epsilon: float = 1e-3,
        center: bool = True,
        scale: bool = True,
        beta_initializer: Any = ZEROS,
        gamma_initializer: Any = ONES,
        moving_mean_initializer: Any = ZEROS,
        moving_variance_initializer: Any = ONES,
        beta_regularizer: Callable | None = None,
        gamma_regularizer: Callable | None = None,
        beta_constraint: Callable | None = None,
        gamma_constraint: Callable | None = None,
        renorm: bool = False,
        renorm_clipping: dict | None = None,
        renorm_momentum: float = 0.99,
        fused: bool | None = None,
        trainable: bool = True,
        virtual_batch_size: int | None = None,
        adjustment: Callable | None = None,
        name: str | None = None,
        **kwargs,
    ):
        super().__init__(trainable=trainable, name=name, **kwargs)
        unsupported = {
            "renorm": renorm,
            "virtual_batch_size": virtual_batch_size is not None,
            "adjustment": adjustment is not None,
        }
        if any(unsupported.values()):
            names = ", ".join(k for k, v in unsupported.items() if v)
            raise NotImplementedError(
                f"BatchNormalization with {names} is not supported by tfestimator_compat's "
                "tf.compat.v1.layers; use the default (no renorm, no virtual batch, no adjustment)."
            )
        self.axis = list(axis) if isinstance(axis, (list, tuple)) else [axis]
        self.momentum = momentum
        self.epsilon = epsilon
        self.center = center
        self.scale = scale
        self.initializers = (
            beta_initializer,
            gamma_initializer,
            moving_mean_initializer,
            moving_variance_initializer,
        )
        self.beta_regularizer = beta_regularizer
        self.gamma_regularizer = gamma_regularizer
        self.beta_constraint = beta_constraint
        self.gamma_constraint = gamma_constraint
        self.fused = fused

    def build(self, input_shape):
        ndims = input_shape.rank
        if ndims is None:
            raise ValueError(f"Inputs to {self.name!r} must have a known rank.")
        self._axes = sorted({a % ndims for a in self.axis})
        for axis in self._axes:
            if input_shape[axis] is None:
                raise ValueError(f"Axis {axis} of the inputs should be defined: {input_shape}")
        input_dtype = self.dtype
        self._fused = (
            self.fused is not False
            and ndims in (4, 5)
            and len(self._axes) == 1
            and self._axes[0] in (1, ndims - 1)
            and input_dtype in _HALF + (tf.float32,)
        )
        self._param_dtype = tf.float32 if input_dtype in _HALF else input_dtype
        if len(self._axes) == 1:
            param_shape = (input_shape[self._axes[0]],)
        else:
            param_shape = [input_shape[i] if i in self._axes else 1 for i in range(ndims)]
        beta_init, gamma_init, mean_init, variance_init = self.initializers

        def weight(name, init, regularizer=None, constraint=None, trainable=True):
            return self.add_weight(
                name,
                param_shape,
                dtype=self._param_dtype,
                initializer=init,
                regularizer=regularizer,
                constraint=constraint,
                trainable=trainable,
            )

        self.gamma = self.beta = None
        if self.scale:
            self.gamma = weight("gamma", gamma_init, self.gamma_regularizer, self.gamma_constraint)
        if self.center:
            self.beta = weight("beta", beta_init, self.beta_regularizer, self.beta_constraint)
        self.moving_mean = weight("moving_mean", mean_init, trainable=False)
        self.moving_variance = weight("moving_variance", variance_init, trainable=False)

    def call(self, inputs, training=False):
        if self._fused:
            outputs, mean, variance = smart_cond(
                training,
                lambda: self._fused_call(inputs, True),
                lambda: self._fused_call(inputs, False),
            )
        else:
            outputs, mean, variance = self._call(inputs, training)
        self._update_moving_averages(training, mean, variance)
        return outputs

    def _update_moving_averages(self, training, mean, variance):
        """`moving -= (moving - batch) * (1 - momentum)`, only when training.

        With a `training` tensor the decay is 0 when it is False, so the same
        update ops leave the averages unchanged.
        """
        training_value = static_bool(training)
        if training_value is False:
            return
        decay = 1.0 - self.momentum
        if training_value is None:
            decay = smart_cond(
                training,
                lambda: tf.constant(decay, self._param_dtype),
                lambda: tf.constant(0.0, self._param_dtype),
            )
        for variable, value in ((self.moving_mean, mean), (self.moving_variance, variance)):
            with tf.name_scope("AssignMovingAvg"):
                delta = (variable - tf.cast(value, variable.dtype)) * decay
                self.add_update(variable.assign_sub(delta, read_value=False))

    def _fused_call(self, inputs, training):
        """(outputs, mean, variance) of the fused kernel; the moving averages
        when not training."""
        shape, dtype = self.moving_mean.shape, self._param_dtype
        gamma = tf.ones(shape, dtype) if self.gamma is None else self.gamma
        beta = tf.zeros(shape, dtype) if self.beta is None else self.beta
        channels = "channels_first" if self._axes[0] == 1 else "channels_last"
        data_format = tf_data_format(channels, inputs.shape.rank - 2)
        moving = (tf.identity(self.moving_mean), tf.identity(self.moving_variance))
        outputs, mean, variance = tf.compat.v1.nn.fused_batch_norm(
            inputs,
            gamma,
            beta,
            mean=None if training else moving[0],
            variance=None if training else moving[1],
            epsilon=self.epsilon,
            is_training=training,
            data_format=data_format,
        )
        return (outputs, mean, variance) if training else (outputs,) + moving

    def _call(self, inputs, training):
        ndims = inputs.shape.rank
        reduction_axes = [i for i in range(ndims) if i not in self._axes]
        moving = (tf.identity(self.moving_mean), tf.identity(self.moving_variance))
        if static_bool(training) is False:
            mean, variance = moving
        else:
            batch_mean, batch_variance = tf.nn.moments(
                tf.cast(inputs, self._param_dtype), reduction_axes, keepdims=len(self._axes) > 1
            )
            mean, variance = smart_cond(
                training, lambda: (batch_mean, batch_variance), lambda: moving
            )

        def broadcast(value):
            if value is None:
                return None
            value = tf.cast(value, inputs.dtype)
            if len(self._axes) == 1 and self._axes[0] != ndims - 1:
                shape = [1] * ndims
                shape[self._axes[0]] = -1
                value = tf.reshape(value, shape)
            return value

        outputs = tf.nn.batch_normalization(
            inputs,
            broadcast(mean),
            broadcast(variance),
            broadcast(self.beta),
            broadcast(self.gamma),
            self.epsilon,
        )
        outputs.set_shape(inputs.shape)
        return outputs, mean, variance
