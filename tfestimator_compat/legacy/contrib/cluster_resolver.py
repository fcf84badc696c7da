"""`tf.contrib.cluster_resolver`: cluster resolvers, and a TPU resolver that says there is no TPU.

TPU programs built a `TPUClusterResolver` when asked to run on a TPU
(`--use_tpu --tpu_name=...`) and passed it to `tf.contrib.tpu.RunConfig`.
This shim runs `TPUEstimator` off TPU only, so that resolver fails at once
with what to do instead, rather than later inside TensorFlow's TPU discovery.
The other resolvers are TensorFlow's own, under the same names.
"""

import tensorflow as tf

_resolvers = tf.distribute.cluster_resolver

ClusterResolver = _resolvers.ClusterResolver
GCEClusterResolver = _resolvers.GCEClusterResolver
KubernetesClusterResolver = _resolvers.KubernetesClusterResolver
SimpleClusterResolver = _resolvers.SimpleClusterResolver
SlurmClusterResolver = _resolvers.SlurmClusterResolver
TFConfigClusterResolver = _resolvers.TFConfigClusterResolver
UnionClusterResolver = _resolvers.UnionResolver


class TPUClusterResolver:
    """Stands for TF 1.x's `TPUClusterResolver`; making one asks for a TPU, and fails.

    Args:
        tpu: the TPU's name or address (TF 1.x looked it up on Google Cloud).
        zone: its Compute Engine zone.
        project: its Google Cloud project.
        (the rest as in TF 1.x; all are ignored, since construction fails.)

    Raises:
        ValueError: always, naming the TPU and what to run instead.
    """

    def __init__(
        self,
        tpu=None,
        zone=None,
        project=None,
        job_name="worker",
        coordinator_name=None,
        coordinator_address=None,
        credentials="default",
        service=None,
        discovery_url=None,
    ):
        asked = f"TPU {tpu!r}" if tpu else "a TPU"
        raise ValueError(
            f"TPUClusterResolver was asked for {asked}, but tfestimator_compat runs "
            "TPUEstimator off TPU only. Run the program without a TPU (e.g. --use_tpu=false, "
            "so it makes no resolver and TPUEstimator gets use_tpu=False), or port it to "
            "tf.distribute.TPUStrategy with tf.distribute.cluster_resolver.TPUClusterResolver "
            "to use a TPU."
        )


__all__ = [
    "ClusterResolver",
    "GCEClusterResolver",
    "KubernetesClusterResolver",
    "SimpleClusterResolver",
    "SlurmClusterResolver",
    "TFConfigClusterResolver",
    "TPUClusterResolver",
    "UnionClusterResolver",
]
