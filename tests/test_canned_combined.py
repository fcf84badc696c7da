"""The DNN-linear combined (wide & deep) estimators behave as the original's.

`fixtures/canned/wide_deep` was written by tensorflow-estimator 2.15's
`DNNLinearCombinedClassifier` (`fixtures/canned/make_fixture.py`).
"""

import os

import numpy as np
import pytest
import tensorflow as tf
from helpers import assert_metrics_match
from helpers import assert_predictions_match
from helpers import assert_variables_match
from helpers import canned_estimators
from helpers import copy_of_fixture
from helpers import fixture_expected
from helpers import fixture_generator

import tfestimator_compat as est
from tfestimator_compat import canned

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures", "canned")


fixture = fixture_generator("canned")
EXPECTED = fixture_expected("canned")["wide_deep"]
ESTIMATORS = canned_estimators()


@pytest.fixture
def original(tmp_path):
    model_dir = copy_of_fixture("canned", "wide_deep", tmp_path)
    return fixture.make_estimator(ESTIMATORS, "wide_deep", model_dir)


def test_evaluate_and_predict_reproduce_the_original(original):
    input_fn = fixture.eval_input_fn("wide_deep", original=False)
    assert_metrics_match(original.evaluate(input_fn), EXPECTED["evaluate"])
    predictions = list(original.predict(input_fn))[:5]
    assert_predictions_match(predictions, EXPECTED["predict_first5"], fixture.jsonable)


def test_training_resumes_with_both_optimizers(original):
    """The DNN optimizer advances the global step; the linear one its own `iter`."""
    original.train(fixture.train_input_fn("wide_deep"), steps=fixture.RESUME_STEPS)
    assert_variables_match(original, EXPECTED["resumed"])
    assert original.get_variable_value("global_step") == 40
    assert original.get_variable_value("training/Ftrl/iter") == 40


def test_warm_start_from_the_original(tmp_path):
    dnn_columns, linear_columns = fixture.feature_columns()
    warm = canned.DNNLinearCombinedClassifier(
        model_dir=str(tmp_path / "warm"),
        linear_feature_columns=linear_columns,
        dnn_feature_columns=dnn_columns[:4],
        dnn_hidden_units=[6],
        n_classes=3,
        label_vocabulary=["lo", "mid", "hi"],
        warm_start_from=os.path.join(FIXTURES, "wide_deep"),
    )
    metrics = warm.evaluate(fixture.eval_input_fn("wide_deep", original=False))
    assert metrics["average_loss"] == pytest.approx(EXPECTED["evaluate"]["average_loss"], abs=1e-4)
    assert metrics["global_step"] == 0


def _regression_input_fn():
    rng = np.random.RandomState(0)
    features = {
        "x": rng.rand(32, 2).astype(np.float32),
        "k": np.array(["a", "b", "c", "d"] * 8),
    }
    labels = features["x"].sum(1) + (features["k"] == "a")

    def input_fn():
        return tf.data.Dataset.from_tensor_slices((features, labels)).repeat().batch(8)

    return input_fn


X = tf.feature_column.numeric_column("x", shape=(2,))
K = tf.feature_column.categorical_column_with_hash_bucket("k", 5)


def test_linear_only_advances_the_global_step_with_the_linear_optimizer(model_dir):
    regressor = canned.DNNLinearCombinedRegressor(
        model_dir=model_dir, linear_feature_columns=[X, K], linear_optimizer="SGD"
    )
    regressor.train(_regression_input_fn(), steps=3)
    names = regressor.get_variable_names()
    assert regressor.get_variable_value("global_step") == 3
    assert "training/SGD/iter" not in names
    assert not [name for name in names if name.startswith("dnn/")]
    assert regressor.get_variable_value("training/SGD/learning_rate") == pytest.approx(0.005)


def test_dnn_only_and_batch_norm(model_dir):
    regressor = canned.DNNLinearCombinedRegressor(
        model_dir=model_dir,
        dnn_feature_columns=[X, tf.feature_column.indicator_column(K)],
        dnn_hidden_units=[3],
        batch_norm=True,
        label_dimension=1,
    )
    regressor.train(_regression_input_fn(), steps=3)
    names = regressor.get_variable_names()
    assert "dnn/hiddenlayer_0/batchnorm_0/moving_mean" in names
    assert not [name for name in names if name.startswith("linear/")]
    moving_mean = regressor.get_variable_value("dnn/hiddenlayer_0/batchnorm_0/moving_mean")
    assert np.any(moving_mean != 0)


def test_columns_are_required():
    with pytest.raises(ValueError, match="Either linear_feature_columns or dnn_feature_columns"):
        canned.DNNLinearCombinedClassifier()
    regressor = canned.DNNLinearCombinedRegressor(dnn_feature_columns=[X])
    with pytest.raises(ValueError, match="dnn_hidden_units must be defined"):
        regressor.train(_regression_input_fn(), steps=1)


# The summary tags tensorflow-estimator 2.15 wrote for this model.
ORIGINAL_SUMMARY_TAGS = {
    "bias",
    "dnn/hiddenlayer_0/activation",
    "dnn/hiddenlayer_0/fraction_of_zero_values",
    "dnn/logits/activation",
    "dnn/logits/fraction_of_zero_values",
    "fraction_of_zero_weights",
    "linear/activation",
    "linear/fraction_of_zero_values",
    "loss",
}


@pytest.fixture(scope="module")
def summary_tags(tmp_path_factory):
    model_dir = str(tmp_path_factory.mktemp("summaries"))
    classifier = canned.DNNLinearCombinedClassifier(
        model_dir=model_dir,
        linear_feature_columns=[X],
        dnn_feature_columns=[X],
        dnn_hidden_units=[3],
        config=est.RunConfig(save_summary_steps=1),
    )
    input_fn = _regression_input_fn()
    classifier.train(lambda: input_fn().map(lambda f, y: (f, tf.cast(y > 1, tf.int64))), steps=2)
    tags = set()
    for path in tf.io.gfile.glob(os.path.join(model_dir, "events.out*")):
        for event in tf.compat.v1.train.summary_iterator(path):
            tags.update(value.tag for value in event.summary.value)
    return tags


def test_layer_summaries_are_the_originals(summary_tags):
    assert ORIGINAL_SUMMARY_TAGS <= summary_tags


def test_no_summaries_beyond_the_originals(summary_tags):
    assert summary_tags == ORIGINAL_SUMMARY_TAGS
