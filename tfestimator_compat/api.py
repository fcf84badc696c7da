"""The package's public names on TensorFlow >= 2.16: tf.estimator's API, built on Keras 3.

Each name maps to the module that defines it, imported when the name is
first read (`shim/lazy.py`): `import tfestimator_compat` costs little beside
TensorFlow's own import, and a program pays only for what it uses.
`tfestimator_compat/__init__.py` offers these names, and `install()` puts them
under `tf.estimator`. On TensorFlow <= 2.15, which ships its own estimator,
this module is not imported (see `native_estimator.py`).
"""

from tfestimator_compat.shim import lazy

# Where each public name is defined.
SOURCES = {
    "add_metrics": "tfestimator_compat.extenders",
    "BaselineClassifier": "tfestimator_compat.canned",
    "BaselineEstimator": "tfestimator_compat.canned",
    "BaselineRegressor": "tfestimator_compat.canned",
    "BestExporter": "tfestimator_compat.export.exporter",
    "BinaryClassHead": "tfestimator_compat.head",
    "BoostedTreesClassifier": "tfestimator_compat.canned",
    "BoostedTreesEstimator": "tfestimator_compat.canned",
    "BoostedTreesRegressor": "tfestimator_compat.canned",
    "CheckpointSaverHook": "tfestimator_compat.hooks",
    "CheckpointSaverListener": "tfestimator_compat.hooks",
    "classifier_parse_example_spec": "tfestimator_compat.canned",
    "DNNClassifier": "tfestimator_compat.canned",
    "DNNEstimator": "tfestimator_compat.canned",
    "DNNLinearCombinedClassifier": "tfestimator_compat.canned",
    "DNNLinearCombinedEstimator": "tfestimator_compat.canned",
    "DNNLinearCombinedRegressor": "tfestimator_compat.canned",
    "DNNRegressor": "tfestimator_compat.canned",
    "Estimator": "tfestimator_compat.estimator",
    "EstimatorSpec": "tfestimator_compat.spec",
    "EvalSpec": "tfestimator_compat.training",
    "Exporter": "tfestimator_compat.export.exporter",
    "FeedFnHook": "tfestimator_compat.hooks",
    "FinalExporter": "tfestimator_compat.export.exporter",
    "FinalOpsHook": "tfestimator_compat.hooks",
    "GlobalStepWaiterHook": "tfestimator_compat.hooks",
    "Head": "tfestimator_compat.head",
    "LatestExporter": "tfestimator_compat.export.exporter",
    "LinearClassifier": "tfestimator_compat.canned",
    "LinearEstimator": "tfestimator_compat.canned",
    "LinearRegressor": "tfestimator_compat.canned",
    "LoggingTensorHook": "tfestimator_compat.hooks",
    "LogisticRegressionHead": "tfestimator_compat.head",
    "ModeKeys": "tfestimator_compat.mode_keys",
    "model_to_estimator": "tfestimator_compat.keras_model_to_estimator",
    "MultiClassHead": "tfestimator_compat.head",
    "MultiHead": "tfestimator_compat.head",
    "MultiLabelHead": "tfestimator_compat.head",
    "NanLossDuringTrainingError": "tfestimator_compat.hooks",
    "NanTensorHook": "tfestimator_compat.hooks",
    "PoissonRegressionHead": "tfestimator_compat.head",
    "ProfilerHook": "tfestimator_compat.hooks",
    "RegressionHead": "tfestimator_compat.head",
    "regressor_parse_example_spec": "tfestimator_compat.canned",
    "RunConfig": "tfestimator_compat.run_config",
    "SecondOrStepTimer": "tfestimator_compat.hooks",
    "SessionRunArgs": "tfestimator_compat.hooks",
    "SessionRunContext": "tfestimator_compat.hooks",
    "SessionRunHook": "tfestimator_compat.hooks",
    "SessionRunValues": "tfestimator_compat.hooks",
    "StepCounterHook": "tfestimator_compat.hooks",
    "StopAtStepHook": "tfestimator_compat.hooks",
    "SummarySaverHook": "tfestimator_compat.hooks",
    "train_and_evaluate": "tfestimator_compat.training",
    "TrainSpec": "tfestimator_compat.training",
    "VocabInfo": "tfestimator_compat.warm_starting",
    "WarmStartSettings": "tfestimator_compat.warm_starting",
}

# tf.keras.estimator.model_to_estimator, not tf.estimator's: kept out of __all__.
__all__ = sorted(name for name in SOURCES if name != "model_to_estimator")

__getattr__, __dir__ = lazy.attributes(__name__, SOURCES)
