"""The Keras callbacks that make `fit` and `evaluate` behave like the original loops.

Each call of the model's step function runs a chunk of steps inside one
`tf.function`. Before each call a loop callback picks the chunk so that every
event lands on exactly its step:

- a checkpoint is due after step `last_saved + save_checkpoints_steps`;
- summaries and the loss/steps-per-second log are due at the step the run
  starts at (0, 100, 200, ... as the original's hooks read the global step in
  the same run), and only the steps they are due at fetch them. A chunk
  starting where they are due may span several of them when they share one
  period: its steps at multiples of that period fetch them too, and they are
  written and logged after the call, each with its own step. How many
  periods a chunk spans follows the measured speed, so a call lasts about
  `SECONDS_PER_CALL` and logs stay prompt for slow models;
- `max_steps` (or evaluation `steps`) ends the last chunk;
- `SessionRunHook`s see every step, so with hooks each call runs one step;
- a model_fn's stop signal (`stop_signal.stop_training_when`) ends a chunk,
  and training, after the step it is true at.

Time-based checkpoints (`save_checkpoints_secs`) are checked after each call.
Events are due at global steps; a chunk's length in steps follows how far a
step has advanced the global step so far in the call (one per step for a
train op built with `global_step=`, which the first chunk assumes).
"""

import math
import os
import sys
import time

import keras
import tensorflow as tf

from tfestimator_compat.engine.loop import chunks
from tfestimator_compat.engine.loop import progress
from tfestimator_compat.engine.loop import stop_signal
from tfestimator_compat.engine.loop.chunks import MAX_STEPS_PER_CALL
from tfestimator_compat.engine.loop.chunks import ChunkRequest
from tfestimator_compat.engine.loop.keras_callbacks import KerasCallbacks
from tfestimator_compat.engine.state import event_files
from tfestimator_compat.engine.state import text_protos

_logging = tf.compat.v1.logging


class _StepLoop(keras.callbacks.Callback):
    """Sets what each call fetches and how many steps it runs; drives hooks."""

    def __init__(self, *, runner, base_fetches, callbacks=None):
        super().__init__()
        self._runner = runner
        self._base_fetches = dict(base_fetches)
        self._callbacks = callbacks if callbacks is not None else KerasCallbacks([], None)

    def _every_step(self):
        """Whether a user Keras callback asks to see every step (batch) of this loop."""
        return False

    def _prepare_call(self, steps, first_step_fetches=None, event_every=None):
        """Hands the model the `ChunkRequest` of its next call."""
        first_step_fetches = dict(first_step_fetches or {})
        if self._runner.hooks:
            steps = 1
            first_step_fetches.update(self._runner.before_step())
        elif self._every_step():
            steps = 1
        self.model.request_chunk(
            ChunkRequest(
                fetches=self._base_fetches,
                first_step_fetches=first_step_fetches,
                steps=max(1, int(steps)),
                event_every=event_every,
            )
        )

    def _finish_call(self, which=slice(None)):
        """Runs the hooks' `after_run` (those `which` selects); True when one asked to stop."""
        if not self._runner.hooks:
            return False
        return self._runner.after_step(self.model.last_chunk.first, which)


class TrainingLoop(_StepLoop):
    """Checkpoints, stopping, NaN checks, logs and summaries of one `train()` call.

    Args:
        runner: the `HookRunner` of the training hooks.
        base_fetches: what every step fetches (`loss`, `train_op`).
        global_step: the global step variable.
        step_read: the graph's read of the global step as a step starts
            (event steps fetch it, so summaries and logs carry their step).
        last_step: stop once the global step reaches it (None: end of input).
        saver: a `CheckpointSaver`, or None when checkpointing is off.
        config: the Estimator's `RunConfig`.
        saving_listeners: `CheckpointSaverListener`s around each save.
        graph_def: the model_fn's GraphDef, for `graph.pbtxt` and TensorBoard.
        summary_op: the merged summaries of the model_fn (None: no summaries).
        max_steps_per_call: the most steps one call may run.
        callbacks: the user's Keras callbacks (`KerasCallbacks`), or None.
        end_of_input: run when training ends because the input ran out
            (`ModelFnGraph.batch_free_train_function`), or None.
    """

    def __init__(
        self,
        *,
        runner,
        base_fetches,
        global_step,
        step_read,
        last_step,
        saver,
        config,
        saving_listeners=(),
        graph_def=None,
        summary_op=None,
        max_steps_per_call=MAX_STEPS_PER_CALL,
        callbacks=None,
        end_of_input=None,
    ):
        super().__init__(runner=runner, base_fetches=base_fetches, callbacks=callbacks)
        self._end_of_input = end_of_input
        self._step_read = step_read
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
        self._last_log = None  # (step, time) of the previous loss log
        self._steps_per_sec = None  # measured over the previous call
        self._start_step = None
        self._steps_run = 0  # in this train() call
        self._call_started = None
        self._progress = None
        self.step = None
        self.loss = None

    @property
    def model_dir(self):
        return self._config.model_dir

    def on_train_begin(self, logs=None):
        self.step = self._start_step = int(self._global_step.numpy())
        self._next_summary = self.step
        self._next_log = self.step
        if self._graph_def is not None:
            event_files.write_graph(self.model_dir, self._graph_def)
        if sys.stdout.isatty() and self._last_step is not None:
            self._progress = keras.utils.Progbar(self._last_step, stateful_metrics=["loss"])
        self._callbacks.train_begin()
        if self._saver is not None:
            if self._graph_def is not None and self._config.checkpoint_save_graph_def:
                text_protos.write(self._graph_def, os.path.join(self.model_dir, "graph.pbtxt"))
            self._save(self.step)
        # The original's checkpoint saver came first among the hooks.
        self._runner.after_create_session()

    def on_train_batch_begin(self, batch, logs=None):
        periodic = [(self._next_log, self._config.log_step_count_steps)]
        if self._summary_op is not None:
            periodic.append((self._next_summary, self._config.save_summary_steps))
        every = self._shared_period(periodic)
        next_checkpoint = None
        if self._saver is not None and self._config.save_checkpoints_steps:
            next_checkpoint = self._saver.last_saved_step + self._config.save_checkpoints_steps
        global_steps = chunks.global_steps_to_next_event(
            self.step,
            periodic,
            every,
            chunks.periods_per_call(self._steps_per_sec, every) if every is not None else 1,
            self._last_step,
            next_checkpoint,
        )
        first_step_fetches = {}
        if self._summary_op is not None and self._next_summary <= self.step:
            first_step_fetches["summary"] = self._summary_op
        if self._next_log <= self.step:
            first_step_fetches["logged_loss"] = self._base_fetches["loss"]
        if first_step_fetches:
            first_step_fetches["event_step"] = self._step_read
        steps = chunks.steps_for(
            global_steps, self._global_steps_per_step(), self._max_steps_per_call
        )
        self._prepare_call(steps, first_step_fetches, event_every=every)
        self._callbacks.train_batch_begin(self.step)
        self._call_started = time.time()

    def _every_step(self):
        return self._callbacks.every_train_step

    def _global_steps_per_step(self):
        """How far a step has advanced the global step so far in this call of
        train() (a train op may step it twice per step, or once per several
        accumulated batches); one before any step ran."""
        if not self._steps_run:
            return 1.0
        return (self.step - self._start_step) / self._steps_run

    def _shared_period(self, periodic):
        """The summaries' and logs' shared period when a chunk may span several of them."""
        return chunks.shared_period(
            periodic, self.step, bool(self._runner.hooks), self._global_steps_per_step()
        )

    def on_train_batch_end(self, batch, logs=None):
        chunk = self.model.last_chunk
        first, last = chunk.first, chunk.last
        # The step this call started at, as the original's hooks saw it.
        first_step, self.step = self.step, int(self._global_step.numpy())
        self._steps_run += chunk.steps_run
        elapsed = time.time() - self._call_started
        if elapsed > 0:
            self._steps_per_sec = chunk.steps_run / elapsed
        self.loss = last["loss"].numpy()
        events = self._events_of_call(first_step, first, chunk.events)
        losses = [first["loss"].numpy(), self.loss]
        losses += [fetched["logged_loss"] for _, fetched in events if "logged_loss" in fetched]
        advance = round(self._global_steps_per_step())
        # Steps before the call's last one logged before its checkpoint, as
        # the original's hooks did, step by step.
        last_run = self.step - max(advance, 1)
        earlier = [(step, fetched) for step, fetched in events if step < last_run]
        # Up to a NaN loss: the original's NaN check came before its loss log.
        nan = [math.isnan(float(fetched.get("logged_loss", 0.0))) for _, fetched in earlier]
        earlier = earlier[: nan.index(True)] if any(nan) else earlier
        self._write_events(earlier, first_step, elapsed, advance)
        # The original's CheckpointSaverHook ran first among the hooks: a due
        # checkpoint is written before a user hook or the NaN check may raise.
        saved = self._saver is not None and self._save_timer.should_trigger_for_step(self.step)
        stop = saved and self._save(self.step, end_epoch=False)
        split = self._runner.before_nan_check
        stop = self._finish_call(slice(None, split)) or stop
        if any(math.isnan(float(loss)) for loss in losses):
            _logging.error("Model diverged with loss = NaN.")
            raise tf.compat.v1.train.NanLossDuringTrainingError
        stop = self._finish_call(slice(split, None)) or stop
        self._callbacks.train_batch_end(first_step, self.loss, chunk.steps_run)
        if saved:
            self._callbacks.epoch_end(self._epoch_logs())
        self._write_events(events[len(earlier) :], first_step, elapsed, advance)
        if self._last_step is not None and self.step >= self._last_step:
            stop = True
        if stop_signal.FETCH_KEY in last and last[stop_signal.FETCH_KEY].numpy():
            stop = True
        if self._progress is not None:
            self._progress.update(self.step, [("loss", float(self.loss))])
        if stop:
            self.model.stop_training = True

    def _write_events(self, events, first_step, elapsed, advance):
        """Writes the summaries and logs the losses the call's steps fetched."""
        for event_step, fetched in events:
            # Summaries are written at the global step the step ended at, as the
            # original's SummarySaverHook and StepCounterHook did; the loss is
            # logged with the step it started at, as its LoggingTensorHook did.
            if "summary" in fetched:
                summary_step = event_step + advance
                event_files.write_summary(
                    self.model_dir, fetched["summary"], summary_step, flush=False
                )
                self._next_summary = event_step + self._config.save_summary_steps
            if "logged_loss" in fetched:
                # The step's time, as if the call's steps took equal time.
                done = (event_step - first_step) / max(self.step - first_step, 1)
                when = self._call_started + done * elapsed
                self._log(event_step, event_step + advance, fetched["logged_loss"], when)
                self._next_log = event_step + self._config.log_step_count_steps

    @staticmethod
    def _events_of_call(first_step, first, later):
        """`(step, {name: value})` for the first step's extra fetches and for each
        later step of the call that fetched them, in step order. Each step is
        the global step as that step started, as the original's hooks read it."""
        names = ("summary", "logged_loss")
        events = [(first_step, {name: first[name].numpy() for name in names if name in first})]
        arrays = {name: later[name].numpy() for name in names if name in later}
        steps = later["event_step"].numpy() if "event_step" in later else ()
        for index, step in enumerate(steps):
            events.append((int(step), {name: values[index] for name, values in arrays.items()}))
        return [(step, fetched) for step, fetched in events if fetched]

    def on_train_end(self, logs=None):
        if self.step is None:
            return
        if self._end_of_input is not None and not self.model.stop_training:
            # The original's run that found no batch still ran what needed none.
            self._end_of_input()
            self.step = int(self._global_step.numpy())
        event_files.flush(self.model_dir)
        # The final checkpoint comes before the hooks' `end`, as the original's
        # CheckpointSaverHook ended first.
        if self._saver is not None:
            if self._saver.last_saved_step != self.step:
                self._save(self.step, end_epoch=False)
            for listener in self._listeners:
                listener.end(None, self.step)
        self._runner.end()
        # The last epoch ends after the final evaluation (train_and_evaluate's).
        self._callbacks.epoch_end(self._epoch_logs(), last=True)
        self._callbacks.train_end({"loss": self.loss})
        if self._saver is not None and getattr(self.model, "weights_were_set", False):
            # EarlyStopping(restore_best_weights=True) put back earlier weights: keep them.
            _logging.info("Saving the weights a Keras callback restored, as step %d.", self.step)
            self._saver.save(self.step)

    def _epoch_logs(self):
        """The loss, and the `val_` metrics a listener evaluated the checkpoint to."""
        logs = {"loss": self.loss}
        for listener in self._listeners:
            logs.update(getattr(listener, "keras_logs", None) or {})
        return logs

    def _save(self, step, end_epoch=True):
        """Saves a checkpoint; True when a listener asks training to stop."""
        _logging.info("Calling checkpoint listeners before saving checkpoint %d...", step)
        for listener in self._listeners:
            listener.before_save(None, step)
        _logging.info(
            "Saving checkpoints for %d into %s.", step, os.path.join(self.model_dir, "model.ckpt")
        )
        self._saver.save(step)
        self._save_timer.update_last_triggered_step(step)
        _logging.info("Calling checkpoint listeners after saving checkpoint %d...", step)
        stop = False
        for listener in self._listeners:
            if listener.after_save(None, step):
                _logging.info("A CheckpointSaverListener requested that training be stopped.")
                stop = True
        if end_epoch:
            self._callbacks.epoch_end(self._epoch_logs())
        return stop

    def _log(self, run_step, end_step, loss, when):
        """Logs steps per second, then the loss, as the original's StepCounterHook
        (at the step before) and LoggingTensorHook did."""
        elapsed = None
        if self._last_log is not None:
            last_step, last_time = self._last_log
            elapsed = when - last_time
            if run_step > last_step and when > last_time:
                rate = (run_step - last_step) / (when - last_time)
                _logging.info("global_step/sec: %g", rate)
                summary = tf.compat.v1.Summary(
                    value=[tf.compat.v1.Summary.Value(tag="global_step/sec", simple_value=rate)]
                )
                event_files.write_summary(self.model_dir, summary, end_step, flush=False)
        if elapsed is None:
            _logging.info("loss = %s, step = %d", loss, run_step)
        else:
            _logging.info("loss = %s, step = %d (%.3f sec)", loss, run_step, elapsed)
        self._last_log = (run_step, when)


class EvaluationLoop(_StepLoop):
    """Runs `evaluate()` for `steps` batches (or to the end), with hooks.

    Args:
        runner: the `HookRunner` of the evaluation hooks.
        base_fetches: what every step fetches (`loss`, metric updates).
        steps: how many batches to evaluate (None: to the end of input).
        callbacks: the user's Keras callbacks (`KerasCallbacks`), or None.
    """

    def __init__(self, *, runner, base_fetches, steps=None, callbacks=None):
        super().__init__(runner=runner, base_fetches=base_fetches, callbacks=callbacks)
        self._steps = steps
        self._progress = progress.BatchProgress("Evaluation", steps)
        self.evaluated = 0

    def _every_step(self):
        return self._callbacks.every_test_step

    def on_test_batch_begin(self, batch, logs=None):
        remaining = MAX_STEPS_PER_CALL if self._steps is None else self._steps - self.evaluated
        # A chunk ends where a progress line is due, so it is logged when due.
        due = self._progress.batches_to_next_line() or MAX_STEPS_PER_CALL
        self._prepare_call(min(MAX_STEPS_PER_CALL, remaining, due))
        self._callbacks.test_batch_begin(self.evaluated)

    def on_test_batch_end(self, batch, logs=None):
        chunk = self.model.last_chunk
        self._callbacks.test_batch_end(self.evaluated, chunk.last["loss"])
        self.evaluated += chunk.steps_run
        self._progress.advance(chunk.steps_run)
        stop = self._finish_call()
        if stop or (self._steps is not None and self.evaluated >= self._steps):
            self.model.stop_evaluating = True

    def on_test_end(self, logs=None):
        self._runner.end()
