"""New variables get their initial values together, before anything reads them."""

import numpy as np
import pytest
import tensorflow as tf

import tfestimator_compat as est


def train(tmp_path, model_fn):
    estimator = est.Estimator(model_fn, config=est.RunConfig(model_dir=str(tmp_path)))
    estimator.train(lambda: tf.data.Dataset.from_tensors(({"x": [[1.0]]}, [0])), steps=1)
    return estimator


def spec(mode, loss):
    minimize = tf.compat.v1.train.GradientDescentOptimizer(0.0).minimize(
        loss, tf.compat.v1.train.get_global_step()
    )
    return est.EstimatorSpec(mode, loss=loss, train_op=minimize)


def test_an_initializer_reading_an_earlier_variable_reads_its_initial_value(tmp_path):
    def model_fn(features, labels, mode):
        a = tf.compat.v1.get_variable("a", [2], initializer=tf.compat.v1.ones_initializer())
        b = tf.compat.v1.get_variable(
            "b", [2], initializer=lambda shape, dtype, partition_info=None: a.read_value() * 3.0
        )
        # Made at once (no shape given), after `a` and `b` have their values.
        c = tf.compat.v1.Variable(lambda: b.read_value() + 1.0, name="c")
        return spec(mode, tf.reduce_sum(a + b + c) * features["x"][0, 0])

    estimator = train(tmp_path, model_fn)
    np.testing.assert_array_equal(estimator.get_variable_value("b"), [3.0, 3.0])
    np.testing.assert_array_equal(estimator.get_variable_value("c"), [4.0, 4.0])


def test_an_initializer_failing_when_run_names_its_variable_and_leaves_no_zeros(tmp_path):
    calls = []

    def model_fn(features, labels, mode):
        def nan_when_first_called(shape, dtype, partition_info=None):
            calls.append(1)
            value = tf.math.log(-tf.ones(shape)) if len(calls) == 1 else tf.ones(shape)
            return tf.debugging.check_numerics(value, "initial value")

        w = tf.compat.v1.get_variable("w", [2], initializer=nan_when_first_called)
        return spec(mode, tf.reduce_sum(w) * features["x"][0, 0])

    estimator = est.Estimator(model_fn, config=est.RunConfig(model_dir=str(tmp_path)))
    input_fn = lambda: tf.data.Dataset.from_tensors(({"x": [[1.0]]}, [0]))  # noqa: E731
    with pytest.raises(tf.errors.InvalidArgumentError, match="initial value") as raised:
        estimator.train(input_fn, steps=1)
    assert "w/Initializer" in str(raised.value)
    # The next call makes `w` again instead of keeping it at the zeros it started from.
    estimator.train(input_fn, steps=1)
    np.testing.assert_array_equal(estimator.get_variable_value("w"), [1.0, 1.0])


def test_a_variable_initialized_from_a_constant_tensor_gets_its_value(tmp_path):
    def model_fn(features, labels, mode):
        v = tf.compat.v1.Variable(tf.constant([2.0, 5.0]), name="v")
        return spec(mode, tf.reduce_sum(v) * features["x"][0, 0])

    estimator = train(tmp_path, model_fn)
    np.testing.assert_array_equal(estimator.get_variable_value("v"), [2.0, 5.0])


def test_a_variable_initialized_from_a_computed_tensor_is_named_in_the_error(tmp_path):
    def model_fn(features, labels, mode):
        v = tf.compat.v1.Variable(features["x"][0] * 2.0, name="from_features")
        return spec(mode, tf.reduce_sum(v))

    with pytest.raises(ValueError, match="'from_features'.*Pass an initializer"):
        train(tmp_path, model_fn)


def test_a_local_variable_with_an_initializer_starts_each_evaluation_from_its_value(tmp_path):
    # Its initial value is computed when the trace ends (deferred), where the
    # trace's graph is still the default: reading it there once failed.
    def model_fn(features, labels, mode):
        seen = tf.compat.v1.get_variable(
            "seen",
            [],
            initializer=tf.compat.v1.ones_initializer(),
            collections=[tf.compat.v1.GraphKeys.LOCAL_VARIABLES],
            trainable=False,
        )
        count = seen.assign_add(1.0)
        w = tf.compat.v1.get_variable("w", [], initializer=tf.compat.v1.zeros_initializer())
        loss = tf.reduce_sum(features["x"]) * w
        metrics = {"seen": (tf.identity(seen), count)}
        return est.EstimatorSpec(
            mode, loss=loss, train_op=spec(mode, loss).train_op, eval_metric_ops=metrics
        )

    estimator = train(tmp_path, model_fn)
    two_batches = lambda: tf.data.Dataset.from_tensors(({"x": [[1.0]]}, [0])).repeat(2)  # noqa: E731
    assert estimator.evaluate(two_batches)["seen"] == 3.0
    assert estimator.evaluate(two_batches)["seen"] == 3.0
