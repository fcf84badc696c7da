"""`tf.compat.v1.estimator.tpu`: TPUEstimator run off TPU."""

import types

from tfestimator_compat.tpu.cross_shard import CrossShardOptimizer
from tfestimator_compat.tpu.embedding import EmbeddingConfigSpec
from tfestimator_compat.tpu.tpu_config import InputPipelineConfig
from tfestimator_compat.tpu.tpu_config import RunConfig
from tfestimator_compat.tpu.tpu_config import TPUConfig
from tfestimator_compat.tpu.tpu_estimator import TPUEstimator
from tfestimator_compat.tpu.tpu_estimator import TPUEstimatorSpec

experimental = types.ModuleType(
    "tfestimator_compat.tpu.experimental", "`tf.compat.v1.estimator.tpu.experimental`."
)
experimental.EmbeddingConfigSpec = EmbeddingConfigSpec

__all__ = [
    "CrossShardOptimizer",
    "InputPipelineConfig",
    "RunConfig",
    "TPUConfig",
    "TPUEstimator",
    "TPUEstimatorSpec",
    "experimental",
]
