"""Parameter-server clusters: `ps` tasks in `TF_CONFIG`, on TensorFlow's `ParameterServerStrategy`.

Most estimator jobs at scale were a cluster of a `chief` (TF1's `master`),
`worker`s and `ps` tasks with no strategy in `RunConfig`: every training
task ran its own loop against variables placed on the parameter servers, and
the steps of different workers did not wait for each other. Here the same
job runs on TensorFlow's own engine for it,
`tf.distribute.experimental.ParameterServerStrategy` with a
`ClusterCoordinator`:

- the chief is the coordinator. Its variables live on the `ps` tasks (whole
  variables in turn; the parts of a partitioned variable, one after the
  other, on different ones), and it schedules the training steps onto the
  workers and, as the original's chief trained too, onto itself
  (`chief_coordinator`), each reading its own share of the `input_fn`'s
  data. It alone
  writes checkpoints, summaries and `graph.pbtxt` and runs the hooks.
- `worker` and `ps` tasks start a `tf.distribute.Server` and serve it until
  the chief is done, then return (`serve_until_chief_is_done`).

How a serving task learns that the chief is done: when a `train()` call
ends, the chief runs one small function on every worker and ps task, in that
task's own process, that writes the number of `train()` calls it finished
into a file of that task's
(`<model_dir>/.tfestimator_compat-<job>-<index>-<port>.chief_done`, which the
task makes, empty and exclusively, when its server starts and removes when its
process ends; a server the program started itself has no such file and gets
none). The serving task's own `train()` call (or the ps task's
`train_and_evaluate`) returns once that count reaches its own count of calls,
so a program that alternates `train()` and `evaluate()` keeps its tasks in
step. The file is in `model_dir`, where only the job writes, rather than at a
name in `/tmp` where anyone could plant a link. A chief that fails sends
nothing: the others keep serving until it is restarted, and find it where it
left them. Where the chief could not write (a marker that could not be made),
a task also ends once the chief's process is gone (its address refuses
connections) and the newest checkpoint holds the step training was to reach.
"""

import atexit
import contextlib
import os
import socket
import time

import tensorflow as tf

from tfestimator_compat.engine import process_state
from tfestimator_compat.engine.distributed import cluster as cluster_lib
from tfestimator_compat.engine.internals import tensorflow_internals as tf_internals
from tfestimator_compat.engine.state import checkpoints

_logging = tf.compat.v1.logging
# How often a serving task looks at the chief, and how long the chief must be
# gone before the task believes it.
_POLL_SECS = 0.5
# How often a chief waiting for the cluster's tasks says which ones.
_WAIT_LOG_SECS = 10
_CHIEF_GONE_SECS = 1.0
_CHIEF_DEVICE = f"/job:{cluster_lib.CHIEF}/replica:0/task:0"
_GUIDE = "migration_guide/cluster.md#parameter-servers"

# This process's server, chief strategy and rounds: `process_state.STATE.cluster_task`.
_TASK = process_state.STATE.cluster_task


def in_ps_cluster(config) -> bool:
    """Whether this task belongs to a parameter-server cluster (the evaluator never does)."""
    if config.task_type == cluster_lib.EVALUATOR:
        return False
    spec = config.cluster_spec.as_dict() if config.cluster_spec else {}
    return bool(spec.get(cluster_lib.PS)) or cluster_lib.is_ps_strategy(config.train_distribute)


def check(config):
    """Refuses parameter-server clusters that cannot run, saying what to change."""
    spec = config.cluster_spec.as_dict() if config.cluster_spec else {}
    if not spec.get(cluster_lib.PS):
        raise ValueError(
            "RunConfig(train_distribute=ParameterServerStrategy) needs a TF_CONFIG cluster "
            "with 'ps' tasks, a 'chief' and 'worker's; this task's cluster is "
            f"{spec or 'empty'}. Set TF_CONFIG in every task, or train without the strategy "
            f"on one machine. See {_GUIDE}."
        )
    if not spec.get(cluster_lib.WORKER):
        raise ValueError(
            f"TF_CONFIG's cluster has 'ps' tasks but no 'worker' task ({spec}). "
            "TensorFlow's ParameterServerStrategy, which runs the steps here, needs at "
            "least one: add a 'worker' to the cluster (or drop the 'ps' job to train on "
            f"one machine). See {_GUIDE}."
        )


def training_cluster(config) -> tf.train.ClusterSpec:
    """The cluster the servers and the coordinator share: `chief` (for a legacy
    `master`), `worker` and `ps`, without the evaluator."""
    spec = config.cluster_spec.as_dict()
    chief = spec.get(cluster_lib.CHIEF) or spec.get(cluster_lib.MASTER)
    return tf.train.ClusterSpec(
        {
            cluster_lib.CHIEF: list(chief),
            cluster_lib.WORKER: list(spec[cluster_lib.WORKER]),
            cluster_lib.PS: list(spec[cluster_lib.PS]),
        }
    )


def chief_coordinator(strategy):
    """The `ClusterCoordinator` that runs the chief's steps on `strategy`'s workers.

    Where the original's chief trained (no strategy, or TF1's
    `ParameterServerStrategy`: the strategy `chief_strategy` made), the chief
    is one of those workers too, on its own CPU; a TF2 strategy the program
    passed keeps TF2's roles, where the coordinator runs no step.
    """
    coordinator = tf.distribute.experimental.coordinator.ClusterCoordinator(strategy)
    devices = tf_internals.coordinator_worker_devices(coordinator)
    if strategy is _TASK.chief_strategy and _CHIEF_DEVICE not in devices:
        tf_internals.add_coordinator_worker(coordinator, _CHIEF_DEVICE)
    return coordinator


def chief_strategy(config, timeout_secs):
    """The TF2 `ParameterServerStrategy` the chief trains with, connected to the cluster.

    A TF2 strategy passed as `train_distribute` is used as given. Otherwise
    (no strategy, or the TF1 class) one is made on this task's cluster, once
    per process: making it connects the chief to every task, which waits
    for their servers (at most `timeout_secs`,
    `RunConfig.session_creation_timeout_secs`).
    """
    given = config.train_distribute
    if isinstance(given, tf.distribute.experimental.ParameterServerStrategy):
        return given
    if _TASK.chief_strategy is None:
        cluster = training_cluster(config)
        _wait_for_tasks(cluster, timeout_secs)
        # Steps on a worker that went away fail at once and are rescheduled elsewhere.
        os.environ.setdefault("GRPC_FAIL_FAST", "use_caller")
        resolver = tf.distribute.cluster_resolver.SimpleClusterResolver(
            cluster, task_type=cluster_lib.CHIEF, task_id=0, rpc_layer="grpc"
        )
        _TASK.chief_strategy = tf.distribute.experimental.ParameterServerStrategy(resolver)
    return _TASK.chief_strategy


@contextlib.contextmanager
def tf1_partitioning(strategy):
    """Lets TF1 partitioners alone decide which variables are split, as in the original.

    `get_variable(partitioner=...)` and the canned estimators' `partitioner`
    arguments already make the parts, each its own variable (saved as a
    slice of the whole); a `variable_partitioner` given to the strategy
    would split other variables too, into `ShardedVariable`s that the
    original's checkpoints do not have. It is set aside while the Estimator
    creates variables.
    """
    extended = strategy.extended
    partitioner = tf_internals.variable_partitioner(extended)
    if partitioner is not None:
        _logging.warning(
            "ParameterServerStrategy(variable_partitioner=...) is not applied to an "
            "Estimator's variables: TF1 partitioners (get_variable(partitioner=...), the "
            "canned estimators' partitioner arguments) decide which are split, so that "
            "checkpoints keep the original's keys. See %s.",
            _GUIDE,
        )
        tf_internals.set_variable_partitioner(extended, None)
    try:
        yield
    finally:
        if partitioner is not None:
            tf_internals.set_variable_partitioner(extended, partitioner)


def serve_until_chief_is_done(config, last_step):
    """A `worker` or `ps` task: serves its part of the cluster until the chief is done.

    Args:
        config: the task's `RunConfig`.
        last_step: the global step the chief trains to (None: to the end of its input).
    """
    _start_server(config)
    _TASK.rounds_served += 1
    cluster = training_cluster(config)
    marker = _marker_path(config.model_dir, cluster, _job(config), config.task_id)
    chief = cluster.task_address(cluster_lib.CHIEF, 0)
    _logging.info(
        "%s %d serves the parameter-server cluster until the chief (%s) is done.",
        config.task_type,
        config.task_id,
        chief,
    )
    checkpointing = bool(config.save_checkpoints_steps or config.save_checkpoints_secs)
    gone_since = None
    while True:
        if _told_done(marker, _TASK.rounds_served):
            _logging.info("The chief is done; %s %d stops.", config.task_type, config.task_id)
            return
        if _accepts_connections(chief):
            gone_since = None
        else:
            gone_since = gone_since or time.time()
            if time.time() - gone_since >= _CHIEF_GONE_SECS and _finished(
                config.model_dir, last_step, checkpointing
            ):
                _logging.info("The chief is done; %s %d stops.", config.task_type, config.task_id)
                return
        time.sleep(_POLL_SECS)


def tell_serving_tasks_chief_is_done(config):
    """Tells every worker and ps task that the chief finished a `train()` call.

    Runs, on each task's device, an op that writes the count of finished
    calls to that task's marker file (see the module docstring). A task it
    cannot reach is left to notice the end by itself.
    """
    _TASK.rounds_trained += 1
    cluster = training_cluster(config)
    count = tf.constant(str(_TASK.rounds_trained))
    for job in (cluster_lib.WORKER, cluster_lib.PS):
        for index in cluster.task_indices(job):
            try:
                with tf.device(f"/job:{job}/replica:0/task:{index}/device:CPU:0"):
                    marker = _marker_path(config.model_dir, cluster, job, index)
                    _write_if_there(tf.constant(marker), count)
            except (tf.errors.OpError, ValueError) as error:
                _logging.warning(
                    "Could not tell %s %d that the chief is done (%s); it stops once the "
                    "chief's process has ended.",
                    job,
                    index,
                    error,
                )


@tf.function(autograph=False)
def _write_if_there(path, contents):
    """Writes `contents` to `path` where it runs, if the file is there: a task that
    serves through `serve_until_chief_is_done` made it; a server the program
    started itself has none, and gets no file."""

    def write():
        with tf.control_dependencies([tf.io.write_file(path, contents)]):
            return tf.constant(True)

    there = tf.size(tf.io.matching_files(path)) > 0
    return tf.cond(there, write, lambda: tf.constant(False))


def _marker_path(model_dir, cluster, job, index):
    port = cluster.task_address(job, index).rpartition(":")[2]
    return os.path.join(model_dir, f".tfestimator_compat-{job}-{index}-{port}.chief_done")


def _told_done(marker, rounds):
    try:
        with tf.io.gfile.GFile(marker) as f:
            return int(f.read().strip() or 0) >= rounds
    except (tf.errors.OpError, ValueError):
        return False


def _job(config):
    return cluster_lib.CHIEF if config.task_type == cluster_lib.MASTER else config.task_type


def _finished(model_dir, last_step, checkpointing):
    """Whether a chief that is gone finished: its last checkpoint holds `last_step`.

    Without a step to reach or without checkpoints nothing tells a finished
    chief from a failed one, so a chief that is gone counts as done.
    """
    if last_step is None or not checkpointing:
        return True
    latest = checkpoints.latest_checkpoint(model_dir)
    return latest is not None and checkpoints.global_step_of(latest) >= last_step


def _start_server(config):
    if _TASK.server is None:
        job = _job(config)
        marker = _marker_path(config.model_dir, training_cluster(config), job, config.task_id)
        if _make_marker(marker):
            atexit.register(_remove, marker)
        _TASK.server = tf.distribute.Server(
            training_cluster(config),
            job_name=job,
            task_index=config.task_id,
            protocol=config.protocol or "grpc",
            start=True,
        )
    return _TASK.server


def _make_marker(path):
    """Makes `path` empty for the chief to write; False when it cannot.

    A previous task's marker (or anything else at that name, a link
    included) is removed, not written through; a local file is then created
    exclusively and without following links.
    """
    try:
        tf.io.gfile.makedirs(os.path.dirname(path))
        _remove(path)
        if "://" in path:
            with tf.io.gfile.GFile(path, "w"):
                return True
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
        os.close(os.open(path, flags, 0o600))
        return True
    except (OSError, tf.errors.OpError) as error:
        _logging.warning(
            "Could not make %s (%s); this task stops once the chief's process has ended.",
            path,
            error,
        )
        return False


def _remove(path):
    if "://" in path:
        with contextlib.suppress(tf.errors.OpError):
            tf.io.gfile.remove(path)
    else:
        with contextlib.suppress(OSError):
            os.remove(path)


def _wait_for_tasks(cluster, timeout_secs):
    """Waits until every worker and ps task of `cluster` accepts connections,
    saying every `_WAIT_LOG_SECS` which ones it still waits for: a task that
    never starts would otherwise hold the chief for the whole timeout (two
    hours by default) without a word."""
    tasks = {
        f"/job:{job}/task:{index} ({cluster.task_address(job, index)})": cluster.task_address(
            job, index
        )
        for job in (cluster_lib.WORKER, cluster_lib.PS)
        for index in cluster.task_indices(job)
    }
    started = time.time()
    deadline, next_log = started + (timeout_secs or 0), started + _WAIT_LOG_SECS
    waiting = [task for task, address in tasks.items() if not _accepts_connections(address)]
    while waiting:
        now = time.time()
        if now > deadline:
            raise RuntimeError(
                f"The chief waited {timeout_secs} s for the cluster's tasks "
                f"{', '.join(waiting)} to start their servers. Start every task of "
                "TF_CONFIG's cluster with the same program "
                "(RunConfig(session_creation_timeout_secs=...) sets how long the chief waits)."
            )
        if now >= next_log:
            _logging.info(
                "The chief is still waiting for %d task(s) of TF_CONFIG's cluster to start "
                "their servers (%d s so far, at most %s s: session_creation_timeout_secs): %s",
                len(waiting),
                now - started,
                timeout_secs,
                ", ".join(waiting),
            )
            next_log = now + _WAIT_LOG_SECS
        time.sleep(_POLL_SECS)
        waiting = [task for task in waiting if not _accepts_connections(tasks[task])]


def _accepts_connections(address):
    host, _, port = address.rpartition(":")
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=1.0):
            return True
    except OSError:
        return False
