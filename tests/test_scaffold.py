"""A Scaffold returned in a spec is honoured as the original honoured it."""

import numpy as np
import pytest
import tensorflow as tf

import tfestimator_compat as est

X = np.arange(16, dtype=np.float32).reshape(8, 2) / 10
Y = (X[:, :1] > 0.7).astype(np.float32)
PRETRAINED = np.array([[3.0], [-2.0]], np.float32)


def input_fn():
    return tf.data.Dataset.from_tensor_slices(({"x": X}, Y)).batch(4)


@pytest.fixture
def pretrained_checkpoint(tmp_path):
    """A TF1 checkpoint holding `pretrained/w`, as another program wrote it."""
    variable = tf.Variable(PRETRAINED)
    saver = tf.compat.v1.train.Saver({"pretrained/w": variable})
    return saver.save(None, str(tmp_path / "pretrained" / "model.ckpt"))


def model_fn_loading(checkpoint, calls):
    def model_fn(features, labels, mode):
        w = tf.compat.v1.get_variable("w", [2, 1], initializer=tf.compat.v1.zeros_initializer())
        logits = tf.matmul(features["x"], w)
        saver = tf.compat.v1.train.Saver({"pretrained/w": w})

        def init_fn(scaffold, session):
            calls.append(mode)
            saver.restore(session, checkpoint)

        scaffold = tf.compat.v1.train.Scaffold(init_fn=init_fn)
        if mode == est.ModeKeys.PREDICT:
            return est.EstimatorSpec(mode, predictions=logits, scaffold=scaffold)
        loss = tf.reduce_mean(tf.square(logits - labels))
        optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.0)
        train_op = optimizer.minimize(loss, tf.compat.v1.train.get_global_step())
        return est.EstimatorSpec(mode, loss=loss, train_op=train_op, scaffold=scaffold)

    return model_fn


def test_init_fn_loads_pretrained_weights_when_there_is_no_checkpoint(
    tmp_path, pretrained_checkpoint
):
    calls = []
    estimator = est.Estimator(model_fn_loading(pretrained_checkpoint, calls), str(tmp_path / "m"))
    predictions = np.ravel(list(estimator.predict(input_fn)))
    np.testing.assert_allclose(predictions, X @ PRETRAINED[:, 0], rtol=1e-6)
    estimator.train(lambda: input_fn().repeat(), steps=2)
    np.testing.assert_array_equal(estimator.get_variable_value("w"), PRETRAINED)
    assert calls == [est.ModeKeys.PREDICT, est.ModeKeys.TRAIN]
    # With a checkpoint of its own, the model restores it; init_fn is not called.
    estimator.train(lambda: input_fn().repeat(), steps=2)
    estimator.evaluate(input_fn)
    assert calls == [est.ModeKeys.PREDICT, est.ModeKeys.TRAIN]


def test_hooks_session_run_feeds_placeholders(tmp_path):
    seen = []

    class FeedingHook(tf.compat.v1.train.SessionRunHook):
        def begin(self):
            self.scale = tf.compat.v1.get_default_graph().get_tensor_by_name("scale:0")
            self.scaled = tf.compat.v1.get_default_graph().get_tensor_by_name("scaled:0")

        def end(self, session):
            seen.append(session.run(self.scaled, feed_dict={self.scale: 10.0}))
            seen.append(session.run("scaled:0", feed_dict={"scale:0": 2.0}))

    def model_fn(features, labels, mode):
        w = tf.compat.v1.get_variable("w", [], initializer=tf.compat.v1.ones_initializer())
        scale = tf.compat.v1.placeholder_with_default(1.0, [], name="scale")
        tf.multiply(w, scale, name="scaled")
        loss = tf.reduce_mean(features["x"]) * w
        optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.0)
        train_op = optimizer.minimize(loss, tf.compat.v1.train.get_global_step())
        return est.EstimatorSpec(mode, loss=loss, train_op=train_op)

    estimator = est.Estimator(model_fn, str(tmp_path))
    estimator.train(lambda: input_fn().repeat(), steps=1, hooks=[FeedingHook()])
    assert seen == [10.0, 2.0]


def model_fn_with_saver(make_saver):
    def model_fn(features, labels, mode):
        w = tf.compat.v1.get_variable("w", [2, 1], initializer=tf.compat.v1.ones_initializer())
        logits = tf.matmul(features["x"], w)
        scaffold = tf.compat.v1.train.Scaffold(saver=make_saver(w))
        if mode == est.ModeKeys.PREDICT:
            return est.EstimatorSpec(mode, predictions=logits, scaffold=scaffold)
        loss = tf.reduce_mean(tf.square(logits - labels))
        optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.1)
        train_op = optimizer.minimize(loss, tf.compat.v1.train.get_global_step())
        return est.EstimatorSpec(mode, loss=loss, train_op=train_op, scaffold=scaffold)

    return model_fn


def test_a_scaffold_saver_decides_keys_and_how_many_checkpoints_are_kept(tmp_path):
    def renaming_saver(w):
        step = tf.compat.v1.train.get_global_step()
        return tf.compat.v1.train.Saver({"renamed/w": w, "global_step": step}, max_to_keep=2)

    model_dir = str(tmp_path)
    config = est.RunConfig(model_dir=model_dir, save_checkpoints_steps=1)
    estimator = est.Estimator(model_fn_with_saver(renaming_saver), config=config)
    estimator.train(lambda: input_fn().repeat(), steps=4)
    latest = estimator.latest_checkpoint()
    keys = {name for name, _ in tf.train.list_variables(latest)}
    assert keys == {"renamed/w", "global_step"}
    state = tf.train.get_checkpoint_state(model_dir)
    assert len(state.all_model_checkpoint_paths) == 2, "the Saver's max_to_keep, not 5"
    # Evaluate and predict restore through the same keys.
    trained_w = tf.train.load_variable(latest, "renamed/w")
    predictions = np.ravel(list(estimator.predict(input_fn)))
    np.testing.assert_allclose(predictions, X @ trained_w[:, 0], rtol=1e-6)
    assert estimator.evaluate(input_fn)["global_step"] == 4
    # And training resumes from them.
    estimator.train(lambda: input_fn().repeat(), steps=1)
    assert tf.train.load_variable(estimator.latest_checkpoint(), "global_step") == 5


class _RecordingSaver:
    """A saver of its own class around a TF1 Saver, as users wrap one to log or retry."""

    def __init__(self):
        self._saver = tf.compat.v1.train.Saver()
        self.saver_def = self._saver.saver_def
        self.restored = []

    def restore(self, sess, save_path):
        self.restored.append(save_path)
        self._saver.restore(sess, save_path)

    def save(self, *args, **kwargs):
        return self._saver.save(*args, **kwargs)


def test_a_custom_scaffold_saver_restores_for_evaluate_and_predict(tmp_path):
    savers = []

    def model_fn(features, labels, mode):
        weight = tf.Variable(1.0, name="weight")
        savers.append(_RecordingSaver())
        step = tf.compat.v1.assign_add(tf.compat.v1.train.get_global_step(), 1)
        with tf.control_dependencies([step]):
            train_op = tf.compat.v1.assign_add(weight, 2.0)
        return est.EstimatorSpec(
            mode,
            predictions=weight * tf.ones_like(features["x"]),
            loss=tf.constant(0.0),
            train_op=train_op,
            eval_metric_ops={"weight": (tf.identity(weight), tf.no_op())},
            scaffold=tf.compat.v1.train.Scaffold(saver=savers[-1]),
        )

    def input_fn():
        return tf.data.Dataset.from_tensors(({"x": [[1.0]]}, [[1.0]]))

    estimator = est.Estimator(model_fn, model_dir=str(tmp_path))
    estimator.train(input_fn, steps=1)
    checkpoint = estimator.latest_checkpoint()
    assert estimator.evaluate(input_fn, steps=1)["weight"] == 3.0
    assert savers[-1].restored == [checkpoint]
    assert next(estimator.predict(input_fn)) == [3.0]
    assert savers[-1].restored == [checkpoint]
