"""Small real models and inputs shared by the tests, and the fixtures' loaders and checks."""

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import types

import numpy as np
import pytest
import tensorflow as tf

import tfestimator_compat as est
from tfestimator_compat import canned

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")

# tf_keras with TF_USE_LEGACY_KERAS=1: `tf.keras` names are tf_keras's own classes.
LEGACY_KERAS_MODE = tf.keras.layers.Dense.__module__.startswith("tf_keras")


def linear_data(n=64, seed=0):
    rng = np.random.RandomState(seed)
    x = rng.rand(n, 3).astype(np.float32)
    y = (x @ np.array([1.0, -2.0, 0.5], np.float32) > 0).astype(np.int64)
    return x, y


def dataset_input_fn(n=64, batch=16, repeat=False, seed=0):
    x, y = linear_data(n, seed)

    def input_fn():
        ds = tf.data.Dataset.from_tensor_slices(({"x": x}, y))
        if repeat:
            ds = ds.repeat()
        return ds.batch(batch)

    return input_fn


def classifier_model_fn(features, labels, mode, params):
    """A TF1-style classifier: get_variable, Keras layers, v1 optimizer and metrics."""
    hidden = tf.keras.layers.Dense(8, activation="relu")(features["x"])
    logits = tf.keras.layers.Dense(2)(hidden)
    if mode == est.ModeKeys.PREDICT:
        return est.EstimatorSpec(
            mode,
            predictions={"class": tf.argmax(logits, 1), "logits": logits},
        )
    loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
    if mode == est.ModeKeys.EVAL:
        return est.EstimatorSpec(
            mode,
            loss=loss,
            eval_metric_ops={
                "accuracy": tf.compat.v1.metrics.accuracy(labels, tf.argmax(logits, 1))
            },
        )
    optimizer = tf.compat.v1.train.AdamOptimizer(params.get("learning_rate", 0.05))
    train_op = optimizer.minimize(loss, global_step=tf.compat.v1.train.get_global_step())
    return est.EstimatorSpec(mode, loss=loss, train_op=train_op)


def step_function_calls(estimator, mode=est.ModeKeys.TRAIN):
    """How many times the step function of `mode` ran: steps are chunked into calls."""
    return estimator._model_state.calls_of(mode)


def module_from_file(path, name):
    """The Python file at `path` imported as the module `name` (not added to sys.modules)."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def fixture_generator(folder):
    """The `make_fixture.py` of `tests/fixtures/<folder>`, imported as a module.

    The generators run under the original (TF 2.15); tests reuse their model
    and input definitions so both sides build the same thing.
    """
    path = os.path.join(FIXTURES, folder, "make_fixture.py")
    return module_from_file(path, f"{folder}_make_fixture")


def fixture_expected(folder):
    """What the original computed, as `tests/fixtures/<folder>/make_fixture.py` wrote it
    (`expected.json`)."""
    with open(os.path.join(FIXTURES, folder, "expected.json")) as f:
        return json.load(f)


def copy_of_fixture(folder, name, directory):
    """A copy of the model_dir `tests/fixtures/<folder>/<name>` in `directory`, to train on."""
    model_dir = os.path.join(str(directory), name)
    shutil.copytree(os.path.join(FIXTURES, folder, name), model_dir)
    return model_dir


def canned_estimators():
    """`tf.estimator` as the canned fixture scripts use it, made of this package's classes."""
    return types.SimpleNamespace(
        RunConfig=est.RunConfig, **{name: getattr(canned, name) for name in canned.__all__}
    )


def assert_metrics_match(metrics, expected, tolerance=1e-4):
    """`evaluate`'s metrics are the original's: the same keys, each value within `tolerance`."""
    assert sorted(metrics) == sorted(expected)
    for key, value in expected.items():
        assert float(metrics[key]) == pytest.approx(value, abs=tolerance), key


def assert_predictions_match(predictions, expected, jsonable, tolerance=1e-4):
    """Each key of the original's `predict_first5` in `predictions` (made JSON-like by the
    fixture's `jsonable`): strings equal, numbers within `tolerance`."""
    for key, values in expected.items():
        got = [jsonable(p[key]) for p in predictions]
        if isinstance(values[0][0], str):
            assert got == values, key
        else:
            np.testing.assert_allclose(np.array(got, float), values, atol=tolerance, err_msg=key)


def assert_variables_match(estimator, expected):
    """The estimator's variables are the original's: the same names, values within 1e-4."""
    assert sorted(estimator.get_variable_names()) == sorted(expected)
    for name, value in expected.items():
        np.testing.assert_allclose(
            estimator.get_variable_value(name), value, rtol=1e-4, atol=1e-5, err_msg=name
        )


def check_json(capsys, *paths):
    """`tfestimator-compat check --format json <paths>` run in this process: (status, report)."""
    from tfestimator_compat.command import check

    status = check.main(["--format", "json", *map(str, paths)])
    return status, json.loads(capsys.readouterr().out)


def run_command(*args, **kwargs):
    """`python -m tfestimator_compat <args>` in a new process, its output captured as text."""
    command = [sys.executable, "-m", "tfestimator_compat", *map(str, args)]
    return subprocess.run(command, capture_output=True, text=True, **kwargs)


class FetchByName(tf.compat.v1.train.SessionRunHook):
    """Fetches tensors as TF1 hooks did: found by name in `begin`, run each step."""

    def __init__(self, names):
        self._names = names
        self.values = []

    def begin(self):
        graph = tf.compat.v1.get_default_graph()
        self._tensors = {name: graph.get_tensor_by_name(name + ":0") for name in self._names}

    def before_run(self, run_context):
        return tf.compat.v1.train.SessionRunArgs(self._tensors)

    def after_run(self, run_context, run_values):
        self.values.append(run_values.results)
