"""Estimator.train / evaluate / predict behave as the original's."""

import os
import warnings

import numpy as np
import pytest
import tensorflow as tf
from helpers import classifier_model_fn
from helpers import dataset_input_fn
from helpers import linear_data

import tfestimator_compat as est


@pytest.fixture
def estimator(model_dir):
    return est.Estimator(classifier_model_fn, model_dir=model_dir, params={"learning_rate": 0.05})


def test_steps_add_and_max_steps_is_absolute(estimator):
    estimator.train(dataset_input_fn(repeat=True), steps=5)
    assert estimator.get_variable_value("global_step") == 5
    estimator.train(dataset_input_fn(repeat=True), steps=5)
    assert estimator.get_variable_value("global_step") == 10
    estimator.train(dataset_input_fn(repeat=True), max_steps=12)
    assert estimator.get_variable_value("global_step") == 12
    before = os.path.getmtime(estimator.latest_checkpoint() + ".index")
    estimator.train(dataset_input_fn(repeat=True), max_steps=12)
    assert estimator.latest_checkpoint().endswith("model.ckpt-12")
    assert os.path.getmtime(estimator.latest_checkpoint() + ".index") == before


def test_train_stops_at_end_of_finite_input(estimator):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        estimator.train(dataset_input_fn(n=64, batch=16))
    assert estimator.get_variable_value("global_step") == 4
    # Ending with the input is normal for an Estimator: no Keras warning about it.
    assert not [w for w in caught if "ran out of data" in str(w.message)]


def test_train_argument_errors(estimator):
    with pytest.raises(ValueError, match="Can not provide both steps and max_steps"):
        estimator.train(dataset_input_fn(), steps=1, max_steps=1)
    with pytest.raises(ValueError, match="Must specify steps > 0, given: 0"):
        estimator.train(dataset_input_fn(), steps=0)
    with pytest.raises(ValueError, match="Must specify max_steps > 0, given: -1"):
        estimator.train(dataset_input_fn(), max_steps=-1)
    with pytest.raises(TypeError, match="Hooks must be a SessionRunHook"):
        estimator.train(dataset_input_fn(), hooks=["hook"])
    with pytest.raises(
        TypeError, match="saving_listeners must be a list of CheckpointSaverListener"
    ):
        estimator.train(dataset_input_fn(), saving_listeners=[1])


def test_evaluate_returns_loss_mean_over_batches_and_global_step(estimator):
    estimator.train(dataset_input_fn(repeat=True), steps=20)
    result = estimator.evaluate(dataset_input_fn(n=48, batch=16))
    assert set(result) == {"accuracy", "loss", "global_step"}
    assert result["global_step"] == 20 and isinstance(result["global_step"], np.int64)
    # Recompute the per-batch losses by predicting logits with the same weights.
    x, y = linear_data(48)
    logits = np.stack([p["logits"] for p in estimator.predict(dataset_input_fn(n=48, batch=16))])
    log_probs = logits - np.log(np.exp(logits).sum(1, keepdims=True))
    per_example = -log_probs[np.arange(48), y]
    assert result["loss"] == pytest.approx(per_example.reshape(3, 16).mean(1).mean(), rel=1e-5)
    assert result["accuracy"] == pytest.approx(np.mean(logits.argmax(1) == y))


def test_evaluate_steps_and_fresh_metrics_per_call(estimator):
    estimator.train(dataset_input_fn(repeat=True), steps=3)
    first = estimator.evaluate(dataset_input_fn(n=48, batch=16), steps=1)
    second = estimator.evaluate(dataset_input_fn(n=48, batch=16), steps=1)
    assert first == second
    with pytest.raises(ValueError, match="Must specify steps > 0"):
        estimator.evaluate(dataset_input_fn(), steps=0)


def test_evaluate_over_an_input_with_no_batches_reports_zeros(estimator, caplog):
    """The original's loss and v1 metrics read 0.0 when no batch ran (its loss
    was a `metrics.mean`, which divides with `div_no_nan`). Measured with
    tensorflow-estimator 2.15 on an empty `Dataset` (no `steps`, and steps=3):
    every metric, the loss included, 0.0 (float32), global_step the
    checkpoint's, and `Saving dict for global step 2: ... loss = 0.0` logged."""
    estimator.train(dataset_input_fn(repeat=True), steps=2)
    for steps in (None, 3):
        with caplog.at_level("INFO", logger="tensorflow"):
            result = estimator.evaluate(dataset_input_fn(n=0), steps=steps)
        assert result == {"accuracy": 0.0, "loss": 0.0, "global_step": 2}
        assert isinstance(result["loss"], np.float32)
        saved = [r.getMessage() for r in caplog.records if "Saving dict" in r.getMessage()]
        assert "loss = 0.0" in saved[-1]


def test_evaluate_writes_events_to_eval_dir(estimator, model_dir):
    estimator.train(dataset_input_fn(repeat=True), steps=2)
    estimator.evaluate(dataset_input_fn(), name="holdout")
    assert estimator.eval_dir("holdout") == os.path.join(model_dir, "eval_holdout")
    assert estimator.eval_dir() == os.path.join(model_dir, "eval")
    tags = {}
    for path in tf.io.gfile.glob(os.path.join(model_dir, "eval_holdout", "events.*")):
        for event in tf.compat.v1.train.summary_iterator(path):
            for value in event.summary.value:
                tags[value.tag] = (event.step, value.simple_value)
    assert tags["loss"][0] == 2 and tags["accuracy"][0] == 2
    assert "checkpoint_path" in tags


def test_evaluate_with_explicit_checkpoint_path(estimator):
    estimator.train(dataset_input_fn(repeat=True), steps=2)
    first = estimator.latest_checkpoint()
    estimator.train(dataset_input_fn(repeat=True), steps=2)
    assert estimator.evaluate(dataset_input_fn(), checkpoint_path=first)["global_step"] == 2
    assert estimator.evaluate(dataset_input_fn())["global_step"] == 4


def test_predict_is_a_generator_over_all_examples(estimator):
    estimator.train(dataset_input_fn(repeat=True), steps=2)
    predictions = estimator.predict(dataset_input_fn(n=40, batch=16))
    assert hasattr(predictions, "__next__")
    predictions = list(predictions)
    assert len(predictions) == 40
    assert set(predictions[0]) == {"class", "logits"}
    assert predictions[0]["logits"].shape == (2,)


def test_predict_keys_and_batches(estimator):
    estimator.train(dataset_input_fn(repeat=True), steps=2)
    only = list(estimator.predict(dataset_input_fn(n=16), predict_keys=["class"]))
    assert set(only[0]) == {"class"}
    batches = list(estimator.predict(dataset_input_fn(n=40, batch=16), yield_single_examples=False))
    assert [b["logits"].shape[0] for b in batches] == [16, 16, 8]
    with pytest.raises(ValueError, match="Expected to run at least one output"):
        list(estimator.predict(dataset_input_fn(), predict_keys=["missing"]))


def test_predict_on_infinite_input_yields_lazily(estimator):
    estimator.train(dataset_input_fn(repeat=True), steps=2)
    predictions = estimator.predict(dataset_input_fn(repeat=True))
    assert [next(predictions)["class"] in (0, 1) for _ in range(50)] == [True] * 50


def test_variable_names_need_a_checkpoint(estimator):
    with pytest.raises(ValueError, match="Could not find trained model in model_dir"):
        estimator.get_variable_names()
    estimator.train(dataset_input_fn(repeat=True), steps=1)
    assert "dense/kernel" in estimator.get_variable_names()
    assert estimator.get_variable_value("dense/kernel").shape == (3, 8)


def test_properties(model_dir):
    params = {"learning_rate": 0.1}
    estimator = est.Estimator(classifier_model_fn, model_dir=model_dir, params=params)
    params["learning_rate"] = 9
    assert estimator.params == {"learning_rate": 0.1}
    assert estimator.model_dir == model_dir
    assert estimator.config.model_dir == model_dir
    assert estimator.latest_checkpoint() is None


def test_temporary_model_dir_when_none_given():
    estimator = est.Estimator(classifier_model_fn, params={})
    assert os.path.isdir(estimator.model_dir)


def test_model_dir_conflict(model_dir):
    with pytest.raises(ValueError, match="set both in constructor and `RunConfig`"):
        est.Estimator(
            classifier_model_fn, model_dir=model_dir, config=est.RunConfig(model_dir="/x")
        )
    with pytest.raises(ValueError, match="config must be an instance of `RunConfig`"):
        est.Estimator(classifier_model_fn, config={"model_dir": model_dir})


def test_model_fn_argument_inspection(model_dir):
    with pytest.raises(ValueError, match="must be provided"):
        est.Estimator(None)
    with pytest.raises(ValueError, match="must include features argument"):
        est.Estimator(lambda labels, mode: None)
    with pytest.raises(ValueError, match="does not include params argument"):
        est.Estimator(lambda features, labels, mode: None, params={"a": 1})
    with pytest.raises(ValueError, match=r"has following not expected args: \['extra'\]"):
        est.Estimator(lambda features, labels, extra: None)

    seen = {}

    def minimal_model_fn(features, mode, config):
        seen["config"] = config
        w = tf.compat.v1.get_variable("w", [3, 1])
        return est.EstimatorSpec(mode, predictions=tf.matmul(features["x"], w))

    estimator = est.Estimator(minimal_model_fn, model_dir=model_dir)
    assert len(list(estimator.predict(dataset_input_fn(n=4)))) == 4
    assert seen["config"].model_dir == model_dir


def test_labels_without_labels_argument(model_dir):
    def model_fn(features, mode):
        return est.EstimatorSpec(mode, loss=tf.reduce_mean(features["x"]), train_op=tf.no_op())

    with pytest.raises(
        ValueError, match="model_fn does not take labels, but input_fn returns labels"
    ):
        est.Estimator(model_fn, model_dir=model_dir).train(dataset_input_fn(), steps=1)


def test_model_fn_must_return_an_estimator_spec(model_dir):
    estimator = est.Estimator(lambda features, labels, mode: {"loss": 1}, model_dir=model_dir)
    with pytest.raises(ValueError, match="model_fn should return an EstimatorSpec"):
        estimator.train(dataset_input_fn(), steps=1)
    assert not os.path.exists(os.path.join(model_dir, "checkpoint"))


def test_missing_train_op_names_the_field(model_dir):
    estimator = est.Estimator(
        lambda features, labels, mode: est.EstimatorSpec(mode, loss=tf.reduce_mean(features["x"])),
        model_dir=model_dir,
    )
    with pytest.raises(ValueError, match="Missing train_op"):
        estimator.train(dataset_input_fn(), steps=1)


def test_metric_named_loss_is_rejected(model_dir):
    def model_fn(features, labels, mode):
        loss = tf.reduce_mean(features["x"])
        return est.EstimatorSpec(
            mode, loss=loss, eval_metric_ops={"loss": tf.compat.v1.metrics.mean(loss)}
        )

    with pytest.raises(ValueError, match='Metric with name "loss" is not allowed'):
        est.Estimator(model_fn, model_dir=model_dir).evaluate(dataset_input_fn())


def test_params_and_config_reach_the_input_fn(model_dir):
    seen = {}

    def input_fn(params, mode, config, input_context):
        seen.update(params=params, mode=mode, config=config, input_context=input_context)
        return dataset_input_fn()()

    estimator = est.Estimator(
        classifier_model_fn, model_dir=model_dir, params={"learning_rate": 0.1}
    )
    estimator.train(input_fn, steps=1)
    assert seen["params"] == {"learning_rate": 0.1}
    assert seen["mode"] == est.ModeKeys.TRAIN
    assert seen["config"].model_dir == model_dir
    assert seen["input_context"].num_input_pipelines == 1


def test_calls_reuse_the_traced_model_fn_unless_it_returns_hooks(model_dir):
    calls = []

    def model_fn(features, labels, mode, params):
        calls.append(mode)
        spec = classifier_model_fn(features, labels, mode, params)
        if params.get("hooks") and mode == est.ModeKeys.EVAL:
            spec = spec._replace(evaluation_hooks=[est.StopAtStepHook(num_steps=1)])
        if params.get("hooks") and mode == est.ModeKeys.TRAIN:
            spec = spec._replace(training_hooks=[est.StopAtStepHook(num_steps=1)])
        return spec

    estimator = est.Estimator(model_fn, model_dir=model_dir, params={})
    estimator.train(dataset_input_fn(repeat=True), steps=2)
    first = estimator.evaluate(dataset_input_fn())
    estimator.train(dataset_input_fn(repeat=True), steps=2)
    second = estimator.evaluate(dataset_input_fn())
    assert calls.count(est.ModeKeys.EVAL) == 1
    assert calls.count(est.ModeKeys.TRAIN) == 1
    assert (first["global_step"], second["global_step"]) == (2, 4)
    assert first["loss"] != second["loss"], "each call restores the newest checkpoint"
    # Another kind of input (finite, not repeated) is traced anew.
    estimator.train(dataset_input_fn(n=16), steps=1)
    assert calls.count(est.ModeKeys.TRAIN) == 2
    assert estimator.get_variable_value("global_step") == 5

    hooked = est.Estimator(model_fn, model_dir=model_dir, params={"hooks": True})
    calls.clear()
    hooked.evaluate(dataset_input_fn())
    hooked.evaluate(dataset_input_fn())
    hooked.train(dataset_input_fn(repeat=True), steps=1)
    hooked.train(dataset_input_fn(repeat=True), steps=1)
    assert calls.count(est.ModeKeys.EVAL) == 2
    assert calls.count(est.ModeKeys.TRAIN) == 2


def test_multi_batch_metrics_are_exact_every_time(model_dir):
    def model_fn(features, labels, mode):
        weights = tf.compat.v1.get_variable("w", [3, 256])
        hidden = features["x"]
        for _ in range(20):  # enough work per step for steps to overlap if they could
            hidden = tf.tanh(tf.matmul(hidden, weights) @ tf.transpose(weights))
        loss = tf.reduce_mean(hidden)
        labels = tf.cast(labels, tf.float32)
        return est.EstimatorSpec(
            mode,
            loss=loss,
            eval_metric_ops={
                "label/mean": tf.compat.v1.metrics.mean(labels + 0.0 * loss),
                "auc": tf.compat.v1.metrics.auc(labels, tf.sigmoid(features["x"][:, 0])),
            },
        )

    estimator = est.Estimator(model_fn, model_dir=model_dir)
    x, y = linear_data(96, seed=5)
    results = [estimator.evaluate(dataset_input_fn(n=96, batch=12, seed=5)) for _ in range(3)]
    assert all(r["label/mean"] == pytest.approx(y.mean(), abs=1e-6) for r in results)
    assert len({float(r["auc"]) for r in results}) == 1


def test_tf1_lookup_tables_made_in_the_model_fn_are_initialized_before_use(model_dir, tmp_path):
    """The original ran tables_initializer() in each Session; each call does it here."""
    from tensorflow.python.ops import lookup_ops

    def model_fn(features, labels, mode):
        table = lookup_ops.index_table_from_tensor(["a", "b", "c"], num_oov_buckets=1)
        ids = table.lookup(features["word"])
        embeddings = tf.compat.v1.get_variable("embeddings", [4, 2])
        if mode == est.ModeKeys.PREDICT:
            return est.EstimatorSpec(mode, predictions={"ids": ids, "size": table.size() + 0 * ids})
        loss = tf.reduce_mean(tf.square(tf.nn.embedding_lookup(embeddings, ids)))
        train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(
            loss, tf.compat.v1.train.get_global_step()
        )
        return est.EstimatorSpec(mode, loss=loss, train_op=train_op)

    def input_fn():
        words = {"word": ["a", "c", "zzz", "b"]}
        return tf.data.Dataset.from_tensor_slices((words, [0, 0, 0, 0])).batch(2)

    estimator = est.Estimator(model_fn, model_dir=model_dir)
    estimator.train(input_fn, steps=2)
    predictions = list(estimator.predict(input_fn))
    assert [p["ids"] for p in predictions] == [0, 2, 3, 1]
    assert all(p["size"] == 4 for p in predictions)
    receiver = est.export.build_raw_serving_input_receiver_fn({"word": tf.constant(["a"])})
    export_dir = estimator.export_saved_model(str(tmp_path / "export"), receiver).decode()
    served = tf.saved_model.load(export_dir).signatures["serving_default"](
        word=tf.constant(["b", "q"])
    )
    assert served["ids"].numpy().tolist() == [1, 3]


def test_checkpointing_turned_off_trains_and_writes_no_checkpoint(tmp_path):
    config = est.RunConfig(
        model_dir=str(tmp_path), save_checkpoints_steps=None, save_checkpoints_secs=None
    )
    estimator = est.Estimator(classifier_model_fn, config=config, params={})
    estimator.train(dataset_input_fn(repeat=True), steps=3)
    assert estimator.latest_checkpoint() is None
    assert not any(name.startswith("model.ckpt") for name in os.listdir(tmp_path))


class _GlobalStepsSeen(est.SessionRunHook):
    def __init__(self):
        self.steps = []

    def before_run(self, run_context):
        return tf.compat.v1.train.SessionRunArgs(tf.compat.v1.train.get_global_step())

    def after_run(self, run_context, run_values):
        self.steps.append(int(run_values.results))


def test_without_checkpoints_every_call_starts_from_scratch(tmp_path):
    # The original built a fresh graph per call: with nothing to restore, each
    # train() started at step 0 and evaluate() saw freshly initialized weights.
    config = est.RunConfig(
        model_dir=str(tmp_path), save_checkpoints_steps=None, save_checkpoints_secs=None
    )
    config = config.replace(tf_random_seed=3)
    estimator = est.Estimator(classifier_model_fn, config=config, params={"learning_rate": 0.5})
    untrained = estimator.evaluate(dataset_input_fn(n=32, batch=16))
    first, second = _GlobalStepsSeen(), _GlobalStepsSeen()
    estimator.train(dataset_input_fn(repeat=True), steps=5, hooks=[first])
    estimator.train(dataset_input_fn(repeat=True), steps=3, hooks=[second])
    assert first.steps == [0, 1, 2, 3, 4]
    assert second.steps == [0, 1, 2]
    after = estimator.evaluate(dataset_input_fn(n=32, batch=16))
    assert after["global_step"] == 0
    assert after["loss"] == pytest.approx(untrained["loss"], rel=1e-6)


def test_tf_random_seed_makes_initial_values_the_same_every_run(tmp_path):
    def model_fn(features, labels, mode):
        weights = tf.compat.v1.get_variable("weights", [3, 2])  # glorot, no op seed
        dense = tf.keras.layers.Dense(2)(features["x"])
        loss = tf.reduce_mean(tf.matmul(features["x"], weights) + dense)
        train_op = tf.compat.v1.train.GradientDescentOptimizer(0.0).minimize(
            loss, tf.compat.v1.train.get_global_step()
        )
        return est.EstimatorSpec(mode, loss=loss, train_op=train_op)

    def initial_values(seed, name):
        config = est.RunConfig(model_dir=str(tmp_path / name), tf_random_seed=seed)
        estimator = est.Estimator(model_fn, config=config)
        estimator.train(lambda: tf.data.Dataset.from_tensors(({"x": tf.ones([1, 3])}, 0)), steps=1)
        return {n: estimator.get_variable_value(n) for n in ("weights", "dense/kernel")}

    first, again, other = initial_values(42, "a"), initial_values(42, "b"), initial_values(7, "c")
    for name in first:
        np.testing.assert_array_equal(first[name], again[name], err_msg=name)
        assert not np.array_equal(first[name], other[name]), name
