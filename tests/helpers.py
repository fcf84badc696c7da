"""Small real models and inputs shared by the tests."""

import numpy as np
import tensorflow as tf

import tfestimator_compat as est

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


def fixture_generator(folder):
    """The `make_fixture.py` of `tests/fixtures/<folder>`, imported as a module.

    The generators run under the original (TF 2.15); tests reuse their model
    and input definitions so both sides build the same thing.
    """
    import importlib.util
    import os

    path = os.path.join(os.path.dirname(__file__), "fixtures", folder, "make_fixture.py")
    spec = importlib.util.spec_from_file_location(f"{folder}_make_fixture", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


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
