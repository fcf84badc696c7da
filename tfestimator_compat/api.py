"""The package's public names on TensorFlow >= 2.16: tf.estimator's API, built on Keras 3.

`tfestimator_compat/__init__.py` re-exports them, and `install()` puts them
under `tf.estimator`. On TensorFlow <= 2.15, which ships its own estimator,
this module is not imported (see `native_estimator.py`).
"""

from tfestimator_compat.canned import BaselineClassifier
from tfestimator_compat.canned import BaselineEstimator
from tfestimator_compat.canned import BaselineRegressor
from tfestimator_compat.canned import BoostedTreesClassifier
from tfestimator_compat.canned import BoostedTreesEstimator
from tfestimator_compat.canned import BoostedTreesRegressor
from tfestimator_compat.canned import DNNClassifier
from tfestimator_compat.canned import DNNEstimator
from tfestimator_compat.canned import DNNLinearCombinedClassifier
from tfestimator_compat.canned import DNNLinearCombinedEstimator
from tfestimator_compat.canned import DNNLinearCombinedRegressor
from tfestimator_compat.canned import DNNRegressor
from tfestimator_compat.canned import LinearClassifier
from tfestimator_compat.canned import LinearEstimator
from tfestimator_compat.canned import LinearRegressor
from tfestimator_compat.canned import classifier_parse_example_spec
from tfestimator_compat.canned import regressor_parse_example_spec
from tfestimator_compat.estimator import Estimator
from tfestimator_compat.export.exporter import BestExporter
from tfestimator_compat.export.exporter import Exporter
from tfestimator_compat.export.exporter import FinalExporter
from tfestimator_compat.export.exporter import LatestExporter
from tfestimator_compat.extenders import add_metrics
from tfestimator_compat.head import BinaryClassHead
from tfestimator_compat.head import Head
from tfestimator_compat.head import LogisticRegressionHead
from tfestimator_compat.head import MultiClassHead
from tfestimator_compat.head import MultiHead
from tfestimator_compat.head import MultiLabelHead
from tfestimator_compat.head import PoissonRegressionHead
from tfestimator_compat.head import RegressionHead
from tfestimator_compat.hooks import CheckpointSaverHook
from tfestimator_compat.hooks import CheckpointSaverListener
from tfestimator_compat.hooks import FeedFnHook
from tfestimator_compat.hooks import FinalOpsHook
from tfestimator_compat.hooks import GlobalStepWaiterHook
from tfestimator_compat.hooks import LoggingTensorHook
from tfestimator_compat.hooks import NanLossDuringTrainingError
from tfestimator_compat.hooks import NanTensorHook
from tfestimator_compat.hooks import ProfilerHook
from tfestimator_compat.hooks import SecondOrStepTimer
from tfestimator_compat.hooks import SessionRunArgs
from tfestimator_compat.hooks import SessionRunContext
from tfestimator_compat.hooks import SessionRunHook
from tfestimator_compat.hooks import SessionRunValues
from tfestimator_compat.hooks import StepCounterHook
from tfestimator_compat.hooks import StopAtStepHook
from tfestimator_compat.hooks import SummarySaverHook

# tf.keras.estimator.model_to_estimator, not tf.estimator's: kept out of __all__.
from tfestimator_compat.keras_model_to_estimator import model_to_estimator as model_to_estimator
from tfestimator_compat.mode_keys import ModeKeys
from tfestimator_compat.run_config import RunConfig
from tfestimator_compat.spec import EstimatorSpec
from tfestimator_compat.training import EvalSpec
from tfestimator_compat.training import TrainSpec
from tfestimator_compat.training import train_and_evaluate
from tfestimator_compat.warm_starting import VocabInfo
from tfestimator_compat.warm_starting import WarmStartSettings

__all__ = [
    "BaselineClassifier",
    "BaselineEstimator",
    "BaselineRegressor",
    "BestExporter",
    "BinaryClassHead",
    "BoostedTreesClassifier",
    "BoostedTreesEstimator",
    "BoostedTreesRegressor",
    "CheckpointSaverHook",
    "CheckpointSaverListener",
    "DNNClassifier",
    "DNNEstimator",
    "DNNLinearCombinedClassifier",
    "DNNLinearCombinedEstimator",
    "DNNLinearCombinedRegressor",
    "DNNRegressor",
    "Estimator",
    "EstimatorSpec",
    "EvalSpec",
    "Exporter",
    "FeedFnHook",
    "FinalExporter",
    "FinalOpsHook",
    "GlobalStepWaiterHook",
    "Head",
    "LatestExporter",
    "LinearClassifier",
    "LinearEstimator",
    "LinearRegressor",
    "LoggingTensorHook",
    "LogisticRegressionHead",
    "ModeKeys",
    "MultiClassHead",
    "MultiHead",
    "MultiLabelHead",
    "NanLossDuringTrainingError",
    "NanTensorHook",
    "PoissonRegressionHead",
    "ProfilerHook",
    "RegressionHead",
    "RunConfig",
    "SecondOrStepTimer",
    "SessionRunArgs",
    "SessionRunContext",
    "SessionRunHook",
    "SessionRunValues",
    "StepCounterHook",
    "StopAtStepHook",
    "SummarySaverHook",
    "TrainSpec",
    "VocabInfo",
    "WarmStartSettings",
    "add_metrics",
    "classifier_parse_example_spec",
    "regressor_parse_example_spec",
    "train_and_evaluate",
]
