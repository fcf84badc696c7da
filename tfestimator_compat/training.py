"""`TrainSpec`, `EvalSpec` and `train_and_evaluate`, on one machine or as a cluster task.

`train_and_evaluate` is one `Estimator.train()` (a Keras `fit`) whose
checkpoint listener evaluates each new checkpoint that comes at least
`throttle_secs` after the previous evaluation, always evaluates the final
checkpoint, and runs the exporters after every evaluation. In a `TF_CONFIG`
cluster the chief and workers only train (together, through a multi-worker
strategy or on parameter servers, which `ps` tasks serve) and the `evaluator`
task evaluates and exports each new checkpoint.
"""

import collections
import os
import time

import tensorflow as tf

from tfestimator_compat.engine.distributed import distribution
from tfestimator_compat.engine.distributed import parameter_servers
from tfestimator_compat.engine.loop.keras_callbacks import scalar_logs
from tfestimator_compat.engine.state import checkpoints
from tfestimator_compat.engine.tracing.eager import in_eager_mode
from tfestimator_compat.estimator import Estimator
from tfestimator_compat.export.exporter import Exporter
from tfestimator_compat.hooks import check_hooks
from tfestimator_compat.run_config import TaskType

_logging = tf.compat.v1.logging
# How long the evaluator task waits between looks for a new checkpoint.
_EVALUATOR_POLL_SECS = 1.0


def _validate_input_fn(input_fn):
    if not callable(input_fn):
        raise TypeError(f"`input_fn` must be callable, given: {input_fn}")


def _validate_hooks(hooks):
    return check_hooks(hooks, "All hooks must be `SessionRunHook` instances, given: {}")


def _validate_exporters(exporters):
    if not exporters:
        return ()
    if isinstance(exporters, Exporter):
        exporters = [exporters]
    try:
        exporters = tuple(exporters)
    except TypeError:
        exporters = None
    if exporters is None or not all(isinstance(e, Exporter) for e in exporters):
        raise TypeError(
            "`exporters` must be an Exporter, an iterable of Exporter, or `None`, "
            f"found {exporters}."
        )
    names = [exporter.name for exporter in exporters]
    for name in names:
        if not name:
            raise ValueError(
                "An Exporter cannot have a name that is `None` or empty. "
                f"All exporter names: {names}"
            )
        if not isinstance(name, str):
            raise ValueError(f"An Exporter must have a string name. Given: {type(name)}")
    if len(set(names)) != len(names):
        raise ValueError(
            "`exporters` must have unique names. Such a name cannot be `None`. "
            f"All exporter names: {names}"
        )
    return exporters


class TrainSpec(
    collections.namedtuple("TrainSpec", ["input_fn", "max_steps", "hooks", "saving_listeners"])
):
    """What `train_and_evaluate` trains on and for how long."""

    def __new__(cls, input_fn, max_steps=None, hooks=None, saving_listeners=None):
        _validate_input_fn(input_fn)
        if max_steps is not None and max_steps <= 0:
            raise ValueError(f"Must specify max_steps > 0, given: {max_steps}")
        listeners = tuple(saving_listeners or ())
        for listener in listeners:
            if not isinstance(listener, tf.compat.v1.train.CheckpointSaverListener):
                raise TypeError(
                    "All saving_listeners must be `CheckpointSaverListener` "
                    f"instances, given: {listener}"
                )
        return super().__new__(cls, input_fn, max_steps, _validate_hooks(hooks), listeners)


class EvalSpec(
    collections.namedtuple(
        "EvalSpec",
        ["input_fn", "steps", "name", "hooks", "exporters", "start_delay_secs", "throttle_secs"],
    )
):
    """How `train_and_evaluate` evaluates, how often, and what it exports."""

    def __new__(
        cls,
        input_fn,
        steps=100,
        name=None,
        hooks=None,
        exporters=None,
        start_delay_secs=120,
        throttle_secs=600,
    ):
        _validate_input_fn(input_fn)
        if steps is not None and steps <= 0:
            raise ValueError(f"Must specify steps > 0, given: {steps}")
        if name is not None and not isinstance(name, str):
            raise TypeError(f"`name` must be string, given: {name}")
        hooks = _validate_hooks(hooks)
        exporters = _validate_exporters(exporters)
        if start_delay_secs < 0:
            raise ValueError(f"Must specify start_delay_secs >= 0, given: {start_delay_secs}")
        if throttle_secs < 0:
            raise ValueError(f"Must specify throttle_secs >= 0, given: {throttle_secs}")
        return super().__new__(
            cls, input_fn, steps, name, hooks, exporters, start_delay_secs, throttle_secs
        )


class _Evaluator:
    """Evaluates the newest checkpoint once and runs the exporters on it."""

    def __init__(self, estimator, eval_spec, max_steps):
        self._estimator = estimator
        self._eval_spec = eval_spec
        self._max_steps = max_steps
        self._previous_checkpoint = None
        self.eval_result = None
        self.export_results = None

    def evaluate_and_export(self):
        """Evaluates and exports the newest checkpoint; False when there is nothing new.

        An evaluator task races the chief, which deletes old checkpoints
        (`keep_checkpoint_max`): a checkpoint that vanishes while it is being
        evaluated or exported is skipped, and the next call takes the newest.
        """
        checkpoint = self._estimator.latest_checkpoint()
        if not checkpoint or checkpoint == self._previous_checkpoint:
            return False
        try:
            self._evaluate_and_export(checkpoint)
        except (tf.errors.NotFoundError, tf.errors.DataLossError, ValueError):
            # A ValueError: the export found the checkpoint's files gone.
            if checkpoints.incomplete(checkpoint) is None:
                raise
            _logging.warning(
                "Checkpoint %s was deleted while it was evaluated or exported; "
                "going on with the newest one.",
                checkpoint,
            )
            return False
        return True

    def _evaluate_and_export(self, checkpoint):
        spec = self._eval_spec
        result = self._estimator.evaluate(
            spec.input_fn,
            steps=spec.steps,
            name=spec.name,
            checkpoint_path=checkpoint,
            hooks=spec.hooks,
        )
        final = bool(self._max_steps) and result["global_step"] >= self._max_steps
        export_base = os.path.join(self._estimator.model_dir, "export")
        self.export_results = [
            exporter.export(
                estimator=self._estimator,
                export_path=os.path.join(export_base, exporter.name),
                checkpoint_path=checkpoint,
                eval_result=result,
                is_the_final_export=final,
            )
            for exporter in spec.exporters
        ]
        self.eval_result = result
        self._previous_checkpoint = checkpoint


class _EvaluateOnCheckpoint(tf.compat.v1.train.CheckpointSaverListener):
    """Evaluates after saves at least `throttle_secs` apart, and after the last one."""

    def __init__(self, evaluator, throttle_secs):
        self._evaluator = evaluator
        self._throttle_secs = throttle_secs

    def begin(self):
        self._timer = tf.compat.v1.train.SecondOrStepTimer(every_secs=self._throttle_secs)
        self._first_save = True
        self.keras_logs = {}

    def before_save(self, session, global_step_value):
        self.keras_logs = {}  # the next epoch's `val_` logs are this save's evaluation, if any

    def after_save(self, session, global_step_value):
        if self._first_save:
            # The save at the start of training holds nothing new to evaluate.
            self._first_save = False
            return False
        if self._timer.should_trigger_for_step(global_step_value):
            self._evaluate(global_step_value)
        else:
            _logging.info(
                "Skip the current checkpoint eval due to throttle secs (%s secs).",
                self._throttle_secs,
            )
        return False

    def end(self, session, global_step_value):
        if global_step_value != self._timer.last_triggered_step():
            self._evaluate(global_step_value)

    def _evaluate(self, global_step_value):
        self._timer.update_last_triggered_step(global_step_value)
        if self._evaluator.evaluate_and_export():
            # What Keras callbacks see as the epoch's validation logs.
            self.keras_logs = scalar_logs(self._evaluator.eval_result, prefix="val_")


def _run_evaluator(estimator, train_spec, eval_spec):
    """The `evaluator` task: evaluates each new checkpoint until the one at `max_steps`.

    Waits `start_delay_secs` first, and starts evaluations at least
    `throttle_secs` apart. Returns the last `(eval_result, export_results)`.
    """
    _logging.info("Waiting %s secs before starting evaluation.", eval_spec.start_delay_secs)
    time.sleep(eval_spec.start_delay_secs)
    evaluator = _Evaluator(estimator, eval_spec, train_spec.max_steps)
    while True:
        started = time.time()
        if evaluator.evaluate_and_export():
            step = evaluator.eval_result["global_step"]
            if train_spec.max_steps and step >= train_spec.max_steps:
                _logging.info(
                    "Exiting evaluation, global_step=%s >= max_steps=%s", step, train_spec.max_steps
                )
                return evaluator.eval_result, evaluator.export_results
        else:
            _logging.info("No new checkpoint ready for evaluation.")
        remaining = eval_spec.throttle_secs - (time.time() - started)
        time.sleep(max(remaining, _EVALUATOR_POLL_SECS))


@in_eager_mode
def train_and_evaluate(estimator, train_spec, eval_spec):
    """Trains `estimator` and evaluates (and exports) it as checkpoints appear.

    Returns `(eval_result, export_results)` of the last evaluation. When
    `model_dir` already holds `max_steps`, nothing is trained, evaluated or
    exported, and it returns `(None, None)`, as the original did.
    """
    if not isinstance(estimator, Estimator):
        raise TypeError(
            f"`estimator` must have type `tf.estimator.Estimator`. Got: {type(estimator)}"
        )
    if not isinstance(train_spec, TrainSpec):
        raise TypeError(
            f"`train_spec` must have type `tf.estimator.TrainSpec`. Got: {type(train_spec)}"
        )
    if not isinstance(eval_spec, EvalSpec):
        raise TypeError(
            f"`eval_spec` must have type `tf.estimator.EvalSpec`. Got: {type(eval_spec)}"
        )
    config = estimator.config
    _logging.info("Not using Distribute Coordinator.")
    distribution.check_cluster(config)
    if config.task_type == TaskType.EVALUATOR and config.task_id > 0:
        raise ValueError(
            "For distributed training, there can only be one `evaluator` task (with task "
            f"id 0). Given task id {config.task_id}: give this task index 0 in TF_CONFIG, "
            "or drop it."
        )
    if config.task_type == TaskType.EVALUATOR:
        return _run_evaluator(estimator, train_spec, eval_spec)
    if config.task_type == TaskType.PS:
        # The original's ps task joined its server for good; this one returns once
        # the chief is done.
        parameter_servers.serve_until_chief_is_done(config, train_spec.max_steps)
        return None
    if distribution.in_multi_worker_cluster(config):
        # Chief and workers only train; the evaluator task evaluates, as in the original.
        estimator.train(
            train_spec.input_fn, hooks=list(train_spec.hooks), max_steps=train_spec.max_steps
        )
        return None
    _logging.info("Running training and evaluation locally (non-distributed).")
    _logging.info(
        "Start train and evaluate loop. The evaluate will happen after every "
        "checkpoint. Checkpoint frequency is determined based on RunConfig "
        "arguments: save_checkpoints_steps %s or save_checkpoints_secs %s.",
        config.save_checkpoints_steps,
        config.save_checkpoints_secs,
    )
    evaluator = _Evaluator(estimator, eval_spec, train_spec.max_steps)
    listener = _EvaluateOnCheckpoint(evaluator, eval_spec.throttle_secs)
    estimator.train(
        train_spec.input_fn,
        hooks=list(train_spec.hooks),
        max_steps=train_spec.max_steps,
        saving_listeners=[listener, *train_spec.saving_listeners],
    )
    # A model_dir already at max_steps trains nothing: nothing is evaluated or
    # exported, and (None, None) comes back, as from the original.
    return evaluator.eval_result, evaluator.export_results
