"""`tf.contrib.learn`: its `RunConfig` and `ModeKeys`, which `tf.estimator` programs also used.

`tf.contrib.learn` was the Estimator API before `tf.estimator`; its
`RunConfig` kept working with `tf.estimator.Estimator` (it was a subclass of
the core one), and programs kept constructing it. Its `Experiment` and
learn-style estimators are not provided: `tf.estimator.train_and_evaluate`
and the `tf.estimator` classes replaced them.
"""

import tensorflow as tf

from tfestimator_compat import run_config

_USE_DEFAULT = object()


class ModeKeys:
    """The modes of `tf.contrib.learn`, whose prediction mode was `INFER`."""

    TRAIN = "train"
    EVAL = "eval"
    INFER = "infer"


class RunConfig(run_config.RunConfig):
    """`tf.estimator.RunConfig` with the arguments of `tf.contrib.learn.RunConfig`.

    `num_cores`, `log_device_placement` and `gpu_memory_fraction` become the
    session `ConfigProto`, as `tf_config`; checkpoints are saved every 600
    seconds unless `save_checkpoints_steps` or `save_checkpoints_secs` is set.

    Example:

    ```python
    config = tf.contrib.learn.RunConfig(model_dir="/tmp/model", save_checkpoints_steps=100)
    estimator = tf.estimator.Estimator(model_fn, config=config)
    ```
    """

    def __init__(
        self,
        master=None,
        num_cores=0,
        log_device_placement=False,
        gpu_memory_fraction=1,
        tf_random_seed=None,
        save_summary_steps=100,
        save_checkpoints_secs=_USE_DEFAULT,
        save_checkpoints_steps=None,
        keep_checkpoint_max=5,
        keep_checkpoint_every_n_hours=10000,
        log_step_count_steps=100,
        protocol=None,
        evaluation_master="",
        model_dir=None,
        session_config=None,
        session_creation_timeout_secs=7200,
    ):
        saving = {}
        if save_checkpoints_secs is not _USE_DEFAULT:
            saving["save_checkpoints_secs"] = save_checkpoints_secs
        if save_checkpoints_steps is not None:
            saving["save_checkpoints_steps"] = save_checkpoints_steps
        super().__init__(
            model_dir=model_dir,
            tf_random_seed=tf_random_seed,
            save_summary_steps=save_summary_steps,
            session_config=session_config,
            keep_checkpoint_max=keep_checkpoint_max,
            keep_checkpoint_every_n_hours=keep_checkpoint_every_n_hours,
            log_step_count_steps=log_step_count_steps,
            protocol=protocol,
            session_creation_timeout_secs=session_creation_timeout_secs,
            **saving,
        )
        self._master = master or ""
        self._evaluation_master = evaluation_master or ""
        self._tf_config = tf.compat.v1.ConfigProto(
            log_device_placement=log_device_placement,
            inter_op_parallelism_threads=num_cores,
            intra_op_parallelism_threads=num_cores,
            gpu_options=tf.compat.v1.GPUOptions(
                per_process_gpu_memory_fraction=gpu_memory_fraction
            ),
        )

    tf_config = property(lambda self: self._tf_config)


__all__ = ["ModeKeys", "RunConfig"]
