"""TrainSpec, EvalSpec and train_and_evaluate as the original ran them locally."""

import json
import os
import time

import pytest
import tensorflow as tf
from helpers import classifier_model_fn
from helpers import dataset_input_fn

import tfestimator_compat as est
from tfestimator_compat.export import Exporter


class CountingExporter(Exporter):
    def __init__(self, name="counting"):
        self._name = name
        self.calls = []

    @property
    def name(self):
        return self._name

    def export(self, estimator, export_path, checkpoint_path, eval_result, is_the_final_export):
        self.calls.append((int(eval_result["global_step"]), is_the_final_export, export_path))
        return export_path


def make_estimator(model_dir, steps=10):
    config = est.RunConfig(model_dir=model_dir, save_checkpoints_steps=steps)
    return est.Estimator(classifier_model_fn, config=config, params={})


def eval_steps(model_dir):
    return sorted(est.experimental.read_eval_metrics(os.path.join(model_dir, "eval")))


def test_evaluates_every_checkpoint_and_the_final_one(model_dir):
    exporter = CountingExporter()
    estimator = make_estimator(model_dir)
    result, exports = est.train_and_evaluate(
        estimator,
        est.TrainSpec(dataset_input_fn(repeat=True), max_steps=22),
        est.EvalSpec(dataset_input_fn(), steps=None, exporters=exporter, throttle_secs=0),
    )
    assert eval_steps(model_dir) == [10, 20, 22]
    assert [(step, final) for step, final, _ in exporter.calls] == [
        (10, False),
        (20, False),
        (22, True),
    ]
    assert exporter.calls[0][2] == os.path.join(model_dir, "export", "counting")
    assert result["global_step"] == 22 and "accuracy" in result
    assert exports == [os.path.join(model_dir, "export", "counting")]


def test_throttle_secs_skips_checkpoints_but_not_the_last(model_dir):
    estimator = make_estimator(model_dir, steps=2)
    est.train_and_evaluate(
        estimator,
        est.TrainSpec(dataset_input_fn(repeat=True), max_steps=8),
        est.EvalSpec(dataset_input_fn(), throttle_secs=3600),
    )
    assert eval_steps(model_dir) == [2, 8]


def test_resume_and_already_finished(model_dir):
    estimator = make_estimator(model_dir)
    estimator.train(dataset_input_fn(repeat=True), steps=10)
    est.train_and_evaluate(
        make_estimator(model_dir),
        est.TrainSpec(dataset_input_fn(repeat=True), max_steps=20),
        est.EvalSpec(dataset_input_fn(), throttle_secs=0),
    )
    assert eval_steps(model_dir) == [20]
    # Already at max_steps: the original (2.15, measured) trained nothing, so its
    # listener never evaluated; it returned (None, None) and exported nothing.
    exporter = CountingExporter()
    result = est.train_and_evaluate(
        make_estimator(model_dir),
        est.TrainSpec(dataset_input_fn(repeat=True), max_steps=20),
        est.EvalSpec(dataset_input_fn(), throttle_secs=0, exporters=[exporter]),
    )
    assert result == (None, None)
    assert exporter.calls == []
    assert eval_steps(model_dir) == [20]
    assert make_estimator(model_dir).latest_checkpoint().endswith("model.ckpt-20")


def test_spec_validation():
    input_fn = dataset_input_fn()
    with pytest.raises(TypeError, match="`input_fn` must be callable"):
        est.TrainSpec("not callable")
    with pytest.raises(ValueError, match="Must specify max_steps > 0"):
        est.TrainSpec(input_fn, max_steps=0)
    with pytest.raises(TypeError, match="All hooks must be `SessionRunHook`"):
        est.TrainSpec(input_fn, hooks=[object()])
    with pytest.raises(ValueError, match="Must specify steps > 0"):
        est.EvalSpec(input_fn, steps=0)
    with pytest.raises(ValueError, match="start_delay_secs >= 0"):
        est.EvalSpec(input_fn, start_delay_secs=-1)
    with pytest.raises(ValueError, match="throttle_secs >= 0"):
        est.EvalSpec(input_fn, throttle_secs=-1)
    with pytest.raises(TypeError, match="`name` must be string"):
        est.EvalSpec(input_fn, name=3)
    with pytest.raises(ValueError, match="must have unique names"):
        est.EvalSpec(input_fn, exporters=[CountingExporter("a"), CountingExporter("a")])
    with pytest.raises(TypeError, match="`exporters` must be an Exporter"):
        est.EvalSpec(input_fn, exporters=[object()])
    spec = est.EvalSpec(input_fn)
    assert (spec.steps, spec.start_delay_secs, spec.throttle_secs) == (100, 120, 600)


def test_train_and_evaluate_argument_types(model_dir):
    spec = est.TrainSpec(dataset_input_fn())
    eval_spec = est.EvalSpec(dataset_input_fn())
    with pytest.raises(TypeError, match="`estimator` must have type"):
        est.train_and_evaluate(object(), spec, eval_spec)
    with pytest.raises(TypeError, match="`train_spec` must have type"):
        est.train_and_evaluate(make_estimator(model_dir), eval_spec, eval_spec)


def evaluator_estimator(model_dir, monkeypatch, index):
    cluster = {"chief": ["localhost:2222"], "worker": ["localhost:2223"]}
    tf_config = {"cluster": cluster, "task": {"type": "evaluator", "index": index}}
    monkeypatch.setenv("TF_CONFIG", json.dumps(tf_config))
    return est.Estimator(classifier_model_fn, model_dir, params={"learning_rate": 0.1})


def test_train_on_the_evaluator_task_is_refused_at_once(model_dir, monkeypatch):
    estimator = evaluator_estimator(model_dir, monkeypatch, index=0)
    with pytest.raises(ValueError, match="Train has been called wrong configuration"):
        estimator.train(dataset_input_fn(), steps=1)
    assert not os.path.exists(model_dir) or not os.listdir(model_dir), "nothing was written"


def test_a_second_evaluator_is_refused_at_once_instead_of_polling(model_dir, monkeypatch):
    estimator = evaluator_estimator(model_dir, monkeypatch, index=1)
    specs = est.TrainSpec(dataset_input_fn(), max_steps=5), est.EvalSpec(dataset_input_fn())
    started = time.time()
    with pytest.raises(ValueError, match="there can only be one `evaluator` task"):
        est.train_and_evaluate(estimator, *specs)
    assert time.time() - started < 30


class RotatedAwayExporter(Exporter):
    """Exports after the chief's `keep_checkpoint_max` has deleted the checkpoint."""

    name = "rotated"

    def export(self, estimator, export_path, checkpoint_path, eval_result, is_the_final_export):
        for path in tf.io.gfile.glob(checkpoint_path + ".*"):
            tf.io.gfile.remove(path)

        def receiver():
            x = tf.compat.v1.placeholder(tf.float32, [None, 3])
            return est.export.ServingInputReceiver({"x": x}, {"x": x})

        return estimator.export_saved_model(export_path, receiver, checkpoint_path=checkpoint_path)


def test_a_checkpoint_deleted_before_its_export_is_skipped_not_fatal(model_dir, caplog):
    from tfestimator_compat import training

    estimator = make_estimator(model_dir)
    estimator.train(dataset_input_fn(repeat=True), max_steps=10)
    spec = est.EvalSpec(dataset_input_fn(), exporters=RotatedAwayExporter())
    evaluator = training._Evaluator(estimator, spec, max_steps=20)
    assert evaluator.evaluate_and_export() is False
    assert "was deleted while it was evaluated or exported" in caplog.text
