"""`tf.compat.v1.tpu.CrossShardOptimizer` that also works off TPU.

TPU programs wrap their optimizer in `CrossShardOptimizer`, which sums
gradients across TPU shards with a TPU-only op. Outside a TPU shard context
there is one shard and nothing to sum, so this subclass hands the work to the
wrapped optimizer; on a TPU it is TensorFlow's own class.
"""

import tensorflow as tf

from tfestimator_compat.engine.internals import tensorflow_internals as tf_internals

_TF_CROSS_SHARD_OPTIMIZER = tf.compat.v1.tpu.CrossShardOptimizer


def _in_tpu_shard_context():
    return tf_internals.tpu_context().number_of_shards is not None


class CrossShardOptimizer(_TF_CROSS_SHARD_OPTIMIZER):
    """Sums gradients across TPU shards; off TPU, the wrapped optimizer as is."""

    def compute_gradients(self, loss, var_list=None, **kwargs):
        if _in_tpu_shard_context():
            return super().compute_gradients(loss, var_list=var_list, **kwargs)
        return tf_internals.cross_shard_wrapped_optimizer(self).compute_gradients(
            loss, var_list=var_list, **kwargs
        )

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        if _in_tpu_shard_context():
            return super().apply_gradients(grads_and_vars, global_step, name)
        return tf_internals.cross_shard_wrapped_optimizer(self).apply_gradients(
            grads_and_vars, global_step, name
        )


def install():
    """Makes `tf.compat.v1.tpu.CrossShardOptimizer` this class (idempotent)."""
    tf.compat.v1.tpu.CrossShardOptimizer = CrossShardOptimizer
