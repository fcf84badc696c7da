"""A Keras 3 optimizer's `apply_gradients` in a custom model_fn's train_op.

As the estimator guide wrote it: `tf.group(optimizer.apply_gradients(...),
global_step.assign_add(1))`, with gradients from `tf.gradients` or a tape.
"""

import json
import os
import subprocess
import sys

import keras
import numpy as np
import pytest
import tensorflow as tf

import tfestimator_compat as est

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _input_fn():
    x = np.random.RandomState(0).normal(size=(32, 2)).astype(np.float32)
    y = x @ np.array([[1.0], [-2.0]], np.float32) + 0.5
    return tf.data.Dataset.from_tensor_slices(({"x": x}, y)).repeat().batch(8)


def _model_fn(features, labels, mode, params):
    dense = keras.layers.Dense(1)
    if params["tape"]:
        with tf.GradientTape() as tape:
            predictions = dense(features["x"])
            loss = tf.reduce_mean(tf.square(predictions - labels))
    else:
        predictions = dense(features["x"])
        loss = tf.reduce_mean(tf.square(predictions - labels))
    if mode == est.ModeKeys.PREDICT:
        return est.EstimatorSpec(mode, predictions=predictions)
    if mode == est.ModeKeys.EVAL:
        return est.EstimatorSpec(mode, loss=loss)
    optimizer = params["optimizer"]()
    variables = dense.trainable_variables
    if params["tape"]:
        grads = tape.gradient(loss, variables)
    else:
        grads = tf.gradients(loss, [variable.value for variable in variables])
    global_step = tf.compat.v1.train.get_or_create_global_step()
    train_op = tf.group(optimizer.apply_gradients(zip(grads, variables)), global_step.assign_add(1))
    return est.EstimatorSpec(mode, loss=loss, train_op=train_op)


@pytest.mark.parametrize(
    "optimizer, tape",
    [(lambda: keras.optimizers.Adam(0.1), False), (lambda: keras.optimizers.SGD(0.1), True)],
    ids=["adam-tf.gradients", "sgd-tape"],
)
def test_a_keras_optimizer_trains_and_resumes_in_a_model_fn(optimizer, tape, model_dir):
    params = {"optimizer": optimizer, "tape": tape}
    estimator = est.Estimator(_model_fn, model_dir, params=params)
    estimator.train(_input_fn, steps=1)
    first = estimator.evaluate(_input_fn, steps=2)["loss"]
    estimator.train(_input_fn, steps=40)
    assert estimator.evaluate(_input_fn, steps=2)["loss"] < 0.1 * first

    names = set(estimator.get_variable_names())
    scope = "SGD" if tape else "Adam"  # Keras 2's names, as a legacy optimizer had them
    slots = {f"Adam/dense/{v}/{s}" for v in ("kernel", "bias") for s in ("m", "v")}
    hypers = {"beta_1", "beta_2"} if scope == "Adam" else {"momentum"}
    hypers = {f"{scope}/{name}" for name in {"decay", "iter", "learning_rate", *hypers}}
    model = {"dense/kernel", "dense/bias", "global_step"}
    assert names == model | hypers | (set() if tape else slots)
    steps = [f"{scope}/iter"]
    assert estimator.get_variable_value(steps[0]) == 41
    # A new Estimator on the same model_dir restores the slots and the step count.
    resumed = est.Estimator(_model_fn, model_dir, params=params)
    resumed.train(_input_fn, steps=5)
    assert resumed.get_variable_value(steps[0]) == 46
    assert resumed.get_variable_value("global_step") == 46


def test_an_optimizer_keras_2_never_had_says_what_to_use(model_dir):
    params = {"optimizer": lambda: keras.optimizers.Lion(0.1), "tape": False}
    estimator = est.Estimator(_model_fn, model_dir, params=params)
    with pytest.raises(ValueError, match="Lion is not one of them"):
        estimator.train(_input_fn, steps=1)


def test_outside_a_model_fn_keras_optimizers_are_untouched():
    variable = keras.Variable(1.0)
    optimizer = keras.optimizers.SGD(0.5)
    returned = optimizer.apply_gradients([(tf.constant(1.0), variable)])
    assert float(variable.numpy()) == pytest.approx(0.5)
    assert returned is optimizer.iterations


@pytest.mark.slow
def test_under_mirrored_strategy_it_matches_one_device(tmp_path):
    """The distribution job's model_fn with a Keras 3 Adam: two replicas, one device."""
    job = os.path.join(REPO, "tests", "fixtures", "distribution", "job.py")
    results = {}
    for mode in ("keras_optimizer_single", "keras_optimizer_mirrored"):
        out = subprocess.run(
            [sys.executable, job, str(tmp_path / mode), mode],
            capture_output=True,
            text=True,
            timeout=300,
            env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2", PYTHONPATH=REPO),
        )
        lines = [line for line in out.stdout.splitlines() if line.startswith("RESULT ")]
        assert out.returncode == 0 and lines, out.stderr[-4000:]
        results[mode] = json.loads(lines[-1][len("RESULT ") :])
    single, mirrored = results["keras_optimizer_single"], results["keras_optimizer_mirrored"]
    assert mirrored["evaluation"]["global_step"] == 20
    assert single["variables"].keys() == mirrored["variables"].keys()
    assert any(name.endswith("/w/m") for name in single["variables"])
    for name, value in single["variables"].items():
        np.testing.assert_allclose(mirrored["variables"][name], value, rtol=1e-5, atol=1e-6)


def test_keras_auto_names_become_keras_2_names():
    """Keras numbers unnamed optimizers per process (`adam_1`); the original's name is `Adam`."""
    from tfestimator_compat.canned.optimizers import from_keras

    keras.optimizers.Adam()
    second = keras.optimizers.Adam()
    assert second.name.startswith("adam_")
    assert from_keras(second).name == "Adam"
    assert from_keras(keras.optimizers.Adam(name="mine")).name == "mine"
