"""The Keras callback that makes `fit` behave like the original training loop.

It saves checkpoints on the `RunConfig` schedule (and at the start and end of
every `train()`), stops at the last step, fails on a NaN loss as the original's
default `NanTensorHook` did, logs loss and steps/sec every
`log_step_count_steps`, and writes the `loss` and `global_step/sec` summaries.
"""

import math
import os

import keras
import tensorflow as tf

from tfestimator_compat import summaries
from tfestimator_compat.hooks import NanLossDuringTrainingError

_logging = tf.compat.v1.logging


class TrainingLoopCallback(keras.callbacks.Callback):
    """Checkpoints, stopping, NaN checks, logs and summaries of one `train()` call.

    Args:
        global_step: the global step variable.
        last_step: stop once the global step reaches it (None: end of input).
        saver: a `CheckpointSaver`, or None when checkpointing is off.
        config: the Estimator's `RunConfig`.
        saving_listeners: `CheckpointSaverListener`s around each save.
        graph_def: the model_fn's GraphDef, written as `graph.pbtxt`.
    """

    def __init__(self, global_step, last_step, saver, config, saving_listeners=(), graph_def=None):
        super().__init__()
        self._global_step = global_step
        self._last_step = last_step
        self._saver = saver
        self._config = config
        self._listeners = list(saving_listeners)
        self._graph_def = graph_def
        self._save_timer = tf.compat.v1.train.SecondOrStepTimer(
            every_secs=config.save_checkpoints_secs, every_steps=config.save_checkpoints_steps
        )
        self._log_timer = tf.compat.v1.train.SecondOrStepTimer(
            every_steps=config.log_step_count_steps
        )
        self._summary_timer = tf.compat.v1.train.SecondOrStepTimer(
            every_steps=config.save_summary_steps or None
        )
        self.step = None
        self.loss = None

    @property
    def model_dir(self):
        return self._config.model_dir

    def on_train_begin(self, logs=None):
        self.step = int(self._global_step.numpy())
        if self._graph_def is not None:
            summaries.write_graph(self.model_dir, self._graph_def)
        if self._saver is None:
            return
        if self._graph_def is not None and self._config.checkpoint_save_graph_def:
            tf.io.write_graph(self._graph_def, self.model_dir, "graph.pbtxt")
        for listener in self._listeners:
            listener.begin()
        self._save(self.step)

    def on_train_batch_end(self, batch, logs=None):
        outputs = self.model.last_outputs
        # Logs and summaries carry the step the run started at, as the
        # original's hooks read the global step inside the same run.
        step_before_run, self.step = self.step, int(self._global_step.numpy())
        self.loss = outputs["loss"].numpy()
        if math.isnan(float(self.loss)):
            _logging.error("Model diverged with loss = NaN.")
            raise NanLossDuringTrainingError
        self._log(step_before_run)
        if self._saver is not None and self._save_timer.should_trigger_for_step(self.step):
            if self._save(self.step):
                self.model.stop_training = True
        if self._last_step is not None and self.step >= self._last_step:
            self.model.stop_training = True

    def on_train_end(self, logs=None):
        if self._saver is None or self.step is None:
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
            "Saving checkpoints for %d into %s.",
            step,
            os.path.join(self.model_dir, "model.ckpt"),
        )
        self._saver.save(step)
        self._save_timer.update_last_triggered_step(step)
        stop = False
        for listener in self._listeners:
            if listener.after_save(None, step):
                _logging.info("A CheckpointSaverListener requested that training be stopped.")
                stop = True
        return stop

    def _log(self, step):
        if self._log_timer.should_trigger_for_step(step):
            elapsed, steps = self._log_timer.update_last_triggered_step(step)
            _logging.info("loss = %s, step = %d", self.loss, step)
            if elapsed and steps:
                rate = steps / elapsed
                _logging.info("global_step/sec: %g", rate)
                self._write_scalar("global_step/sec", rate, step)
        if self._config.save_summary_steps and self._summary_timer.should_trigger_for_step(step):
            self._summary_timer.update_last_triggered_step(step)
            self._write_scalar("loss", float(self.loss), step)

    def _write_scalar(self, tag, value, step):
        summary = tf.compat.v1.Summary(
            value=[tf.compat.v1.Summary.Value(tag=tag, simple_value=value)]
        )
        summaries.write_summary(self.model_dir, summary, step)
