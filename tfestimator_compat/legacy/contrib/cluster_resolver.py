"""`tf.contrib.cluster_resolver`: cluster resolvers, and a TPU resolver for programs run off TPU.

TPU programs built a `TPUClusterResolver` and passed it to
`tf.contrib.tpu.RunConfig`. Named for a Cloud TPU (`--tpu_name=...`) it
looked the TPU up; this shim runs `TPUEstimator` off TPU only, so that
resolver fails at once with what to do instead, rather than later inside
TensorFlow's TPU discovery. Named `""` or `"local"` it did no lookup (the
name was the session master), so programs run with `--use_tpu=False` built
it anyway: that one works here as it did, a resolver of no cluster, and
`TPUEstimator(use_tpu=True)` is where a TPU would be needed, and fails.
The other resolvers are TensorFlow's own, under the same names.
"""

import os

import tensorflow as tf

_resolvers = tf.distribute.cluster_resolver

ClusterResolver = _resolvers.ClusterResolver
GCEClusterResolver = _resolvers.GCEClusterResolver
KubernetesClusterResolver = _resolvers.KubernetesClusterResolver
SimpleClusterResolver = _resolvers.SimpleClusterResolver
SlurmClusterResolver = _resolvers.SlurmClusterResolver
TFConfigClusterResolver = _resolvers.TFConfigClusterResolver
UnionClusterResolver = _resolvers.UnionResolver


# TF 1.x read the TPU's name from these when `tpu` was None (GKE's first).
_TPU_NAME_VARIABLES = ("KUBE_GOOGLE_CLOUD_TPU_ENDPOINTS", "TPU_NAME")
# Names that asked for no Cloud TPU: the session master itself.
_LOCAL_NAMES = ("", "local")


class TPUClusterResolver(ClusterResolver):
    """TF 1.x's `TPUClusterResolver`, for programs that make one but run off TPU.

    `tpu=""` or `"local"` gives a resolver of no cluster, as in TF 1.x: master
    `""`, an empty `ClusterSpec`, no TPU cores. A TPU name or address fails:
    the shim runs TPUEstimator off TPU only.

    Args:
        tpu: the TPU's name or address; None reads `$TPU_NAME` as TF 1.x did.
        zone: its Compute Engine zone.
        project: its Google Cloud project.
        job_name: the task type of the (local) worker.
        (the rest as in TF 1.x; ignored, since nothing is looked up.)

    Raises:
        ValueError: for a TPU name or address, naming it and what to run
            instead; for no name at all, as TF 1.x did.
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
        tpu = _one_tpu(tpu)
        if tpu is None:
            raise ValueError(
                "Please provide a TPU Name to connect to. (TPUClusterResolver(tpu=None) reads "
                "$TPU_NAME, which is not set; off TPU, pass tpu='' or 'local', or make no "
                "resolver.)"
            )
        if tpu not in _LOCAL_NAMES:
            raise ValueError(
                f"TPUClusterResolver was asked for TPU {tpu!r}, but tfestimator_compat runs "
                "TPUEstimator off TPU only. Run the program without a TPU (e.g. "
                "--use_tpu=false, so it makes no resolver and TPUEstimator gets "
                "use_tpu=False), or port it to tf.distribute.TPUStrategy with "
                "tf.distribute.cluster_resolver.TPUClusterResolver to use a TPU."
            )
        self.task_type = job_name
        self.task_id = 0
        self.rpc_layer = "grpc"

    def master(self, task_type=None, task_id=None, rpc_layer=None) -> str:
        """The session master: `""`, this process."""
        return ""

    def get_master(self) -> str:
        return self.master()

    def get_job_name(self):
        """The worker's job name; None in a TF 1.x graph, as TF 1.x said off Cloud."""
        return self.task_type if tf.compat.v1.executing_eagerly_outside_functions() else None

    def cluster_spec(self) -> tf.train.ClusterSpec:
        """An empty `ClusterSpec`: there is no cluster to propagate."""
        return tf.train.ClusterSpec({})

    def num_accelerators(self, task_type=None, task_id=None, config_proto=None) -> dict:
        return {"TPU": 0}

    @property
    def environment(self) -> str:
        return ""


def _one_tpu(tpu):
    """The TPU's name: a one-element list's element, or the environment's for None."""
    if isinstance(tpu, list):
        if not tpu:
            raise ValueError("At least one TPU must be specified.")
        if len(tpu) != 1:
            raise NotImplementedError(
                "Using multiple TPUs in a single session is not yet implemented"
            )
        tpu = tpu[0]
    if tpu is None:
        tpu = next((os.environ[v] for v in _TPU_NAME_VARIABLES if v in os.environ), None)
    return tpu


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
