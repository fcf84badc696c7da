"""The `tf.estimator` (V2) canned classes take v2 feature columns only, as the original's did."""

import numpy as np
import pytest
import tensorflow as tf
from tensorflow.python.feature_column import feature_column as fc_v1

import tfestimator_compat  # noqa: F401


def _input_fn():
    features = {"x": np.array([[1.0], [2.0]], np.float32)}
    return tf.data.Dataset.from_tensors((features, np.array([[1.0], [0.0]], np.float32)))


def _v1_only_column():
    # The TF1 column classes (not `tf.feature_column`'s); old programs still make them.
    return fc_v1._numeric_column("x")


def _v2_column():
    return tf.feature_column.numeric_column("x")


@pytest.mark.parametrize(
    "make",
    [
        lambda d: tf.estimator.DNNRegressor([2], [_v1_only_column()], model_dir=d),
        lambda d: tf.estimator.LinearRegressor([_v1_only_column()], model_dir=d),
        lambda d: tf.estimator.DNNLinearCombinedRegressor(
            model_dir=d,
            linear_feature_columns=[_v1_only_column()],
            dnn_feature_columns=[_v2_column()],
            dnn_hidden_units=[2],
        ),
        lambda d: tf.estimator.DNNLinearCombinedRegressor(
            model_dir=d,
            linear_feature_columns=[_v2_column()],
            dnn_feature_columns=[_v1_only_column()],
            dnn_hidden_units=[2],
        ),
    ],
    ids=["dnn", "linear", "combined-linear", "combined-dnn"],
)
def test_v2_class_refuses_v1_column_when_the_model_is_built(tmp_path, make):
    estimator = make(str(tmp_path))
    with pytest.raises(ValueError, match="Received a feature column from TensorFlow v1"):
        estimator.train(_input_fn, steps=1)
    assert not tf.io.gfile.glob(str(tmp_path / "model.ckpt-*"))


def test_v1_class_still_takes_v1_column(tmp_path):
    estimator = tf.compat.v1.estimator.LinearRegressor([_v1_only_column()], model_dir=str(tmp_path))
    estimator.train(_input_fn, steps=1)
    assert estimator.get_variable_value("global_step") == 1
