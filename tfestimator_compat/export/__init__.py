"""`tf.estimator.export`: receivers, export outputs and exporters."""

from tensorflow.python.saved_model.model_utils.export_output import ClassificationOutput
from tensorflow.python.saved_model.model_utils.export_output import EvalOutput
from tensorflow.python.saved_model.model_utils.export_output import ExportOutput
from tensorflow.python.saved_model.model_utils.export_output import PredictOutput
from tensorflow.python.saved_model.model_utils.export_output import RegressionOutput
from tensorflow.python.saved_model.model_utils.export_output import TrainOutput

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
