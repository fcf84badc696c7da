"""Hooks of `tf.estimator.experimental` that work with an Estimator itself."""

import time

import tensorflow as tf

from tfestimator_compat.engine.state import checkpoints

_logging = tf.compat.v1.logging


class InMemoryEvaluatorHook(tf.compat.v1.train.SessionRunHook):
    """Evaluates during training on the variables in memory, without a checkpoint.

    Runs `estimator.evaluate(input_fn, steps, hooks, name)` on the current
    training values once before the first training step, then every
    `every_n_iter` steps, and at the end of training, as the original did.
    Like the original it works on one machine only, and refuses a model_fn
    whose scaffold has its own saver or init_fn (the variables come from
    memory, not from a checkpoint those would read).

    Example:

    ```python
    evaluator = InMemoryEvaluatorHook(estimator, eval_input_fn, every_n_iter=500)
    estimator.train(train_input_fn, hooks=[evaluator])
    ```
    """

    def __init__(self, estimator, input_fn, steps=None, hooks=None, name=None, every_n_iter=100):
        from tfestimator_compat.estimator import Estimator
        from tfestimator_compat.estimator import _check_hooks

        if every_n_iter is None or every_n_iter <= 0:
            raise ValueError(f"invalid every_n_iter={every_n_iter}.")
        if not isinstance(estimator, Estimator):
            raise TypeError(f"`estimator` must be a tf.estimator.Estimator, given {estimator}")
        config = estimator.config
        if config.num_ps_replicas > 0 or config.num_worker_replicas > 1:
            raise ValueError(
                "InMemoryEvaluator supports only single machine (aka Local) setting: this "
                "RunConfig's cluster has parameter servers or several workers. Evaluate "
                "with an `evaluator` task (train_and_evaluate) instead."
            )
        self._estimator = estimator
        self._input_fn = input_fn
        self._steps = steps
        self._hooks = _check_hooks(hooks)
        self._name = name
        self._timer = tf.compat.v1.train.SecondOrStepTimer(every_steps=every_n_iter)
        self._iter_count = 0

    def begin(self):
        """Refuses a model_fn it cannot evaluate in memory before training starts."""
        self._timer.reset()
        self._iter_count = 0
        with tf.init_scope():
            self._estimator._check_in_memory_evaluation(self._input_fn)

    def after_create_session(self, session, coord):
        """Evaluates the starting values, before the first training step."""
        self._evaluate()

    def after_run(self, run_context, run_values):
        self._iter_count += 1
        if self._timer.should_trigger_for_step(self._iter_count):
            self._evaluate()

    def end(self, session):
        self._evaluate()

    def _evaluate(self):
        with tf.init_scope():
            self._estimator._evaluate(
                self._input_fn,
                self._steps,
                self._hooks,
                checkpoint_path=None,
                name=self._name,
                in_memory=True,
            )
        self._timer.update_last_triggered_step(self._iter_count)


class _StopAtCheckpointStepHook(tf.compat.v1.train.SessionRunHook):
    """Stops a worker once model_dir's newest checkpoint reaches `last_step`."""

    def __init__(self, model_dir, last_step, wait_after_file_check_secs=30):
        if last_step is None:
            raise ValueError("last_step must be specified.")
        if model_dir is None:
            raise ValueError("model_dir must be specified.")
        self._model_dir = model_dir
        self._last_step = last_step
        self._wait_after_file_check_secs = wait_after_file_check_secs

    def begin(self):
        self._global_step = tf.compat.v1.train.get_global_step()

    def before_run(self, run_context):
        return tf.compat.v1.train.SessionRunArgs(self._global_step)

    def after_run(self, run_context, run_values):
        if run_values.results + 1 < self._last_step:
            return
        latest = checkpoints.latest_checkpoint(self._model_dir)
        if latest and checkpoints.global_step_of(latest) >= self._last_step:
            run_context.request_stop()
        else:
            time.sleep(self._wait_after_file_check_secs)


def make_stop_at_checkpoint_step_hook(estimator, last_step, wait_after_file_check_secs=30):
    """The chief stops at `last_step`; other workers when a checkpoint reaches it."""
    if estimator.config.is_chief:
        return tf.compat.v1.train.StopAtStepHook(last_step=last_step)
    return _StopAtCheckpointStepHook(estimator.model_dir, last_step, wait_after_file_check_secs)
