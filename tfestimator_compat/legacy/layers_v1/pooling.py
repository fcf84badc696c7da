"""Max and average pooling over 1, 2 or 3 spatial axes."""

from __future__ import annotations

import keras
import tensorflow as tf

from tfestimator_compat.legacy.layers_v1.base import ChannelsLayout
from tfestimator_compat.legacy.layers_v1.base import Layer
from tfestimator_compat.legacy.layers_v1.base import as_tuple
from tfestimator_compat.legacy.layers_v1.base import normalize_data_format
from tfestimator_compat.legacy.layers_v1.base import normalize_padding
from tfestimator_compat.legacy.layers_v1.base import tf_data_format


class _Pooling(ChannelsLayout, Layer):
    """Max or average pooling over `rank` spatial axes."""

    rank = 2
    pool = None

    def __init__(
        self,
        pool_size,
        strides,
        padding: str = "valid",
        data_format: str = "channels_last",
        name: str | None = None,
        **kwargs,
    ):
        super().__init__(name=name, **kwargs)
        self.pool_size = as_tuple(pool_size, self.rank, "pool_size")
        self.strides = as_tuple(strides, self.rank, "strides")
        self.padding = normalize_padding(padding)
        self.data_format = normalize_data_format(data_format)
        self.input_spec = keras.InputSpec(ndim=self.rank + 2)

    def compute(self, inputs, data_format):
        return self.pool(
            inputs,
            ksize=self.pool_size,
            strides=self.strides,
            padding=self.padding.upper(),
            data_format=tf_data_format(data_format, self.rank),
        )


def _pooling_class(name, rank, pool):
    kind = "Max" if pool is tf.nn.max_pool else "Average"
    doc = f"{kind} pooling over {rank} spatial axes; `strides` is required."
    return type(name, (_Pooling,), {"rank": rank, "pool": staticmethod(pool), "__doc__": doc})


MaxPooling1D = _pooling_class("MaxPooling1D", 1, tf.nn.max_pool)
MaxPooling2D = _pooling_class("MaxPooling2D", 2, tf.nn.max_pool)
MaxPooling3D = _pooling_class("MaxPooling3D", 3, tf.nn.max_pool)
AveragePooling1D = _pooling_class("AveragePooling1D", 1, tf.nn.avg_pool)
AveragePooling2D = _pooling_class("AveragePooling2D", 2, tf.nn.avg_pool)
AveragePooling3D = _pooling_class("AveragePooling3D", 3, tf.nn.avg_pool)
