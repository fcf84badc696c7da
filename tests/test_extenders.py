"""add_metrics adds evaluation metrics without changing the model."""

import pytest
import tensorflow as tf
from helpers import dataset_input_fn

import tfestimator_compat as est


def test_add_metrics_to_a_canned_estimator(model_dir):
    columns = [tf.feature_column.numeric_column("x", shape=[3])]
    estimator = est.DNNClassifier([4], columns, model_dir=model_dir)
    estimator.train(dataset_input_fn(repeat=True), steps=3)

    def metric_fn(labels, predictions, features, config):
        assert config.model_dir == model_dir
        return {
            "mean_x": tf.compat.v1.metrics.mean(features["x"]),
            "my_auc": tf.compat.v1.metrics.auc(labels, predictions["logistic"]),
        }

    extended = est.add_metrics(estimator, metric_fn)
    before = estimator.evaluate(dataset_input_fn())
    after = extended.evaluate(dataset_input_fn())
    assert set(after) == set(before) | {"mean_x", "my_auc"}
    assert after["loss"] == pytest.approx(before["loss"])
    assert after["my_auc"] == pytest.approx(before["auc"], abs=1e-3)
    assert extended.model_dir == model_dir


def test_metric_fn_argument_check(model_dir):
    estimator = est.Estimator(lambda features, labels, mode: None, model_dir=model_dir)
    with pytest.raises(ValueError, match=r"not expected args: \['mode'\]"):
        est.add_metrics(estimator, lambda labels, mode: {})


def test_a_metric_that_overrides_the_heads_leaves_the_checkpoint_alone(model_dir):
    """The head still makes (and updates) its own `auc` Keras metric, which
    the spec no longer returns: as in the original, its variables are
    evaluation state, neither saved nor expected in the checkpoint."""
    columns = [tf.feature_column.numeric_column("x", shape=[3])]
    estimator = tf.estimator.DNNClassifier([4], columns, model_dir=model_dir)

    def metric_fn(labels, predictions):
        auc = tf.keras.metrics.AUC(name="auc")
        auc.update_state(labels, predictions["logistic"])
        return {"auc": auc}

    extended = est.add_metrics(estimator, metric_fn)
    extended.train(dataset_input_fn(repeat=True), steps=2)
    metrics = extended.evaluate(dataset_input_fn())
    assert 0.0 <= metrics["auc"] <= 1.0
    names = tf.train.load_checkpoint(model_dir).get_variable_to_shape_map()
    assert not [name for name in names if "auc" in name]
