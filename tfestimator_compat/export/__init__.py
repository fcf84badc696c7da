"""`tf.estimator.export`: receivers, export outputs and exporters."""

from tfestimator_compat.engine.internals.tensorflow_internals import ClassificationOutput
from tfestimator_compat.engine.internals.tensorflow_internals import EvalOutput
from tfestimator_compat.engine.internals.tensorflow_internals import ExportOutput
from tfestimator_compat.engine.internals.tensorflow_internals import PredictOutput
from tfestimator_compat.engine.internals.tensorflow_internals import RegressionOutput
from tfestimator_compat.engine.internals.tensorflow_internals import TrainOutput
from tfestimator_compat.export.exporter import Exporter
from tfestimator_compat.export.receivers import ServingInputReceiver
from tfestimator_compat.export.receivers import SupervisedInputReceiver
from tfestimator_compat.export.receivers import TensorServingInputReceiver
from tfestimator_compat.export.receivers import UnsupervisedInputReceiver
from tfestimator_compat.export.receivers import build_parsing_serving_input_receiver_fn
from tfestimator_compat.export.receivers import build_raw_serving_input_receiver_fn
from tfestimator_compat.export.receivers import build_raw_supervised_input_receiver_fn

__all__ = [
    "ClassificationOutput",
    "EvalOutput",
    "ExportOutput",
    "Exporter",
    "PredictOutput",
    "RegressionOutput",
    "ServingInputReceiver",
    "SupervisedInputReceiver",
    "TensorServingInputReceiver",
    "TrainOutput",
    "UnsupervisedInputReceiver",
    "build_parsing_serving_input_receiver_fn",
    "build_raw_serving_input_receiver_fn",
    "build_raw_supervised_input_receiver_fn",
]
