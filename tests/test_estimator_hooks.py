"""InMemoryEvaluatorHook evaluates when and what the original did."""

import json
import os

import numpy as np
import pytest
import tensorflow as tf

import tfestimator_compat as est

# Written by tensorflow-estimator 2.15 for the model and data below
# (tf_random_seed=1, every_n_iter=4, 10 steps): eval loss by global step.
ORIGINAL_IN_MEMORY_LOSSES = {
    0: 0.7709838151931763,
    4: 0.5975474119186401,
    8: 0.5510660409927368,
    10: 0.5291652083396912,
}


def input_fn(repeat=False):
    def fn():
        x = np.arange(16, dtype=np.float32).reshape(8, 2) / 10
        y = (x[:, :1] > 0.7).astype(np.float32)
        dataset = tf.data.Dataset.from_tensor_slices(({"x": x}, y)).batch(4)
        return dataset.repeat() if repeat else dataset

    return fn


def model_fn(features, labels, mode):
    # get_variable, not tf.compat.v1.layers.dense: in 2.15 that layer drew its
    # initializer's seed from Python's `random`, so its values did not repeat.
    kernel = tf.compat.v1.get_variable("kernel", [2, 1])
    bias = tf.compat.v1.get_variable("bias", [1], initializer=tf.compat.v1.zeros_initializer())
    logits = tf.matmul(features["x"], kernel) + bias
    loss = tf.compat.v1.losses.sigmoid_cross_entropy(labels, logits)
    optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.5)
    train_op = optimizer.minimize(loss, tf.compat.v1.train.get_global_step())
    return est.EstimatorSpec(mode, loss=loss, train_op=train_op, predictions=logits)


def test_evaluates_before_training_then_every_n_steps_and_at_the_end(tmp_path):
    estimator = est.Estimator(model_fn, str(tmp_path), config=est.RunConfig(tf_random_seed=1))
    hook = est.experimental.InMemoryEvaluatorHook(
        estimator, input_fn(), name="in_memory", every_n_iter=4
    )
    estimator.train(input_fn(repeat=True), steps=10, hooks=[hook])
    results = est.experimental.read_eval_metrics(os.path.join(tmp_path, "eval_in_memory"))
    losses = {step: float(values["loss"]) for step, values in results.items()}
    assert sorted(losses) == sorted(ORIGINAL_IN_MEMORY_LOSSES)
    for step, loss in ORIGINAL_IN_MEMORY_LOSSES.items():
        assert losses[step] == pytest.approx(loss, abs=1e-6), f"step {step}"


def custom_saver(features, labels, mode):
    spec = model_fn(features, labels, mode)
    return spec._replace(scaffold=tf.compat.v1.train.Scaffold(saver=tf.compat.v1.train.Saver()))


def custom_init_fn(features, labels, mode):
    spec = model_fn(features, labels, mode)
    scaffold = tf.compat.v1.train.Scaffold(init_fn=lambda scaffold, session: None)
    return spec._replace(scaffold=scaffold)


@pytest.mark.parametrize("field, fn", [("saver", custom_saver), ("init_fn", custom_init_fn)])
def test_a_scaffold_with_its_own_saver_or_init_fn_is_refused(tmp_path, field, fn):
    estimator = est.Estimator(fn, str(tmp_path))
    hook = est.experimental.InMemoryEvaluatorHook(estimator, input_fn())
    with pytest.raises(ValueError, match=f"does not support custom {field}"):
        estimator.train(input_fn(repeat=True), steps=2, hooks=[hook])
    assert not os.path.exists(os.path.join(tmp_path, "eval")), "nothing was evaluated"


def test_hooks_and_cluster_are_checked_as_the_original_did(tmp_path, monkeypatch):
    estimator = est.Estimator(model_fn, str(tmp_path))
    with pytest.raises(TypeError, match="Hooks must be a SessionRunHook, given: 1"):
        est.experimental.InMemoryEvaluatorHook(estimator, input_fn(), hooks=[1])
    cluster = {"chief": ["localhost:1"], "ps": ["localhost:2"]}
    tf_config = {"cluster": cluster, "task": {"type": "chief", "index": 0}}
    monkeypatch.setenv("TF_CONFIG", json.dumps(tf_config))
    clustered = est.Estimator(model_fn, str(tmp_path / "cluster"))
    with pytest.raises(ValueError, match="only single machine"):
        est.experimental.InMemoryEvaluatorHook(clustered, input_fn())


@pytest.mark.parametrize("field, fn", [("saver", custom_saver), ("init_fn", custom_init_fn)])
def test_begin_refuses_before_any_training(tmp_path, field, fn):
    # The original built the evaluation graph in begin(), so the refusal came
    # from there, before a session or checkpoint existed.
    hook = est.experimental.InMemoryEvaluatorHook(est.Estimator(fn, str(tmp_path)), input_fn())
    with pytest.raises(ValueError, match=f"does not support custom {field}"):
        hook.begin()


def other_saveables(features, labels, mode):
    spec = model_fn(features, labels, mode)
    state = tf.compat.v1.Variable(
        [0.0], trainable=False, collections=[tf.compat.v1.GraphKeys.SAVEABLE_OBJECTS]
    )
    return spec._replace(predictions=spec.predictions + state)


def test_saveables_other_than_global_variables_are_refused(tmp_path):
    hook = est.experimental.InMemoryEvaluatorHook(
        est.Estimator(other_saveables, str(tmp_path)), input_fn()
    )
    with pytest.raises(ValueError, match="does not support saveables other than global"):
        hook.begin()


def saver_of_metric_state(features, labels, mode):
    spec = model_fn(features, labels, mode)
    mean = tf.keras.metrics.Mean()
    mean.update_state(spec.loss)
    saver = tf.compat.v1.train.Saver()  # includes the metric's state here
    return spec._replace(
        eval_metric_ops={"mean": mean}, scaffold=tf.compat.v1.train.Scaffold(saver=saver)
    )


def test_a_custom_saver_is_refused_whatever_it_saves(tmp_path):
    hook = est.experimental.InMemoryEvaluatorHook(
        est.Estimator(saver_of_metric_state, str(tmp_path)), input_fn()
    )
    with pytest.raises(ValueError, match="does not support custom saver"):
        hook.begin()
