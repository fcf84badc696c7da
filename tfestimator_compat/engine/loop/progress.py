"""The progress lines the original logged at INFO, at the original's cadence.

Users watch these lines (and some parse them): the original's Session-based
loops printed them as a model_fn was called, a session was made, and an
evaluation ran. Here no Session exists, so each line is logged where the
step it stood for now happens.
"""

import contextlib
import time

import tensorflow as tf

_logging = tf.compat.v1.logging
# An evaluation or prediction without `steps` says it is alive this often.
ALIVE_EVERY_SECS = 60.0


@contextlib.contextmanager
def calling_model_fn():
    """Around the model_fn call of one train/evaluate/predict/export call."""
    _logging.info("Calling model_fn.")
    yield
    _logging.info("Done calling model_fn.")


@contextlib.contextmanager
def creating_session():
    """Around restoring or initializing the variables, where the original made its Session."""
    _logging.info("Graph was finalized.")
    yield
    _logging.info("Running local_init_op.")
    _logging.info("Done running local_init_op.")


def evaluation_started():
    """Logs the start of an evaluation, before its variables are restored; returns its time."""
    _logging.info("Starting evaluation at %s", time.strftime("%Y-%m-%dT%H:%M:%S"))
    return time.time()


def evaluation_finished(started):
    """Logs the end of the evaluation `evaluation_started` began, once its metrics are read."""
    _logging.info("Inference Time : %.5fs", time.time() - started)
    _logging.info("Finished evaluation at %s", time.strftime("%Y-%m-%d-%H:%M:%S"))


class BatchProgress:
    """Logs `<what> [k/N]` as batches complete.

    With `steps` given, at the original's cadence: every batch under 20, else
    every `steps // 10` batches and the last one. Without `steps` the
    original logged nothing; here `<what> [k]` every `ALIVE_EVERY_SECS`, so a
    long run shows it is alive and a short one prints what the original did.
    """

    def __init__(self, what, steps=None, clock=time.time):
        self._what = what
        self._steps = steps
        self._every = 1 if steps is None or steps < 20 else steps // 10
        self._clock = clock
        self._last_said = clock()
        self.done = 0

    def batches_to_next_line(self):
        """How many batches until a line is due (None when time decides), so a
        chunk of steps can end there and the line comes when its batch is done."""
        if self._steps is None:
            return None
        return self._every - self.done % self._every

    def advance(self, batches):
        """Counts `batches` more completed batches, logging what is due among them."""
        first, self.done = self.done + 1, self.done + batches
        if self._steps is None:
            now = self._clock()
            if batches and now - self._last_said >= ALIVE_EVERY_SECS:
                _logging.info("%s [%d]", self._what, self.done)
                self._last_said = now
            return
        for done in range(first, self.done + 1):
            if done % self._every == 0 or done == self._steps:
                _logging.info("%s [%d/%d]", self._what, done, self._steps)
