"""A model_fn's stop signal ends training after its step without one step per call."""

import numpy as np
import pytest
import tensorflow as tf
from helpers import dataset_input_fn
from helpers import step_function_calls

import tfestimator_compat as est
from tfestimator_compat.engine.loop.stop_signal import stop_training_when

_STOP_AT = 7


def _model_fn(features, labels, mode, params):
    logits = tf.compat.v1.layers.dense(features["x"], 3)
    loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
    global_step = tf.compat.v1.train.get_global_step()
    train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(
        loss, global_step=global_step
    )
    # Read after the step's own increment, as a hook's second look would.
    with tf.control_dependencies([train_op]):
        done = global_step.read_value() >= _STOP_AT
    spec = est.EstimatorSpec(mode, loss=loss, train_op=train_op)
    if params["signal"]:
        stop_training_when(done)
        return spec
    return spec._replace(training_hooks=[_StopWhenTrueHook(done)])


class _StopWhenTrueHook(est.SessionRunHook):
    def __init__(self, done):
        self._done = done

    def before_run(self, run_context):
        return est.SessionRunArgs(self._done)

    def after_run(self, run_context, run_values):
        if run_values.results:
            run_context.request_stop()


def _train(model_dir, signal, hooks=None):
    estimator = est.Estimator(
        _model_fn,
        model_dir=model_dir,
        params={"signal": signal},
        config=est.RunConfig(tf_random_seed=3),
    )
    estimator.train(dataset_input_fn(repeat=True), max_steps=100, hooks=hooks)
    return estimator


def test_the_signal_stops_where_a_hook_would_in_one_call(tmp_path):
    signalled = _train(str(tmp_path / "signal"), signal=True)
    hooked = _train(str(tmp_path / "hook"), signal=False)
    for estimator in (signalled, hooked):
        assert estimator.get_variable_value("global_step") == _STOP_AT
        assert estimator.latest_checkpoint().endswith(f"model.ckpt-{_STOP_AT}")
    for name in signalled.get_variable_names():
        np.testing.assert_array_equal(
            signalled.get_variable_value(name), hooked.get_variable_value(name), err_msg=name
        )
    assert sorted(p.name for p in (tmp_path / "signal").iterdir() if "ckpt" in p.name) == sorted(
        p.name for p in (tmp_path / "hook").iterdir() if "ckpt" in p.name
    )
    # A hook makes every step a call of its own; the signal lets one call run them all.
    assert step_function_calls(signalled) == 1


def test_the_signal_also_stops_one_step_calls_and_a_finished_model(tmp_path):
    seen = []

    class Counting(est.SessionRunHook):
        def after_run(self, run_context, run_values):
            seen.append(1)

    estimator = _train(str(tmp_path), signal=True, hooks=[Counting()])
    assert estimator.get_variable_value("global_step") == _STOP_AT
    assert len(seen) == _STOP_AT
    # Resumed past the stop: one step runs (it is the model's), then the signal ends it.
    estimator.train(dataset_input_fn(repeat=True), steps=50)
    assert estimator.get_variable_value("global_step") == _STOP_AT + 1


@pytest.mark.parametrize("first", [False, True])
def test_two_signals_stop_at_the_first_true(tmp_path, first):
    def model_fn(features, labels, mode):
        spec = _model_fn(features, labels, mode, {"signal": True})
        with tf.control_dependencies([spec.train_op]):
            step = tf.compat.v1.train.get_global_step().read_value()
        stop_training_when(step >= (3 if first else 50))
        return spec

    estimator = est.Estimator(model_fn, model_dir=str(tmp_path))
    estimator.train(dataset_input_fn(repeat=True), max_steps=100)
    assert estimator.get_variable_value("global_step") == (3 if first else _STOP_AT)
