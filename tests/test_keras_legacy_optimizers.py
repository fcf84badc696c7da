"""`legacy_optimizers`: the Keras 2 optimizers estimator programs of 2.11-2.15 used.

Model dirs written by tensorflow-estimator 2.15 with legacy optimizers
(`fixtures/keras2_legacy/make_fixture.py`) resume here with the original's
numbers; the optimizers also run in custom model_fns and can be subclassed
the Keras 2 way.
"""

import json
import os
import shutil

import numpy as np
import pytest
import tensorflow as tf
from helpers import LEGACY_KERAS_MODE
from helpers import fixture_generator
from helpers import module_from_file

import tfestimator_compat as est
from tfestimator_compat.canned import keras2_optimizers
from tfestimator_compat.legacy.keras2 import optimizers as legacy_optimizers

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures", "keras2_legacy")
LEGACY_NAMES = ("Adadelta", "Adagrad", "Adam", "Adamax", "Ftrl", "Nadam", "RMSprop", "SGD")


fixture = fixture_generator("keras2_legacy")


@pytest.fixture(scope="module")
def expected():
    with open(fixture.EXPECTED) as f:
        return json.load(f)


@pytest.mark.skipif(
    LEGACY_KERAS_MODE, reason="tf.keras is tf_keras, whose own legacy optimizers stay"
)
def test_the_legacy_names_are_the_shims_optimizers():
    legacy = tf.keras.optimizers.legacy
    for name in LEGACY_NAMES:
        assert getattr(legacy, name) is getattr(keras2_optimizers, name)
    assert issubclass(legacy.Adam, legacy.Optimizer)
    from tensorflow.keras.optimizers.legacy import Ftrl

    assert Ftrl is keras2_optimizers.Ftrl
    assert tf.keras.optimizers.legacy.Adam(0.01).get_config()["learning_rate"] == 0.01


@pytest.mark.slow
@pytest.mark.parametrize("model", fixture.MODELS)
def test_original_model_dirs_resume_with_their_numbers(model, expected, tmp_path):
    model_dir = str(tmp_path / model)
    shutil.copytree(os.path.join(FIXTURES, model), model_dir)
    entry = expected[model]
    estimator = fixture.make_estimator(model, model_dir)
    metrics = estimator.evaluate(fixture.input_fn(model, False, seed=5))
    for key, value in entry["evaluate"].items():
        assert metrics[key] == pytest.approx(value, abs=1e-4), key

    estimator.train(fixture.input_fn(model, True, seed=4), steps=fixture.RESUME_STEPS)
    reader = tf.train.load_checkpoint(model_dir)
    names = {name for name, _ in tf.train.list_variables(model_dir)}
    assert names == set(entry["resumed_variables"])
    for name, value in entry["resumed_variables"].items():
        np.testing.assert_allclose(reader.get_tensor(name), value, atol=1e-4, err_msg=name)
    metrics = estimator.evaluate(fixture.input_fn(model, False, seed=5))
    for key, value in entry["resumed_evaluate"].items():
        assert metrics[key] == pytest.approx(value, abs=1e-4), key


def _regression_input_fn():
    x = np.random.RandomState(0).normal(size=(32, 2)).astype(np.float32)
    y = (x @ np.array([[1.0], [-2.0]], np.float32) + 0.5).astype(np.float32)
    return tf.data.Dataset.from_tensor_slices(({"x": x}, y)).repeat().batch(8)


def _custom_model_fn(features, labels, mode, params):
    predictions = tf.compat.v1.layers.dense(features["x"], 1, name="out")
    loss = tf.reduce_mean(tf.square(predictions - labels))
    if mode != est.ModeKeys.TRAIN:
        return est.EstimatorSpec(mode, loss=loss, predictions=predictions)
    optimizer = params["optimizer"]()
    global_step = tf.compat.v1.train.get_or_create_global_step()
    variables = tf.compat.v1.trainable_variables()
    how = params["how"]
    if how == "get_updates":
        optimizer.iterations = global_step
        train_op = optimizer.get_updates(loss, variables)[0]
    elif how == "minimize":
        train_op = tf.group(optimizer.minimize(loss, variables), global_step.assign_add(1))
    else:
        grads = tf.gradients(loss, variables)
        train_op = tf.group(
            optimizer.apply_gradients(zip(grads, variables)), global_step.assign_add(1)
        )
    return est.EstimatorSpec(mode, loss=loss, train_op=train_op)


@pytest.mark.parametrize("how", ["get_updates", "minimize", "apply_gradients"])
def test_a_custom_model_fn_trains_with_a_legacy_optimizer(how, model_dir):
    params = {"optimizer": lambda: legacy_optimizers.Adam(0.05), "how": how}
    estimator = est.Estimator(_custom_model_fn, model_dir, params=params)
    before = estimator.train(_regression_input_fn, steps=1).evaluate(_regression_input_fn, steps=4)
    estimator.train(_regression_input_fn, steps=60)
    after = estimator.evaluate(_regression_input_fn, steps=4)
    assert after["loss"] < 0.5 * before["loss"]
    names = set(estimator.get_variable_names())
    assert {"Adam/out/kernel/m", "Adam/out/kernel/v", "Adam/learning_rate"} <= names
    assert ("Adam/iter" in names) == (how != "get_updates")  # as the original
    assert estimator.get_variable_value("global_step") == 61


eager_steps = module_from_file(
    os.path.join(FIXTURES, "make_eager_steps.py"), "keras2_legacy_make_eager_steps"
)


@pytest.mark.parametrize("key", sorted(eager_steps.ARGUMENTS))
def test_every_legacy_optimizer_steps_as_the_original(key):
    """Dense and sparse (embedding) updates, against what TF 2.15 computed."""
    with open(os.path.join(FIXTURES, "eager_steps.json")) as f:
        expected = json.load(f)[key]
    cls = getattr(legacy_optimizers, key.split("_")[0])
    weight, table = eager_steps.train(cls(**eager_steps.ARGUMENTS[key]))
    np.testing.assert_allclose(weight, expected["weight"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(table, expected["table"], rtol=1e-5, atol=1e-6)
    # Rows no id touched keep their values (sparse updates).
    np.testing.assert_array_equal(table[[1, 3]], np.asarray(expected["table"])[[1, 3]])


def test_rmsprop_sparse_update_reads_the_accumulator_after_adding_to_it():
    """One sparse RMSprop step equals the dense step on the touched rows."""
    sparse_table = tf.Variable(np.full((4, 2), 2.0, np.float32))
    dense_table = tf.Variable(np.full((4, 2), 2.0, np.float32))
    ids = tf.constant([1, 3])
    sparse_opt = legacy_optimizers.RMSprop(0.01)
    dense_opt = legacy_optimizers.RMSprop(0.01)
    sparse_opt.minimize(lambda: tf.reduce_sum(tf.gather(sparse_table, ids) ** 2), [sparse_table])
    dense_opt.minimize(
        lambda: tf.reduce_sum(tf.gather(tf.convert_to_tensor(dense_table), ids) ** 2),
        [dense_table],
    )
    np.testing.assert_allclose(sparse_table.numpy(), dense_table.numpy(), rtol=1e-6)
    # The first step moves each touched weight by lr / sqrt(1 - rho), not by thousands.
    np.testing.assert_allclose(sparse_table.numpy()[1], 2.0 - 0.01 / np.sqrt(0.1), rtol=1e-5)


class _SignSGD(legacy_optimizers.Optimizer):
    """A user optimizer written against Keras 2's protocol: hyper, slot, dense update."""

    def __init__(self, learning_rate=0.01, name="SignSGD", **kwargs):
        super().__init__(name, **kwargs)
        self._set_hyper("learning_rate", learning_rate)
        self._set_hyper("decay", self._initial_decay)

    def _create_slots(self, var_list):
        for var in var_list:
            self.add_slot(var, "steps_taken")

    def _resource_apply_dense(self, grad, var, apply_state=None):
        coefficients = (apply_state or {}).get(
            (var.device, var.dtype.base_dtype)
        ) or self._fallback_apply_state(var.device, var.dtype.base_dtype)
        counter = self.get_slot(var, "steps_taken")
        with tf.control_dependencies([counter.assign_add(tf.ones_like(counter))]):
            return var.assign_sub(coefficients["lr_t"] * tf.sign(grad)).op

    def get_config(self):
        return {**super().get_config(), "learning_rate": self._serialize_hyperparameter("lr")}


class _CountingSGD(legacy_optimizers.SGD):
    """A user optimizer overriding `get_updates`, as canned estimators called it."""

    calls = 0

    def get_updates(self, loss, params):
        type(self).calls += 1
        return super().get_updates(loss, params)


@pytest.mark.slow
def test_subclasses_train_canned_and_custom_estimators(model_dir, tmp_path):
    numeric = tf.feature_column.numeric_column("x", shape=(2,))
    regressor = est.LinearRegressor([numeric], model_dir, optimizer=_CountingSGD(0.05))
    regressor.train(_regression_input_fn, steps=20)
    assert _CountingSGD.calls >= 1
    assert "training/SGD/learning_rate" in regressor.get_variable_names()
    assert regressor.get_variable_value("global_step") == 20

    params = {"optimizer": lambda: _SignSGD(0.01), "how": "get_updates"}
    custom = est.Estimator(_custom_model_fn, str(tmp_path / "custom"), params=params)
    custom.train(_regression_input_fn, steps=7)
    np.testing.assert_array_equal(custom.get_variable_value("SignSGD/out/kernel/steps_taken"), 7)
    assert custom.get_variable_value("SignSGD/learning_rate") == pytest.approx(0.01)


def test_hyperparameters_read_and_set_as_in_keras_2():
    optimizer = legacy_optimizers.Adam(0.01, beta_1=0.8)
    assert optimizer.lr == pytest.approx(0.01)
    optimizer.learning_rate = 0.02
    assert optimizer.get_config()["learning_rate"] == pytest.approx(0.02)
    assert optimizer.beta_1 == pytest.approx(0.8)
    with pytest.raises(TypeError, match="Unexpected keyword argument"):
        legacy_optimizers.SGD(0.1, weight_decay=0.1)
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        _ = optimizer.nothing


@pytest.mark.slow
def test_baseline_and_wide_deep_take_legacy_optimizers(tmp_path):
    numeric = tf.feature_column.numeric_column("x", shape=(2,))
    legacy = legacy_optimizers
    baseline = est.BaselineRegressor(str(tmp_path / "baseline"), optimizer=legacy.Adam(0.1))
    baseline.train(_regression_input_fn, steps=3)
    assert "training/Adam/baseline/bias/m" in baseline.get_variable_names()
    combined = est.DNNLinearCombinedRegressor(
        str(tmp_path / "combined"),
        linear_feature_columns=[numeric],
        linear_optimizer=legacy.Ftrl,
        dnn_feature_columns=[numeric],
        dnn_hidden_units=[3],
        dnn_optimizer=lambda: legacy.RMSprop(0.01, momentum=0.5),
    )
    combined.train(_regression_input_fn, steps=3)
    names = combined.get_variable_names()
    assert "training/RMSprop/dnn/logits/kernel/momentum" in names
    assert "training/Ftrl/linear/linear_model/x/weights/linear" in names
    assert combined.get_variable_value("global_step") == 3


def test_iterations_after_training_are_the_trained_graphs(tmp_path):
    """As in the original (tensorflow-estimator 2.15, recorded with this model):
    after `train()` each optimizer's `iterations` is the variable its update
    advanced, named as its checkpoint key (the DNN part counts the global step)."""
    numeric = tf.feature_column.numeric_column("x", shape=(2,))
    dnn_opt, linear_opt = legacy_optimizers.SGD(1.0), legacy_optimizers.SGD(1.0)
    combined = tf.estimator.DNNLinearCombinedRegressor(
        model_dir=str(tmp_path),
        linear_feature_columns=[numeric],
        linear_optimizer=linear_opt,
        dnn_feature_columns=[numeric],
        dnn_hidden_units=[2, 2],
        dnn_optimizer=dnn_opt,
    )
    combined.train(_regression_input_fn, steps=1)
    assert linear_opt.iterations.name == "training/SGD_1/iter:0"
    assert dnn_opt.iterations.name == "global_step:0"
    assert combined.get_variable_value(linear_opt.iterations.name) == 1
    assert combined.get_variable_value(dnn_opt.iterations.name) == 1


@pytest.mark.parametrize("name", LEGACY_NAMES)
def test_a_keras_3_model_refuses_them_saying_what_to_do(name):
    """Keras 3's compile() cannot run a Keras 2 optimizer; its error must say what to do.

    Without the shim, Keras 3 raised ImportError at construction, naming tf_keras and
    TF_USE_LEGACY_KERAS; with it, the optimizers exist (for estimators), so the advice
    comes in Keras's own compile() error, never naming this package's classes.
    """
    import keras

    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
    optimizer = getattr(keras2_optimizers, name)()
    with pytest.raises(ValueError, match="Could not interpret optimizer identifier") as error:
        model.compile(optimizer=optimizer, loss="mse")
    message = str(error.value)
    assert f"tf.keras.optimizers.legacy.{name} (a Keras 2 optimizer" in message
    assert f"use keras.optimizers.{name}," in message and "TF_USE_LEGACY_KERAS=1" in message
    assert "tfestimator_compat" not in message
    assert hasattr(keras.optimizers, name)


def test_a_keras_3_model_refuses_a_legacy_subclass_naming_it():
    import keras

    class Scaled(keras2_optimizers.SGD):
        pass

    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
    with pytest.raises(ValueError, match=r"Scaled \(a Keras 2 optimizer.*a keras.optimizers.Opt"):
        model.compile(optimizer=Scaled(), loss="mse")
