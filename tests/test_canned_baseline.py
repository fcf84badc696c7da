"""BaselineClassifier, BaselineRegressor and BaselineEstimator behave as the original's.

Baselines start from zeros; `fixtures/canned/expected.json` holds what
tensorflow-estimator 2.15 had after training them (`fixtures/canned/make_fixture.py`,
which explains the one-batch shift of the original's input).
"""

import tempfile

import numpy as np
import pytest
import tensorflow as tf
from helpers import assert_metrics_match
from helpers import assert_predictions_match
from helpers import assert_variables_match
from helpers import canned_estimators
from helpers import fixture_expected
from helpers import fixture_generator

from tfestimator_compat import canned
from tfestimator_compat import head as head_lib

fixture = fixture_generator("canned")
EXPECTED = fixture_expected("canned")
ESTIMATORS = canned_estimators()


@pytest.mark.parametrize("model", ["baseline_classifier", "baseline_regressor"])
def test_training_from_scratch_reproduces_the_original(model):
    estimator = fixture.make_estimator(ESTIMATORS, model, tempfile.mkdtemp())
    estimator.train(fixture.train_input_fn(model, original=False), steps=fixture.TRAIN_STEPS)
    expected = EXPECTED[model]
    assert_variables_match(estimator, expected["trained"])
    input_fn = fixture.eval_input_fn(model, original=False)
    assert_metrics_match(estimator.evaluate(input_fn), expected["evaluate"])
    predictions = list(estimator.predict(input_fn))[:5]
    assert_predictions_match(predictions, expected["predict_first5"], fixture.jsonable)


def test_classifier_learns_the_class_prior_whatever_the_features(model_dir):
    labels = np.array([0, 1, 1, 1] * 8, np.int64)

    def input_fn():
        features = {"anything": np.arange(32, dtype=np.float32)}
        return tf.data.Dataset.from_tensor_slices((features, labels)).repeat().batch(16)

    classifier = canned.BaselineClassifier(model_dir=model_dir, optimizer="SGD")
    classifier.train(input_fn, steps=300)
    predictions = list(
        classifier.predict(lambda: tf.data.Dataset.from_tensors({"anything": [[5.0], [-3.0]]}))
    )
    for prediction in predictions:
        assert prediction["logistic"][0] == pytest.approx(0.75, abs=0.02)
    assert classifier.get_variable_names() == [
        "baseline/bias",
        "global_step",
        "training/SGD/decay",
        "training/SGD/learning_rate",
        "training/SGD/momentum",
    ]


def test_estimator_with_any_head_and_sparse_features(model_dir):
    values = tf.SparseTensor([[0, 0], [1, 0], [1, 1]], ["a", "b", "c"], [2, 2])

    def input_fn():
        labels = np.array([[1.0, 3.0], [3.0, 5.0]], np.float32)
        return tf.data.Dataset.from_tensors(({"tags": values}, labels)).repeat()

    estimator = canned.BaselineEstimator(
        head_lib.RegressionHead(label_dimension=2), model_dir=model_dir, optimizer="Adam"
    )
    estimator.train(input_fn, steps=2)
    bias = estimator.get_variable_value("baseline/bias")
    prediction = next(estimator.predict(lambda: tf.data.Dataset.from_tensors({"tags": values})))
    np.testing.assert_allclose(prediction["predictions"], bias)
    assert estimator.get_variable_value("global_step") == 2


def test_features_must_agree_on_the_batch_size(model_dir):
    def input_fn():
        features = {"a": tf.zeros([4, 1]), "b": tf.zeros([3, 1])}
        return tf.data.Dataset.from_tensors((features, tf.zeros([4, 1])))

    regressor = canned.BaselineRegressor(model_dir=model_dir)
    with pytest.raises(tf.errors.InvalidArgumentError):
        regressor.train(input_fn, steps=1)
