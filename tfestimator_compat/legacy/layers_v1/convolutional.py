"""Convolutions: `Conv1D/2D/3D`, `Conv2DTranspose/3DTranspose`, `SeparableConv1D/2D`."""

from __future__ import annotations

from typing import Any
from typing import Callable

import keras
import tensorflow as tf

from tfestimator_compat.legacy.layers_v1.base import ZEROS
from tfestimator_compat.legacy.layers_v1.base import ChannelsLayout
from tfestimator_compat.legacy.layers_v1.base import WeightedLayer
from tfestimator_compat.legacy.layers_v1.base import as_tuple
from tfestimator_compat.legacy.layers_v1.base import normalize_data_format
from tfestimator_compat.legacy.layers_v1.base import normalize_padding
from tfestimator_compat.legacy.layers_v1.base import tf_data_format


class _Conv(ChannelsLayout, WeightedLayer):
    """What convolutions share: geometry arguments, kernel and bias creation."""

    rank = 2
    transposed = False

    def __init__(
        self,
        filters,
        kernel_size,
        strides=1,
        padding="valid",
        data_format="channels_last",
        dilation_rate=1,
        kernel_initializer=None,
        kernel_regularizer=None,
        kernel_constraint=None,
        **kwargs,
    ):
        super().__init__(**kwargs)
        self.filters = int(filters)
        self.kernel_size = as_tuple(kernel_size, self.rank, "kernel_size")
        self.strides = as_tuple(strides, self.rank, "strides")
        causal = ("causal",) if self.rank == 1 and not self.transposed else ()
        self.padding = normalize_padding(padding, ("valid", "same") + causal)
        self.data_format = normalize_data_format(data_format)
        self.dilation_rate = as_tuple(dilation_rate, self.rank, "dilation_rate")
        self.kernel_initializer = kernel_initializer
        self.kernel_regularizer = kernel_regularizer
        self.kernel_constraint = kernel_constraint
        self.input_spec = keras.InputSpec(ndim=self.rank + 2)

    @property
    def _channel_axis(self):
        return 1 if self.data_format == "channels_first" else -1

    def _spatial_axes(self, data_format):
        first = 2 if data_format == "channels_first" else 1
        return list(range(first, first + self.rank))

    def _input_channels(self, input_shape):
        channels = input_shape[self._channel_axis]
        if channels is None:
            raise ValueError(
                f"The channel dimension of the inputs should be defined: {input_shape}"
            )
        self.input_spec = keras.InputSpec(ndim=self.rank + 2, axes={self._channel_axis: channels})
        return channels

    def _add_kernel(self, name, shape, initializer, regularizer, constraint):
        return self.add_weight(
            name, shape, initializer=initializer, regularizer=regularizer, constraint=constraint
        )

    def _causal_pad(self, inputs, data_format):
        """Pads the time axis on the left, so output t sees inputs <= t only."""
        left = self.dilation_rate[0] * (self.kernel_size[0] - 1)
        paddings = [[0, 0]] * 3
        paddings[self._spatial_axes(data_format)[0]] = [left, 0]
        return tf.pad(inputs, paddings)


class _PlainConv(_Conv):
    def build(self, input_shape):
        channels = self._input_channels(input_shape)
        self.kernel = self._add_kernel(
            "kernel",
            self.kernel_size + (channels, self.filters),
            self.kernel_initializer,
            self.kernel_regularizer,
            self.kernel_constraint,
        )
        self._add_bias(self.filters)

    def compute(self, inputs, data_format):
        padding = self.padding
        if padding == "causal":
            inputs, padding = self._causal_pad(inputs, data_format), "valid"
        outputs = tf.nn.convolution(
            inputs,
            self.kernel,
            strides=self.strides,
            padding=padding.upper(),
            dilations=self.dilation_rate,
            data_format=tf_data_format(data_format, self.rank),
        )
        return self._finish(outputs, data_format)


def _conv_class(name, rank, doc):
    unit = _unit(rank)

    class Conv(_PlainConv):
        def __init__(
            self,
            filters: int,
            kernel_size,
            strides=unit,
            padding: str = "valid",
            data_format: str = "channels_last",
            dilation_rate=unit,
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
            super().__init__(**_arguments(locals()))

    return _named(Conv, name, rank, doc)


def _unit(rank):
    """TF1's default strides and dilation: 1 for 1D layers, a tuple of 1s otherwise."""
    return 1 if rank == 1 else (1,) * rank


def _named(cls, name, rank, doc):
    cls.__name__ = cls.__qualname__ = name
    cls.rank = rank
    cls.__doc__ = doc
    return cls


def _arguments(local_variables):
    """A constructor's arguments, as the keyword arguments of its base."""
    arguments = {k: v for k, v in local_variables.items() if k not in ("self", "__class__")}
    arguments.update(arguments.pop("kwargs", {}))
    return arguments


_CONV_DOC = """{rank}D convolution: `activation(conv(inputs, kernel) + bias)`.

    Variables: `kernel` of shape `kernel_size + (input_channels, filters)` and
    `bias` of shape `[filters]`. `padding` is 'valid' or 'same'{causal}
    (any case); `data_format` 'channels_last' or 'channels_first'.
    """
Conv1D = _conv_class("Conv1D", 1, _CONV_DOC.format(rank=1, causal=", or 'causal'"))
Conv2D = _conv_class("Conv2D", 2, _CONV_DOC.format(rank=2, causal=""))
Conv3D = _conv_class("Conv3D", 3, _CONV_DOC.format(rank=3, causal=""))


class _ConvTranspose(_Conv):
    transposed = True

    def build(self, input_shape):
        channels = self._input_channels(input_shape)
        self.kernel = self._add_kernel(
            "kernel",
            self.kernel_size + (self.filters, channels),
            self.kernel_initializer,
            self.kernel_regularizer,
            self.kernel_constraint,
        )
        self._add_bias(self.filters)

    def _output_size(self, size, axis):
        kernel, stride = self.kernel_size[axis], self.strides[axis]
        if self.padding == "same":
            return size * stride
        return size * stride + max(kernel - stride, 0)

    def compute(self, inputs, data_format):
        dynamic = tf.shape(inputs)
        static = inputs.shape
        spatial_axes = self._spatial_axes(data_format)
        sizes = [self._output_size(dynamic[a], i) for i, a in enumerate(spatial_axes)]
        static_sizes = [
            None if static[a] is None else self._output_size(static[a], i)
            for i, a in enumerate(spatial_axes)
        ]
        if data_format == "channels_first":
            output_shape = [dynamic[0], self.filters] + sizes
            static_shape = [static[0], self.filters] + static_sizes
        else:
            output_shape = [dynamic[0]] + sizes + [self.filters]
            static_shape = [static[0]] + static_sizes + [self.filters]
        outputs = tf.nn.conv_transpose(
            inputs,
            self.kernel,
            tf.stack(output_shape),
            strides=self.strides,
            padding=self.padding.upper(),
            data_format=tf_data_format(data_format, self.rank),
        )
        outputs.set_shape(static_shape)
        return self._finish(outputs, data_format)


def _conv_transpose_class(name, rank, doc):
    unit = _unit(rank)

    class ConvTranspose(_ConvTranspose):
        def __init__(
            self,
            filters: int,
            kernel_size,
            strides=unit,
            padding: str = "valid",
            data_format: str = "channels_last",
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
            super().__init__(**_arguments(locals()))

    return _named(ConvTranspose, name, rank, doc)


_CONV_TRANSPOSE_DOC = """Transposed {rank}D convolution (deconvolution).

    Variables: `kernel` of shape `kernel_size + (filters, input_channels)` and
    `bias` of shape `[filters]`. Each spatial size becomes `size * stride`
    with 'same' padding, `size * stride + max(kernel - stride, 0)` with 'valid'.
    """
Conv2DTranspose = _conv_transpose_class("Conv2DTranspose", 2, _CONV_TRANSPOSE_DOC.format(rank=2))
Conv3DTranspose = _conv_transpose_class("Conv3DTranspose", 3, _CONV_TRANSPOSE_DOC.format(rank=3))


class _SeparableConv(_Conv):
    def __init__(
        self,
        depth_multiplier=1,
        depthwise_initializer=None,
        pointwise_initializer=None,
        depthwise_regularizer=None,
        pointwise_regularizer=None,
        depthwise_constraint=None,
        pointwise_constraint=None,
        **kwargs,
    ):
        super().__init__(**kwargs)
        self.depth_multiplier = int(depth_multiplier)
        self.depthwise_initializer = depthwise_initializer
        self.pointwise_initializer = pointwise_initializer
        self.depthwise_regularizer = depthwise_regularizer
        self.pointwise_regularizer = pointwise_regularizer
        self.depthwise_constraint = depthwise_constraint
        self.pointwise_constraint = pointwise_constraint

    def build(self, input_shape):
        channels = self._input_channels(input_shape)
        self.depthwise_kernel = self._add_kernel(
            "depthwise_kernel",
            self.kernel_size + (channels, self.depth_multiplier),
            self.depthwise_initializer,
            self.depthwise_regularizer,
            self.depthwise_constraint,
        )
        self.pointwise_kernel = self._add_kernel(
            "pointwise_kernel",
            (1,) * self.rank + (channels * self.depth_multiplier, self.filters),
            self.pointwise_initializer,
            self.pointwise_regularizer,
            self.pointwise_constraint,
        )
        self._add_bias(self.filters)

    def compute(self, inputs, data_format):
        padding = self.padding
        if padding == "causal":
            inputs, padding = self._causal_pad(inputs, data_format), "valid"
        depthwise, pointwise = self.depthwise_kernel, self.pointwise_kernel
        strides, dilations = self.strides, self.dilation_rate
        if self.rank == 1:
            # A 1D separable convolution is a 2D one over a height of 1; the
            # depthwise op wants equal row and column strides.
            axis = self._spatial_axes(data_format)[0]
            inputs = tf.expand_dims(inputs, axis)
            depthwise, pointwise = tf.expand_dims(depthwise, 0), tf.expand_dims(pointwise, 0)
            strides, dilations = strides * 2, (1,) + dilations
        channels_first = data_format == "channels_first"
        outputs = tf.nn.separable_conv2d(
            inputs,
            depthwise,
            pointwise,
            strides=(1, 1) + strides if channels_first else (1,) + strides + (1,),
            padding=padding.upper(),
            data_format=tf_data_format(data_format, 2),
            dilations=dilations,
        )
        if self.rank == 1:
            outputs = tf.squeeze(outputs, [axis])
        return self._finish(outputs, data_format)


def _separable_class(name, rank, doc):
    unit = _unit(rank)

    class SeparableConv(_SeparableConv):
        def __init__(
            self,
            filters: int,
            kernel_size,
            strides=unit,
            padding: str = "valid",
            data_format: str = "channels_last",
            dilation_rate=unit,
            depth_multiplier: int = 1,
            activation: Callable | str | None = None,
            use_bias: bool = True,
            depthwise_initializer: Any = None,
            pointwise_initializer: Any = None,
            bias_initializer: Any = ZEROS,
            depthwise_regularizer: Callable | None = None,
            pointwise_regularizer: Callable | None = None,
            bias_regularizer: Callable | None = None,
            activity_regularizer: Callable | None = None,
            depthwise_constraint: Callable | None = None,
            pointwise_constraint: Callable | None = None,
            bias_constraint: Callable | None = None,
            trainable: bool = True,
            name: str | None = None,
            **kwargs,
        ):
            super().__init__(**_arguments(locals()))

    return _named(SeparableConv, name, rank, doc)


_SEPARABLE_DOC = """Depthwise-separable {rank}D convolution.

    A depthwise convolution (`depthwise_kernel`, shape `kernel_size +
    (input_channels, depth_multiplier)`) then a 1x1 convolution
    (`pointwise_kernel`, shape `(1,) * {rank} + (input_channels *
    depth_multiplier, filters)`), then `bias` and `activation`.
    """
SeparableConv1D = _separable_class("SeparableConv1D", 1, _SEPARABLE_DOC.format(rank=1))
SeparableConv2D = _separable_class("SeparableConv2D", 2, _SEPARABLE_DOC.format(rank=2))
