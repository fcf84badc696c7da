"""Canned estimators: ready-made models on feature columns."""

from tfestimator_compat.canned.baseline import BaselineClassifier
from tfestimator_compat.canned.baseline import BaselineEstimator
from tfestimator_compat.canned.baseline import BaselineRegressor
from tfestimator_compat.canned.boosted_trees import BoostedTreesClassifier
from tfestimator_compat.canned.boosted_trees import BoostedTreesEstimator
from tfestimator_compat.canned.boosted_trees import BoostedTreesRegressor
from tfestimator_compat.canned.dnn import DNNClassifier
from tfestimator_compat.canned.dnn import DNNEstimator
from tfestimator_compat.canned.dnn import DNNRegressor
from tfestimator_compat.canned.dnn_linear_combined import DNNLinearCombinedClassifier
from tfestimator_compat.canned.dnn_linear_combined import DNNLinearCombinedEstimator
from tfestimator_compat.canned.dnn_linear_combined import DNNLinearCombinedRegressor
from tfestimator_compat.canned.linear import LinearClassifier
from tfestimator_compat.canned.linear import LinearEstimator
from tfestimator_compat.canned.linear import LinearRegressor
from tfestimator_compat.canned.parsing_utils import classifier_parse_example_spec
from tfestimator_compat.canned.parsing_utils import regressor_parse_example_spec

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
