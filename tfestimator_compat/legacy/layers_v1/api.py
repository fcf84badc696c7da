"""The `tf.compat.v1.layers` API: TF1's layer classes and their functional forms.

`tfestimator_compat.legacy.layers_v1` offers these names and installs them,
importing this module when one is first read (see its docstring).
"""

from __future__ import annotations

import inspect

import keras

from tfestimator_compat.legacy.layers_v1 import __all__  # noqa: F401 - the names offered
from tfestimator_compat.legacy.layers_v1.base import ONES
from tfestimator_compat.legacy.layers_v1.base import ZEROS
from tfestimator_compat.legacy.layers_v1.base import Layer as Layer
from tfestimator_compat.legacy.layers_v1.convolutional import Conv1D
from tfestimator_compat.legacy.layers_v1.convolutional import Conv2D
from tfestimator_compat.legacy.layers_v1.convolutional import Conv2DTranspose
from tfestimator_compat.legacy.layers_v1.convolutional import Conv3D
from tfestimator_compat.legacy.layers_v1.convolutional import Conv3DTranspose
from tfestimator_compat.legacy.layers_v1.convolutional import SeparableConv1D
from tfestimator_compat.legacy.layers_v1.convolutional import SeparableConv2D
from tfestimator_compat.legacy.layers_v1.core import Dense
from tfestimator_compat.legacy.layers_v1.core import Dropout
from tfestimator_compat.legacy.layers_v1.core import Flatten
from tfestimator_compat.legacy.layers_v1.normalization import BatchNormalization
from tfestimator_compat.legacy.layers_v1.pooling import AveragePooling1D
from tfestimator_compat.legacy.layers_v1.pooling import AveragePooling2D
from tfestimator_compat.legacy.layers_v1.pooling import AveragePooling3D
from tfestimator_compat.legacy.layers_v1.pooling import MaxPooling1D
from tfestimator_compat.legacy.layers_v1.pooling import MaxPooling2D
from tfestimator_compat.legacy.layers_v1.pooling import MaxPooling3D


def _functional(cls, name, reuse=True):
    """The functional form of `cls`: `name(inputs, *constructor args)`.

    Its arguments are the constructor's, after `inputs`, then `reuse` for
    layers with variables; the layer's scope is `name` itself, as TF1's
    functional layers used it, so repeating a name without `reuse` is an
    error rather than a new `name_1`.
    """
    constructor = inspect.signature(cls.__init__)
    parameters = [
        p
        for p in constructor.parameters.values()
        if p.name != "self" and p.kind is not inspect.Parameter.VAR_KEYWORD
    ]
    inputs = inspect.Parameter("inputs", inspect.Parameter.POSITIONAL_OR_KEYWORD)
    extra = [inspect.Parameter("reuse", inspect.Parameter.POSITIONAL_OR_KEYWORD, default=None)]
    signature = inspect.Signature([inputs] + parameters + (extra if reuse else []))

    def layer_fn(*args, **kwargs):
        arguments = signature.bind(*args, **kwargs)
        arguments.apply_defaults()
        arguments = dict(arguments.arguments)
        inputs = arguments.pop("inputs")
        if reuse:
            arguments.update(_scope=arguments["name"], _reuse=arguments.pop("reuse"))
        return cls(**arguments)(inputs)

    layer_fn.__signature__ = signature
    layer_fn.__name__ = layer_fn.__qualname__ = name
    layer_fn.__doc__ = (
        f"Functional interface for `{cls.__name__}`: makes the layer and applies it "
        f"to `inputs`.\n\nSee `{cls.__name__}` for the arguments."
    )
    return layer_fn


dense = _functional(Dense, "dense")
conv1d = _functional(Conv1D, "conv1d")
conv2d = _functional(Conv2D, "conv2d")
conv3d = _functional(Conv3D, "conv3d")
conv2d_transpose = _functional(Conv2DTranspose, "conv2d_transpose")
conv3d_transpose = _functional(Conv3DTranspose, "conv3d_transpose")
separable_conv1d = _functional(SeparableConv1D, "separable_conv1d")
separable_conv2d = _functional(SeparableConv2D, "separable_conv2d")
max_pooling1d = _functional(MaxPooling1D, "max_pooling1d", reuse=False)
max_pooling2d = _functional(MaxPooling2D, "max_pooling2d", reuse=False)
max_pooling3d = _functional(MaxPooling3D, "max_pooling3d", reuse=False)
average_pooling1d = _functional(AveragePooling1D, "average_pooling1d", reuse=False)
average_pooling2d = _functional(AveragePooling2D, "average_pooling2d", reuse=False)
average_pooling3d = _functional(AveragePooling3D, "average_pooling3d", reuse=False)


def dropout(inputs, rate=0.5, noise_shape=None, seed=None, training=False, name=None):
    """Applies `Dropout(rate, noise_shape, seed)`; only when `training` is True."""
    return Dropout(rate, noise_shape, seed, name=name)(inputs, training=training)


def flatten(inputs, name=None, data_format="channels_last"):
    """Flattens `inputs` to `[batch, -1]`; see `Flatten`."""
    return Flatten(name=name, data_format=data_format)(inputs)


def batch_normalization(
    inputs,
    axis=-1,
    momentum=0.99,
    epsilon=1e-3,
    center=True,
    scale=True,
    beta_initializer=ZEROS,
    gamma_initializer=ONES,
    moving_mean_initializer=ZEROS,
    moving_variance_initializer=ONES,
    beta_regularizer=None,
    gamma_regularizer=None,
    beta_constraint=None,
    gamma_constraint=None,
    training=False,
    trainable=True,
    name=None,
    reuse=None,
    renorm=False,
    renorm_clipping=None,
    renorm_momentum=0.99,
    fused=None,
    virtual_batch_size=None,
    adjustment=None,
):
    """Applies `BatchNormalization`; moving averages update only when `training`.

    Their update ops go to `GraphKeys.UPDATE_OPS`; run them with the train op.
    """
    arguments = dict(locals())
    inputs, training = arguments.pop("inputs"), arguments.pop("training")
    arguments.update(_scope=name, _reuse=arguments.pop("reuse"))
    return BatchNormalization(**arguments)(inputs, training=training)


InputSpec = keras.InputSpec
