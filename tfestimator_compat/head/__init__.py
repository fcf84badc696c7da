"""Heads: what a model's logits mean, for canned estimators and custom `model_fn`s."""

from tfestimator_compat.shim import lazy

# Where each name is defined, imported when the name is first read.
_SOURCES = {
    "Head": "tfestimator_compat.head.base_head",
    "BinaryClassHead": "tfestimator_compat.head.binary_class_head",
    "MetricKeys": "tfestimator_compat.head.metric_keys",
    "MultiClassHead": "tfestimator_compat.head.multi_class_head",
    "MultiHead": "tfestimator_compat.head.multi_head",
    "MultiLabelHead": "tfestimator_compat.head.multi_label_head",
    "PredictionKeys": "tfestimator_compat.head.prediction_keys",
    "LogisticRegressionHead": "tfestimator_compat.head.regression_head",
    "PoissonRegressionHead": "tfestimator_compat.head.regression_head",
    "RegressionHead": "tfestimator_compat.head.regression_head",
}

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

__getattr__, __dir__ = lazy.attributes(__name__, _SOURCES)
