"""Every form an input_fn may return is read to its end."""

import gc

import numpy as np
import pytest
import tensorflow as tf
from helpers import classifier_model_fn
from helpers import linear_data

import tfestimator_compat as est


def count_steps(model_dir, input_fn):
    estimator = est.Estimator(classifier_model_fn, model_dir=model_dir, params={})
    estimator.train(input_fn)
    return estimator.get_variable_value("global_step")


def test_dataset_of_features_and_labels(model_dir):
    x, y = linear_data(40)
    input_fn = lambda: tf.data.Dataset.from_tensor_slices(({"x": x}, y)).batch(10)  # noqa: E731
    assert count_steps(model_dir, input_fn) == 4


def test_tf1_one_shot_iterator_consumes_the_whole_dataset(model_dir):
    x, y = linear_data(50)

    def input_fn():
        dataset = tf.data.Dataset.from_tensor_slices(({"x": x}, y)).batch(10)
        features, labels = tf.compat.v1.data.make_one_shot_iterator(dataset).get_next()
        return {"x": features["x"] * 1.0}, labels

    assert count_steps(model_dir, input_fn) == 5


def test_tf1_initializable_iterator_with_postprocessing(model_dir):
    x, y = linear_data(30)

    def input_fn():
        dataset = tf.data.Dataset.from_tensor_slices((x, y)).batch(10)
        iterator = tf.compat.v1.data.make_initializable_iterator(dataset)
        tf.compat.v1.add_to_collection(
            tf.compat.v1.GraphKeys.TABLE_INITIALIZERS, iterator.initializer
        )
        features, labels = iterator.get_next()
        return {"x": features}, labels

    assert count_steps(model_dir, input_fn) == 3


def test_tuple_of_tensors_is_fed_every_step(model_dir):
    x, y = linear_data(8)
    estimator = est.Estimator(classifier_model_fn, model_dir=model_dir, params={})
    estimator.train(lambda: ({"x": tf.constant(x)}, tf.constant(y)), steps=3)
    assert estimator.get_variable_value("global_step") == 3
    result = estimator.evaluate(lambda: ({"x": tf.constant(x)}, tf.constant(y)), steps=2)
    assert result["global_step"] == 3


def test_an_input_fn_of_pure_tensor_ops_is_called_once_per_call(model_dir):
    # The original called each input_fn once per train/evaluate/predict, in its graph;
    # a side effect (here a count) shows how often. Pure ops need no second, graph call.
    x, y = linear_data(8)
    calls = []

    def input_fn(mode):
        calls.append(mode)
        features = {"x": tf.cast(tf.constant(x) * 2.0, tf.float32)}
        return features, tf.constant(y)

    estimator = est.Estimator(classifier_model_fn, model_dir=model_dir, params={})
    estimator.train(input_fn, steps=2)
    estimator.evaluate(input_fn, steps=1)
    next(estimator.predict(input_fn))
    assert calls == [est.ModeKeys.TRAIN, est.ModeKeys.EVAL, est.ModeKeys.PREDICT]


def test_an_input_fn_of_random_tensors_still_draws_new_values_every_step(model_dir):
    # A stateful op took a new value at every session.run of the original: such an
    # input_fn is still read by a graph run per batch (it is called a second time).
    def model_fn(features, labels, mode):
        return est.EstimatorSpec(mode, predictions={"x": features["x"]})

    estimator = est.Estimator(model_fn, model_dir=model_dir)
    predictions = estimator.predict(lambda: {"x": tf.random.uniform([1, 1])})
    first, second = next(predictions)["x"], next(predictions)["x"]
    assert first != second


def test_features_only_dataset_for_predict(model_dir):
    x, y = linear_data(12)
    estimator = est.Estimator(classifier_model_fn, model_dir=model_dir, params={})
    predictions = list(
        estimator.predict(lambda: tf.data.Dataset.from_tensor_slices({"x": x}).batch(5))
    )
    assert len(predictions) == 12
    with_labels = lambda: tf.data.Dataset.from_tensor_slices(({"x": x}, y)).batch(5)  # noqa: E731
    assert len(list(estimator.predict(with_labels))) == 12


def test_wrong_tuple_length_is_an_error(model_dir):
    x, y = linear_data(4)
    estimator = est.Estimator(classifier_model_fn, model_dir=model_dir, params={})
    bad = lambda: tf.data.Dataset.from_tensor_slices(({"x": x}, y, y)).batch(2)  # noqa: E731
    with pytest.raises(ValueError, match="len 2 tuple"):
        estimator.train(bad, steps=1)


def test_single_tensor_features(model_dir):
    def model_fn(features, labels, mode):
        w = tf.compat.v1.get_variable("w", [3, 1])
        return est.EstimatorSpec(mode, predictions=tf.matmul(features, w))

    x = np.ones((6, 3), np.float32)
    estimator = est.Estimator(model_fn, model_dir=model_dir)
    predictions = list(estimator.predict(lambda: tf.data.Dataset.from_tensor_slices(x).batch(4)))
    assert len(predictions) == 6 and predictions[0].shape == (1,)


@pytest.mark.parametrize("distribute", [None, "mirrored"])
def test_a_call_that_stops_before_its_input_ends_closes_the_input_when_it_returns(
    model_dir, distribute
):
    # Keras keeps the last iterator in a reference cycle; were it left to the
    # garbage collector, a later call would stall while it stopped the old
    # input's threads. The original's Session closed it at the end of each call.
    x, y = linear_data(16)
    closed = []

    def rows():
        try:
            while True:
                yield {"x": x}, y
        finally:
            closed.append(True)

    def input_fn():
        signature = ({"x": tf.TensorSpec([16, 3])}, tf.TensorSpec([16], tf.int64))
        return tf.data.Dataset.from_generator(rows, output_signature=signature).prefetch(2)

    strategy = tf.distribute.MirroredStrategy(["/cpu:0"]) if distribute else None
    config = est.RunConfig(train_distribute=strategy, eval_distribute=strategy)
    estimator = est.Estimator(classifier_model_fn, model_dir=model_dir, params={}, config=config)
    gc.disable()
    try:
        estimator.train(input_fn, steps=3)
        assert closed == [True]
        estimator.train(input_fn, max_steps=8)
        assert closed == [True, True]
        estimator.evaluate(input_fn, steps=2)
        assert closed == [True, True, True]
    finally:
        gc.enable()
    assert estimator.get_variable_value("global_step") == 8
