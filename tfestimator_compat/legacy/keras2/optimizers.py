"""`tf.keras.optimizers.legacy`: the Keras 2 optimizers, back where 2.11-2.15 code finds them.

In TF 2.11-2.15 the canned estimators accepted only these optimizers, so
programs of that era spell `tf.keras.optimizers.legacy.Adam(0.01)` or
subclass `tf.keras.optimizers.legacy.Optimizer`. Keras 3 keeps the names as
stubs that raise ImportError; `install()` binds them to the shim's Keras 2
optimizers, which run in a `model_fn` and keep the original's variable names.
"""

from __future__ import annotations

import sys

import keras
import tensorflow as tf

from tfestimator_compat.canned.keras2_optimizers import SGD
from tfestimator_compat.canned.keras2_optimizers import Adadelta
from tfestimator_compat.canned.keras2_optimizers import Adagrad
from tfestimator_compat.canned.keras2_optimizers import Adam
from tfestimator_compat.canned.keras2_optimizers import Adamax
from tfestimator_compat.canned.keras2_optimizers import Ftrl
from tfestimator_compat.canned.keras2_optimizers import Nadam
from tfestimator_compat.canned.keras2_optimizers import RMSprop
from tfestimator_compat.engine import keras_flavours
from tfestimator_compat.engine.internals import keras_internals
from tfestimator_compat.legacy.keras2.optimizer_base import Optimizer

__all__ = ["Adadelta", "Adagrad", "Adam", "Adamax", "Ftrl", "Nadam", "Optimizer", "RMSprop", "SGD"]


def legacy_modules() -> list:
    """Every module object legacy code may reach as `tf.keras.optimizers.legacy`."""
    candidates = [
        sys.modules.get("keras.optimizers.legacy"),
        keras_internals.loaded_tf_keras_namespace("optimizers.legacy"),
        getattr(keras.optimizers, "legacy", None),
    ]
    for keras_module in (tf.keras, getattr(tf.compat.v1, "keras", None)):
        try:
            candidates.append(keras_module.optimizers.legacy)
        except (AttributeError, ImportError):
            pass
    seen, modules = set(), []
    for module in candidates:
        # tf_keras's (legacy Keras mode) holds the real Keras 2 optimizers: left alone.
        if module is None or keras_flavours.is_tf_keras_module(module):
            continue
        if id(module) not in seen:
            seen.add(id(module))
            modules.append(module)
    return modules


def install() -> None:
    """Binds `tf.keras.optimizers.legacy.*` (and `keras.optimizers.legacy.*`) to these classes."""
    namespace = sys.modules[__name__]
    for module in legacy_modules():
        for name in __all__:
            setattr(module, name, getattr(namespace, name))
        sys.modules.setdefault("tensorflow.keras.optimizers.legacy", module)
