"""Keras callbacks given as hooks get Keras's contract, with the estimator's steps."""

import csv
import math

import h5py
import keras
import numpy as np
import pytest
import tensorflow as tf
from helpers import classifier_model_fn
from helpers import dataset_input_fn
from helpers import step_function_calls

import tfestimator_compat as est


class Recorder(keras.callbacks.Callback):
    def __init__(self):
        super().__init__()
        self.events = []

    def on_train_begin(self, logs=None):
        self.events.append(("train_begin",))

    def on_epoch_begin(self, epoch, logs=None):
        self.events.append(("epoch_begin", epoch))

    def on_train_batch_end(self, batch, logs=None):
        self.events.append(("batch", batch, logs["loss"]))

    def on_epoch_end(self, epoch, logs=None):
        self.events.append(("epoch_end", epoch, dict(logs)))

    def on_train_end(self, logs=None):
        self.events.append(("train_end", dict(logs)))

    def on_test_batch_end(self, batch, logs=None):
        self.events.append(("test_batch", batch, logs["loss"]))

    def on_test_end(self, logs=None):
        self.events.append(("test_end", dict(logs)))


def make_estimator(model_dir, checkpoint_every=5):
    config = est.RunConfig(model_dir=model_dir, save_checkpoints_steps=checkpoint_every)
    return est.Estimator(classifier_model_fn, config=config, params={"learning_rate": 0.1})


def test_batches_get_the_global_step_and_loss_epochs_end_at_checkpoints(model_dir):
    estimator = make_estimator(model_dir)
    recorder = Recorder()
    estimator.train(dataset_input_fn(repeat=True), steps=12, hooks=[recorder])
    events = recorder.events
    batches = [event for event in events if event[0] == "batch"]
    assert [event[1] for event in batches] == list(range(12)), "the global step, not a call count"
    assert all(math.isfinite(event[2]) and event[2] > 0 for event in batches)
    epoch_ends = [event for event in events if event[0] == "epoch_end"]
    assert [event[1] for event in epoch_ends] == [0, 1, 2], "checkpoints at 5, 10 and the end"
    assert events[0] == ("train_begin",) and events[1] == ("epoch_begin", 0)
    final_loss = batches[-1][2]
    assert events[-1] == ("train_end", {"loss": final_loss})
    assert epoch_ends[-1][2] == {"loss": final_loss}

    recorder.events.clear()
    estimator.train(dataset_input_fn(repeat=True), steps=3, hooks=[recorder])
    assert [e[1] for e in recorder.events if e[0] == "batch"] == [12, 13, 14], "steps go on"


def test_callbacks_without_batch_methods_keep_the_chunked_loop(model_dir, tmp_path):
    estimator = make_estimator(model_dir, checkpoint_every=100)
    logger = keras.callbacks.CSVLogger(str(tmp_path / "log.csv"))
    estimator.train(dataset_input_fn(repeat=True), steps=40, hooks=[logger])
    assert step_function_calls(estimator) < 40 / 2


def test_early_stopping_stops_training_and_the_model_dir_holds_the_stopped_step(model_dir):
    estimator = make_estimator(model_dir, checkpoint_every=2)
    stopper = keras.callbacks.EarlyStopping(monitor="loss", min_delta=100.0, patience=1)
    estimator.train(dataset_input_fn(repeat=True), steps=200, hooks=[stopper])
    stopped = estimator.get_variable_value("global_step")
    assert stopped == 4, "no epoch improves the loss by 100: stop after the second"
    assert estimator.latest_checkpoint().endswith("model.ckpt-4")


def test_train_and_evaluate_gives_epochs_the_validation_metrics(model_dir, tmp_path):
    estimator = make_estimator(model_dir, checkpoint_every=4)
    log = tmp_path / "log.csv"
    stopper = keras.callbacks.EarlyStopping(monitor="val_loss", min_delta=100.0, patience=1)
    hooks = [keras.callbacks.CSVLogger(str(log)), stopper]
    est.train_and_evaluate(
        estimator,
        est.TrainSpec(dataset_input_fn(repeat=True), max_steps=100, hooks=hooks),
        est.EvalSpec(dataset_input_fn(), throttle_secs=0),
    )
    rows = list(csv.DictReader(open(log)))
    assert [row["epoch"] for row in rows] == ["0", "1"], "stopped after the second evaluation"
    assert {"loss", "val_loss", "val_accuracy"} <= set(rows[0])
    evaluated = est.experimental.read_eval_metrics(estimator.eval_dir())
    np.testing.assert_allclose(float(rows[1]["val_loss"]), evaluated[8]["loss"], rtol=1e-5)


def test_evaluate_calls_test_batches_with_their_index_and_ends_with_the_results(model_dir):
    estimator = make_estimator(model_dir)
    estimator.train(dataset_input_fn(repeat=True), steps=2)
    recorder = Recorder()
    results = estimator.evaluate(dataset_input_fn(), hooks=[recorder])
    test_batches = [event for event in recorder.events if event[0] == "test_batch"]
    assert [event[1] for event in test_batches] == [0, 1, 2, 3], "64 examples in batches of 16"
    assert recorder.events[-1] == (
        "test_end",
        {"accuracy": float(results["accuracy"]), "loss": float(results["loss"])},
    )


def test_tensorboard_callback_writes_batch_and_epoch_losses(model_dir, tmp_path):
    estimator = make_estimator(model_dir)
    log_dir = tmp_path / "tensorboard"
    board = keras.callbacks.TensorBoard(log_dir=str(log_dir), update_freq=1)
    estimator.train(dataset_input_fn(repeat=True), steps=12, hooks=[board])
    tags = []
    for path in tf.io.gfile.glob(str(log_dir / "train" / "events.out.tfevents.*")):
        for event in tf.compat.v1.train.summary_iterator(path):
            tags.extend(value.tag for value in event.summary.value)
    assert tags.count("batch_loss") == 12
    assert tags.count("epoch_loss") == 3, "checkpoints at 5, 10 and the end"


def test_a_nan_loss_raises_as_the_original_did_even_with_terminate_on_nan(model_dir):
    # The original's NanTensorHook ran on every train(): a NaN loss is an error, so
    # keras.callbacks.TerminateOnNaN never gets to stop training quietly.
    def nan_from_step_3(features, labels, mode):
        w = tf.compat.v1.get_variable("w", [3, 1])
        step = tf.compat.v1.train.get_global_step()
        loss = tf.reduce_mean(tf.matmul(features["x"], w)) ** 2
        loss = tf.where(step >= 3, tf.constant(np.nan), loss)
        train_op = tf.compat.v1.assign_add(step, 1)
        return est.EstimatorSpec(mode, loss=loss, train_op=train_op)

    estimator = est.Estimator(nan_from_step_3, model_dir)
    with pytest.raises(est.NanLossDuringTrainingError):
        estimator.train(
            dataset_input_fn(repeat=True), steps=50, hooks=[keras.callbacks.TerminateOnNaN()]
        )


def diverging_model_fn(features, labels, mode):
    """SGD with too large a rate on (w - 1)^2: the loss grows every step after the first."""
    w = tf.compat.v1.get_variable("w", [], initializer=tf.compat.v1.constant_initializer(0.9))
    loss = tf.square(w - 1.0) + 0.0 * tf.reduce_sum(features["x"])
    step = tf.compat.v1.train.get_global_step()
    train_op = tf.compat.v1.train.GradientDescentOptimizer(1.5).minimize(loss, global_step=step)
    return est.EstimatorSpec(mode, loss=loss, train_op=train_op)


class WeightsAtEpochEnd(keras.callbacks.Callback):
    def __init__(self):
        super().__init__()
        self.seen = []

    def on_epoch_end(self, epoch, logs=None):
        self.seen.append((logs["loss"], self.model.get_weights()))


def test_restore_best_weights_leaves_the_best_epochs_weights_in_the_final_checkpoint(model_dir):
    config = est.RunConfig(model_dir=model_dir, save_checkpoints_steps=1)
    estimator = est.Estimator(diverging_model_fn, config=config)
    seen = WeightsAtEpochEnd()
    stopper = keras.callbacks.EarlyStopping(monitor="loss", patience=2, restore_best_weights=True)
    estimator.train(dataset_input_fn(repeat=True), steps=50, hooks=[seen, stopper])
    losses = [loss for loss, _ in seen.seen]
    assert len(losses) < 50, "training stopped early"
    best = int(np.argmin(losses))
    assert best < len(losses) - 1, "the loss grew after its best epoch"
    (best_w,) = seen.seen[best][1]
    (last_w,) = seen.seen[-1][1]
    assert best_w != last_w
    assert estimator.get_variable_value("w") == pytest.approx(best_w)
    assert estimator.get_variable_value("global_step") == len(losses), "the step is not rewound"


def test_model_checkpoint_writes_the_model_fn_variables_at_each_checkpoint(model_dir, tmp_path):
    estimator = make_estimator(model_dir, checkpoint_every=5)
    path = str(tmp_path / "weights-{epoch}.weights.h5")
    saver = keras.callbacks.ModelCheckpoint(path, save_weights_only=True)
    estimator.train(dataset_input_fn(repeat=True), steps=10, hooks=[saver])
    names = [n for n in estimator.get_variable_names() if n != "global_step"]
    for epoch, step in [(1, 5), (2, 10)]:
        checkpoint = tf.train.load_checkpoint(f"{model_dir}/model.ckpt-{step}")
        with h5py.File(path.format(epoch=epoch), "r") as saved:
            for name in names:
                stored = saved[name.replace("/", ":")][()]
                np.testing.assert_array_equal(stored, checkpoint.get_tensor(name))


def test_model_checkpoint_of_a_whole_model_is_refused_before_training(model_dir, tmp_path):
    estimator = make_estimator(model_dir)
    saver = keras.callbacks.ModelCheckpoint(str(tmp_path / "model.keras"))
    with pytest.raises(ValueError, match="save_weights_only=True"):
        estimator.train(dataset_input_fn(repeat=True), steps=3, hooks=[saver])
    assert not tf.io.gfile.exists(f"{model_dir}/checkpoint")


def test_a_weights_file_loads_back_into_the_estimators_model(model_dir, tmp_path):
    estimator = make_estimator(model_dir, checkpoint_every=5)
    path = str(tmp_path / "weights.weights.h5")
    saver = keras.callbacks.ModelCheckpoint(path, save_weights_only=True)
    estimator.train(dataset_input_fn(repeat=True), steps=5, hooks=[saver])
    model = estimator._model_state.models()[0]
    before = model.get_weights()
    model.set_weights([np.zeros_like(value) for value in before])
    model.load_weights(path)
    for loaded, saved in zip(model.get_weights(), before):
        np.testing.assert_array_equal(loaded, saved)
