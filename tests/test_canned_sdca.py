"""`LinearSDCA` trains the linear estimators as tensorflow-estimator 2.15 did.

`fixtures/canned_sdca/` holds model_dirs the original trained with it
(`fixtures/canned_sdca/make_fixture.py`, which explains why they train on
one example per batch: only then is the SDCA kernel's visiting order fixed).
Those evaluate, predict and train on here with the original's numbers; the
same models trained from scratch here end where the original's did; and each
mistake the original refused is refused with its exception type.
"""

import inspect
import os

import numpy as np
import pytest
import tensorflow as tf
from helpers import assert_metrics_match
from helpers import assert_predictions_match
from helpers import copy_of_fixture
from helpers import fixture_expected
from helpers import fixture_generator

from tfestimator_compat.canned.linear_sdca import LinearSDCA

fixture = fixture_generator("canned_sdca")
EXPECTED = fixture_expected("canned_sdca")
# Evaluation runs the same ops on the same float32 weights; training runs the
# same SDCA kernel on the same batches in the same order. What is left is the
# summation order of metrics and of the kernel's float sums: ~1e-6 here.
TOLERANCE = 1e-4


def _from_fixture(name, tmp_path):
    model_dir = copy_of_fixture("canned_sdca", name, tmp_path)
    return fixture.make_estimator(fixture.namespace(tf, name), name, model_dir), model_dir


def _assert_variables(model_dir, expected):
    names = [name for name, _ in tf.train.list_variables(model_dir)]
    assert sorted(fixture.variables(model_dir)) == sorted(expected)
    assert any(name.startswith(fixture.TABLE) for name in names)
    for name, values in expected.items():
        got = fixture.jsonable(tf.train.load_variable(model_dir, name))
        np.testing.assert_allclose(got, values, atol=TOLERANCE, err_msg=name)


def _assert_table(model_dir, expected):
    got = fixture.table_summary(model_dir)
    assert sorted(got) == sorted(expected)
    for shard, summary in expected.items():
        assert got[shard]["examples"] == summary["examples"], shard
        np.testing.assert_allclose(got[shard]["state_sums"], summary["state_sums"], atol=1e-3)


def test_both_namespaces_have_it_with_the_original_arguments():
    assert tf.estimator.experimental.LinearSDCA is LinearSDCA
    assert tf.compat.v1.estimator.experimental.LinearSDCA is LinearSDCA
    parameters = inspect.signature(LinearSDCA).parameters
    assert {name: p.default for name, p in parameters.items()} == {
        "example_id_column": inspect.Parameter.empty,
        "num_loss_partitions": 1,
        "num_table_shards": None,
        "symmetric_l1_regularization": 0.0,
        "symmetric_l2_regularization": 1.0,
        "adaptive": False,
    }


@pytest.mark.parametrize("name", fixture.MODELS)
def test_an_sdca_model_dir_of_the_original_evaluates_and_predicts_here(name, tmp_path):
    estimator, _ = _from_fixture(name, tmp_path)
    metrics = estimator.evaluate(fixture.eval_input_fn(name))
    assert_metrics_match(metrics, EXPECTED[name]["evaluate"], TOLERANCE)
    predictions = list(estimator.predict(fixture.eval_input_fn(name)))[:5]
    expected = EXPECTED[name]["predict_first5"]
    assert sorted(predictions[0]) == sorted(expected)
    assert_predictions_match(predictions, expected, fixture.jsonable, TOLERANCE)


@pytest.mark.parametrize("name", fixture.MODELS)
def test_an_sdca_model_dir_of_the_original_resumes_with_its_example_states(name, tmp_path):
    """Resuming reads the unshrunk weights and the example-state table (whose
    dual variables decide every later step) and writes them back as the
    original did."""
    estimator, model_dir = _from_fixture(name, tmp_path)
    estimator.train(fixture.train_input_fn(name), steps=fixture.RESUME_STEPS)
    assert tf.train.load_variable(model_dir, "global_step") == (
        fixture.TRAIN_STEPS + fixture.RESUME_STEPS
    )
    _assert_variables(model_dir, EXPECTED[name]["variables_after_resume"])
    _assert_table(model_dir, EXPECTED[name]["table_after_resume"])
    metrics = estimator.evaluate(fixture.eval_input_fn(name))
    assert_metrics_match(metrics, EXPECTED[name]["evaluate_after_resume"], TOLERANCE)


@pytest.mark.parametrize("name", fixture.FROM_SCRATCH)
def test_training_from_scratch_ends_where_the_original_did(name, tmp_path):
    model_dir = str(tmp_path / name)
    estimator = fixture.make_estimator(fixture.namespace(tf, name), name, model_dir)
    estimator.train(fixture.train_input_fn(name), steps=fixture.CONVERGE_STEPS)
    expected = EXPECTED["from_scratch"][name]
    _assert_variables(model_dir, expected["variables"])
    metrics = estimator.evaluate(fixture.eval_input_fn(name))
    assert_metrics_match(metrics, expected["evaluate"], TOLERANCE)


def test_with_bigger_batches_it_lands_among_the_original_runs(tmp_path):
    """The kernel visits a batch's examples in a random order, so the original's
    runs differ (`spread`: its evaluations after five trainings). Five runs
    understate its range (ours spread as wide), so ours must fall within
    that range widened by twice its width on each side."""
    estimator = fixture.make_estimator(tf.estimator, "classifier", str(tmp_path))
    estimator.train(
        fixture.train_input_fn("classifier", fixture.SPREAD_BATCH), steps=fixture.SPREAD_STEPS
    )
    metrics = estimator.evaluate(fixture.eval_input_fn("classifier"))
    for key in ("average_loss", "loss", "prediction/mean", "accuracy", "auc"):
        runs = EXPECTED["spread"][key]
        width = 2 * (max(runs) - min(runs)) + 1e-6
        assert min(runs) - width <= float(metrics[key]) <= max(runs) + width, key


# What the original refused, and when: making the estimator ...
_X = tf.feature_column.numeric_column("x", shape=(2,))


def _sdca(**kwargs):
    return LinearSDCA(kwargs.pop("example_id_column", "example_id"), **kwargs)


@pytest.mark.parametrize(
    "make, message",
    [
        (
            lambda: tf.estimator.LinearClassifier([_X], n_classes=3, optimizer=_sdca()),
            "multi-class",
        ),
        (
            lambda: tf.compat.v1.estimator.LinearClassifier([_X], n_classes=3, optimizer=_sdca()),
            "multi-class",
        ),
        (
            lambda: tf.estimator.LinearClassifier([_X], sparse_combiner="mean", optimizer=_sdca()),
            'sparse_combiner must be "sum"',
        ),
        (
            lambda: tf.estimator.LinearRegressor([_X], label_dimension=2, optimizer=_sdca()),
            "one-dimensional label",
        ),
    ],
)
def test_constructors_refuse_what_sdca_cannot_train(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def _data(n=4):
    features, labels = fixture.make_data(n, 0)
    features["m"] = np.ones((n, 2, 2), np.float32)
    features["int_id"] = np.arange(n)
    return features, labels["binary"]


def _input_fn():
    return tf.data.Dataset.from_tensor_slices(_data()).batch(2)


# ... or training it (some in every mode).
@pytest.mark.parametrize(
    "make, error, message",
    [
        (
            lambda: tf.estimator.LinearClassifier(
                [tf.feature_column.numeric_column("m", shape=(2, 2))], optimizer=_sdca()
            ),
            ValueError,
            "Column NumericColumn has rank 2, larger than 1.",
        ),
        (
            lambda: tf.estimator.LinearClassifier(
                [_X], optimizer=_sdca(symmetric_l2_regularization=0.0)
            ),
            ValueError,
            "symmetric_l2_regularization should be positive",
        ),
        (
            lambda: tf.estimator.LinearClassifier(
                [_X], optimizer=_sdca(symmetric_l1_regularization=-1.0)
            ),
            ValueError,
            "symmetric_l1_regularization should be non-negative",
        ),
        (
            lambda: tf.estimator.LinearClassifier([_X], optimizer=_sdca(example_id_column="no")),
            KeyError,
            "no",
        ),
        (
            lambda: tf.estimator.LinearClassifier(
                [_X], optimizer=_sdca(example_id_column="int_id")
            ),
            TypeError,
            "SdcaFprint",
        ),
        (
            lambda: tf.estimator.LinearClassifier([_X], optimizer=_sdca(num_table_shards=0)),
            IndexError,
            "num_table_shards",
        ),
        (
            lambda: tf.estimator.BaselineClassifier(optimizer=_sdca()),
            ValueError,
            "not a tf.keras.optimizers.Optimizer instance",
        ),
        (
            lambda: tf.estimator.LinearEstimator(
                tf.estimator.RegressionHead(label_dimension=2), [_X], optimizer=_sdca()
            ),
            AssertionError,
            "one regression target",
        ),
    ],
)
def test_training_refuses_what_the_original_refused_when_it_trained(make, error, message):
    estimator = make()
    with pytest.raises(error, match=message):
        estimator.train(_input_fn, steps=1)


@pytest.mark.parametrize(
    "make, error",
    [
        (
            lambda: tf.estimator.LinearEstimator(
                tf.estimator.MultiLabelHead(2), [_X], optimizer=_sdca()
            ),
            ValueError,
        ),
        (
            lambda: tf.estimator.LinearEstimator(
                tf.estimator.BinaryClassHead(), [_X], sparse_combiner="mean", optimizer=_sdca()
            ),
            AssertionError,
        ),
    ],
)
def test_a_linear_estimator_refuses_a_head_or_combiner_sdca_cannot_train_in_every_mode(make, error):
    with pytest.raises(error):
        make().evaluate(_input_fn)


def test_a_column_sdca_cannot_train_still_evaluates_as_in_the_original(tmp_path):
    estimator = tf.estimator.LinearClassifier(
        [tf.feature_column.numeric_column("m", shape=(2, 2))],
        model_dir=str(tmp_path),
        optimizer=_sdca(),
    )
    assert "loss" in estimator.evaluate(_input_fn)


def test_the_summaries_of_an_sdca_training_are_the_originals(tmp_path):
    """`examples_seen` and `approximate_duality_gap` (and `linear/...` for V1)."""
    estimators = {
        "": tf.estimator.LinearClassifier([_X], model_dir=str(tmp_path / "v2"), optimizer=_sdca()),
        "linear/": tf.compat.v1.estimator.LinearClassifier(
            [_X], model_dir=str(tmp_path / "v1"), optimizer=_sdca()
        ),
    }
    for prefix, estimator in estimators.items():
        estimator.train(_input_fn, steps=2)
        tags = set()
        for path in tf.io.gfile.glob(os.path.join(estimator.model_dir, "events.out.tfevents*")):
            for event in tf.compat.v1.train.summary_iterator(path):
                tags.update(value.tag for value in event.summary.value)
        for tag in ("approximate_duality_gap", "examples_seen", "bias", "fraction_of_zero_weights"):
            assert prefix + tag in tags, (prefix, tag, tags)
