"""What model_fns put in their EstimatorSpec runs as in the original (TF 2.15).

Each case was run with tensorflow-estimator 2.15 first; the comments say what
it did there.
"""

import glob
import logging
import os

import numpy as np
import pytest
import tensorflow as tf

import tfestimator_compat as est

X = np.arange(16, dtype=np.float32).reshape(8, 2) / 10
Y = (X[:, :1] > 0.7).astype(np.float32)


def input_fn():
    return tf.data.Dataset.from_tensor_slices(({"x": X}, Y)).batch(4)


def repeated_input_fn():
    return input_fn().repeat()


def linear(features, labels, mode):
    w = tf.compat.v1.get_variable("w", [2, 1], initializer=tf.compat.v1.ones_initializer())
    logits = tf.matmul(features["x"], w)
    loss = None if labels is None else tf.reduce_mean(tf.square(logits - labels))
    train_op = None
    if mode == est.ModeKeys.TRAIN:
        optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.1)
        train_op = optimizer.minimize(loss, tf.compat.v1.train.get_global_step())
    return w, logits, loss, train_op


def test_logging_tensor_hook_given_a_list_of_tensors(tmp_path, caplog):
    # 2.15: trains, logging each tensor by its name.
    def model_fn(features, labels, mode):
        w, logits, loss, train_op = linear(features, labels, mode)
        total = tf.reduce_sum(w, name="total_weight")
        hook = tf.compat.v1.train.LoggingTensorHook([loss, total], every_n_iter=1)
        return est.EstimatorSpec(mode, loss=loss, train_op=train_op, training_hooks=[hook])

    estimator = est.Estimator(model_fn, str(tmp_path))
    with caplog.at_level(logging.INFO, logger="tensorflow"):
        estimator.train(repeated_input_fn, steps=3)
    assert estimator.get_variable_value("global_step") == 3
    logged = [r.getMessage() for r in caplog.records if "total_weight" in r.getMessage()]
    assert len(logged) == 3, "one line per step"
    assert 'Tensor("total_weight:0", shape=(), dtype=float32) = 2.0' in logged[0]
    assert not isinstance(tf.constant(1.0) == 1.0, bool), "element-wise equality is back"


def variable_loss_model_fn(features, labels, mode):
    w, logits, loss, train_op = linear(features, labels, mode)
    scale = tf.compat.v1.get_variable("scale", [], initializer=tf.compat.v1.ones_initializer())
    if mode == est.ModeKeys.TRAIN:
        loss = scale  # a variable as the loss: 2.15 read it
    return est.EstimatorSpec(mode, loss=loss, train_op=train_op, predictions={"w": w})


def test_a_variable_as_loss_trains_and_as_prediction_in_predict_is_refused(tmp_path):
    estimator = est.Estimator(variable_loss_model_fn, str(tmp_path))
    estimator.train(repeated_input_fn, steps=2)
    assert estimator.get_variable_value("global_step") == 2
    assert estimator.evaluate(input_fn)["loss"] > 0
    # 2.15: ValueError "Prediction output value must be a Tensor; got <tf.Variable ...>".
    with pytest.raises(ValueError, match="Prediction output value must be a Tensor"):
        next(estimator.predict(input_fn))


def test_a_spec_with_mode_none_from_a_model_fn_of_features_only(tmp_path):
    # 2.15: predicts; the spec's mode was never checked.
    def model_fn(features):
        w = tf.compat.v1.get_variable("w", [2, 1], initializer=tf.compat.v1.ones_initializer())
        return est.EstimatorSpec(mode=None, predictions=tf.matmul(features["x"], w))

    predictions = list(est.Estimator(model_fn, str(tmp_path)).predict(input_fn))
    np.testing.assert_allclose(np.ravel(predictions), X.sum(axis=1), rtol=1e-6)


def test_metric_values_may_be_nested_tuples(tmp_path):
    # 2.15: {'nt': (2.0, 1), ...}
    def model_fn(features, labels, mode):
        w, logits, loss, train_op = linear(features, labels, mode)
        value = (tf.constant(2.0), tf.constant(1))
        metrics = {"nt": (value, tf.constant(3.0))}
        return est.EstimatorSpec(mode, loss=loss, train_op=train_op, eval_metric_ops=metrics)

    results = est.Estimator(model_fn, str(tmp_path)).evaluate(input_fn)
    assert tuple(results["nt"]) == (2.0, 1)
    assert results["loss"] == pytest.approx(1.29, abs=1e-6)


def test_a_summary_proto_metric_is_written_to_the_eval_events(tmp_path):
    # 2.15: results has 'image'; eval/ events hold an image under 'image/0'.
    def model_fn(features, labels, mode):
        w, logits, loss, train_op = linear(features, labels, mode)
        image = tf.compat.v1.summary.image("img", tf.reshape(w, [1, 1, 2, 1]), max_outputs=1)
        metrics = {"image": (image, tf.no_op())}
        return est.EstimatorSpec(mode, loss=loss, train_op=train_op, eval_metric_ops=metrics)

    estimator = est.Estimator(model_fn, str(tmp_path))
    results = estimator.evaluate(input_fn)
    assert sorted(results) == ["global_step", "image", "loss"]
    values = {}
    for path in glob.glob(os.path.join(tmp_path, "eval", "events.out.tfevents.*")):
        for event in tf.compat.v1.train.summary_iterator(path):
            for value in event.summary.value:
                values[value.tag] = value.WhichOneof("value")
    assert values.get("image/0") == "image"
    assert values.get("loss") == "simple_value"


def test_a_metric_named_global_step_is_refused(tmp_path):
    # 2.15: ValueError "Metric with name `global_step` is not allowed, ...".
    def model_fn(features, labels, mode):
        w, logits, loss, train_op = linear(features, labels, mode)
        metrics = {"global_step": tf.compat.v1.metrics.mean(loss)}
        return est.EstimatorSpec(mode, loss=loss, train_op=train_op, eval_metric_ops=metrics)

    with pytest.raises(ValueError, match="Metric with name `global_step` is not allowed"):
        est.Estimator(model_fn, str(tmp_path)).evaluate(input_fn)


@pytest.mark.parametrize("where", ["made_in_model_fn", "made_outside"])
def test_a_keras_metric_never_updated_is_refused(tmp_path, where):
    # 2.15: ValueError 'Please call update_state(...) on the "mean" metric', both ways.
    outside = tf.keras.metrics.Mean()

    def model_fn(features, labels, mode):
        w, logits, loss, train_op = linear(features, labels, mode)
        metric = tf.keras.metrics.Mean() if where == "made_in_model_fn" else outside
        metrics = {"never": metric}
        return est.EstimatorSpec(mode, loss=loss, train_op=train_op, eval_metric_ops=metrics)

    with pytest.raises(ValueError, match=r"Please call update_state\(...\) on the"):
        est.Estimator(model_fn, str(tmp_path)).evaluate(input_fn)
