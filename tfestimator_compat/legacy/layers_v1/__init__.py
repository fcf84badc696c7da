"""`tf.compat.v1.layers` for TensorFlow >= 2.16, built on variable scopes.

TensorFlow 2.16+ routes `tf.compat.v1.layers` to Keras 3, which dropped it, so
`tf.compat.v1.layers.dense(...)` raises. This package brings back its functions
(`dense`, `conv2d`, `batch_normalization`, ...) and classes (`Dense`, `Conv2D`,
...) with their TF1 arguments and defaults, and `install()` puts them back at
`tf.compat.v1.layers`.

Each layer makes its variables with `tf.compat.v1.get_variable` inside
`tf.compat.v1.variable_scope(name, default_name=<snake_case class name>)` and
computes with plain TF ops, as TF1 graph mode did. So the variables get TF1's
names (`dense/kernel`, `dense_1/kernel`, `outer/conv2d/bias`,
`batch_normalization/moving_mean`), which are the keys of checkpoints written by
the original; `reuse=True`, `tf.compat.v1.AUTO_REUSE` and calling a layer
object again share variables; weight and activity regularization losses go to
`GraphKeys.REGULARIZATION_LOSSES` and batch-norm moving-average updates to
`GraphKeys.UPDATE_OPS`, where TF1 code looks for them.

The layers are meant for graphs: a `tf.Graph`, or the graph an Estimator
traces its `model_fn` in. Eagerly, a layer object keeps its variables and
works; a functional call (`dense(x, 3)`) makes new variables each time, as
`get_variable` does outside a graph, and collections are not used.

Example:

```python
def model_fn(features, labels, mode):
    net = tf.compat.v1.layers.conv2d(features["image"], 16, 3, activation=tf.nn.relu)
    net = tf.compat.v1.layers.max_pooling2d(net, 2, 2)
    training = mode == tf.estimator.ModeKeys.TRAIN
    net = tf.compat.v1.layers.batch_normalization(net, training=training)
    logits = tf.compat.v1.layers.dense(tf.compat.v1.layers.flatten(net), 10)
    ...
```
"""

from __future__ import annotations

import importlib
import inspect
import sys
import types

import keras
import tensorflow as tf

from tfestimator_compat.engine.internals import tensorflow_internals as tf_internals
from tfestimator_compat.legacy.layers_v1 import keras_style
from tfestimator_compat.legacy.layers_v1.base import ONES
from tfestimator_compat.legacy.layers_v1.base import ZEROS
from tfestimator_compat.legacy.layers_v1.base import Layer
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

__all__ = [
    "AveragePooling1D",
    "AveragePooling2D",
    "AveragePooling3D",
    "BatchNormalization",
    "Conv1D",
    "Conv2D",
    "Conv2DTranspose",
    "Conv3D",
    "Conv3DTranspose",
    "Dense",
    "Dropout",
    "Flatten",
    "InputSpec",
    "Layer",
    "MaxPooling1D",
    "MaxPooling2D",
    "MaxPooling3D",
    "SeparableConv1D",
    "SeparableConv2D",
    "average_pooling1d",
    "average_pooling2d",
    "average_pooling3d",
    "batch_normalization",
    "conv1d",
    "conv2d",
    "conv2d_transpose",
    "conv3d",
    "conv3d_transpose",
    "dense",
    "dropout",
    "flatten",
    "max_pooling1d",
    "max_pooling2d",
    "max_pooling3d",
    "separable_conv1d",
    "separable_conv2d",
]

_MODULE_NAME = "tensorflow.compat.v1.layers"
_module = None


def layers_module() -> types.ModuleType:
    """The module installed as `tf.compat.v1.layers`: this package's API."""
    global _module
    if _module is None:
        _module = types.ModuleType(
            _MODULE_NAME, "tf.compat.v1.layers, provided by tfestimator_compat."
        )
        for name in __all__:
            setattr(_module, name, globals()[name])
        _module.__all__ = list(__all__)
        _module.experimental = _experimental_module()
    return _module


def _experimental_module() -> types.ModuleType:
    """`tf.compat.v1.layers.experimental`: the Keras-style switches."""
    module = types.ModuleType(f"{_MODULE_NAME}.experimental", keras_style.__doc__)
    for name in keras_style.__all__:
        setattr(module, name, getattr(keras_style, name))
    module.__all__ = list(keras_style.__all__)
    return module


def _current_layers():
    """`tf.compat.v1.layers` as TensorFlow has it now, or None where reading it fails."""
    try:
        return getattr(tf.compat.v1, "layers", None)
    except (AttributeError, ImportError):
        return None


def _works(layers) -> bool:
    """Whether `layers` is a `tf.compat.v1.layers` that works (tf_keras's)."""
    try:
        return callable(getattr(layers, "dense", None))
    except (AttributeError, ImportError):
        return False


def _v1_modules() -> list:
    """Every object legacy code may reach as `tensorflow.compat.v1`.

    `tf.compat.v1` and `sys.modules["tensorflow.compat.v1"]` (what `import
    tensorflow.compat.v1 as tf` gives) are distinct wrappers of one module,
    and each caches its attributes, so each gets the attribute set.
    """
    found = [getattr(tf.compat, "v1", None)]
    found.append(importlib.import_module("tensorflow.compat.v1"))
    found.append(getattr(tf.compat, "v1", None))
    found.append(tf_internals.loaded_compat_api_module("v1"))
    unique = {id(module): module for module in found if module is not None}
    return list(unique.values())


def install(force: bool = False) -> types.ModuleType | None:
    """Makes `tf.compat.v1.layers` this package's API, where it no longer works.

    Under Keras 3, TensorFlow's `tf.compat.v1.layers` is a lazy loader that
    raises on every attribute. The `layers` attribute is replaced on every
    object that is `tensorflow.compat.v1` (the `tf.compat.v1` attribute and
    the module `import tensorflow.compat.v1 as tf` gives), and
    `sys.modules["tensorflow.compat.v1.layers"]` is set, so `import
    tensorflow.compat.v1.layers` finds it too.

    Does nothing where `tf.compat.v1.layers` works (tf_keras with
    `TF_USE_LEGACY_KERAS=1`), unless `force=True`. Safe to call more than once.

    Args:
        force: install even over a `tf.compat.v1.layers` that works.

    Returns:
        The module installed as `tf.compat.v1.layers`, or None when nothing
        was installed.
    """
    module = layers_module()
    current = _current_layers()
    if current is not module and not force and _works(current):
        return None
    for owner in _v1_modules():
        if owner.__dict__.get("layers") is not module:
            owner.layers = module
    sys.modules[_MODULE_NAME] = module
    sys.modules[f"{_MODULE_NAME}.experimental"] = module.experimental
    return module
