"""Canned estimators: ready-made models on feature columns."""

from tfestimator_compat.shim import lazy

# Where each name is defined, imported when the name is first read.
_SOURCES = {
    "BaselineClassifier": "tfestimator_compat.canned.baseline",
    "BaselineEstimator": "tfestimator_compat.canned.baseline",
    "BaselineRegressor": "tfestimator_compat.canned.baseline",
    "BoostedTreesClassifier": "tfestimator_compat.canned.boosted_trees",
    "BoostedTreesEstimator": "tfestimator_compat.canned.boosted_trees",
    "BoostedTreesRegressor": "tfestimator_compat.canned.boosted_trees",
    "DNNClassifier": "tfestimator_compat.canned.dnn",
    "DNNEstimator": "tfestimator_compat.canned.dnn",
    "DNNRegressor": "tfestimator_compat.canned.dnn",
    "DNNLinearCombinedClassifier": "tfestimator_compat.canned.dnn_linear_combined",
    "DNNLinearCombinedEstimator": "tfestimator_compat.canned.dnn_linear_combined",
    "DNNLinearCombinedRegressor": "tfestimator_compat.canned.dnn_linear_combined",
    "LinearClassifier": "tfestimator_compat.canned.linear",
    "LinearEstimator": "tfestimator_compat.canned.linear",
    "LinearRegressor": "tfestimator_compat.canned.linear",
    "classifier_parse_example_spec": "tfestimator_compat.canned.parsing_utils",
    "regressor_parse_example_spec": "tfestimator_compat.canned.parsing_utils",
}

__all__ = [
    "BaselineClassifier",
    "BaselineEstimator",
    "BaselineRegressor",
    "BoostedTreesClassifier",
    "BoostedTreesEstimator",
    "BoostedTreesRegressor",
    "DNNClassifier",
    "DNNEstimator",
    "DNNLinearCombinedClassifier",
    "DNNLinearCombinedEstimator",
    "DNNLinearCombinedRegressor",
    "DNNRegressor",
    "LinearClassifier",
    "LinearEstimator",
    "LinearRegressor",
    "classifier_parse_example_spec",
    "regressor_parse_example_spec",
]

__getattr__, __dir__ = lazy.attributes(__name__, _SOURCES)
