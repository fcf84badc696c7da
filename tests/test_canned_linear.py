"""LinearClassifier, LinearRegressor and LinearEstimator behave as the original's.

Linear models start from zeros, so the original's training is reproducible:
`fixtures/canned/expected.json` holds what tensorflow-estimator 2.15 had after
training them from scratch (`fixtures/canned/make_fixture.py`).
"""

import math
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


@pytest.fixture(scope="module", params=["linear_classifier", "linear_regressor"])
def trained(request):
    """A fixture model trained from scratch here, with its evaluation and predictions."""
    model = request.param
    estimator = fixture.make_estimator(ESTIMATORS, model, tempfile.mkdtemp())
    estimator.train(fixture.train_input_fn(model, original=False), steps=fixture.TRAIN_STEPS)
    eval_input_fn = fixture.eval_input_fn(model, original=False)
    metrics = estimator.evaluate(eval_input_fn)
    predictions = list(estimator.predict(eval_input_fn))[:5]
    return model, estimator, metrics, predictions


def test_training_from_scratch_reproduces_the_original(trained):
    model, estimator, _, _ = trained
    assert_variables_match(estimator, EXPECTED[model]["trained"])


def test_evaluate_and_predict_reproduce_the_original(trained):
    model, _, metrics, predictions = trained
    expected = EXPECTED[model]
    assert_metrics_match(metrics, expected["evaluate"])
    assert_predictions_match(predictions, expected["predict_first5"], fixture.jsonable)


def _column_data(n=24, seed=0):
    rng = np.random.RandomState(seed)
    return {f"x{i}": rng.rand(n, 1).astype(np.float32) for i in range(30)}, rng.rand(n)


def test_default_ftrl_learning_rates(tmp_path):
    features, labels = _column_data()
    columns = [tf.feature_column.numeric_column(key) for key in sorted(features)]

    def input_fn():
        return tf.data.Dataset.from_tensor_slices((features, labels)).batch(8)

    by_name = canned.LinearRegressor(columns, model_dir=str(tmp_path / "named"))
    by_name.train(input_fn, steps=1)
    assert by_name.get_variable_value("training/Ftrl/learning_rate") == pytest.approx(0.2)
    unnamed = canned.LinearRegressor(columns, model_dir=str(tmp_path / "none"), optimizer=None)
    unnamed.train(input_fn, steps=1)
    assert unnamed.get_variable_value("training/Ftrl/learning_rate") == pytest.approx(
        1 / math.sqrt(30)
    )


@pytest.mark.parametrize("combiner", ["sum", "mean", "sqrtn"])
def test_sparse_combiner_combines_multivalent_weights(model_dir, combiner):
    tags = tf.SparseTensor(
        indices=[[0, 0], [0, 1], [1, 0], [2, 0], [2, 1], [2, 2]],
        values=["a", "b", "b", "a", "c", "c"],
        dense_shape=[3, 3],
    )
    labels = np.array([[1.0], [-1.0], [2.0]], np.float32)
    column = tf.feature_column.categorical_column_with_vocabulary_list("tags", ["a", "b", "c"])

    def input_fn():
        return tf.data.Dataset.from_tensor_slices(({"tags": tags}, labels)).batch(3)

    regressor = canned.LinearRegressor(
        [column], model_dir=model_dir, optimizer="SGD", sparse_combiner=combiner
    )
    regressor.train(input_fn, steps=5)
    weights = regressor.get_variable_value("linear/linear_model/tags/weights")[:, 0]
    bias = regressor.get_variable_value("linear/linear_model/bias_weights")[0]
    rows = [[0, 1], [1], [0, 2, 2]]

    def combine(ids):
        total = sum(weights[i] for i in ids)
        return {"sum": total, "mean": total / len(ids), "sqrtn": total / math.sqrt(len(ids))}[
            combiner
        ]

    predicted = [p["predictions"][0] for p in regressor.predict(input_fn)]
    np.testing.assert_allclose(predicted, [bias + combine(ids) for ids in rows], rtol=1e-5)


def test_linear_estimator_with_a_poisson_head(model_dir):
    rng = np.random.RandomState(1)
    x = rng.rand(64, 1).astype(np.float32)
    counts = rng.poisson(np.exp(1.0 + x[:, 0])).astype(np.float32)

    def input_fn():
        return tf.data.Dataset.from_tensor_slices(({"x": x}, counts)).repeat().batch(64)

    estimator = canned.LinearEstimator(
        head_lib.PoissonRegressionHead(),
        [tf.feature_column.numeric_column("x")],
        model_dir=model_dir,
        optimizer=lambda: tf.keras.optimizers.Adam(0.1),
    )
    estimator.train(input_fn, steps=200)
    prediction = next(estimator.predict(lambda: tf.data.Dataset.from_tensors({"x": x[:1]})))
    assert prediction["predictions"][0] == pytest.approx(np.exp(prediction["logits"][0]))
    assert estimator.get_variable_value("linear/linear_model/bias_weights")[0] == pytest.approx(
        1.0, abs=0.4
    )


def test_invalid_arguments():
    with pytest.raises(ValueError, match="sparse_combiner"):
        canned.linear.linear_logits({"x": tf.zeros([1, 1])}, [], 1, sparse_combiner="max")
    with pytest.raises(ValueError, match="feature_columns"):
        canned.LinearClassifier(feature_columns=[])


def test_parse_example_specs_feed_a_classifier_from_tf_examples(model_dir):
    columns = [
        tf.feature_column.numeric_column("age"),
        tf.feature_column.categorical_column_with_vocabulary_list("color", ["red", "blue"]),
    ]
    spec = canned.classifier_parse_example_spec(columns, label_key="clicked", weight_column="w")
    assert spec["clicked"] == tf.io.FixedLenFeature((1,), tf.int64)
    assert spec["w"] == tf.io.FixedLenFeature((1,), tf.float32)
    assert canned.regressor_parse_example_spec(columns, "y", label_dimension=2)[
        "y"
    ] == tf.io.FixedLenFeature((2,), tf.float32)
    with pytest.raises(ValueError, match="label should not be used as feature"):
        canned.classifier_parse_example_spec(columns, label_key="age")

    def example(age, color, clicked):
        feature = {
            "age": tf.train.Feature(float_list=tf.train.FloatList(value=[age])),
            "color": tf.train.Feature(bytes_list=tf.train.BytesList(value=[color])),
            "clicked": tf.train.Feature(int64_list=tf.train.Int64List(value=[clicked])),
            "w": tf.train.Feature(float_list=tf.train.FloatList(value=[1.0])),
        }
        return tf.train.Example(features=tf.train.Features(feature=feature)).SerializeToString()

    serialized = [example(30.0, b"red", 1), example(60.0, b"blue", 0)] * 4

    def input_fn(repeat=False):
        parsed = tf.data.Dataset.from_tensor_slices(serialized)
        parsed = parsed.repeat().batch(4) if repeat else parsed.batch(8)
        parsed = parsed.map(lambda batch: tf.io.parse_example(batch, spec))
        return parsed.map(lambda features: (features, features.pop("clicked")))

    classifier = canned.LinearClassifier(columns, model_dir=model_dir, weight_column="w")
    metrics = classifier.train(lambda: input_fn(repeat=True), steps=30).evaluate(input_fn)
    assert metrics["accuracy"] == 1.0


def test_keras_learning_rate_schedule_follows_the_global_step(model_dir):
    schedule = tf.keras.optimizers.schedules.ExponentialDecay(0.1, decay_steps=1, decay_rate=0.5)

    def input_fn():
        features = {"x": np.zeros((4, 1), np.float32)}
        return tf.data.Dataset.from_tensors((features, np.ones((4, 1), np.float32))).repeat()

    regressor = canned.LinearRegressor(
        [tf.feature_column.numeric_column("x")],
        model_dir=model_dir,
        optimizer=tf.keras.optimizers.SGD(schedule),
    )
    regressor.train(input_fn, steps=2)
    # d(loss)/d(bias) = 2 * (bias - 1): 0 -> 0.2 (rate 0.1) -> 0.28 (rate 0.05).
    bias = regressor.get_variable_value("linear/linear_model/bias_weights")
    assert bias[0] == pytest.approx(0.28, rel=1e-5)
    assert "training/SGD/learning_rate" not in regressor.get_variable_names()
