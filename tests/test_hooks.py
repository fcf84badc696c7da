"""SessionRunHooks run unchanged around the steps, with the original's lifecycle."""

import glob
import os

import keras
import numpy as np
import pytest
import tensorflow as tf
from helpers import classifier_model_fn
from helpers import dataset_input_fn

import tfestimator_compat as est


@pytest.fixture
def estimator(model_dir):
    return est.Estimator(classifier_model_fn, model_dir=model_dir, params={})


class RecordingHook(est.SessionRunHook):
    """Records every call and asks for the global step and a tensor by name."""

    def __init__(self, stop_after=None):
        self.calls = []
        self.results = []
        self.stop_after = stop_after

    def begin(self):
        self.calls.append("begin")
        self.global_step = tf.compat.v1.train.get_global_step()
        assert self.global_step is not None

    def after_create_session(self, session, coord):
        self.calls.append("after_create_session")
        self.start_step = session.run(self.global_step)

    def before_run(self, run_context):
        self.calls.append("before_run")
        return est.SessionRunArgs(
            {"step": self.global_step, "loss": "sparse_softmax_cross_entropy_loss/value:0"}
        )

    def after_run(self, run_context, run_values):
        self.calls.append("after_run")
        self.results.append(run_values.results)
        if self.stop_after and len(self.results) >= self.stop_after:
            run_context.request_stop()

    def end(self, session):
        self.calls.append("end")
        self.end_step = session.run(self.global_step)


def test_custom_hook_lifecycle_and_request_stop(estimator):
    hook = RecordingHook(stop_after=3)
    estimator.train(dataset_input_fn(repeat=True), steps=10, hooks=[hook])
    assert hook.calls[:2] == ["begin", "after_create_session"]
    assert hook.calls[2:-1] == ["before_run", "after_run"] * 3
    assert hook.calls[-1] == "end"
    assert [r["step"] for r in hook.results] == [0, 1, 2]
    assert all(np.isfinite(r["loss"]) for r in hook.results)
    assert hook.start_step == 0 and hook.end_step == 3
    assert estimator.get_variable_value("global_step") == 3


def test_hooks_in_evaluate_and_predict(estimator):
    estimator.train(dataset_input_fn(repeat=True), steps=2)
    eval_hook, predict_hook = RecordingHook(), RecordingHook(stop_after=2)
    estimator.evaluate(dataset_input_fn(n=48, batch=16), hooks=[eval_hook])
    assert eval_hook.calls.count("after_run") == 3
    assert [r["step"] for r in eval_hook.results] == [2, 2, 2]

    class PredictHook(RecordingHook):
        def before_run(self, run_context):
            self.calls.append("before_run")
            return est.SessionRunArgs(self.global_step)

    predict_hook = PredictHook(stop_after=2)
    predictions = list(estimator.predict(dataset_input_fn(n=64, batch=16), hooks=[predict_hook]))
    assert len(predictions) == 32, "request_stop ends prediction after the second batch"
    assert predict_hook.results == [2, 2]


def test_hooks_from_the_estimator_spec(model_dir):
    hooks = {"train": RecordingHook(), "chief": RecordingHook(), "eval": RecordingHook()}

    def model_fn(features, labels, mode, params):
        spec = classifier_model_fn(features, labels, mode, params)
        return spec._replace(
            training_hooks=[hooks["train"]],
            training_chief_hooks=[hooks["chief"]],
            evaluation_hooks=[hooks["eval"]],
        )

    estimator = est.Estimator(model_fn, model_dir=model_dir, params={})
    estimator.train(dataset_input_fn(repeat=True), steps=2)
    estimator.evaluate(dataset_input_fn(n=16, batch=16))
    assert hooks["train"].calls.count("after_run") == 2
    assert hooks["chief"].calls.count("after_run") == 2
    assert hooks["eval"].calls.count("after_run") == 1


def test_logging_tensor_hook_logs_by_name(estimator, caplog):
    hook = est.LoggingTensorHook(
        {"the_loss": "sparse_softmax_cross_entropy_loss/value:0"}, every_n_iter=2
    )
    with caplog.at_level("INFO", logger="tensorflow"):
        estimator.train(dataset_input_fn(repeat=True), steps=5, hooks=[hook])
    logged = [r.getMessage() for r in caplog.records if "the_loss =" in r.getMessage()]
    assert len(logged) == 3


class LateStepReadHook(tf.compat.v1.train.SessionRunHook):
    """Reads the global step in `begin()`, after the model_fn, behind slow work."""

    def __init__(self):
        self.steps = []

    def begin(self):
        work = tf.random.normal([300, 300])  # not constant-folded away
        for _ in range(30):
            work = tf.tanh(tf.matmul(work, work) / 300.0)
        with tf.control_dependencies([work]):
            self._step = tf.identity(tf.compat.v1.train.get_global_step())

    def before_run(self, run_context):
        return tf.compat.v1.train.SessionRunArgs(self._step)

    def after_run(self, run_context, run_values):
        self.steps.append(int(run_values.results))


def test_a_hooks_own_read_of_the_global_step_sees_the_step_the_run_started_at(model_dir):
    # The hook's read and the train op's increment have no dependency between
    # them; a read that comes late (here behind slow work, in practice on a
    # loaded machine) must still see the step the run started at.
    hook = LateStepReadHook()
    estimator = est.Estimator(classifier_model_fn, model_dir=model_dir, params={})
    estimator.train(dataset_input_fn(repeat=True), steps=4, hooks=[hook])
    assert hook.steps == [0, 1, 2, 3]


def test_logging_tensor_hook_logs_variables_and_the_global_step(model_dir, caplog):
    def model_fn(features, labels, mode, params):
        spec = classifier_model_fn(features, labels, mode, params)
        step = tf.compat.v1.train.get_global_step()
        bias = tf.compat.v1.get_variable("bias", [2], initializer=tf.compat.v1.ones_initializer())
        hook = est.LoggingTensorHook({"step": step, "bias": bias}, every_n_iter=1)
        return spec._replace(training_hooks=[hook])

    estimator = est.Estimator(model_fn, model_dir=model_dir, params={})
    with caplog.at_level("INFO", logger="tensorflow"):
        estimator.train(dataset_input_fn(repeat=True), steps=3)
    logged = [r.getMessage() for r in caplog.records if r.getMessage().startswith("bias = ")]
    assert len(logged) == 3
    assert all(message.startswith("bias = [1. 1.], step = ") for message in logged)
    steps = [message.split("step = ")[1].split(" ")[0] for message in logged]
    assert steps == ["0", "1", "2"]


def test_stop_at_step_hook(estimator):
    estimator.train(dataset_input_fn(repeat=True), hooks=[est.StopAtStepHook(num_steps=4)])
    assert estimator.get_variable_value("global_step") == 4
    estimator.train(dataset_input_fn(repeat=True), hooks=[est.StopAtStepHook(last_step=6)])
    assert estimator.get_variable_value("global_step") == 6


def nan_model_fn(features, labels, mode):
    w = tf.compat.v1.get_variable("w", [3, 1])
    loss = tf.reduce_mean(tf.matmul(features["x"], w)) * np.nan
    train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(
        loss, global_step=tf.compat.v1.train.get_global_step()
    )
    return est.EstimatorSpec(mode, loss=loss, train_op=train_op)


def test_nan_loss_raises_by_default_and_keeps_the_last_good_checkpoint(model_dir):
    estimator = est.Estimator(nan_model_fn, model_dir=model_dir)
    with pytest.raises(est.NanLossDuringTrainingError):
        estimator.train(dataset_input_fn(repeat=True), steps=5)
    assert estimator.latest_checkpoint().endswith("model.ckpt-0")


def test_nan_tensor_hook_can_stop_instead(model_dir):
    def model_fn(features, labels, mode):
        spec = classifier_model_fn(features, labels, mode, {})
        poisoned = tf.cond(
            tf.compat.v1.train.get_global_step() >= 2, lambda: np.float32(np.nan), lambda: spec.loss
        )
        return spec._replace(training_hooks=[est.NanTensorHook(poisoned, fail_on_nan_loss=False)])

    estimator = est.Estimator(model_fn, model_dir=model_dir)
    estimator.train(dataset_input_fn(repeat=True), steps=10)
    assert estimator.get_variable_value("global_step") == 3


def test_step_counter_and_summary_saver_hooks_write_events(estimator, tmp_path):
    out = str(tmp_path / "hooks_out")
    summary = tf.compat.v1.summary.scalar  # created in begin() through the scaffold-free path

    class MakeSummary(est.SessionRunHook):
        def begin(self):
            self.op = summary("hook_scalar", tf.constant(3.0))

    maker = MakeSummary()
    counter = est.StepCounterHook(every_n_steps=2, output_dir=out)
    estimator.train(dataset_input_fn(repeat=True), steps=6, hooks=[maker, counter])

    class ExplicitSummaryHook(est.SessionRunHook):
        def begin(self):
            self.inner = est.SummarySaverHook(
                save_steps=2,
                output_dir=out,
                summary_op=tf.compat.v1.summary.scalar("x2", tf.constant(2.0)),
            )
            self.inner.begin()

        def before_run(self, run_context):
            return self.inner.before_run(run_context)

        def after_run(self, run_context, run_values):
            self.inner.after_run(run_context, run_values)

        def end(self, session):
            self.inner.end(session)

    estimator.train(dataset_input_fn(repeat=True), steps=4, hooks=[ExplicitSummaryHook()])
    tags = set()
    for path in glob.glob(os.path.join(out, "events.*")):
        for event in tf.compat.v1.train.summary_iterator(path):
            tags.update(value.tag for value in event.summary.value)
    assert "global_step/sec" in tags
    assert "x2" in tags


def test_checkpoint_saver_hook_and_listeners(estimator, tmp_path):
    class Listener(est.CheckpointSaverListener):
        def __init__(self):
            self.steps = []

        def after_save(self, session, global_step_value):
            self.steps.append(global_step_value)

    listener = Listener()
    estimator.train(dataset_input_fn(repeat=True), steps=3, saving_listeners=[listener])
    assert listener.steps == [0, 3]

    hook_dir = str(tmp_path / "hook_checkpoints")
    hook_listener = Listener()
    hook = est.CheckpointSaverHook(hook_dir, save_steps=2, listeners=[hook_listener])
    estimator.train(dataset_input_fn(repeat=True), steps=4, hooks=[hook])
    assert hook_listener.steps == [3, 5, 7]
    assert tf.train.latest_checkpoint(hook_dir).endswith("model.ckpt-7")
    np.testing.assert_array_equal(
        tf.train.load_variable(hook_dir, "dense/kernel"),
        estimator.get_variable_value("dense/kernel"),
    )


def test_final_ops_hook(estimator):
    estimator.train(dataset_input_fn(repeat=True), steps=2)

    class Final(est.SessionRunHook):
        def begin(self):
            self.inner = est.FinalOpsHook(tf.compat.v1.train.get_global_step())

        def end(self, session):
            self.inner.end(session)

    final = Final()
    estimator.evaluate(dataset_input_fn(), hooks=[final])
    assert final.inner.final_ops_values == 2


def test_keras_callbacks_can_be_passed_as_hooks(estimator):
    class Count(keras.callbacks.Callback):
        batches = 0

        def on_train_batch_end(self, batch, logs=None):
            Count.batches += 1
            assert "loss" in logs

    estimator.train(dataset_input_fn(repeat=True), steps=5, hooks=[Count()])
    assert Count.batches >= 1

    class Seen(keras.callbacks.Callback):
        events = []

        def on_test_batch_end(self, batch, logs=None):
            Seen.events.append("test")

        def on_predict_batch_end(self, batch, logs=None):
            Seen.events.append(len(logs["class"]))

    estimator.evaluate(dataset_input_fn(), hooks=[Seen()])
    list(estimator.predict(dataset_input_fn(n=20, batch=8), hooks=[Seen()]))
    assert Seen.events == ["test"] * 4 + [8, 8, 4], "one test batch per evaluated batch"
    est.TrainSpec(dataset_input_fn(), hooks=[Seen()])


class RaisesAt(est.SessionRunHook):
    """Raises in `after_run` of its `at`-th step, or in `end`."""

    def __init__(self, at=None):
        self.at, self.runs = at, 0

    def after_run(self, run_context, run_values):
        self.runs += 1
        if self.runs == self.at:
            raise RuntimeError("hook failed")

    def end(self, session):
        if self.at is None:
            raise RuntimeError("hook failed at end")


def test_a_hook_raising_in_after_run_comes_after_that_steps_checkpoint(model_dir):
    # The original's CheckpointSaverHook ran before the user's hooks (measured
    # with 2.15: 3 steps trained, model.ckpt-3 written, then the error).
    config = est.RunConfig(save_checkpoints_steps=1)
    estimator = est.Estimator(classifier_model_fn, model_dir, config=config, params={})
    with pytest.raises(RuntimeError, match="hook failed"):
        estimator.train(dataset_input_fn(repeat=True), steps=5, hooks=[RaisesAt(3)])
    assert estimator.latest_checkpoint().endswith("model.ckpt-3")


def test_a_hook_raising_in_end_comes_after_the_final_checkpoint(model_dir):
    # The original's CheckpointSaverHook.end wrote the final checkpoint before
    # the user's hooks ended (2.15: model.ckpt-5, then the error).
    estimator = est.Estimator(classifier_model_fn, model_dir, params={})
    with pytest.raises(RuntimeError, match="hook failed at end"):
        estimator.train(dataset_input_fn(repeat=True), steps=5, hooks=[RaisesAt()])
    assert estimator.latest_checkpoint().endswith("model.ckpt-5")


def test_a_nan_loss_is_found_after_that_steps_checkpoint(model_dir):
    # The original's NanTensorHook came after its CheckpointSaverHook: with
    # save_checkpoints_steps=1 and a NaN loss in the step from global step 2,
    # 2.15 wrote model.ckpt-3 and then raised.
    def model_fn(features, labels, mode):
        spec = classifier_model_fn(features, labels, mode, {})
        step = tf.compat.v1.train.get_global_step()
        loss = tf.where(step >= 2, tf.constant(np.nan), spec.loss)
        return spec._replace(loss=loss)

    config = est.RunConfig(save_checkpoints_steps=1)
    estimator = est.Estimator(model_fn, model_dir, config=config)
    with pytest.raises(est.NanLossDuringTrainingError):
        estimator.train(dataset_input_fn(repeat=True), steps=5)
    assert estimator.latest_checkpoint().endswith("model.ckpt-3")


def test_a_nan_loss_inside_a_call_of_many_steps_stops_training_there(model_dir):
    # A NaN loss at one step whose update is finite (the NaN is in the loss
    # only): 2.15 raised at that step and kept model.ckpt-0. The steps of one
    # call here once ran on past it, saved model.ckpt-10 and raised nothing.
    def model_fn(features, labels, mode):
        spec = classifier_model_fn(features, labels, mode, {})
        step = tf.compat.v1.train.get_global_step()
        loss = spec.loss + tf.where(tf.equal(step, 2), np.float32(np.nan), 0.0)
        return spec._replace(loss=loss)

    config = est.RunConfig(save_checkpoints_steps=5)
    estimator = est.Estimator(model_fn, model_dir, config=config)
    with pytest.raises(est.NanLossDuringTrainingError):
        estimator.train(dataset_input_fn(repeat=True), steps=10)
    assert estimator.latest_checkpoint().endswith("model.ckpt-0")


class _CountingHook(est.SessionRunHook):
    def __init__(self):
        self.after_runs = 0

    def after_run(self, run_context, run_values):
        self.after_runs += 1


def test_train_hooks_see_the_nan_step_and_the_specs_hooks_do_not(model_dir):
    # The original ran the NaN check between the hooks given to train() and
    # the EstimatorSpec's training_hooks.
    spec_hook = _CountingHook()

    def model_fn(features, labels, mode):
        spec = classifier_model_fn(features, labels, mode, {})
        poisoned = tf.cond(
            tf.compat.v1.train.get_global_step() >= 1, lambda: np.float32(np.nan), lambda: spec.loss
        )
        return spec._replace(loss=poisoned, training_hooks=[spec_hook])

    train_hook = _CountingHook()
    estimator = est.Estimator(model_fn, model_dir=model_dir)
    with pytest.raises(est.NanLossDuringTrainingError):
        estimator.train(dataset_input_fn(repeat=True), steps=5, hooks=[train_hook])
    assert (train_hook.after_runs, spec_hook.after_runs) == (2, 1)


class _OrderHook(est.SessionRunHook):
    """Notes `begin` and `after_create_session`: the checkpoints then on disk
    and the global step the session holds."""

    def __init__(self, name, events, model_dir):
        self.name, self.events, self.model_dir = name, events, model_dir

    def _checkpoints(self):
        return sorted(os.path.basename(p) for p in glob.glob(f"{self.model_dir}/model.ckpt*index"))

    def begin(self):
        self.events.append((self.name, "begin", self._checkpoints()))

    def after_create_session(self, session, coord):
        step = int(session.run(tf.compat.v1.train.get_global_step()))
        self.events.append((self.name, "after_create_session", self._checkpoints(), step))


class _OrderListener(est.CheckpointSaverListener):
    def __init__(self, events):
        self.events = events

    def begin(self):
        self.events.append(("listener", "begin"))

    def before_save(self, session, global_step_value):
        self.events.append(("listener", "before_save", global_step_value))


def test_hooks_begin_before_the_session_and_follow_the_first_checkpoint(model_dir):
    """Recorded with tensorflow-estimator 2.15 (the same hooks and listener,
    train(steps=2) then evaluate): every hook begins before the variables get
    values, and `after_create_session` follows the step-0 checkpoint."""
    events = []

    def model_fn(features, labels, mode):
        spec = classifier_model_fn(features, labels, mode, {})
        return spec._replace(
            training_hooks=[_OrderHook("spec", events, model_dir)],
            evaluation_hooks=[_OrderHook("spec_eval", events, model_dir)],
        )

    estimator = est.Estimator(model_fn, model_dir=model_dir)
    estimator.train(
        dataset_input_fn(repeat=True),
        hooks=[_OrderHook("train_arg", events, model_dir)],
        steps=2,
        saving_listeners=[_OrderListener(events)],
    )
    estimator.evaluate(dataset_input_fn(), hooks=[_OrderHook("eval_arg", events, model_dir)])
    both = ["model.ckpt-0.index", "model.ckpt-2.index"]
    assert events == [
        ("listener", "begin"),
        ("train_arg", "begin", []),
        ("spec", "begin", []),
        ("listener", "before_save", 0),
        ("train_arg", "after_create_session", ["model.ckpt-0.index"], 0),
        ("spec", "after_create_session", ["model.ckpt-0.index"], 0),
        ("listener", "before_save", 2),
        ("eval_arg", "begin", both),
        ("spec_eval", "begin", both),
        ("eval_arg", "after_create_session", both, 2),
        ("spec_eval", "after_create_session", both, 2),
    ]


class _RefusingHook(est.SessionRunHook):
    def begin(self):
        raise ValueError("refused in begin")


def test_a_hook_refuses_in_begin_before_the_scaffold_is_checked(model_dir):
    """The original began the hooks before it ran the Scaffold's init_op and
    checked that every variable had a value."""

    def model_fn(features, labels, mode):
        spec = classifier_model_fn(features, labels, mode, {})
        step = tf.compat.v1.train.get_global_step()
        return spec._replace(scaffold=tf.compat.v1.train.Scaffold(init_op=step.initializer))

    estimator = est.Estimator(model_fn, model_dir=model_dir)
    with pytest.raises(ValueError, match="refused in begin"):
        estimator.train(dataset_input_fn(repeat=True), hooks=[_RefusingHook()], steps=1)
