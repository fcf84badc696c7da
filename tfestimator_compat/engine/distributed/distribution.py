"""Running a `model_fn` once per replica of a `tf.distribute` strategy.

With `RunConfig(train_distribute=strategy)` the original called the
`model_fn` once per replica through `strategy.extended.call_for_each_replica`
and combined the per-replica `EstimatorSpec`s into one: the loss reduced
across replicas, the train ops grouped, the first replica's hooks and
scaffold. The same happens here inside the traced graph, so everything after
the `model_fn` (fetches, hooks, summaries, the Keras loop) sees one spec.

Variables are created under the strategy's scope, so they are the strategy's
own (`MirroredVariable`s kept equal on every device); a `tf.compat.v1.train`
optimizer called in a replica sums the gradients of all replicas with the
loss scaled by `1 / num_replicas` (as the original asked of it), so replicas
that each read a batch of `n` train like one device reading `num_replicas * n`.
Each replica reads its own batch: a step consumes `num_replicas` consecutive
elements of the dataset, so the `input_fn`'s batch size is per replica.

In a `TF_CONFIG` cluster the chief and the workers train together through a
multi-worker strategy, or on parameter servers (`parameter_servers`); only the
chief writes to `model_dir` (`writing_config`), and clusters that cannot train
are refused up front (`check_cluster`).
"""

import contextlib
import shutil
import tempfile

import tensorflow as tf

from tfestimator_compat.engine import keras_flavours
from tfestimator_compat.engine.distributed import cluster
from tfestimator_compat.engine.distributed import parameter_servers
from tfestimator_compat.engine.internals import tensorflow_internals as tf_internals
from tfestimator_compat.spec import EstimatorSpec


def num_replicas(strategy) -> int:
    """Replicas in this process that each run the model_fn on a batch (1 without a strategy)."""
    if strategy is None:
        return 1
    return len(strategy.extended.worker_devices)


def input_context(strategy) -> tf.distribute.InputContext:
    """What an `input_fn` that names `input_context` gets: this worker's share of the input."""
    if strategy is None:
        return tf.distribute.InputContext()
    extended = strategy.extended
    return tf.distribute.InputContext(
        num_input_pipelines=tf_internals.worker_count(extended),
        input_pipeline_id=tf_internals.worker_index(extended),
        num_replicas_in_sync=strategy.num_replicas_in_sync,
    )


def variable_strategy(config):
    """The strategy an Estimator's variables are created under, or None.

    The original built a fresh graph per call, so training and evaluation
    could each use their own strategy; here the variables are shared by every
    mode, so the two strategies must be one.
    """
    train = getattr(config, "train_distribute", None)
    evaluate = getattr(config, "eval_distribute", None)
    check_strategy(train, "train_distribute")
    check_strategy(evaluate, "eval_distribute")
    # A parameter-server strategy places variables only while the chief trains.
    train = None if cluster.is_ps_strategy(train) else train
    evaluate = None if cluster.is_ps_strategy(evaluate) else evaluate
    if train is not None and evaluate is not None and train is not evaluate:
        raise ValueError(
            "RunConfig(train_distribute=..., eval_distribute=...) got two different strategy "
            "objects; the Estimator's variables live in one strategy. Pass the same object for "
            "both, or leave eval_distribute=None to evaluate on one device."
        )
    return train if train is not None else evaluate


def in_multi_worker_cluster(config) -> bool:
    """Whether this task trains together with other processes (chief and workers)."""
    spec = config.cluster_spec.as_dict() if config.cluster_spec else {}
    return sum(len(spec.get(job, ())) for job in ("chief", "master", "worker")) > 1


@contextlib.contextmanager
def writing_config(config):
    """`config`, or for a worker that is not the chief, one writing to a throwaway dir.

    Every worker of a multi-worker strategy runs the same steps, saves and
    summaries (their collective ops must pair up), but only the chief's land
    in `model_dir`; the others restore from it and write to a temporary
    directory that is removed afterwards.
    """
    if config.is_chief or not in_multi_worker_cluster(config):
        yield config
        return
    throwaway = tempfile.mkdtemp(prefix=f"tfestimator_{config.task_type}_{config.task_id}_")
    try:
        yield config.replace(model_dir=throwaway)
    finally:
        shutil.rmtree(throwaway, ignore_errors=True)


def check_cluster(config):
    """Refuses clusters that cannot train, saying how to run the job instead.

    A cluster with `ps` tasks (or a `ParameterServerStrategy`) trains on
    parameter servers (`parameter_servers`); several training tasks without
    them need a multi-worker strategy to train together.
    """
    if parameter_servers.in_ps_cluster(config):
        parameter_servers.check(config)
        return
    if in_multi_worker_cluster(config) and config.task_type != "evaluator":
        strategy = config.train_distribute
        if strategy is None or tf_internals.worker_count(strategy.extended) < 2:
            raise ValueError(
                "TF_CONFIG names several training tasks, but RunConfig(train_distribute=...) "
                "is not a multi-worker strategy, so each task would train on its own. Pass "
                "RunConfig(train_distribute=tf.distribute.MultiWorkerMirroredStrategy()), or "
                "add 'ps' tasks to the cluster to train on parameter servers "
                "(migration_guide/cluster.md)."
            )


def as_tf2_strategy(strategy):
    """A TF1 strategy (`tf.compat.v1.distribute.*`) as the TF2 strategy Keras runs.

    The V1 classes lack the TF2 methods the Keras loop calls
    (`experimental_distribute_values_from_function`, ...), so each is made
    again as its TF2 class: on the same devices, or on the same cluster with
    the same communication options. A strategy made while the program had
    eager execution off gets what running in functions needs
    (`_order_collectives_for_functions`). Anything else is returned as given.
    """
    v1 = tf.compat.v1.distribute
    if cluster.is_ps_strategy(strategy):
        return strategy  # the chief makes a TF2 one as it connects (parameter_servers)
    if not tf.executing_eagerly():
        if _spans_workers(strategy):
            return _multi_worker_mirrored_made_eagerly(strategy)
        _order_collectives_for_functions(strategy)
    if not isinstance(strategy, v1.Strategy) or isinstance(strategy, tf.distribute.Strategy):
        return strategy  # None, TF2's own, or not a strategy (refused when used)
    extended = strategy.extended
    if isinstance(strategy, v1.experimental.MultiWorkerMirroredStrategy):
        return _multi_worker_mirrored_made_eagerly(strategy)
    if isinstance(strategy, v1.MirroredStrategy):
        return tf.distribute.MirroredStrategy(
            devices=list(extended.worker_devices),
            cross_device_ops=tf_internals.cross_device_ops(extended),
        )
    if isinstance(strategy, v1.OneDeviceStrategy):
        return tf.distribute.OneDeviceStrategy(extended.worker_devices[0])
    return strategy


def _spans_workers(strategy):
    extended = getattr(strategy, "extended", None)
    return tf_internals.has_cross_device_ops(extended) and tf_internals.worker_count(extended) > 1


def _multi_worker_mirrored_made_eagerly(strategy):
    """The same multi-worker strategy, made again with eager execution on.

    Made in graph mode (TF1 class, or any class after
    `disable_eager_execution()`), it configured its cluster for sessions only:
    the eager context the steps run in knows none of the cluster's devices
    ("unknown device"). Made eagerly it starts this task's server and
    configures the collectives, once per process, as TF2 programs do.
    """
    if _spans_workers(strategy):
        _configure_collectives_after_startup(strategy.cluster_resolver)
    with tf_internals.eager_mode():
        return tf.distribute.MultiWorkerMirroredStrategy(
            cluster_resolver=strategy.cluster_resolver,
            communication_options=tf_internals.communication_options(strategy.extended),
        )


def _configure_collectives_after_startup(cluster_resolver):
    """Records the collective settings a multi-worker strategy asks the eager context for.

    TensorFlow accepts them only before the eager context starts, and making
    the strategy in graph mode already started it. The strategy then only
    checks that they match what it would set, and enables the collectives on
    the running context itself (TensorFlow supports that, with a warning).
    """
    eager = tf_internals.eager_context()
    if not tf_internals.collectives_configurable(eager):
        return  # not started yet (the strategy configures it) or already configured
    cluster_spec = tf_internals.normalize_cluster_spec(cluster_resolver.cluster_spec())
    task_type, task_id = cluster_resolver.task_type, cluster_resolver.task_id
    tf_internals.set_collective_settings(
        eager,
        leader=tf_internals.collective_leader(cluster_spec, task_type, task_id),
        scoped_allocator_enabled_ops=("CollectiveReduce",),
        use_nccl_communication=False,
        device_filters=(f"/job:{task_type}/task:{task_id}",),
    )


def _order_collectives_for_functions(strategy):
    """Lets a collective strategy made while eager execution was off run in functions.

    Made for TF1 graphs (the program called `disable_eager_execution()`), its
    all-reduce launchers order their ops by control edges and hold no ordering
    token; the steps here run in `tf.function`s, where they need one.
    Collectives are configured once per process, so the launchers get their
    tokens rather than the strategy being made again.
    """
    cross_device_ops = tf_internals.cross_device_ops(getattr(strategy, "extended", None))
    for launcher in tf_internals.collective_launchers(cross_device_ops):
        if tf_internals.launcher_ordering_token(launcher) is None:
            device = tf_internals.launcher_device(launcher)
            with tf_internals.eager_mode(), tf.init_scope(), tf.device(device):
                token = tf.Variable(0.0, trainable=False)
                tf_internals.set_launcher_ordering_token(launcher, token)


def check_strategy(strategy, name: str):
    """Rejects what is not a strategy the Estimator can run, saying what to pass instead."""
    if strategy is None or cluster.is_ps_strategy(strategy):
        return
    if not hasattr(strategy, "extended") or not hasattr(strategy.extended, "worker_devices"):
        raise ValueError(
            f"RunConfig({name}=...) must be a tf.distribute strategy such as "
            f"tf.distribute.MirroredStrategy(); got {strategy!r}."
        )


def call_for_each_replica(strategy, call_model_fn, replica_inputs):
    """Calls `call_model_fn(features, labels)` in every replica; returns one combined spec.

    Args:
        strategy: the `tf.distribute.Strategy` whose scope the graph is traced in.
        call_model_fn: calls the user's `model_fn`, returns an `EstimatorSpec`.
        replica_inputs: one `(features, labels)` per replica, in replica order.
    """
    features = _per_replica(strategy, [inputs[0] for inputs in replica_inputs])
    labels = _per_replica(strategy, [inputs[1] for inputs in replica_inputs])
    with tf_internals.scaling_loss_for_estimator(strategy):
        # As without a strategy, the model_fn runs as written (no autograph).
        call = tf.autograph.experimental.do_not_convert(call_model_fn)
        grouped = strategy.extended.call_for_each_replica(call, args=(features, labels))
        reduction = tf.compat.v1.distribute.get_loss_reduction()
    return _combined(strategy, grouped, reduction)


def _per_replica(strategy, values):
    if all(value is None for value in values):
        return None
    # Replica ids count across workers; each worker holds its own replicas' inputs.
    return strategy.experimental_distribute_values_from_function(
        lambda context: values[context.replica_id_in_sync_group % len(values)]
    )


def _first(strategy, value):
    return strategy.experimental_local_results(value)[0]


def _combined(strategy, grouped, reduction):
    """One `EstimatorSpec` from the replicas' specs, as the original combined them."""
    loss = None
    if grouped.loss is not None:
        loss = strategy.reduce(reduction, grouped.loss, axis=None)
    train_op = strategy.group(grouped.train_op) if grouped.train_op is not None else None
    metrics = {
        name: _combined_metric(strategy, name, metric)
        for name, metric in (grouped.eval_metric_ops or {}).items()
    }
    predictions = tf.nest.map_structure(
        lambda value: tf.concat(strategy.experimental_local_results(value), axis=0),
        grouped.predictions,
    )
    return EstimatorSpec(
        mode=grouped.mode,
        predictions=predictions,
        loss=loss,
        train_op=train_op,
        eval_metric_ops=metrics,
        scaffold=_first(strategy, grouped.scaffold),
        training_chief_hooks=[_first(strategy, hook) for hook in grouped.training_chief_hooks],
        training_hooks=[_first(strategy, hook) for hook in grouped.training_hooks],
        evaluation_hooks=[_first(strategy, hook) for hook in grouped.evaluation_hooks],
    )


def _combined_metric(strategy, name, metric):
    """A metric of the replicas as one: v1 metrics and Keras metrics already sum
    their state across replicas when they update it, so each replica's value is
    the total; the update ops of all replicas run together."""
    first = _first(strategy, metric)
    if keras_flavours.is_metric(first):
        return first  # the replicas' Metric objects share its variables
    if not isinstance(metric, (tuple, list)) or len(metric) != 2:
        raise ValueError(
            f"eval_metric_ops[{name!r}] must be a (value, update_op) pair or a Keras "
            f"Metric; got {first!r}."
        )
    value, update = metric
    return _first(strategy, value), strategy.group(update)
