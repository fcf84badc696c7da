"""The Keras 2 pieces estimator programs used, which Keras 3 dropped.

`tf.keras.optimizers.legacy` (`optimizers`) and `tf.keras.layers.DenseFeatures`
(`dense_features`), installed by `tfestimator_compat.install()`.
"""


def install() -> None:
    """Puts every Keras 2 piece where legacy code looks for it."""
    from tfestimator_compat.legacy.keras2 import dense_features
    from tfestimator_compat.legacy.keras2 import optimizers

    optimizers.install()
    dense_features.install()
