"""`RunConfig`: where an Estimator writes, how often it saves and logs, and its cluster."""

import copy
import inspect
import os

import tensorflow as tf

from tfestimator_compat.engine.distributed import cluster as cluster_lib
from tfestimator_compat.engine.distributed import distribution

_USE_DEFAULT = object()
_DEFAULT_CHECKPOINT_SECS = 600
_SAVE_CHECKPOINT_ERROR = (
    "`save_checkpoints_steps` and `save_checkpoints_secs` cannot be both set. Set one of "
    "them, or both to None to save no checkpoints periodically."
)
_PROTOCOLS = (None, "grpc", "grpc+verbs")
_REPLACEABLE = (
    "model_dir",
    "tf_random_seed",
    "save_summary_steps",
    "save_checkpoints_steps",
    "save_checkpoints_secs",
    "session_config",
    "keep_checkpoint_max",
    "keep_checkpoint_every_n_hours",
    "log_step_count_steps",
    "train_distribute",
    "device_fn",
    "protocol",
    "eval_distribute",
    "experimental_distribute",
    "experimental_max_worker_delay_secs",
    "session_creation_timeout_secs",
    "checkpoint_save_graph_def",
)


class TaskType:
    MASTER = cluster_lib.MASTER
    PS = cluster_lib.PS
    WORKER = cluster_lib.WORKER
    CHIEF = cluster_lib.CHIEF
    EVALUATOR = cluster_lib.EVALUATOR


class RunConfig:
    """Configuration of an Estimator run, with the original's arguments and defaults.

    Checkpoints are saved every 600 seconds unless `save_checkpoints_steps` or
    `save_checkpoints_secs` says otherwise (setting both is an error; setting
    both to None turns periodic saving off).

    The cluster properties (`cluster_spec`, `task_type`, `task_id`,
    `is_chief`, `master`, `num_worker_replicas`, ...) come from the
    `TF_CONFIG` environment variable, read once here; see
    `tfestimator_compat.engine.distributed.cluster` for the rules. Without `TF_CONFIG` the run is
    local: task `worker:0`, the chief. `TF_CONFIG` may also name `model_dir`.

    A `session_config` whose `graph_options.optimizer_options.global_jit_level`
    is `ON_1` or `ON_2` runs the Estimator's steps with XLA auto-clustering, as
    it did the original's sessions (`engine/loop/compiled_step.py`).

    Example:

    ```python
    os.environ["TF_CONFIG"] = json.dumps({
        "cluster": {"chief": ["host0:2222"], "worker": ["host1:2222"]},
        "task": {"type": "worker", "index": 0},
    })
    config = RunConfig(model_dir="/tmp/model", save_checkpoints_steps=100)
    assert config.master == "grpc://host1:2222" and not config.is_chief
    ```
    """

    def __init__(
        self,
        model_dir=None,
        tf_random_seed=None,
        save_summary_steps=100,
        save_checkpoints_steps=_USE_DEFAULT,
        save_checkpoints_secs=_USE_DEFAULT,
        session_config=None,
        keep_checkpoint_max=5,
        keep_checkpoint_every_n_hours=10000,
        log_step_count_steps=100,
        train_distribute=None,
        device_fn=None,
        protocol=None,
        eval_distribute=None,
        experimental_distribute=None,
        experimental_max_worker_delay_secs=None,
        session_creation_timeout_secs=7200,
        checkpoint_save_graph_def=True,
    ):
        steps_default = save_checkpoints_steps is _USE_DEFAULT
        secs_default = save_checkpoints_secs is _USE_DEFAULT
        if steps_default and secs_default:
            save_checkpoints_steps, save_checkpoints_secs = None, _DEFAULT_CHECKPOINT_SECS
        elif secs_default:
            save_checkpoints_secs = None
        elif steps_default:
            save_checkpoints_steps = None
        elif save_checkpoints_steps is not None and save_checkpoints_secs is not None:
            raise ValueError(_SAVE_CHECKPOINT_ERROR)
        _check_strategies(train_distribute, eval_distribute, experimental_distribute)

        tf_config = cluster_lib.read_tf_config()
        self._model_dir = _model_dir(tf_config, model_dir)
        self._tf_random_seed = tf_random_seed
        self._save_summary_steps = save_summary_steps
        self._save_checkpoints_steps = save_checkpoints_steps
        self._save_checkpoints_secs = save_checkpoints_secs
        self._session_config = session_config
        self._keep_checkpoint_max = keep_checkpoint_max
        self._keep_checkpoint_every_n_hours = keep_checkpoint_every_n_hours
        self._log_step_count_steps = log_step_count_steps
        # TF1 strategies (tf.compat.v1.distribute.*) run as their TF2 classes.
        given_train = train_distribute or getattr(experimental_distribute, "train_distribute", None)
        self._train_distribute = distribution.as_tf2_strategy(given_train)
        self._device_fn = device_fn
        self._protocol = protocol
        given_eval = eval_distribute or getattr(experimental_distribute, "eval_distribute", None)
        self._eval_distribute = (
            self._train_distribute
            if given_eval is given_train and given_eval is not None
            else distribution.as_tf2_strategy(given_eval)
        )
        self._experimental_distribute = experimental_distribute
        self._experimental_max_worker_delay_secs = experimental_max_worker_delay_secs
        self._session_creation_timeout_secs = session_creation_timeout_secs
        self._checkpoint_save_graph_def = checkpoint_save_graph_def
        self._validate()
        self._set_cluster(
            cluster_lib.parse_tf_config(
                tf_config, strategy_managed=_manages_cluster(self._train_distribute)
            )
        )

    def _set_cluster(self, cluster):
        """Takes the cluster properties, and the default between-graph `session_config`."""
        self._cluster_spec = cluster.cluster_spec
        self._task_type = cluster.task_type
        self._task_id = cluster.task_id
        self._is_chief = cluster.is_chief
        self._master = cluster.master
        self._evaluation_master = cluster.evaluation_master
        self._num_ps_replicas = cluster.num_ps_replicas
        self._num_worker_replicas = cluster.num_worker_replicas
        self._global_id_in_cluster = cluster.global_id_in_cluster
        self._service = cluster.service
        if self._session_config is None and cluster.device_filters is not None:
            self._session_config = self._distributed_session_config(cluster.device_filters)

    def _distributed_session_config(self, device_filters):
        """The `session_config` a between-graph task gets when none is given.

        Device filters keep each task from waiting on tasks it never talks to
        (a worker needs only the parameter servers). Subclasses that run
        in-graph, as TPU configs do, return None here.
        """
        config = tf.compat.v1.ConfigProto(
            allow_soft_placement=True, device_filters=list(device_filters)
        )
        rewrite = config.graph_options.rewrite_options
        rewrite.meta_optimizer_iterations = rewrite.ONE
        return config

    def _validate(self):
        checks = (
            ("model_dir", lambda value: value, "model_dir should be non-empty"),
            ("save_summary_steps", lambda v: v >= 0, "save_summary_steps should be >= 0"),
            ("save_checkpoints_steps", lambda v: v >= 0, "save_checkpoints_steps should be >= 0"),
            ("save_checkpoints_secs", lambda v: v >= 0, "save_checkpoints_secs should be >= 0"),
            (
                "session_config",
                lambda v: isinstance(v, tf.compat.v1.ConfigProto),
                "session_config must be instance of ConfigProto",
            ),
            ("keep_checkpoint_max", lambda v: v >= 0, "keep_checkpoint_max should be >= 0"),
            (
                "keep_checkpoint_every_n_hours",
                lambda v: v > 0,
                "keep_checkpoint_every_n_hours should be > 0",
            ),
            ("log_step_count_steps", lambda v: v > 0, "log_step_count_steps should be > 0"),
            ("tf_random_seed", lambda v: isinstance(v, int), "tf_random_seed must be integer."),
            (
                "experimental_max_worker_delay_secs",
                lambda v: isinstance(v, int),
                "experimental_max_worker_delay_secs must be an integer if set.",
            ),
            (
                "session_creation_timeout_secs",
                lambda v: v > 0,
                "session_creation_timeout_secs should be > 0",
            ),
            (
                "device_fn",
                _takes_only_op,
                'device_fn must be callable with exactly one argument "op".',
            ),
            ("protocol", lambda v: v in _PROTOCOLS, "protocol should be grpc or grpc+verbs"),
        )
        for name, is_valid, message in checks:
            value = getattr(self, "_" + name)
            if value is not None and not is_valid(value):
                raise ValueError(message)

    def replace(self, **kwargs):
        """A copy with the given properties replaced (only the constructor's ones)."""
        config = copy.deepcopy(self)
        for key, value in kwargs.items():
            if key not in _REPLACEABLE:
                raise ValueError(
                    f"Replacing {key} is not supported. Allowed properties are "
                    f"{list(_REPLACEABLE)}."
                )
            setattr(config, "_" + key, value)
        steps, secs = "save_checkpoints_steps", "save_checkpoints_secs"
        if steps in kwargs and secs not in kwargs and kwargs[steps] is not None:
            config._save_checkpoints_secs = None
        elif secs in kwargs and steps not in kwargs and kwargs[secs] is not None:
            config._save_checkpoints_steps = None
        elif (
            config._save_checkpoints_steps is not None and config._save_checkpoints_secs is not None
        ):
            raise ValueError(_SAVE_CHECKPOINT_ERROR)
        config._validate()
        return config

    def __deepcopy__(self, memo):
        # Strategies are shared: they hold devices and servers, not settings.
        config = copy.copy(self)
        config._cluster_spec = tf.train.ClusterSpec(self._cluster_spec.as_dict())
        config._service = copy.deepcopy(self._service, memo)
        if self._session_config is not None:
            config._session_config = copy.deepcopy(self._session_config, memo)
        return config

    model_dir = property(lambda self: self._model_dir)
    tf_random_seed = property(lambda self: self._tf_random_seed)
    save_summary_steps = property(lambda self: self._save_summary_steps)
    save_checkpoints_steps = property(lambda self: self._save_checkpoints_steps)
    save_checkpoints_secs = property(lambda self: self._save_checkpoints_secs)
    session_config = property(lambda self: self._session_config)
    keep_checkpoint_max = property(lambda self: self._keep_checkpoint_max)
    keep_checkpoint_every_n_hours = property(lambda self: self._keep_checkpoint_every_n_hours)
    log_step_count_steps = property(lambda self: self._log_step_count_steps)
    train_distribute = property(lambda self: self._train_distribute)
    eval_distribute = property(lambda self: self._eval_distribute)
    experimental_distribute = property(lambda self: self._experimental_distribute)
    device_fn = property(lambda self: self._device_fn)
    protocol = property(lambda self: self._protocol)
    experimental_max_worker_delay_secs = property(
        lambda self: self._experimental_max_worker_delay_secs
    )
    session_creation_timeout_secs = property(lambda self: self._session_creation_timeout_secs)
    checkpoint_save_graph_def = property(lambda self: self._checkpoint_save_graph_def)
    task_type = property(lambda self: self._task_type)
    task_id = property(lambda self: self._task_id)
    cluster_spec = property(lambda self: self._cluster_spec)
    is_chief = property(lambda self: self._is_chief)
    master = property(lambda self: self._master)
    evaluation_master = property(lambda self: self._evaluation_master)
    num_ps_replicas = property(lambda self: self._num_ps_replicas)
    num_worker_replicas = property(lambda self: self._num_worker_replicas)
    global_id_in_cluster = property(
        lambda self: self._global_id_in_cluster,
        doc="A unique index over the training cluster: the chief is 0, `ps` tasks come last.",
    )
    service = property(
        lambda self: self._service, doc="The platform's `service` dict from TF_CONFIG."
    )


def as_seen_by_task(config, task_type, task_id):
    """`config` as another task of its cluster made it, from that task's `TF_CONFIG`.

    In a parameter-server job the chief calls each worker's `input_fn` to
    build the pipeline that worker runs; the original's workers called their
    own, with their own `RunConfig`, whose `task_type`, `task_id` and
    `global_id_in_cluster` input_fns shard by. Only the cluster properties
    differ from `config`'s; a `session_config` it has stays, and where it has
    none, the task's own default is made, as `RunConfig()` makes it.
    """
    tf_config = {
        "cluster": config.cluster_spec.as_dict(),
        "task": {"type": task_type, "index": task_id},
    }
    if config.service is not None:
        tf_config["service"] = config.service
    cluster = cluster_lib.parse_tf_config(
        tf_config, strategy_managed=_manages_cluster(config.train_distribute)
    )
    seen = copy.deepcopy(config)
    seen._set_cluster(cluster)
    return seen


def _check_strategies(train_distribute, eval_distribute, experimental_distribute):
    """Rejects strategy combinations an Estimator cannot run."""
    for name, given in (
        ("train_distribute", train_distribute),
        ("eval_distribute", eval_distribute),
    ):
        if given is not None and getattr(experimental_distribute, name, None) is not None:
            raise ValueError(
                f"Both `{name}` and `experimental_distribute.{name}` are set. Set only one."
            )
    if getattr(experimental_distribute, "remote_cluster", None):
        raise NotImplementedError(
            "experimental_distribute.remote_cluster (the standalone-client mode) is not "
            "supported. Start every task with TF_CONFIG and pass the strategy as "
            "train_distribute."
        )


def _manages_cluster(strategy):
    """Whether `strategy` runs the cluster's workers itself (every strategy but TPU's,
    and the parameter-server ones, whose clusters need a chief as without a strategy)."""
    return (
        strategy is not None
        and not type(strategy).__name__.startswith("TPUStrategy")
        and not cluster_lib.is_ps_strategy(strategy)
    )


def _takes_only_op(device_fn):
    if not callable(device_fn):
        return False
    try:
        parameters = inspect.signature(device_fn).parameters
    except (TypeError, ValueError):
        return True
    return list(parameters) == ["op"]


def _model_dir(tf_config, model_dir):
    """`model_dir`, reconciled with the one TF_CONFIG may name."""
    model_dir = os.fspath(model_dir) if model_dir is not None else None
    if model_dir == "":
        raise ValueError("model_dir should be non-empty.")
    from_env = tf_config.get("model_dir")
    if from_env == "":
        raise ValueError("model_dir in TF_CONFIG should be non-empty.")
    if from_env and model_dir and from_env != model_dir:
        raise ValueError(
            f"`model_dir` provided in RunConfig construct, if set, must have the "
            f"same value as the model_dir in TF_CONFIG. model_dir: {model_dir}\n"
            f'TF_CONFIG["model_dir"]: {from_env}.\n'
        )
    return model_dir or from_env or None
