"""The public tf.estimator / tf.compat.v1.estimator names of tensorflow-estimator 2.15."""

from typing import Dict

from tfestimator_compat.shim.api_surface.symbol import NOT_SUPPORTED
from tfestimator_compat.shim.api_surface.symbol import SUPPORTED
from tfestimator_compat.shim.api_surface.symbol import Symbol
from tfestimator_compat.shim.api_surface.symbol import guide_link

# --- tf.estimator / tf.compat.v1.estimator ---------------------------------------------------
# Names relative to the estimator namespace; "" is the namespace itself. Each row:
# (names, status, anchor, replacement). Names with their own replacement get their own row.
ESTIMATOR_ROWS = (
    (
        " export experimental inputs tpu tpu.experimental",
        SUPPORTED,
        "estimator",
        "the tf.estimator names used from it (each listed on its own)",
    ),
    (
        "Estimator",
        SUPPORTED,
        "estimator",
        "a keras.Model whose train_step/test_step/predict_step do what model_fn did; "
        "fit/evaluate/predict",
    ),
    (
        "EstimatorSpec",
        SUPPORTED,
        "estimatorspec",
        "what train_step/test_step/predict_step return (loss and metrics dicts, outputs)",
    ),
    (
        "ModeKeys",
        SUPPORTED,
        "modekeys",
        "separate train_step/test_step/predict_step; the `training` argument of layers",
    ),
    (
        "RunConfig",
        SUPPORTED,
        "runconfig",
        "fit() arguments and callbacks (ModelCheckpoint, TensorBoard), "
        "keras.utils.set_random_seed, tf.distribute strategies",
    ),
    (
        "SessionRunHook SessionRunArgs SessionRunContext SessionRunValues",
        SUPPORTED,
        "hooks",
        "keras.callbacks.Callback (on_train_batch_begin/on_train_batch_end)",
    ),
    (
        "CheckpointSaverHook",
        SUPPORTED,
        "hooks",
        "keras.callbacks.ModelCheckpoint, or tf.train.CheckpointManager in a Callback",
    ),
    (
        "CheckpointSaverListener",
        SUPPORTED,
        "hooks",
        "a keras.callbacks.Callback that runs after each save",
    ),
    ("FeedFnHook", SUPPORTED, "hooks", "a tf.data input pipeline (TF2 has no feed_dict)"),
    ("FinalOpsHook", SUPPORTED, "hooks", "Callback.on_train_end / on_test_end"),
    (
        "GlobalStepWaiterHook",
        SUPPORTED,
        "hooks",
        "nothing on one machine; tf.distribute.MultiWorkerMirroredStrategy for many",
    ),
    (
        "LoggingTensorHook",
        SUPPORTED,
        "hooks",
        "return the tensor from train_step as a metric; keras.callbacks.CSVLogger or a Callback",
    ),
    (
        "NanTensorHook NanLossDuringTrainingError",
        SUPPORTED,
        "hooks",
        "keras.callbacks.TerminateOnNaN",
    ),
    (
        "ProfilerHook",
        SUPPORTED,
        "hooks",
        "keras.callbacks.TensorBoard(profile_batch=...) or tf.profiler.experimental",
    ),
    ("SecondOrStepTimer", SUPPORTED, "hooks", "a Callback that compares time or step counts"),
    ("StepCounterHook", SUPPORTED, "hooks", "keras.callbacks.TensorBoard, the progress bar"),
    (
        "StopAtStepHook",
        SUPPORTED,
        "hooks",
        "fit(epochs=..., steps_per_epoch=...) or model.stop_training in a Callback",
    ),
    (
        "SummarySaverHook",
        SUPPORTED,
        "hooks",
        "keras.callbacks.TensorBoard, or tf.summary calls under a writer",
    ),
    (
        "TrainSpec EvalSpec train_and_evaluate",
        SUPPORTED,
        "train-and-evaluate",
        "model.fit(train_ds, validation_data=eval_ds, validation_steps=..., validation_freq=...)",
    ),
    (
        "experimental.make_stop_at_checkpoint_step_hook",
        SUPPORTED,
        "train-and-evaluate",
        "tf.train.checkpoints_iterator in a separate evaluator, or fit(validation_data=...)",
    ),
    (
        "Exporter FinalExporter LatestExporter BestExporter",
        SUPPORTED,
        "exporters",
        "tf.saved_model.save from a Callback (on_train_end, or when the monitored metric improves)",
    ),
    (
        "export.ServingInputReceiver export.TensorServingInputReceiver "
        "export.build_parsing_serving_input_receiver_fn "
        "export.build_raw_serving_input_receiver_fn "
        "experimental.build_raw_supervised_input_receiver_fn",
        SUPPORTED,
        "serving-input-receivers",
        "a tf.function with an input_signature (tf.io.parse_example inside for tf.Example) "
        "passed as a signature to tf.saved_model.save",
    ),
    (
        "export.ExportOutput export.ClassificationOutput export.PredictOutput "
        "export.RegressionOutput export.EvalOutput",
        SUPPORTED,
        "export-outputs",
        "the dict of named tensors that the serving tf.function returns",
    ),
    (
        "WarmStartSettings VocabInfo",
        SUPPORTED,
        "warm-starting",
        "tf.train.Checkpoint(...).restore(path).expect_partial() or "
        "model.load_weights(path, skip_mismatch=True) before fit",
    ),
    (
        "DNNClassifier DNNRegressor DNNEstimator",
        SUPPORTED,
        "canned-estimators",
        "keras.Sequential of Dense layers over Keras preprocessing (keras.utils.FeatureSpace)",
    ),
    (
        "LinearClassifier LinearRegressor LinearEstimator",
        SUPPORTED,
        "canned-estimators",
        "one keras.layers.Dense over Keras preprocessing (keras.utils.FeatureSpace)",
    ),
    (
        "DNNLinearCombinedClassifier DNNLinearCombinedRegressor DNNLinearCombinedEstimator",
        SUPPORTED,
        "canned-estimators",
        "a functional keras.Model adding a linear (wide) and a Dense-stack (deep) logit",
    ),
    (
        "BaselineClassifier BaselineRegressor BaselineEstimator",
        SUPPORTED,
        "canned-estimators",
        "the label mean or class frequencies computed with NumPy, or a bias-only keras.Model",
    ),
    (
        "Head BinaryClassHead MultiClassHead MultiLabelHead RegressionHead "
        "PoissonRegressionHead LogisticRegressionHead MultiHead add_metrics",
        SUPPORTED,
        "heads",
        "a keras loss and metrics in compile() (BinaryCrossentropy, "
        "SparseCategoricalCrossentropy, MeanSquaredError, Poisson; from_logits=True)",
    ),
    (
        "classifier_parse_example_spec regressor_parse_example_spec",
        SUPPORTED,
        "parse-example-specs",
        "tf.feature_column.make_parse_example_spec(columns) plus the label's tf.io.FixedLenFeature",
    ),
    (
        "experimental.make_early_stopping_hook experimental.stop_if_higher_hook "
        "experimental.stop_if_lower_hook experimental.stop_if_no_decrease_hook "
        "experimental.stop_if_no_increase_hook",
        SUPPORTED,
        "early-stopping",
        "keras.callbacks.EarlyStopping(monitor=..., mode=..., patience=...)",
    ),
    (
        "experimental.InMemoryEvaluatorHook",
        SUPPORTED,
        "in-memory-evaluation",
        "model.fit(validation_data=..., validation_freq=...)",
    ),
    (
        "experimental.LinearSDCA",
        SUPPORTED,
        "experimental-estimators",
        "a linear keras.Model trained with keras.optimizers.Ftrl or Adagrad (no SDCA in Keras)",
    ),
    (
        "experimental.RNNClassifier experimental.RNNEstimator",
        SUPPORTED,
        "rnn-estimators",
        "keras.layers.LSTM or GRU over padded sequences (mask_zero or Masking), then "
        "keras.layers.Dense",
    ),
    (
        "experimental.KMeans",
        SUPPORTED,
        "experimental-estimators",
        "sklearn.cluster.KMeans, or a few lines of TF2 (assign, then average)",
    ),
    (
        "experimental.call_logit_fn experimental.dnn_logit_fn_builder "
        "experimental.linear_logit_fn_builder",
        SUPPORTED,
        "experimental-estimators",
        "a keras.Model that returns the logits",
    ),
    (
        "inputs.numpy_input_fn inputs.pandas_input_fn",
        SUPPORTED,
        "numpy-and-pandas-input",
        "tf.data.Dataset.from_tensor_slices((dict(x), y)).shuffle(n).batch(b), or the "
        "arrays/DataFrame passed to fit directly",
    ),
    (
        "tpu.TPUEstimator tpu.TPUEstimatorSpec tpu.RunConfig tpu.TPUConfig tpu.InputPipelineConfig",
        SUPPORTED,
        "tpuestimator",
        "off TPU (use_tpu=False): a plain keras.Model; on TPU: fit under tf.distribute.TPUStrategy",
    ),
    (
        "tpu.experimental.EmbeddingConfigSpec",
        NOT_SUPPORTED,
        "tpu-embeddings",
        "needs a TPU; tf.tpu.experimental.embedding.TPUEmbedding under TPUStrategy, or "
        "keras.layers.Embedding off TPU",
    ),
)

# Public names only one of the two namespaces had in 2.15.
ESTIMATOR_V1_ONLY = frozenset(
    """inputs inputs.numpy_input_fn inputs.pandas_input_fn tpu tpu.experimental
    tpu.InputPipelineConfig tpu.RunConfig tpu.TPUConfig tpu.TPUEstimator tpu.TPUEstimatorSpec
    tpu.experimental.EmbeddingConfigSpec experimental.KMeans experimental.dnn_logit_fn_builder
    experimental.linear_logit_fn_builder""".split()
)
ESTIMATOR_V2_ONLY = frozenset(["experimental.RNNClassifier", "experimental.RNNEstimator"])

ESTIMATOR_V2 = "tf.estimator"
ESTIMATOR_V1 = "tf.compat.v1.estimator"
ESTIMATOR_MODULES = frozenset(["", "export", "experimental", "inputs", "tpu", "tpu.experimental"])

UNKNOWN_ESTIMATOR_NAME = (
    NOT_SUPPORTED,
    "unknown-estimator-names",
    "not a public tf.estimator name in TensorFlow 2.15; use the public name it maps to",
)


def _estimator_symbols() -> Dict[str, Symbol]:
    symbols = {}
    for names, status, anchor, replacement in ESTIMATOR_ROWS:
        for relative in names.split(" "):
            for root, excluded in (
                (ESTIMATOR_V2, ESTIMATOR_V1_ONLY),
                (ESTIMATOR_V1, ESTIMATOR_V2_ONLY),
            ):
                if relative in excluded:
                    continue
                name = f"{root}.{relative}" if relative else root
                symbols[name] = Symbol(name, status, replacement, guide_link(anchor))
    return symbols


ESTIMATOR_SYMBOLS: Dict[str, Symbol] = _estimator_symbols()
"""Canonical name -> `Symbol`, for the whole public 2.15 estimator API and its modules."""

# --- Names tf.estimator had before 2.15 -------------------------------------------------------
# Public in both namespaces until a release before 2.15 dropped them; TF 1.x and 2.0-2.8
# programs still use them. Each row: (names, last release that had them, status, anchor,
# replacement).
DROPPED_ESTIMATOR_ROWS = (
    (
        "BoostedTreesClassifier BoostedTreesRegressor BoostedTreesEstimator",
        "2.8",
        SUPPORTED,
        "boosted-trees",
        "natively, ydf.GradientBoostedTreesLearner, "
        "sklearn.ensemble.HistGradientBoostingClassifier/Regressor or lightgbm (TensorFlow >= "
        "2.15 ships no kernel for the BoostedTrees* ops; the shim grows the trees in plain ops)",
    ),
)


def _dropped_estimator_symbols():
    symbols, releases = {}, {}
    for names, release, status, anchor, replacement in DROPPED_ESTIMATOR_ROWS:
        for relative in names.split(" "):
            for root in (ESTIMATOR_V2, ESTIMATOR_V1):
                name = f"{root}.{relative}"
                symbols[name] = Symbol(name, status, replacement, guide_link(anchor))
                releases[name] = release
    return symbols, releases


DROPPED_ESTIMATOR_SYMBOLS, DROPPED_ESTIMATOR_RELEASES = _dropped_estimator_symbols()
"""Canonical name -> `Symbol`, and -> the last tensorflow-estimator release that had it."""

# --- Methods and properties of estimator objects ---------------------------------------------
# Every member of tf.estimator.Estimator in 2.15 (all estimators share them), then the
# tf.contrib.learn estimator methods TF 1.x code still called.
# Each row: (names, status, replacement).
ESTIMATOR_METHOD_ROWS = (
    ("train", SUPPORTED, "model.fit"),
    ("evaluate", SUPPORTED, "model.evaluate"),
    ("predict", SUPPORTED, "model.predict, or calling the model"),
    ("export_saved_model", SUPPORTED, "model.export, or tf.saved_model.save"),
    (
        "export_savedmodel",
        SUPPORTED,
        "export_saved_model, its name since TF 1.13 (TF 2's tf.estimator.Estimator lacked the "
        "old one; the shim keeps it); natively, model.export",
    ),
    ("experimental_export_all_saved_models", SUPPORTED, "one model.export per mode"),
    ("get_variable_names get_variable_value", SUPPORTED, "model.variables"),
    ("latest_checkpoint", SUPPORTED, "tf.train.CheckpointManager(...).latest_checkpoint"),
    ("eval_dir", SUPPORTED, "the log_dir of keras.callbacks.TensorBoard"),
    ("config model_dir model_fn params", SUPPORTED, "the keras.Model's own attributes"),
    (
        "fit partial_fit predict_classes predict_proba predict_scores export get_params set_params",
        NOT_SUPPORTED,
        "a tf.contrib.learn estimator method, which tf.estimator never had: train, predict "
        "(the `classes` and `probabilities` keys) and export_saved_model",
    ),
)
ESTIMATOR_METHODS: Dict[str, tuple] = {
    name: (status, replacement)
    for names, status, replacement in ESTIMATOR_METHOD_ROWS
    for name in names.split(" ")
}
"""Member name -> (status, replacement); the guide's section is `estimator-methods`."""
# Members no other common API has: a call of one is an estimator's, whatever the receiver.
ESTIMATOR_ONLY_METHODS = frozenset(
    "export_savedmodel experimental_export_all_saved_models get_variable_names "
    "get_variable_value eval_dir".split()
)

# The tensorflow-estimator package itself, and private modules programs imported.
PACKAGE = Symbol(
    "tensorflow_estimator",
    SUPPORTED,
    "`import tensorflow as tf` and tf.estimator (the shim stands in for the package, "
    "which does not import on TensorFlow >= 2.16)",
    guide_link("estimator-package-imports"),
)
# A private name of the original's modules that libraries imported and the shim lacks.
LIBRARY_NAME_MISSING = (
    NOT_SUPPORTED,
    "private-modules-and-names-libraries-use",
    "a private piece of the original that libraries built on tf.estimator used; "
    "the guide section lists what the shim provides of them and what replaces the rest",
)
PRIVATE_ESTIMATOR = (
    NOT_SUPPORTED,
    "estimator-package-imports",
    "private estimator internals; use the public tf.estimator name",
)
