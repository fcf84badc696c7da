"""Heads: what a model's logits mean, for canned estimators and custom `model_fn`s."""

from tfestimator_compat.head.base_head import Head
from tfestimator_compat.head.binary_class_head import BinaryClassHead
from tfestimator_compat.head.metric_keys import MetricKeys
from tfestimator_compat.head.multi_class_head import MultiClassHead
from tfestimator_compat.head.multi_head import MultiHead
from tfestimator_compat.head.multi_label_head import MultiLabelHead
from tfestimator_compat.head.prediction_keys import PredictionKeys
from tfestimator_compat.head.regression_head import LogisticRegressionHead
from tfestimator_compat.head.regression_head import PoissonRegressionHead
from tfestimator_compat.head.regression_head import RegressionHead

__all__ = [
    "BinaryClassHead",
    "Head",
    "LogisticRegressionHead",
    "MetricKeys",
    "MultiClassHead",
    "MultiHead",
    "MultiLabelHead",
    "PoissonRegressionHead",
    "PredictionKeys",
    "RegressionHead",
]
