"""`RunConfig`: where an Estimator writes and how often it saves and logs."""

import copy
import json
import os

import tensorflow as tf

_USE_DEFAULT = object()
_DEFAULT_CHECKPOINT_SECS = 600
_SAVE_CHECKPOINT_ERROR = "save_checkpoints_steps and save_checkpoints_secs cannot be both set."
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
    MASTER = "master"
    PS = "ps"
    WORKER = "worker"
    CHIEF = "chief"
    EVALUATOR = "evaluator"


class RunConfig:
    """Configuration of an Estimator run, with the original's arguments and defaults.

    Checkpoints are saved every 600 seconds unless `save_checkpoints_steps` or
    `save_checkpoints_secs` says otherwise (setting both is an error; setting
    both to None turns periodic saving off). `model_dir` may also come from the
    `TF_CONFIG` environment variable's `model_dir`.

    Example:

    ```python
    config = RunConfig(model_dir="/tmp/model", save_checkpoints_steps=100,
                       tf_random_seed=7)
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

        tf_config = json.loads(os.environ.get("TF_CONFIG", "{}") or "{}")
        self._model_dir = _model_dir(tf_config, model_dir)
        self._tf_random_seed = tf_random_seed
        self._save_summary_steps = save_summary_steps
        self._save_checkpoints_steps = save_checkpoints_steps
        self._save_checkpoints_secs = save_checkpoints_secs
        self._session_config = session_config
        self._keep_checkpoint_max = keep_checkpoint_max
        self._keep_checkpoint_every_n_hours = keep_checkpoint_every_n_hours
        self._log_step_count_steps = log_step_count_steps
        self._train_distribute = train_distribute
        self._device_fn = device_fn
        self._protocol = protocol
        self._eval_distribute = eval_distribute
        self._experimental_distribute = experimental_distribute
        self._experimental_max_worker_delay_secs = experimental_max_worker_delay_secs
        self._session_creation_timeout_secs = session_creation_timeout_secs
        self._checkpoint_save_graph_def = checkpoint_save_graph_def
        self._task_type = TaskType.WORKER
        self._task_id = 0
        self._is_chief = True
        self._master = ""
        self._evaluation_master = ""
        self._cluster_spec = tf.train.ClusterSpec({})
        self._validate()

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
            ("device_fn", callable, 'device_fn must be callable with exactly one argument "op".'),
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
        # Strategies and ConfigProtos are shared, as the original shared them.
        config = copy.copy(self)
        config._cluster_spec = tf.train.ClusterSpec(self._cluster_spec.as_dict())
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
    num_ps_replicas = property(lambda self: 0)
    num_worker_replicas = property(lambda self: 1)
    global_id_in_cluster = property(lambda self: 0)
    service = property(lambda self: None)


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
