"""Where this process sits in a cluster, as the `TF_CONFIG` environment variable says.

`TF_CONFIG` is a JSON object that cluster managers set on every task:
`cluster` maps job names to addresses, `task` names this task's job
(`type`) and index. `RunConfig` exposes what `parse_tf_config` derives from
it: which task is the chief, the session master to connect to, how many
workers and parameter servers there are.

Two readings exist, as in tf.estimator 2.15:

- Between-graph (no `train_distribute`): the cluster must have exactly one
  `chief`, or one legacy `master`; only that task is the chief.
- Strategy-managed (a `train_distribute` such as
  `tf.distribute.MultiWorkerMirroredStrategy`): the strategy reads
  `TF_CONFIG` itself, a chief is optional and, without one, `worker:0` is
  the chief, as `tf.distribute` decides.

The `evaluator` task is never part of the training cluster: whatever
`cluster` says, an evaluator sees an empty `cluster_spec`.
"""

import dataclasses
import json
import os
from typing import Any
from typing import Dict
from typing import Optional
from typing import Tuple

import tensorflow as tf

CHIEF = "chief"
MASTER = "master"
WORKER = "worker"
PS = "ps"
EVALUATOR = "evaluator"

_LOCAL_MASTER = ""


@dataclasses.dataclass(frozen=True)
class ClusterConfig:
    """This task's place in the cluster, as `RunConfig` exposes it.

    `device_filters` is the list of jobs a between-graph task should talk to
    (None where the task needs no filter); `RunConfig` turns it into its
    default `session_config`.
    """

    cluster_spec: tf.train.ClusterSpec
    task_type: str
    task_id: int
    is_chief: bool
    master: str
    evaluation_master: str
    num_ps_replicas: int
    num_worker_replicas: int
    global_id_in_cluster: Optional[int]
    service: Optional[Dict[str, Any]] = None
    device_filters: Optional[Tuple[str, ...]] = None


def read_tf_config() -> Dict[str, Any]:
    """The `TF_CONFIG` environment variable as a dict; `{}` when unset or empty."""
    text = os.environ.get("TF_CONFIG", "")
    if not text.strip():
        return {}
    try:
        tf_config = json.loads(text)
    except json.JSONDecodeError as error:
        raise ValueError(
            f"TF_CONFIG is not valid JSON ({error}). Set it to a JSON object such as "
            '{"cluster": {"worker": ["host:2222"]}, "task": {"type": "worker", "index": 0}}.'
        ) from None
    if not isinstance(tf_config, dict):
        raise ValueError(f"TF_CONFIG must be a JSON object, got {text!r}.")
    return tf_config


def parse_tf_config(tf_config: Dict[str, Any], strategy_managed: bool = False) -> ClusterConfig:
    """Reads `tf_config` (a parsed `TF_CONFIG`) into a `ClusterConfig`.

    Args:
        tf_config: the parsed `TF_CONFIG`.
        strategy_managed: whether a `train_distribute` strategy runs the
            workers. Such a strategy needs no chief, and every task reports
            what the strategy's own worker sees; see the module docstring.

    Returns:
        A `ClusterConfig`.

    Raises:
        ValueError: if the cluster or the task is not a valid combination.
        TypeError: if `service` is set but is not a dict.
    """
    service = tf_config.get("service")
    if service is not None and not isinstance(service, dict):
        raise TypeError(
            f'If "service" is set in TF_CONFIG, it must be a dict. Given {type(service)}: '
            'write it as a JSON object, e.g. "service": {"name": ...}.'
        )
    cluster = tf.train.ClusterSpec(tf_config.get("cluster", {}))
    task = tf_config.get("task", {})
    if not cluster:
        return _local(tf_config, task, service)
    if MASTER in cluster.jobs:
        return _legacy_master(cluster, task, tf_config, service)
    if strategy_managed:
        return _strategy_managed(cluster, task, tf_config)
    return _between_graph(cluster, task, tf_config, service)


def _local(tf_config, task, service):
    """A single local task: no cluster, so nothing but `worker:0` makes sense."""
    task_type = task.get("type", WORKER)
    task_id = _task_index(task.get("index", 0))
    if task_type != WORKER:
        raise ValueError(
            'If "cluster" is not set in TF_CONFIG, task type must be WORKER. '
            f'Got {task_type!r}: add a "cluster", or drop the task.'
        )
    if task_id != 0:
        raise ValueError(
            'If "cluster" is not set in TF_CONFIG, task index must be 0. '
            f'Got {task_id}: add a "cluster", or drop the task.'
        )
    return ClusterConfig(
        cluster_spec=tf.train.ClusterSpec({}),
        task_type=WORKER,
        task_id=0,
        is_chief=True,
        master=tf_config.get("session_master", _LOCAL_MASTER),
        evaluation_master=tf_config.get("eval_session_master", _LOCAL_MASTER),
        num_ps_replicas=0,
        num_worker_replicas=1,
        global_id_in_cluster=0,
        service=service,
    )


def _between_graph(cluster, task, tf_config, service):
    """A cluster with one `chief`; each task builds its own graph."""
    _check_chief(cluster, CHIEF)
    task_type, task_id = _task(cluster, task)
    if task_type == EVALUATOR:
        return _evaluator(task_id, tf_config.get("eval_session_master", _LOCAL_MASTER), service)
    return _between_graph_task(cluster, task_type, task_id, CHIEF, tf_config, service)


def _legacy_master(cluster, task, tf_config, service):
    """A TF1-era cluster whose chief is called `master`."""
    if CHIEF in cluster.jobs:
        raise ValueError(
            "If `master` node exists in `cluster`, job `chief` is not supported. Both would be "
            'the chief: keep one of them (prefer "chief").'
        )
    _check_chief(cluster, MASTER)
    task_type, task_id = _task(cluster, task)
    if task_type == EVALUATOR:
        raise ValueError(
            "If `master` node exists in `cluster`, task_type `evaluator` is not supported. "
            'Rename the "master" job to "chief".'
        )
    return _between_graph_task(cluster, task_type, task_id, MASTER, tf_config, service)


def _between_graph_task(cluster, task_type, task_id, chief_job, tf_config, service):
    """A training task of a cluster whose chief job is `chief_job` (`chief` or `master`)."""
    return ClusterConfig(
        cluster_spec=cluster,
        task_type=task_type,
        task_id=task_id,
        is_chief=task_type == chief_job,
        master=_session_master(cluster, task_type, task_id, tf_config),
        evaluation_master=_LOCAL_MASTER,
        num_ps_replicas=_count(cluster, PS),
        num_worker_replicas=_count(cluster, WORKER) + _count(cluster, chief_job),
        global_id_in_cluster=_global_id(cluster, task_type, task_id, chief_job),
        service=service,
        device_filters=_device_filters(task_type, task_id),
    )


def _strategy_managed(cluster, task, tf_config):
    """A cluster run by a `tf.distribute` strategy, which may have no chief.

    The values are those tf.estimator 2.15's distribute coordinator gave each
    worker once training started: `master` uses `TF_CONFIG`'s `rpc_layer`,
    the chief follows `tf.distribute`'s rule, and `service` is dropped.
    """
    _check_chief(cluster, CHIEF, required=False)
    task_type, task_id = _task(cluster, task)
    if task_type == EVALUATOR:
        return _evaluator(task_id, _LOCAL_MASTER, service=None, is_chief=True)
    rpc_layer = tf_config.get("rpc_layer", "grpc")
    master = (f"{rpc_layer}://" if rpc_layer else "") + cluster.task_address(task_type, task_id)
    has_chief = CHIEF in cluster.jobs
    return ClusterConfig(
        cluster_spec=cluster,
        task_type=task_type,
        task_id=task_id,
        is_chief=task_type == CHIEF or (not has_chief and task_type == WORKER and task_id == 0),
        master=master,
        evaluation_master=master,
        num_ps_replicas=_count(cluster, PS),
        num_worker_replicas=_count(cluster, WORKER) + _count(cluster, CHIEF),
        global_id_in_cluster=_global_id(cluster, task_type, task_id, CHIEF),
    )


def _evaluator(task_id, evaluation_master, service, is_chief=False):
    """The evaluator stands outside the training cluster and sees none of it."""
    return ClusterConfig(
        cluster_spec=tf.train.ClusterSpec({}),
        task_type=EVALUATOR,
        task_id=task_id,
        is_chief=is_chief,
        master=_LOCAL_MASTER,
        evaluation_master=evaluation_master,
        num_ps_replicas=0,
        num_worker_replicas=0,
        global_id_in_cluster=None,
        service=service,
    )


def _check_chief(cluster, chief_job, required=True):
    """At most one chief task, and exactly one where the cluster needs it."""
    if required and chief_job not in cluster.jobs:
        raise ValueError(
            f'If "cluster" is set in TF_CONFIG, it must have one "{chief_job}" node. '
            f'Add a "{chief_job}" job with one address (or pass a train_distribute strategy, '
            "which uses worker 0 as the chief)."
        )
    if _count(cluster, chief_job) > 1:
        raise ValueError(
            f'The "cluster" in TF_CONFIG must have only one "{chief_job}" node. '
            f"It lists {_count(cluster, chief_job)}: make the others workers."
        )


def _task(cluster, task):
    """The validated (type, index) of this task in `cluster`."""
    task_type = task.get("type")
    if not task_type:
        raise ValueError(
            'If "cluster" is set in TF_CONFIG, task type must be set. Set "task": '
            '{"type": ..., "index": ...} to say which of the cluster\'s tasks this process is.'
        )
    if task.get("index") is None:
        raise ValueError(
            'If "cluster" is set in TF_CONFIG, task index must be set. '
            f'Add "index" to the {task_type!r} task: "task": {{"type": ..., "index": ...}}.'
        )
    task_id = _task_index(task["index"])
    if task_id < 0:
        raise ValueError(
            f"Task index must be non-negative number. TF_CONFIG's task index is {task_id}; "
            "tasks are indexed from 0."
        )
    if task_type == EVALUATOR:
        return task_type, task_id
    if task_type not in cluster.jobs:
        raise ValueError(
            f"{task_type} is not a valid task_type in the cluster_spec:\n{cluster!r}\n\n"
            f"TF_CONFIG's task type must be one of its jobs ({sorted(cluster.jobs)}), "
            "or 'evaluator'."
        )
    if task_id >= _count(cluster, task_type):
        raise ValueError(
            f"{task_id} is not a valid task_id for task_type {task_type} in the cluster_spec:"
            f"\n{cluster!r}\n\nTF_CONFIG's task index must be below the number of "
            f"{task_type!r} tasks ({_count(cluster, task_type)}), counting from 0."
        )
    return task_type, task_id


def _task_index(index):
    try:
        return int(index)
    except (TypeError, ValueError):
        raise ValueError(
            f"The task index in TF_CONFIG must be an integer, got {index!r}."
        ) from None


def _session_master(cluster, task_type, task_id, tf_config):
    """`session_master` if given; local for a one-task cluster; else this task's gRPC target."""
    if "session_master" in tf_config:
        return tf_config["session_master"]
    if len(cluster.jobs) == 1 and _count(cluster, cluster.jobs[0]) == 1:
        return _LOCAL_MASTER
    return "grpc://" + cluster.task_address(task_type, task_id)


def _count(cluster, job):
    return cluster.num_tasks(job) if job in cluster.jobs else 0


def _global_id(cluster, task_type, task_id, chief_job):
    """A unique id across the cluster: the chief first, other jobs by name, `ps` last."""
    others = sorted(job for job in cluster.jobs if job not in (chief_job, PS))
    order = ([chief_job] if chief_job in cluster.jobs else []) + others
    order += [PS] if PS in cluster.jobs else []
    offset = 0
    for job in order:
        if job == task_type:
            return offset + task_id
        offset += _count(cluster, job)
    raise AssertionError(f"{task_type!r} was validated to be a job of {cluster}.")


def _device_filters(task_type, task_id):
    """The jobs a between-graph task talks to: its own and the parameter servers."""
    filters = {
        MASTER: ("/job:ps", "/job:master"),
        CHIEF: ("/job:ps", "/job:chief"),
        WORKER: ("/job:ps", f"/job:worker/task:{task_id}"),
        PS: ("/job:ps", "/job:worker", "/job:chief", "/job:master"),
    }
    return filters.get(task_type)


def is_ps_strategy(strategy) -> bool:
    """Whether `strategy` is a `ParameterServerStrategy` (the TF2 or the TF1 class)."""
    return isinstance(
        strategy,
        (
            tf.distribute.experimental.ParameterServerStrategy,
            tf.compat.v1.distribute.experimental.ParameterServerStrategy,
        ),
    )
