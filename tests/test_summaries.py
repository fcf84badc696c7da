"""Events files hold what the original wrote, and TensorBoard reads them."""

import logging
import os
import re
import subprocess
import sys

import numpy as np
import pytest
import tensorflow as tf
from helpers import dataset_input_fn
from helpers import step_function_calls
from tensorboard.backend.event_processing import event_accumulator

import tfestimator_compat as est


def summarizing_model_fn(features, labels, mode):
    hidden = tf.keras.layers.Dense(4)(features["x"])
    logits = tf.keras.layers.Dense(2)(hidden)
    loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
    tf.compat.v1.summary.scalar("mean_logit", tf.reduce_mean(logits))
    tf.compat.v1.summary.histogram("hidden", hidden)
    tf.compat.v1.summary.image("picture", tf.reshape(features["x"][:1, :3] * 0 + 0.5, [1, 1, 3, 1]))
    tf.compat.v1.summary.text("note", tf.constant("hello"))
    train_op = tf.compat.v1.train.AdamOptimizer(0.01).minimize(
        loss, global_step=tf.compat.v1.train.get_global_step()
    )
    return est.EstimatorSpec(
        mode,
        loss=loss,
        train_op=train_op,
        eval_metric_ops={"accuracy": tf.compat.v1.metrics.accuracy(labels, tf.argmax(logits, 1))},
    )


def accumulate(directory):
    accumulator = event_accumulator.EventAccumulator(
        directory,
        size_guidance={
            event_accumulator.TENSORS: 0,
            event_accumulator.SCALARS: 0,
            event_accumulator.HISTOGRAMS: 0,
        },
    )
    return accumulator.Reload()


def test_training_summaries_every_save_summary_steps(model_dir):
    config = est.RunConfig(model_dir=model_dir, save_summary_steps=10, log_step_count_steps=10)
    estimator = est.Estimator(summarizing_model_fn, config=config)
    estimator.train(dataset_input_fn(repeat=True), steps=25)
    events = accumulate(model_dir)
    tags = events.Tags()
    assert {"loss", "mean_logit", "global_step/sec"} <= set(tags["scalars"])
    assert "hidden" in tags["histograms"]
    assert any(tag.startswith("picture") for tag in tags["images"])
    assert "note" in tags["tensors"]
    # As the original: at the global step each summarized step ended at.
    assert [e.step for e in events.Scalars("loss")] == [1, 11, 21]
    assert [e.step for e in events.Scalars("global_step/sec")] == [11, 21]
    assert events.Graph() is not None


@pytest.mark.parametrize("period, total", [(10, 400), (1, 60)])
def test_fast_steps_span_several_summary_periods_per_call(tmp_path, caplog, period, total):
    # A fast model runs many summary/log periods per call; each period's
    # summaries and logs still land on exactly their step, with the values of
    # that step: the same as when a hook makes every call run one step.
    def train(name, hooks):
        config = est.RunConfig(
            model_dir=str(tmp_path / name),
            save_summary_steps=period,
            log_step_count_steps=period,
            tf_random_seed=1,
        )
        estimator = est.Estimator(summarizing_model_fn, config=config)
        estimator.train(dataset_input_fn(repeat=True), steps=total, hooks=hooks)
        return accumulate(config.model_dir), estimator

    with caplog.at_level(logging.INFO, logger="tensorflow"):
        chunked, chunked_estimator = train("chunked", [])
    logged = [r.getMessage() for r in caplog.records if r.getMessage().startswith("loss = ")]
    stepwise, stepwise_estimator = train("stepwise", [est.SessionRunHook()])
    assert step_function_calls(stepwise_estimator) == total
    chunked_calls = step_function_calls(chunked_estimator)
    steps = list(range(0, total, period))  # as each step started (logged)
    ended = [step + 1 for step in steps]  # as it ended (summaries)
    assert chunked_calls < len(steps) / 2  # calls span several summary periods
    assert [e.step for e in chunked.Scalars("loss")] == ended
    assert [e.step for e in chunked.Scalars("mean_logit")] == ended
    assert [e.step for e in chunked.Histograms("hidden")] == ended
    assert [e.step for e in chunked.Scalars("global_step/sec")] == ended[1:]
    assert all(e.value > 0 for e in chunked.Scalars("global_step/sec"))
    for tag in ("loss", "mean_logit"):
        np.testing.assert_allclose(
            [e.value for e in chunked.Scalars(tag)],
            [e.value for e in stepwise.Scalars(tag)],
            rtol=1e-5,
        )
    assert [int(re.search(r"step = (\d+)", message).group(1)) for message in logged] == steps


def test_eval_metrics_in_eval_dirs(model_dir):
    estimator = est.Estimator(summarizing_model_fn, model_dir=model_dir)
    estimator.train(dataset_input_fn(repeat=True), steps=3)
    result = estimator.evaluate(dataset_input_fn(), name="validation")
    events = accumulate(os.path.join(model_dir, "eval_validation"))
    accuracy = events.Scalars("accuracy")
    assert [(e.step, e.value) for e in accuracy] == [(3, np.float32(result["accuracy"]))]
    assert events.Scalars("loss")[0].value == np.float32(result["loss"])


def test_loss_and_step_logs(model_dir, caplog):
    config = est.RunConfig(model_dir=model_dir, log_step_count_steps=5)
    estimator = est.Estimator(summarizing_model_fn, config=config)
    with caplog.at_level(logging.INFO, logger="tensorflow"):
        estimator.train(dataset_input_fn(repeat=True), steps=12)
    messages = [record.getMessage() for record in caplog.records]
    logged = [m for m in messages if m.startswith(("loss = ", "global_step/sec: "))]
    # As the original: steps per second (its StepCounterHook's, at the step
    # before) precede the loss, which says how long since the previous one.
    assert [re.sub(r"[\d.]+", "N", m.split(", step = ")[-1]) for m in logged] == [
        "N",
        "global_step/sec: N",
        "N (N sec)",
        "global_step/sec: N",
        "N (N sec)",
    ]
    assert [re.search(r"step = (\d+)", m).group(1) for m in logged[::2]] == ["0", "5", "10"]
    assert any(m.startswith("Loss for final step: ") for m in messages)


def test_a_train_op_stepping_the_global_step_twice_keeps_the_summary_period(model_dir):
    # Events are due at global steps. Once a call has seen each step advance
    # the global step by two, chunks hold half as many steps, so summaries
    # stay 10 global steps apart (the first chunk assumes one per step).
    def model_fn(features, labels, mode):
        logits = tf.keras.layers.Dense(2)(features["x"])
        loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
        global_step = tf.compat.v1.train.get_global_step()
        first, second = (
            tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(loss, global_step)
            for _ in range(2)
        )
        return est.EstimatorSpec(mode, loss=loss, train_op=tf.group(first, second))

    config = est.RunConfig(model_dir=model_dir, save_summary_steps=10, log_step_count_steps=10)
    estimator = est.Estimator(model_fn, config=config)
    estimator.train(dataset_input_fn(repeat=True), steps=150)
    assert estimator.get_variable_value("global_step") == 150
    steps = [e.step for e in accumulate(model_dir).Scalars("loss")]
    assert steps == [2, 22] + list(range(32, 152, 10)), "written at the step each ended at"


def test_reading_eval_events_prints_no_notice_of_tensorflow_internals(model_dir):
    # A fresh process: TensorFlow prints each deprecation notice once per process.
    script = f"""
import numpy as np, tensorflow as tf
import tfestimator_compat as est
from helpers import classifier_model_fn, dataset_input_fn
estimator = est.Estimator(classifier_model_fn, {model_dir!r}, params={{"learning_rate": 0.1}})
estimator.train(dataset_input_fn(), steps=2)
estimator.evaluate(dataset_input_fn())
print(sorted(est.experimental.read_eval_metrics(estimator.eval_dir())))
"""
    env = dict(os.environ, PYTHONPATH=os.path.dirname(__file__), TF_CPP_MIN_LOG_LEVEL="2")
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().endswith("[2]")
    assert "deprecated" not in done.stderr, done.stderr


def test_training_summary_steps_are_the_originals(model_dir):
    # tensorflow-estimator 2.15, same model and config: loss at 1, 4, 7, 10 and
    # global_step/sec at 4, 7, 10 (its hooks write after the step ran).
    config = est.RunConfig(model_dir=model_dir, save_summary_steps=3, log_step_count_steps=3)
    estimator = est.Estimator(summarizing_model_fn, config=config)
    estimator.train(dataset_input_fn(repeat=True), steps=10)
    events = accumulate(model_dir)
    assert [e.step for e in events.Scalars("loss")] == [1, 4, 7, 10]
    assert [e.step for e in events.Scalars("global_step/sec")] == [4, 7, 10]


def test_nested_metric_value_is_returned_whole_and_not_summarized(model_dir):
    def model_fn(features, labels, mode):
        nested = ((tf.constant(2.0), tf.constant(1)), tf.constant(3.0, tf.float64))
        return est.EstimatorSpec(
            mode,
            loss=tf.constant(1.0),
            train_op=tf.compat.v1.assign_add(tf.compat.v1.train.get_global_step(), 1),
            eval_metric_ops={
                "nested": (nested, tf.no_op()),
                "flat": (tf.constant(4.0), tf.no_op()),
            },
        )

    def input_fn():
        return tf.data.Dataset.from_tensors(({"x": [[1.0]]}, [[1.0]]))

    estimator = est.Estimator(model_fn, model_dir=model_dir)
    estimator.train(input_fn, steps=1)
    results = estimator.evaluate(input_fn, steps=1)
    (two, one), three = results["nested"]
    assert (float(two), int(one), float(three)) == (2.0, 1, 3.0)
    tags = accumulate(estimator.eval_dir()).Tags()["scalars"]
    assert "flat" in tags and not any(tag.startswith("nested") for tag in tags)


def _graph_defs(directory):
    graphs = []
    for path in tf.io.gfile.glob(os.path.join(directory, "events.out.tfevents.*")):
        for event in tf.compat.v1.train.summary_iterator(path):
            if event.graph_def:
                graphs.append(tf.compat.v1.GraphDef.FromString(event.graph_def))
    return graphs


def test_eval_events_hold_the_evaluation_graph_once(model_dir):
    """TensorBoard shows the eval run's graph: the original's eval writer (made
    once per eval dir) wrote its first evaluation's GraphDef, and only that
    one (measured on TF 2.15: one graph_def in eval/ after three evaluations)."""
    estimator = est.Estimator(summarizing_model_fn, config=est.RunConfig(model_dir=model_dir))
    estimator.train(dataset_input_fn(repeat=True), steps=2)
    estimator.evaluate(dataset_input_fn(), steps=1)
    estimator.evaluate(dataset_input_fn(), steps=1)
    (graph,) = _graph_defs(estimator.eval_dir())
    names = [node.name for node in graph.node]
    assert any("accuracy" in name for name in names), names
