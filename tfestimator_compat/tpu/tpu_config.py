"""`tf.compat.v1.estimator.tpu.RunConfig`, `TPUConfig` and `InputPipelineConfig`."""

import collections
import json
import os

from tfestimator_compat.run_config import RunConfig as _RunConfig


class InputPipelineConfig:
    """How a TPU job fed its input (kept for programs that name the constants)."""

    PER_SHARD_V1 = 1
    PER_HOST_V1 = 2
    PER_HOST_V2 = 3
    BROADCAST = 4
    SLICED = 5


def check_positive_integer(value, name):
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        raise ValueError(f"{name} must be positive integer. Given: {value}")


class TPUConfig(
    collections.namedtuple(
        "TPUConfig",
        [
            "iterations_per_loop",
            "num_shards",
            "num_cores_per_replica",
            "per_host_input_for_training",
            "tpu_job_name",
            "initial_infeed_sleep_secs",
            "input_partition_dims",
            "eval_training_input_configuration",
            "experimental_host_call_every_n_steps",
            "experimental_allow_per_host_v2_parallel_get_next",
            "experimental_feed_hook",
        ],
    )
):
    """TPU settings. Off TPU, `iterations_per_loop` bounds the steps per call."""

    def __new__(
        cls,
        iterations_per_loop=2,
        num_shards=None,
        num_cores_per_replica=None,
        per_host_input_for_training=True,
        tpu_job_name=None,
        initial_infeed_sleep_secs=None,
        input_partition_dims=None,
        eval_training_input_configuration=InputPipelineConfig.PER_HOST_V1,
        experimental_host_call_every_n_steps=1,
        experimental_allow_per_host_v2_parallel_get_next=False,
        experimental_feed_hook=None,
    ):
        _check_iterations_per_loop(iterations_per_loop)
        if num_shards is not None:
            check_positive_integer(num_shards, "TPUConfig num_shards")
        if input_partition_dims is not None:
            if len(input_partition_dims) not in (1, 2):
                raise ValueError(
                    "input_partition_dims must be a list/tuple with one or two elements."
                )
            if per_host_input_for_training is not InputPipelineConfig.PER_HOST_V2:
                raise ValueError("input_partition_dims is only supported in PER_HOST_V2 mode.")
            if num_cores_per_replica is None:
                raise ValueError("input_partition_dims requires setting num_cores_per_replica.")
        if num_cores_per_replica is not None and num_cores_per_replica not in (
            1,
            2,
            4,
            8,
            16,
            32,
            64,
            128,
        ):
            raise ValueError(
                "num_cores_per_replica must be 1, 2, 4, 8, 16, 32, 64, 128; "
                f"got {num_cores_per_replica}"
            )
        if eval_training_input_configuration not in (
            InputPipelineConfig.PER_HOST_V1,
            InputPipelineConfig.SLICED,
        ):
            raise ValueError(
                "eval_training_input_configuration must be PER_HOST_V1 or SLICED; "
                f"got {eval_training_input_configuration}"
            )
        if per_host_input_for_training is False:
            per_host_input_for_training = InputPipelineConfig.PER_SHARD_V1
        elif per_host_input_for_training is True:
            per_host_input_for_training = InputPipelineConfig.PER_HOST_V1
        if initial_infeed_sleep_secs:
            check_positive_integer(initial_infeed_sleep_secs, "TPUConfig initial_infeed_sleep_secs")
        if tpu_job_name is None:
            tpu_job_name = (
                json.loads(os.environ.get("TF_CONFIG", "{}") or "{}")
                .get("service", {})
                .get("tpu_worker_job_name")
            )
        return super().__new__(
            cls,
            iterations_per_loop,
            num_shards,
            num_cores_per_replica,
            per_host_input_for_training,
            tpu_job_name,
            initial_infeed_sleep_secs,
            input_partition_dims,
            eval_training_input_configuration,
            experimental_host_call_every_n_steps,
            experimental_allow_per_host_v2_parallel_get_next,
            experimental_feed_hook,
        )

    @property
    def steps_per_loop(self):
        """`iterations_per_loop` in steps (its seconds form, `'30s'`, counts as no bound)."""
        if isinstance(self.iterations_per_loop, int):
            return self.iterations_per_loop
        return None


def _check_iterations_per_loop(value):
    """An int > 0, or a string of seconds such as `'30s'`, `'1m'` or `'2h'`."""
    if isinstance(value, int) and not isinstance(value, bool):
        if value <= 0:
            raise ValueError(f"iterations_per_loop must be positive integer. Given: {value}")
        return
    if isinstance(value, str) and len(value) > 1 and value[:-1].isdigit() and value[-1] in "smh":
        if int(value[:-1]) <= 0:
            raise ValueError(f"iterations_per_loop must be positive. Given: {value}")
        return
    raise ValueError(
        "iterations_per_loop must be a positive integer, or a number of seconds, "
        f"minutes or hours such as '30s', '10m' or '1h'. Given: {value!r}"
    )


class RunConfig(_RunConfig):
    """A `RunConfig` with a `TPUConfig`, `master` and `cluster`."""

    def __init__(
        self, tpu_config=None, evaluation_master=None, master=None, cluster=None, **kwargs
    ):
        super().__init__(**kwargs)
        self._tpu_config = tpu_config or TPUConfig()
        self._cluster = cluster
        if master is not None:
            if cluster is not None:
                raise ValueError("Both master and cluster are set.")
            self._master = master
        elif cluster is not None:
            self._master = cluster.master()
        self._evaluation_master = (
            evaluation_master if evaluation_master is not None else self._master
        )

    def _distributed_session_config(self, device_filters):
        # TPU jobs run in-graph: no between-graph device filters, as in the original.
        return None

    tpu_config = property(lambda self: self._tpu_config)
    cluster = property(lambda self: self._cluster)
