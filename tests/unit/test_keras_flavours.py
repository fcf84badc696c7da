"""What a Keras object is, whichever Keras made it (engine/keras_flavours.py).

tf_keras is not installed in this environment, so these specify the Keras 3
side: every question gets Keras 3's answer, and nothing imports tf_keras.
"""

import sys

import keras
import pytest
import tensorflow as tf

from tfestimator_compat.engine import keras_flavours


class _CustomAdam(keras.optimizers.Adam):
    pass


def test_only_keras_3_is_present_until_tf_keras_is_imported():
    if "tf_keras" in sys.modules:
        pytest.skip("tf_keras is imported in this process")
    assert keras_flavours.kerases() == (keras,)
    assert keras_flavours.classes("metrics.Metric") == (keras.metrics.Metric,)


def test_a_path_that_names_no_class_finds_none():
    assert keras_flavours.classes("metrics.no_such_class") == ()
    assert keras_flavours.classes("metrics.mean_squared_error") == ()  # a function


@pytest.mark.parametrize(
    "obj",
    [
        keras.layers.Dense(1),
        keras.layers.Dense,
        keras.metrics.Mean(),
        keras.losses.mean_squared_error,
        object(),
    ],
)
def test_keras_3_objects_classes_and_functions_are_not_tf_keras(obj):
    assert not keras_flavours.is_tf_keras(obj)
    assert keras_flavours.keras_of(obj) is keras


def test_tf_keras_is_keras_3_on_this_tensorflow():
    assert not keras_flavours.is_tf_keras_module(tf.keras.layers)
    assert not keras_flavours.is_tf_keras_module(keras)
    assert not keras_flavours.is_tf_keras_module(None)


def test_metrics_are_told_from_other_objects():
    assert keras_flavours.is_metric(keras.metrics.Mean())
    assert keras_flavours.is_metric(keras.metrics.AUC())
    assert not keras_flavours.is_metric(keras.metrics.Mean)  # the class, not a metric
    assert not keras_flavours.is_metric(keras.losses.MeanSquaredError())
    assert not keras_flavours.is_metric(tf.compat.v1.metrics.mean)


def test_callbacks_are_told_from_session_run_hooks():
    assert keras_flavours.is_callback(keras.callbacks.Callback())
    assert keras_flavours.is_callback(keras.callbacks.EarlyStopping())
    assert not keras_flavours.is_callback(tf.compat.v1.train.StopAtStepHook(last_step=1))


def test_learning_rate_schedules_are_told_from_numbers():
    schedule = keras.optimizers.schedules.ExponentialDecay(0.1, 10, 0.9)
    assert keras_flavours.is_learning_rate_schedule(schedule)
    assert not keras_flavours.is_learning_rate_schedule(0.1)


def test_keras_optimizers_are_optimizers_and_tf1_ones_are_not():
    assert keras_flavours.is_optimizer(keras.optimizers.Adam())
    assert keras_flavours.is_optimizer(_CustomAdam())
    assert not keras_flavours.is_optimizer(tf.compat.v1.train.AdamOptimizer())
    assert not keras_flavours.is_optimizer("adam")


def test_the_callback_base_is_keras_3s():
    assert keras_flavours.callback_base(keras.callbacks.EarlyStopping()) is keras.callbacks.Callback


@pytest.mark.parametrize(
    "optimizer, expected",
    [
        (keras.optimizers.Adam(), "Adam"),
        (keras.optimizers.SGD(), "SGD"),
        (keras.optimizers.RMSprop(), "RMSprop"),
        (_CustomAdam(), None),  # a subclass's maths may differ from Adam's
    ],
)
def test_builtin_optimizer_name_is_the_class_name_of_exactly_a_builtin(optimizer, expected):
    assert keras_flavours.builtin_optimizer_name(optimizer) == expected


def test_a_schedule_survives_serialization():
    schedule = keras.optimizers.schedules.PiecewiseConstantDecay([10], [0.1, 0.01])
    config = keras_flavours.serialize_schedule(schedule)
    rebuilt = keras_flavours.deserialize_schedule(config, like=schedule)
    assert type(rebuilt) is type(schedule)
    assert float(rebuilt(5)) == pytest.approx(0.1)
    assert float(rebuilt(50)) == pytest.approx(0.01)


def test_a_keras_3_model_is_its_own_keras_3_model():
    model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
    assert keras_flavours.as_keras3_model(model) is model
    weights = [w.copy() for w in model.get_weights()]
    keras_flavours.copy_weights_back(model, model)
    assert all((a == b).all() for a, b in zip(model.get_weights(), weights))
