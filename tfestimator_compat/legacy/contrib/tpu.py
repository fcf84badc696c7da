"""`tf.contrib.tpu`: TPUEstimator and its configuration, run off TPU by this shim.

In TensorFlow 1.x these lived in `tf.contrib.tpu` before moving to
`tf.compat.v1.estimator.tpu`; both names reach `tfestimator_compat.tpu`.
"""

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
