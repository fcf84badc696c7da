"""The Keras callbacks that make `fit` and `evaluate` behave like the original loops.

Each call of the model's step function runs a chunk of steps inside one
`tf.function`. Before each call a loop callback picks the chunk so that every
event lands on exactly its step:

- a checkpoint is due after step `last_saved + save_checkpoints_steps`;
- summaries and the loss/steps-per-second log are due at the step the run
  starts at (0, 100, 200, ... as the original's hooks read the global step in
  the same run), and only that step fetches them;
- `max_steps` (or evaluation `steps`) ends the last chunk;
- `SessionRunHook`s see every step, so with hooks each call runs one step.

Time-based checkpoints (`save_checkpoints_secs`) are checked after each call.
"""

import math
import os
import sys

import keras
import tensorflow as tf

from tfestimator_compat import summaries
from tfestimator_compat.hooks import NanLossDuringTrainingError

_logging = tf.compat.v1.logging
# Longest chunk when no event bounds it, so time-based saving stays prompt.
MAX_STEPS_PER_CALL = 1000


class _StepLoop(keras.callbacks.Callback):
    """Sets what each call fetches and how many steps it runs; drives hooks."""

    def __init__(self, runner, base_fetches):
        super().__init__()
        self._runner = runner
        self._base_fetches = dict(base_fetches)

    def _prepare_call(self, steps, first_step_fetches=None):
        first_step_fetches = dict(first_step_fetches or {})
        if self._runner.hooks:
            steps = 1
            first_step_fetches.update(self._runner.before_step())
        self.model.set_fetches(self._base_fetches, first_step_fetches)
        self.model.steps_per_call = max(1, int(steps))

    def _finish_call(self):
        """Runs the hooks' `after_run`; True when one asked to stop."""
        if not self._runner.hooks:
            return False
        return self._runner.after_step(self.model.first_outputs)


class TrainingLoop(_StepLoop):
    """Checkpoints, stopping, NaN checks, logs and summaries of one `train()` call.

    Args:
        runner: the `HookRunner` of the training hooks.
        base_fetches: what every step fetches (`loss`, `train_op`).
        global_step: the global step variable.
        last_step: stop once the global step reaches it (None: end of input).
        saver: a `CheckpointSaver`, or None when checkpointing is off.
        config: the Estimator's `RunConfig`.
        saving_listeners: `CheckpointSaverListener`s around each save.
        graph_def: the model_fn's GraphDef, for `graph.pbtxt` and TensorBoard.
        summary_op: the merged summaries of the model_fn (None: no summaries).
        max_steps_per_call: the most steps one call may run.
    """

    def __init__(
        self,
        runner,
        base_fetches,
        global_step,
        last_step,
        saver,
        config,
        saving_listeners=(),
        graph_def=None,
        summary_op=None,
        max_steps_per_call=MAX_STEPS_PER_CALL,
    ):
        super().__init__(runner, base_fetches)
        self._max_steps_per_call = max_steps_per_call
        self._global_step = global_step
        self._last_step = last_step
        self._saver = saver
        self._config = config
        self._listeners = list(saving_listeners)
        self._graph_def = graph_def
        self._summary_op = summary_op if config.save_summary_steps else None
        # No saver when both save_checkpoints_* are None: periodic saving is off.
        self._save_timer = saver and tf.compat.v1.train.SecondOrStepTimer(
            every_secs=config.save_checkpoints_secs, every_steps=config.save_checkpoints_steps
        )
        self._rate_timer = tf.compat.v1.train.SecondOrStepTimer(
            every_steps=config.log_step_count_steps
        )
        self._progress = None
        self.step = None
        self.loss = None

    @property
    def model_dir(self):
        return self._config.model_dir

    def on_train_begin(self, logs=None):
        self.step = int(self._global_step.numpy())
        self._next_summary = self.step
        self._next_log = self.step
        if self._graph_def is not None:
            summaries.write_graph(self.model_dir, self._graph_def)
        if sys.stdout.isatty() and self._last_step is not None:
            self._progress = keras.utils.Progbar(self._last_step, stateful_metrics=["loss"])
        if self._saver is None:
            return
        if self._graph_def is not None and self._config.checkpoint_save_graph_def:
            tf.io.write_graph(self._graph_def, self.model_dir, "graph.pbtxt")
        for listener in self._listeners:
            listener.begin()
        self._save(self.step)

    def on_train_batch_begin(self, batch, logs=None):
        bounds = [self._max_steps_per_call]
        periodic = [(self._next_log, self._config.log_step_count_steps)]
        if self._summary_op is not None:
            periodic.append((self._next_summary, self._config.save_summary_steps))
        for due, every in periodic:
            # An event due now is fetched by this call's first step; the call
            # then ends before the next one.
            bounds.append(due - self.step if due > self.step else every)
        if self._last_step is not None:
            bounds.append(self._last_step - self.step)
        if self._saver is not None and self._config.save_checkpoints_steps:
            last_saved = self._saver.last_saved_step
            bounds.append(last_saved + self._config.save_checkpoints_steps - self.step)
        first_step_fetches = {}
        if self._summary_op is not None and self._next_summary <= self.step:
            first_step_fetches["summary"] = self._summary_op
        if self._next_log <= self.step:
            first_step_fetches["logged_loss"] = self._base_fetches["loss"]
        self._prepare_call(min(bounds), first_step_fetches)

    def on_train_batch_end(self, batch, logs=None):
        first, last = self.model.first_outputs, self.model.last_outputs
        # The step this call started at, as the original's hooks saw it.
        first_step, self.step = self.step, int(self._global_step.numpy())
        self.loss = last["loss"].numpy()
        for loss in (first["loss"].numpy(), self.loss):
            if math.isnan(float(loss)):
                _logging.error("Model diverged with loss = NaN.")
                raise NanLossDuringTrainingError
        stop = self._finish_call()
        if "summary" in first:
            summaries.write_summary(
                self.model_dir, first["summary"].numpy(), first_step, flush=False
            )
            self._next_summary = first_step + self._config.save_summary_steps
        if "logged_loss" in first:
            self._log(first_step, first["logged_loss"].numpy())
            self._next_log = first_step + self._config.log_step_count_steps
        if self._saver is not None and self._save_timer.should_trigger_for_step(self.step):
            stop = self._save(self.step) or stop
        if self._last_step is not None and self.step >= self._last_step:
            stop = True
        if self._progress is not None:
            self._progress.update(self.step, [("loss", float(self.loss))])
        if stop:
            self.model.stop_training = True

    def on_train_end(self, logs=None):
        if self.step is None:
            return
        summaries.flush(self.model_dir)
        self._runner.end()
        if self._saver is None:
            return
        if self._saver.last_saved_step != self.step:
            self._save(self.step)
        for listener in self._listeners:
            listener.end(None, self.step)

    def _save(self, step):
        """Saves a checkpoint; True when a listener asks training to stop."""
        _logging.info("Calling checkpoint listeners before saving checkpoint %d...", step)
        for listener in self._listeners:
            listener.before_save(None, step)
        _logging.info(
            "Saving checkpoints for %d into %s.", step, os.path.join(self.model_dir, "model.ckpt")
        )
        self._saver.save(step)
        self._save_timer.update_last_triggered_step(step)
        stop = False
        for listener in self._listeners:
            if listener.after_save(None, step):
                _logging.info("A CheckpointSaverListener requested that training be stopped.")
                stop = True
        return stop

    def _log(self, run_step, loss):
        _logging.info("loss = %s, step = %d", loss, run_step)
        elapsed, steps = self._rate_timer.update_last_triggered_step(run_step)
        if elapsed and steps:
            rate = steps / elapsed
            _logging.info("global_step/sec: %g", rate)
            summary = tf.compat.v1.Summary(
                value=[tf.compat.v1.Summary.Value(tag="global_step/sec", simple_value=rate)]
            )
            summaries.write_summary(self.model_dir, summary, run_step, flush=False)


class EvaluationLoop(_StepLoop):
    """Runs `evaluate()` for `steps` batches (or to the end), with hooks.

    Args:
        runner: the `HookRunner` of the evaluation hooks.
        base_fetches: what every step fetches (`loss`, metric updates).
        steps: how many batches to evaluate (None: to the end of input).
    """

    def __init__(self, runner, base_fetches, steps=None):
        super().__init__(runner, base_fetches)
        self._steps = steps
        self.evaluated = 0

    def on_test_batch_begin(self, batch, logs=None):
        remaining = MAX_STEPS_PER_CALL if self._steps is None else self._steps - self.evaluated
        self._prepare_call(min(MAX_STEPS_PER_CALL, remaining))

    def on_test_batch_end(self, batch, logs=None):
        self.evaluated += self.model.last_steps_run
        stop = self._finish_call()
        if stop or (self._steps is not None and self.evaluated >= self._steps):
            self.model.stop_evaluating = True

    def on_test_end(self, logs=None):
        self._runner.end()
