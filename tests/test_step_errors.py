"""An op failing in a step: its error says what failed and where the program made the op."""

import traceback

import numpy as np
import pytest
import tensorflow as tf

import tfestimator_compat as est


def reshaping_model_fn(features, labels, mode):
    logits = tf.keras.layers.Dense(2)(features["x"])
    bad = tf.reshape(logits, [5, -1])  # a batch of 4 rows holds 8 values
    if mode == est.ModeKeys.PREDICT:
        return est.EstimatorSpec(mode, predictions={"bad": bad})
    loss = tf.reduce_mean(bad)
    step = tf.compat.v1.train.get_global_step()
    train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(loss, step)
    return est.EstimatorSpec(mode, loss=loss, train_op=train_op)


BAD_LINE = reshaping_model_fn.__code__.co_firstlineno + 2


def input_fn():
    x = np.ones((8, 3), np.float32)
    return tf.data.Dataset.from_tensor_slices(({"x": x}, x[:, 0])).batch(4)


@pytest.mark.parametrize("call", ["train", "evaluate", "predict"])
def test_the_error_leads_with_the_ops_message_and_the_programs_line(model_dir, call):
    estimator = est.Estimator(reshaping_model_fn, model_dir=model_dir)
    runs = {
        "train": lambda: estimator.train(input_fn, steps=1),
        "evaluate": lambda: estimator.evaluate(input_fn, steps=1),
        "predict": lambda: list(estimator.predict(input_fn)),
    }
    if call != "train":
        with pytest.raises(tf.errors.InvalidArgumentError):
            estimator.train(input_fn, steps=1)  # no checkpoint: evaluate from initial values
    with pytest.raises(tf.errors.InvalidArgumentError) as raised:
        runs[call]()
    message = str(raised.value)
    assert message.startswith("Input to reshape is a tensor with 8 values"), message
    assert f"{__file__}:{BAD_LINE}, in reshaping_model_fn" in message
    assert "bad = tf.reshape(logits, [5, -1])" in message
    assert "Detected at node" not in message
    # From the program's call (here, the lambda) to the Estimator's, nothing deeper.
    frames = traceback.extract_tb(raised.value.__traceback__)
    assert len(frames) <= 4, traceback.format_list(frames)
