"""Keras names that Keras 3 dropped, and TF 2.15 Keras aliases that TF 2.21 lost."""

from tfestimator_compat.shim.api_surface.symbol import NOT_SUPPORTED
from tfestimator_compat.shim.api_surface.symbol import SUPPORTED

# --- Keras names that Keras 3 dropped, relative to `keras` / `tf.keras` ---------------------
KERAS = {
    "estimator": (SUPPORTED, "keras-model-to-estimator", "the Keras model itself"),
    "estimator.model_to_estimator": (
        SUPPORTED,
        "keras-model-to-estimator",
        "the Keras model itself: model.fit/evaluate/predict, tf.saved_model.save",
    ),
    "layers.DenseFeatures": (
        SUPPORTED,
        "feature-columns-in-keras",
        "keras.utils.FeatureSpace or Keras preprocessing layers (the shim provides "
        "DenseFeatures as a Keras 3 layer on feature columns)",
    ),
    "optimizers.legacy": (
        SUPPORTED,
        "keras-2-legacy-optimizers",
        "keras.optimizers (same class names; their variables, and so checkpoints, differ)",
    ),
    "experimental.SequenceFeatures": (
        NOT_SUPPORTED,
        "feature-columns-in-keras",
        "gone with Keras 3; Keras preprocessing layers on padded or ragged sequences",
    ),
    "experimental.LinearModel": (
        NOT_SUPPORTED,
        "feature-columns-in-keras",
        "gone with Keras 3; keras.layers.Dense over preprocessed features, or "
        "tf.estimator.LinearClassifier/LinearRegressor",
    ),
    "experimental.WideDeepModel": (
        NOT_SUPPORTED,
        "feature-columns-in-keras",
        "gone with Keras 3; a functional keras.Model summing a linear and a deep logit, or "
        "tf.estimator.DNNLinearCombinedClassifier",
    ),
    "experimental.SidecarEvaluator": (
        NOT_SUPPORTED,
        "removed-keras-2-apis",
        "gone with Keras 3; a process running model.evaluate on each new checkpoint "
        "(tf.train.checkpoints_iterator)",
    ),
    "utils.SidecarEvaluator": (
        NOT_SUPPORTED,
        "removed-keras-2-apis",
        "gone with Keras 3; a process running model.evaluate on each new checkpoint "
        "(tf.train.checkpoints_iterator)",
    ),
    "utils.track_tf1_style_variables": (
        NOT_SUPPORTED,
        "tf1-style-variable-tracking",
        "gone with Keras 3; rewrite the layer with add_weight in build(), or run the TF1 code "
        "inside a model_fn under the shim",
    ),
}

# --- TF 2.15 names (Keras 2 aliases) that TF 2.21 no longer has, relative to `tf` ------------
REMOVED_V2 = {
    "losses.kl_divergence": "keras.losses.kl_divergence",
    "losses.log_cosh": "keras.losses.log_cosh",
    "losses.mean_absolute_error": "keras.losses.mean_absolute_error",
    "losses.mean_absolute_percentage_error": "keras.losses.mean_absolute_percentage_error",
    "losses.mean_squared_logarithmic_error": "keras.losses.mean_squared_logarithmic_error",
    "metrics.kl_divergence": "keras.metrics.kl_divergence",
    "metrics.log_cosh": "keras.metrics.log_cosh",
    "metrics.mean_absolute_percentage_error": "keras.losses.mean_absolute_percentage_error",
    "metrics.mean_squared_logarithmic_error": "keras.losses.mean_squared_logarithmic_error",
    "metrics.MeanRelativeError": "a custom keras.metrics.Metric",
    "metrics.MeanTensor": "a custom keras.metrics.Metric",
    "metrics.experimental": "a custom keras.metrics.Metric",
    "optimizers.experimental": "keras.optimizers (same class names)",
}
# Installed on `tf.keras` only, not on the standalone `keras` package.
TF_KERAS_ONLY = ("estimator", "layers.DenseFeatures")
