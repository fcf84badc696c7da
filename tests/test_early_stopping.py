"""tf.estimator.experimental hooks stop real runs."""

import os

import pytest
from helpers import classifier_model_fn
from helpers import dataset_input_fn

import tfestimator_compat as est


def make_estimator(model_dir, steps=5):
    config = est.RunConfig(model_dir=model_dir, save_checkpoints_steps=steps)
    return est.Estimator(classifier_model_fn, config=config, params={"learning_rate": 0.1})


def test_stop_if_higher_hook_stops_train_and_evaluate(model_dir):
    estimator = make_estimator(model_dir)
    hook = est.experimental.stop_if_higher_hook(
        estimator, "accuracy", 0.0, run_every_secs=None, run_every_steps=1
    )
    est.train_and_evaluate(
        estimator,
        est.TrainSpec(dataset_input_fn(repeat=True), max_steps=100, hooks=[hook]),
        est.EvalSpec(dataset_input_fn(), throttle_secs=0),
    )
    # tensorflow-estimator 2.15 stopped at 5 here (a linear model on the same
    # data): the hook's first check, at the first step after the evaluation of
    # checkpoint 5, stops training before it runs.
    assert estimator.get_variable_value("global_step") == 5


def test_stop_if_no_decrease_hook(model_dir):
    estimator = make_estimator(model_dir)
    hook = est.experimental.stop_if_no_decrease_hook(
        estimator, "loss", max_steps_without_decrease=0, run_every_secs=None, run_every_steps=1
    )
    est.train_and_evaluate(
        estimator,
        est.TrainSpec(dataset_input_fn(repeat=True), max_steps=100, hooks=[hook]),
        est.EvalSpec(dataset_input_fn(), throttle_secs=0),
    )
    assert estimator.get_variable_value("global_step") < 100


def test_stop_if_lower_hook_needs_the_metric_below_threshold(model_dir):
    estimator = make_estimator(model_dir)
    hook = est.experimental.stop_if_lower_hook(
        estimator, "loss", -1.0, run_every_secs=None, run_every_steps=1
    )
    est.train_and_evaluate(
        estimator,
        est.TrainSpec(dataset_input_fn(repeat=True), max_steps=15, hooks=[hook]),
        est.EvalSpec(dataset_input_fn(), throttle_secs=0),
    )
    assert estimator.get_variable_value("global_step") == 15


def test_make_early_stopping_hook_with_a_predicate(model_dir):
    estimator = make_estimator(model_dir)
    calls = []

    def should_stop():
        calls.append(1)
        return len(calls) >= 3

    hook = est.experimental.make_early_stopping_hook(
        estimator, should_stop, run_every_secs=None, run_every_steps=2
    )
    estimator.train(dataset_input_fn(repeat=True), steps=50, hooks=[hook])
    assert estimator.get_variable_value("global_step") == 5
    with pytest.raises(ValueError, match="Only one of"):
        est.experimental.make_early_stopping_hook(estimator, should_stop, 1, 1)


def test_in_memory_evaluator_hook(model_dir):
    estimator = make_estimator(model_dir)
    hook = est.experimental.InMemoryEvaluatorHook(
        estimator, dataset_input_fn(), name="in_memory", every_n_iter=4
    )
    estimator.train(dataset_input_fn(repeat=True), steps=10, hooks=[hook])
    steps = sorted(est.experimental.read_eval_metrics(os.path.join(model_dir, "eval_in_memory")))
    assert steps == [0, 4, 8, 10]
    with pytest.raises(ValueError, match="invalid every_n_iter"):
        est.experimental.InMemoryEvaluatorHook(estimator, dataset_input_fn(), every_n_iter=0)


def test_stop_at_checkpoint_step_hook_on_the_chief_is_stop_at_step(model_dir):
    estimator = make_estimator(model_dir)
    hook = est.experimental.make_stop_at_checkpoint_step_hook(estimator, last_step=7)
    estimator.train(dataset_input_fn(repeat=True), hooks=[hook])
    assert estimator.get_variable_value("global_step") == 7
