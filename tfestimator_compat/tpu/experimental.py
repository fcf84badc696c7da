"""`tf.compat.v1.estimator.tpu.experimental`."""

from tfestimator_compat.tpu.embedding import EmbeddingConfigSpec

__all__ = ["EmbeddingConfigSpec"]
