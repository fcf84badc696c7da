"""`tf.contrib.tpu`: TPUEstimator and its configuration, run off TPU by this shim.

In TensorFlow 1.x these lived in `tf.contrib.tpu` before moving to
`tf.compat.v1.estimator.tpu`; both names reach `tfestimator_compat.tpu`.
TensorFlow <= 2.15 still ships them, beside Keras 2, which the shim's engine
cannot run with: there `tf.contrib.tpu` is TensorFlow's own.
"""

from tfestimator_compat.shim import native_estimator

if native_estimator.tensorflow_has_estimator():
    import tensorflow as tf

    CrossShardOptimizer = tf.compat.v1.tpu.CrossShardOptimizer
    InputPipelineConfig = tf.compat.v1.estimator.tpu.InputPipelineConfig
    RunConfig = tf.compat.v1.estimator.tpu.RunConfig
    TPUConfig = tf.compat.v1.estimator.tpu.TPUConfig
    TPUEstimator = tf.compat.v1.estimator.tpu.TPUEstimator
    TPUEstimatorSpec = tf.compat.v1.estimator.tpu.TPUEstimatorSpec
else:
    from tfestimator_compat.tpu import CrossShardOptimizer
    from tfestimator_compat.tpu import InputPipelineConfig
    from tfestimator_compat.tpu import RunConfig
    from tfestimator_compat.tpu import TPUConfig
    from tfestimator_compat.tpu import TPUEstimator
    from tfestimator_compat.tpu import TPUEstimatorSpec

__all__ = [
    "CrossShardOptimizer",
    "InputPipelineConfig",
    "RunConfig",
    "TPUConfig",
    "TPUEstimator",
    "TPUEstimatorSpec",
]
