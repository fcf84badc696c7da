"""The input_fn's graph and Session, as the original's shared graph and Session were seen.

The original ran the input_fn's ops in the Session that ran the model_fn, so
(1) tensors whose ops hold state (`limit_epochs`, random ops) took new values
at every step and ended the loop with `OutOfRangeError`, and (2) hooks ran the
input's ops: the "IteratorInitializerHook" feeds NumPy arrays to an
initializable iterator in `after_create_session`.

Numbers marked "the original" were printed by tensorflow-estimator 2.15
(tensorflow-cpu 2.15.1) running the same input_fn and `model_fn` as here.
"""

import logging

import numpy as np
import pytest
import tensorflow as tf

import tfestimator_compat as est

v1 = tf.compat.v1
X = (np.arange(30, dtype=np.float32).reshape(10, 3) % 7) / 7.0
Y = (X.sum(axis=1) > 1.2).astype(np.float32)


def model_fn(features, labels, mode, params):
    x = features["x"] if isinstance(features, dict) else features
    w = v1.get_variable("w", [3, 1], initializer=v1.zeros_initializer())
    logits = tf.matmul(x, w)[:, 0]
    spec_hooks = params.get("spec_hooks", lambda: [])()
    if mode == est.ModeKeys.PREDICT:
        return est.EstimatorSpec(mode, predictions={"logits": logits}, prediction_hooks=spec_hooks)
    loss = tf.reduce_mean(tf.square(logits - labels))
    train_op = v1.train.GradientDescentOptimizer(0.5).minimize(
        loss, global_step=v1.train.get_global_step()
    )
    return est.EstimatorSpec(
        mode,
        loss=loss,
        train_op=train_op,
        training_hooks=spec_hooks,
        evaluation_hooks=spec_hooks,
    )


def train_evaluate_predict(model_dir, input_fn, hooks=lambda: [], params=None, config=None):
    """Trains and evaluates to the end of input, predicts all; returns the numbers."""
    model = est.Estimator(model_fn, model_dir, config=config, params=params or {})
    model.train(input_fn, hooks=hooks())
    results = model.evaluate(input_fn, hooks=hooks())
    batches = model.predict(input_fn, hooks=hooks(), yield_single_examples=False)
    logits = np.concatenate([batch["logits"] for batch in batches])
    return {
        "global_step": int(results["global_step"]),
        "loss": float(results["loss"]),
        "predictions": len(logits),
        "sum_of_logits": float(logits.sum()),
    }


def dataset_input_fn():
    return tf.data.Dataset.from_tensor_slices(({"x": X}, Y)).batch(4)


# --- Tensors whose ops hold state run per batch, and end at OutOfRangeError ---


def test_limit_epochs_tensors_end_train_evaluate_and_predict(model_dir):
    def input_fn():
        x = v1.train.limit_epochs(tf.constant(X), num_epochs=2)
        y = v1.train.limit_epochs(tf.constant(Y), num_epochs=2)
        return {"x": x}, y

    numbers = train_evaluate_predict(model_dir, input_fn)
    # The original: two epochs of one batch each, in every mode.
    assert numbers["global_step"] == 2
    assert numbers["loss"] == pytest.approx(0.09879425168037415, rel=1e-5)
    assert numbers["predictions"] == 20
    assert numbers["sum_of_logits"] == pytest.approx(9.549213409423828, rel=1e-5)


def test_random_tensors_take_new_values_at_every_step(model_dir):
    def input_fn():
        return {"x": tf.random.uniform([4, 3])}, tf.ones([4])

    model = est.Estimator(model_fn, model_dir, config=est.RunConfig(tf_random_seed=3))
    model.train(input_fn, steps=3)
    loss = model.evaluate(input_fn, steps=2)["loss"]
    batches = model.predict(input_fn, yield_single_examples=False)
    sums = [float(next(batches)["logits"].sum()) for _ in range(2)]
    # The original's numbers with tf_random_seed=3.
    assert sums == pytest.approx([3.826636552810669, 3.896639823913574], rel=1e-5)
    assert loss == pytest.approx(0.025481894612312317, rel=1e-4)
    np.testing.assert_allclose(
        model.get_variable_value("w").ravel(),
        [0.6086750626564026, 0.5246326923370361, 0.6206490397453308],
        rtol=1e-5,
    )


def test_pure_tensors_stay_on_the_fast_route(model_dir):
    model = est.Estimator(model_fn, model_dir)
    inputs = model._call_input_fn(lambda: ({"x": tf.constant(X) * 2.0}, Y), est.ModeKeys.TRAIN)
    assert not inputs.reads_through_a_session


# --- Hooks run the input's ops on the Session the batches are read from ---


class IteratorInitializerHook(v1.train.SessionRunHook):
    """The well-known pattern: the input_fn sets the function the hook calls."""

    def __init__(self):
        self.iterator_initializer_func = None

    def after_create_session(self, session, coord):
        self.iterator_initializer_func(session)


class InitializeInBeginHook(v1.train.SessionRunHook):
    """The variant that takes the initializer in `begin()`."""

    def __init__(self):
        self.initializer = None
        self.feed_dict = None

    def begin(self):
        self._run = (self.initializer, self.feed_dict)

    def after_create_session(self, session, coord):
        session.run(self._run[0], feed_dict=self._run[1])


def placeholder_input(hooks):
    """An input_fn over placeholders, fed by the latest hook of `hooks`."""

    def input_fn():
        x = v1.placeholder(tf.float32, X.shape)
        y = v1.placeholder(tf.float32, Y.shape)
        dataset = tf.data.Dataset.from_tensor_slices(({"x": x}, y)).batch(4)
        iterator = v1.data.make_initializable_iterator(dataset)
        hook = hooks[-1]
        if isinstance(hook, IteratorInitializerHook):
            hook.iterator_initializer_func = lambda session: session.run(
                iterator.initializer, feed_dict={x: X, y: Y}
            )
        else:
            hook.initializer, hook.feed_dict = iterator.initializer, {x: X, y: Y}
        return iterator.get_next()

    return input_fn


@pytest.fixture(scope="module")
def dataset_numbers(tmp_path_factory):
    return train_evaluate_predict(str(tmp_path_factory.mktemp("dataset")), dataset_input_fn)


@pytest.mark.slow
@pytest.mark.parametrize("hook_class", [IteratorInitializerHook, InitializeInBeginHook])
def test_hooks_passed_to_each_call_feed_the_input(model_dir, dataset_numbers, hook_class):
    made = []

    def hooks():
        made.append(hook_class())
        return [made[-1]]

    numbers = train_evaluate_predict(model_dir, placeholder_input(made), hooks)
    assert numbers == pytest.approx(dataset_numbers, rel=1e-6)
    # The original's numbers for the same data as a Dataset.
    assert numbers["loss"] == pytest.approx(0.08197014778852463, rel=1e-5)


@pytest.mark.slow
def test_hooks_of_the_estimator_spec_feed_the_input(model_dir, dataset_numbers):
    made = []

    def spec_hooks():
        # The model_fn is called after the input_fn: its hook is the one the input_fn set.
        return [made[-1]]

    def input_fn():
        made.append(IteratorInitializerHook())
        return placeholder_input(made)()

    numbers = train_evaluate_predict(model_dir, input_fn, params={"spec_hooks": spec_hooks})
    assert numbers == pytest.approx(dataset_numbers, rel=1e-6)


def test_hooks_initialize_an_iterator_read_without_a_session(model_dir, dataset_numbers):
    made = []

    class InitializerHook(v1.train.SessionRunHook):
        def after_create_session(self, session, coord):
            session.run(self.initializer)

    def hooks():
        made.append(InitializerHook())
        return [made[-1]]

    def input_fn():
        iterator = v1.data.make_initializable_iterator(dataset_input_fn())
        made[-1].initializer = iterator.initializer
        return iterator.get_next()

    numbers = train_evaluate_predict(model_dir, input_fn, hooks)
    assert numbers == pytest.approx(dataset_numbers, rel=1e-6)


def test_the_input_session_opens_before_hooks_run(model_dir):
    """The hook's initializer runs before the first batch is read, even read ahead."""
    seen = []

    class CountingHook(v1.train.SessionRunHook):
        def after_create_session(self, session, coord):
            seen.append(session.run(self.counter))

    hook = CountingHook()

    def input_fn():
        counter = v1.Variable(0, name="batches", collections=[v1.GraphKeys.LOCAL_VARIABLES])
        hook.counter = counter
        x = v1.train.limit_epochs(tf.constant(X), num_epochs=3)
        with tf.control_dependencies([counter.assign_add(1)]):
            return {"x": tf.identity(x)}, tf.constant(Y)

    model = est.Estimator(model_fn, model_dir)
    model.train(input_fn, hooks=[hook])
    assert seen == [0]
    assert model.get_variable_value("global_step") == 3


# --- No warnings of the package's own making ---


def test_a_table_after_get_next_gives_no_queue_runner_warnings(model_dir):
    def input_fn():
        labels = np.array(["no", "yes"])[Y.astype(np.int64)]
        dataset = tf.data.Dataset.from_tensor_slices(({"x": X}, labels)).batch(4)
        features, names = v1.data.make_one_shot_iterator(dataset).get_next()
        table = v1.lookup.StaticHashTable(
            v1.lookup.KeyValueTensorInitializer(["no", "yes"], [0.0, 1.0]), -1.0
        )
        return features, table.lookup(names)

    messages = []
    handler = logging.Handler(logging.WARNING)
    handler.emit = lambda record: messages.append(record.getMessage())
    tf.get_logger().addHandler(handler)
    try:
        est.Estimator(model_fn, model_dir).train(input_fn, steps=2)
    finally:
        tf.get_logger().removeHandler(handler)
    assert not [message for message in messages if "queue_runners" in message]


def test_before_run_fetches_of_the_input_run_on_its_session(model_dir):
    seen = []

    class ReadInputVariableHook(v1.train.SessionRunHook):
        def before_run(self, run_context):
            return v1.train.SessionRunArgs(self.scale)

        def after_run(self, run_context, run_values):
            seen.append(run_values.results)

    hook = ReadInputVariableHook()

    def input_fn():
        hook.scale = v1.Variable(7.0, name="scale", collections=[v1.GraphKeys.LOCAL_VARIABLES])
        x = v1.train.limit_epochs(tf.constant(X), num_epochs=2)
        return {"x": x * hook.scale}, tf.constant(Y)

    est.Estimator(model_fn, model_dir).train(input_fn, hooks=[hook])
    assert seen == [7.0, 7.0]


def test_at_the_end_of_input_the_ops_that_need_no_batch_still_run(model_dir):
    """The original's last run of the train op failed at the read of the batch,
    after the ops no batch fed had run: a global step and a counter advanced
    by `assign_add`s of their own end at 4 after 3 batches (the original, three
    runs alike); the optimizer's update, fed by the batch, ran 3 times."""

    def counting_model_fn(features, labels, mode):
        w = v1.get_variable("w", [3, 1], initializer=v1.zeros_initializer())
        loss = tf.reduce_mean(tf.square(tf.matmul(features, w)[:, 0] - labels))
        counter = v1.get_variable("counter", [], tf.int64, v1.zeros_initializer(), trainable=False)
        applied = v1.get_variable("applied", [], tf.int64, v1.zeros_initializer(), trainable=False)
        minimize = v1.train.GradientDescentOptimizer(0.1).minimize(loss)
        with tf.control_dependencies([minimize]):
            count_applied = applied.assign_add(1)
        train_op = tf.group(
            count_applied,
            v1.assign_add(v1.train.get_global_step(), 1),
            counter.assign_add(1),
        )
        return est.EstimatorSpec(mode, loss=loss, train_op=train_op)

    model = est.Estimator(counting_model_fn, model_dir)
    model.train(lambda: tf.data.Dataset.from_tensor_slices((X[:6], Y[:6])).batch(2))
    assert model.get_variable_value("global_step") == 4
    assert model.get_variable_value("counter") == 4
    assert model.get_variable_value("applied") == 3
    # Stopped by steps, no run found the input at its end.
    model.train(lambda: tf.data.Dataset.from_tensor_slices((X, Y)).batch(2).repeat(), steps=2)
    assert model.get_variable_value("global_step") == 6
    assert model.get_variable_value("applied") == 5


# --- Hooks fetching the tensors the input_fn returned get the step's batch ---


class RecordBatchHook(v1.train.SessionRunHook):
    """Fetches what the input_fn returned (set there), as `SessionRunArgs`."""

    def __init__(self):
        self.seen = []

    def before_run(self, run_context):
        return v1.train.SessionRunArgs({"x": self.x, "y": self.y})

    def after_run(self, run_context, run_values):
        self.seen.append(run_values.results)


def queue_input(hook):
    """Read by a Session (queue runners): X in batches of 4, doubled."""

    def input_fn():
        x, y = v1.train.slice_input_producer([X, Y], num_epochs=1, shuffle=False)
        x, y = v1.train.batch([x, y], batch_size=4, num_threads=1, allow_smaller_final_batch=True)
        features = {"x": x * 2.0}
        hook.x, hook.y = features["x"], y
        return features, y

    return input_fn


def iterator_input(hook):
    """A TF1 iterator's batches, doubled after get_next() (a map over the dataset)."""

    def input_fn():
        dataset = tf.data.Dataset.from_tensor_slices(({"x": X}, Y)).batch(4)
        features, labels = v1.data.make_one_shot_iterator(dataset).get_next()
        features = {"x": features["x"] * 2.0}
        hook.x, hook.y = features["x"], labels
        return features, labels

    return input_fn


@pytest.mark.parametrize("make_input", [queue_input, iterator_input])
def test_a_hook_fetching_the_returned_batch_sees_the_batch_each_step_consumed(make_input, tmp_path):
    """The original (both inputs alike): the hook saw X[0:4], X[4:8], X[8:10]
    doubled with their labels in train and evaluate, and the model trained
    on all three batches: global_step 3, eval loss 3.2290065, as without it."""
    without = RecordBatchHook()
    plain = est.Estimator(model_fn, str(tmp_path / "plain"))
    plain.train(make_input(without))
    plain_loss = plain.evaluate(make_input(without))["loss"]

    model = est.Estimator(model_fn, str(tmp_path / "hooked"))
    train_hook, eval_hook = RecordBatchHook(), RecordBatchHook()
    model.train(make_input(train_hook), hooks=[train_hook])
    results = model.evaluate(make_input(eval_hook), hooks=[eval_hook])
    assert results["global_step"] == 3
    assert results["loss"] == pytest.approx(plain_loss, rel=1e-6)
    assert results["loss"] == pytest.approx(3.2290065, rel=1e-5)
    np.testing.assert_allclose(
        model.get_variable_value("w"), plain.get_variable_value("w"), rtol=1e-6
    )
    for hook in (train_hook, eval_hook):
        assert len(hook.seen) == 3
        for seen, start in zip(hook.seen, (0, 4, 8)):
            np.testing.assert_allclose(seen["x"], X[start : start + 4] * 2.0)
            np.testing.assert_array_equal(seen["y"], Y[start : start + 4])


@pytest.mark.parametrize("make_input", [queue_input, iterator_input])
def test_a_hook_fetching_the_returned_features_in_predict_sees_each_batch(make_input, model_dir):
    class RecordFeaturesHook(RecordBatchHook):
        def before_run(self, run_context):
            return v1.train.SessionRunArgs(self.x)

    model = est.Estimator(model_fn, model_dir)
    model.train(dataset_input_fn, steps=1)
    hook = RecordFeaturesHook()
    batches = list(model.predict(make_input(hook), hooks=[hook], yield_single_examples=False))
    assert [len(batch["logits"]) for batch in batches] == [4, 4, 2]
    np.testing.assert_allclose(np.concatenate(hook.seen), X * 2.0)
