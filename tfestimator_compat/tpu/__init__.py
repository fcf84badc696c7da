"""`tf.compat.v1.estimator.tpu`: TPUEstimator run off TPU."""

from tfestimator_compat.shim import lazy

# Where each name is defined, imported when the name is first read.
_SOURCES = {
    "CrossShardOptimizer": "tfestimator_compat.tpu.cross_shard",
    "InputPipelineConfig": "tfestimator_compat.tpu.tpu_config",
    "RunConfig": "tfestimator_compat.tpu.tpu_config",
    "TPUConfig": "tfestimator_compat.tpu.tpu_config",
    "TPUEstimator": "tfestimator_compat.tpu.tpu_estimator",
    "TPUEstimatorSpec": "tfestimator_compat.tpu.tpu_estimator",
    "experimental": "tfestimator_compat.tpu.experimental",
}

__all__ = sorted(_SOURCES)

__getattr__, __dir__ = lazy.attributes(__name__, _SOURCES)
