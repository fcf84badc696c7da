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
import sys
import types

import tensorflow as tf

from tfestimator_compat.engine.internals import tensorflow_internals as tf_internals
from tfestimator_compat.legacy.layers_v1 import keras_style
from tfestimator_compat.shim import lazy

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

# Every name is defined in `api`, imported when one is first read: a program
# that uses no TF1 layer does not pay for them.
_SOURCES = dict.fromkeys(__all__, f"{__name__}.api")

__getattr__, __dir__ = lazy.attributes(__name__, _SOURCES)

_MODULE_NAME = "tensorflow.compat.v1.layers"
_module = None


def layers_module() -> types.ModuleType:
    """The module installed as `tf.compat.v1.layers`: this package's API."""
    global _module
    if _module is None:
        doc = "tf.compat.v1.layers, provided by tfestimator_compat."
        _module = lazy.Namespace(_MODULE_NAME, doc)
        _module.__all__ = _module.provide([(f"{__name__}.api", __all__)])
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
