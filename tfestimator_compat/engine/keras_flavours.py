"""Keras 3 and tf_keras: what a Keras object is, whichever Keras made it.

Many teams migrating estimator code run TensorFlow in legacy Keras mode
(`tf_keras` installed and `TF_USE_LEGACY_KERAS=1`): there `tf.keras.*` are
tf_keras (Keras 2) classes, unrelated to Keras 3's, so a check such as
`isinstance(metric, keras.metrics.Metric)` refuses a `tf.keras.metrics.Mean`.
Every place that asks "is this an optimizer / metric / callback / model /
learning-rate schedule" asks here, and gets the same answer for both Keras.

tf_keras is never imported from here: an object can only be a tf_keras one
once the program has imported tf_keras.
"""

from __future__ import annotations

import inspect
import json
import os
import sys
import tempfile
import types
import warnings

import h5py
import keras
import numpy as np

from tfestimator_compat.engine.internals import keras_internals

_GUIDE = "migration_guide/replacements.md#legacy-keras-mode"
# Settings a tf_keras object reports that mean nothing to its Keras 3 counterpart.
_DESCRIPTIVE = frozenset({"fn", "is_legacy_optimizer", "jit_compile"})


def kerases() -> tuple:
    """The Keras packages objects may come from: Keras 3, and tf_keras once imported."""
    tf_keras = sys.modules.get("tf_keras")
    return (keras,) if tf_keras is None else (keras, tf_keras)


def is_tf_keras(obj) -> bool:
    """Whether `obj` (an object, a class or a function) is tf_keras's."""
    if isinstance(obj, types.FunctionType):
        return obj.__module__.split(".")[0] == "tf_keras"
    cls = obj if isinstance(obj, type) else type(obj)
    return any(klass.__module__.split(".")[0] == "tf_keras" for klass in cls.__mro__)


def is_tf_keras_module(module) -> bool:
    """Whether `module` (e.g. what `tf.keras.layers` is in legacy Keras mode) is tf_keras's."""
    return getattr(module, "__name__", "").split(".")[0] == "tf_keras"


def keras_of(obj) -> types.ModuleType:
    """The Keras package `obj` belongs to (Keras 3 unless it is tf_keras's)."""
    return sys.modules["tf_keras"] if is_tf_keras(obj) else keras


def classes(path: str) -> tuple:
    """The class at `path` (e.g. "metrics.Metric") in every Keras present."""
    found = []
    for package in kerases():
        value = package
        for name in path.split("."):
            value = getattr(value, name, None)
        if isinstance(value, type):
            found.append(value)
    return tuple(found)


def is_metric(obj) -> bool:
    return isinstance(obj, classes("metrics.Metric"))


def is_callback(obj) -> bool:
    return isinstance(obj, classes("callbacks.Callback"))


def is_learning_rate_schedule(obj) -> bool:
    return isinstance(obj, classes("optimizers.schedules.LearningRateSchedule"))


def is_optimizer(obj) -> bool:
    """A Keras 3 optimizer, or a tf_keras one (its current or its legacy Keras 2 kind)."""
    return isinstance(obj, classes("optimizers.Optimizer") + _tf_keras_legacy_optimizer())


def _tf_keras_legacy_optimizer() -> tuple:
    tf_keras = sys.modules.get("tf_keras")
    if tf_keras is None:
        return ()
    return (tf_keras.optimizers.legacy.Optimizer,)


def callback_base(callback) -> type:
    """The `Callback` base class of `callback`'s Keras (what its no-op methods are)."""
    return keras_of(callback).callbacks.Callback


def builtin_optimizer_name(optimizer) -> str | None:
    """The class name when `optimizer` is exactly one of its Keras's own optimizers.

    `keras.optimizers.Adam`, `tf_keras.optimizers.Adam` and
    `tf_keras.optimizers.legacy.Adam` all give "Adam"; subclasses give None,
    since their maths may differ from the class they extend.
    """
    cls = type(optimizer)
    package = keras_of(optimizer)
    namespaces = [package.optimizers, getattr(package.optimizers, "legacy", None)]
    for namespace in namespaces:
        if namespace is not None and getattr(namespace, cls.__name__, None) is cls:
            return cls.__name__
    return None


def deserialize_schedule(config: dict, like):
    """A serialized learning-rate schedule, rebuilt by the Keras that serialized `like`."""
    return keras_of(like).optimizers.schedules.deserialize(config)


def serialize_schedule(schedule) -> dict:
    return keras_of(schedule).optimizers.schedules.serialize(schedule)


def as_keras3_model(model, custom_objects: dict | None = None, compile: bool = True):
    """`model` as a Keras 3 model: itself, or a compiled copy of a tf_keras one.

    A tf_keras Sequential or functional model is saved in the `.h5` format
    (architecture and weights), which Keras 3 loads, and compiled with the
    Keras 3 counterparts of its optimizer, loss and metrics, so
    `model_to_estimator` takes a model from either Keras. What has no
    counterpart (a subclassed model, a setting Keras 3 lacks) is refused by name.
    With `compile=False` the copy is left uncompiled.
    """
    if not is_tf_keras(model):
        return model
    if not keras_internals.is_graph_network(model):
        raise ValueError(
            f"model_to_estimator cannot take the subclassed tf_keras model "
            f"{type(model).__name__}: only tf_keras Sequential and functional models can be "
            "carried over to Keras 3. Build it as a Keras 3 model (`import keras`); see "
            f"{_GUIDE}."
        )
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, "model.h5")
        with warnings.catch_warnings():  # tf_keras calls .h5 legacy; here it is a carrier
            warnings.simplefilter("ignore", UserWarning)
            model.save(path, include_optimizer=False)
        _drop_initializer_dtypes(path)
        copy = keras.models.load_model(path, custom_objects=custom_objects, compile=False)
    if compile and getattr(model, "optimizer", None) is not None:
        compiled = keras_internals.compile_arguments(model)
        copy.compile(
            optimizer=_counterpart(compiled["optimizer"], "optimizers"),
            loss=_counterpart(compiled["loss"], "losses"),
            metrics=_counterpart(compiled["metrics"], "metrics"),
            weighted_metrics=_counterpart(compiled["weighted_metrics"], "metrics"),
            loss_weights=compiled["loss_weights"],
        )
    return copy


def _drop_initializer_dtypes(path: str) -> None:
    """Takes `dtype` out of the initializer configs in the `.h5` file at `path`.

    TF1 initializers (`tf.compat.v1.glorot_uniform_initializer()`), which
    tf_keras layers take, report the dtype they were made for; Keras 3's
    initializers take none, and the layer's own dtype says the same.
    """
    with h5py.File(path, "r+") as f:
        config = json.loads(f.attrs["model_config"])
        _walk_initializers(config)
        f.attrs["model_config"] = json.dumps(config)


def _walk_initializers(config) -> None:
    items = config.items() if isinstance(config, dict) else enumerate(config)
    for key, value in items:
        if isinstance(key, str) and key.endswith("_initializer") and isinstance(value, dict):
            if isinstance(value.get("config"), dict):
                value["config"].pop("dtype", None)
        elif isinstance(value, (dict, list)):
            _walk_initializers(value)


def _counterpart(value, namespace: str):
    """The Keras 3 equivalent of a compile argument that may hold tf_keras objects.

    Names and Keras 3 objects stay; a tf_keras function becomes Keras 3's of
    the same name, a tf_keras object Keras 3's class of the same name with
    the same settings.
    """
    if isinstance(value, (list, tuple)):
        return type(value)(_counterpart(item, namespace) for item in value)
    if isinstance(value, dict):
        return {key: _counterpart(item, namespace) for key, item in value.items()}
    if value is None or isinstance(value, str) or not is_tf_keras(value):
        return value
    module = keras
    for name in namespace.split("."):
        module = getattr(module, name)
    is_object = not isinstance(value, type) and hasattr(value, "get_config")
    name = type(value).__name__ if is_object else getattr(value, "__name__", repr(value))
    counterpart = getattr(module, name, None)
    if counterpart is None:
        raise ValueError(
            f"tf_keras's {name} has no Keras 3 counterpart keras.{namespace}.{name}; "
            f"use a Keras 3 one; see {_GUIDE}."
        )
    return counterpart(**_counterpart_config(value, counterpart)) if is_object else counterpart


def _counterpart_config(value, cls) -> dict:
    """`value`'s settings as `cls` takes them; a setting it lacks must be a default."""
    accepted = set(inspect.signature(cls.__init__).parameters)
    config = {}
    for key, setting in value.get_config().items():
        if key == "learning_rate" and isinstance(setting, dict):
            schedule = deserialize_schedule(setting, value)
            setting = _counterpart(schedule, "optimizers.schedules")
        if key == "reduction" and setting == "auto":  # Keras 2's name for its default
            continue
        if isinstance(setting, np.generic):  # tf_keras optimizers report numpy floats
            setting = setting.item()
        if key in accepted:
            config[key] = setting
        elif key not in _DESCRIPTIVE and setting not in (None, False, 0):
            raise ValueError(
                f"{type(value).__name__}({key}={setting!r}) has no equivalent in Keras 3's "
                f"{cls.__name__}; see {_GUIDE}."
            )
    return config


def copy_weights_back(keras3_model, model) -> None:
    """Puts the weights of `as_keras3_model(model)` back into `model`, layer by layer.

    Layer by layer, as Keras 3 and tf_keras order a model's weights differently
    (tf_keras lists all trainable weights first) but a layer's alike.
    """
    if keras3_model is model:
        return
    for layer, keras3_layer in zip(model.layers, keras3_model.layers):
        layer.set_weights(keras3_layer.get_weights())
