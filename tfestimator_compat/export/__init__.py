"""`tf.estimator.export`: receivers, export outputs and exporters."""

from tfestimator_compat.shim import lazy

# Where each name is defined, imported when the name is first read.
_SOURCES = {
    "ClassificationOutput": "tfestimator_compat.engine.internals.tensorflow_internals",
    "EvalOutput": "tfestimator_compat.engine.internals.tensorflow_internals",
    "ExportOutput": "tfestimator_compat.engine.internals.tensorflow_internals",
    "PredictOutput": "tfestimator_compat.engine.internals.tensorflow_internals",
    "RegressionOutput": "tfestimator_compat.engine.internals.tensorflow_internals",
    "TrainOutput": "tfestimator_compat.engine.internals.tensorflow_internals",
    "Exporter": "tfestimator_compat.export.exporter",
    "ServingInputReceiver": "tfestimator_compat.export.receivers",
    "SupervisedInputReceiver": "tfestimator_compat.export.receivers",
    "TensorServingInputReceiver": "tfestimator_compat.export.receivers",
    "UnsupervisedInputReceiver": "tfestimator_compat.export.receivers",
    "build_parsing_serving_input_receiver_fn": "tfestimator_compat.export.receivers",
    "build_raw_serving_input_receiver_fn": "tfestimator_compat.export.receivers",
    "build_raw_supervised_input_receiver_fn": "tfestimator_compat.export.receivers",
}

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

__getattr__, __dir__ = lazy.attributes(__name__, _SOURCES)
