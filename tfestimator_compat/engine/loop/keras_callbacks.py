"""Keras callbacks given where hooks go, called as Keras calls them.

The original took only `SessionRunHook`s; as an extension, a
`keras.callbacks.Callback` may be passed to `train`, `evaluate`, `predict`,
`TrainSpec` and `EvalSpec`. The training loop runs many steps per call, so the
callbacks are not handed to Keras's own loop (they would see call numbers);
`KerasCallbacks` calls them with Keras's contract instead:

- `on_train_batch_begin(step)` / `on_train_batch_end(step, {"loss": ...})` with
  the global step each step started at, for callbacks that define them (any
  such callback makes each call run one step, as a hook does);
- an epoch ends at each checkpoint save and at the end of training:
  `on_epoch_end(epoch, logs)` with the step's `loss` and, in
  `train_and_evaluate`, the evaluation of that checkpoint as `val_<metric>`;
- `on_train_end(logs)` with the final loss;
- `on_test_*` in `evaluate()` likewise, ending with its results.

Setting `model.stop_training = True` (`EarlyStopping`) stops training after
that step, and the final checkpoint is saved. The model's weights are the
model_fn's variables (`ModelFnModel.get_weights`), so `restore_best_weights`
and `ModelCheckpoint(save_weights_only=True)` work; a whole-model
`ModelCheckpoint` is refused before training.
"""

import keras
import numpy as np

from tfestimator_compat.engine import keras_flavours

_TRAIN_BATCH_METHODS = (
    "on_train_batch_begin",
    "on_train_batch_end",
    "on_batch_begin",
    "on_batch_end",
)
_TEST_BATCH_METHODS = ("on_test_batch_begin", "on_test_batch_end")


class KerasCallbacks:
    """The user's Keras callbacks of one `train()` or `evaluate()` call.

    Args:
        callbacks: the `keras.callbacks.Callback`s among the hooks.
        model: the Keras model the steps run in (what callbacks see as `self.model`).
    """

    def __init__(self, callbacks, model):
        self._callbacks = list(callbacks)
        _check_savable(self._callbacks)
        if model is not None:
            model.weights_were_set = False
        self._list = keras.callbacks.CallbackList(self._callbacks, model=model)
        self.every_train_step = _any_defines(self._callbacks, _TRAIN_BATCH_METHODS)
        self.every_test_step = _any_defines(self._callbacks, _TEST_BATCH_METHODS)
        self.epoch = 0
        self._steps_in_epoch = 0

    def __bool__(self):
        return bool(self._callbacks)

    def train_begin(self):
        self._list.on_train_begin()
        self._list.on_epoch_begin(self.epoch)

    def train_batch_begin(self, step):
        if self.every_train_step:
            self._list.on_train_batch_begin(step)

    def train_batch_end(self, step, loss, steps_run):
        self._steps_in_epoch += steps_run
        if self.every_train_step:
            self._list.on_train_batch_end(step, {"loss": float(loss)})

    def epoch_end(self, logs, last=False):
        """Ends the epoch at a checkpoint save (no empty epochs); starts the next one."""
        if self._steps_in_epoch:
            self._list.on_epoch_end(self.epoch, scalar_logs(logs))
            self.epoch += 1
            self._steps_in_epoch = 0
            if not last:
                self._list.on_epoch_begin(self.epoch)

    def train_end(self, logs):
        self._list.on_train_end(scalar_logs(logs))

    def test_begin(self):
        self._list.on_test_begin()

    def test_batch_begin(self, batch):
        if self.every_test_step:
            self._list.on_test_batch_begin(batch)

    def test_batch_end(self, batch, loss):
        """`loss` (a tensor) is read only for callbacks that see batches."""
        if self.every_test_step:
            self._list.on_test_batch_end(batch, {"loss": float(loss)})

    def test_end(self, results):
        self._list.on_test_end(scalar_logs(results))


def scalar_logs(values, prefix=""):
    """The scalar entries of `values` as floats, as Keras passes logs."""
    logs = {}
    for key, value in (values or {}).items():
        if isinstance(value, (tuple, list, dict)):  # a nested metric value
            continue
        array = np.asarray(value)
        if array.ndim == 0 and np.issubdtype(array.dtype, np.number) and key != "global_step":
            logs[prefix + key] = float(array)
    return logs


def _any_defines(callbacks, methods):
    """Whether a callback defines any of `methods` itself (the base class's do nothing)."""
    return any(
        getattr(type(callback), name) is not getattr(keras_flavours.callback_base(callback), name)
        for callback in callbacks
        for name in methods
    )


def _check_savable(callbacks):
    """Refuses, before training, a ModelCheckpoint the model_fn's variables cannot satisfy."""
    for callback in callbacks:
        if not isinstance(callback, keras_flavours.classes("callbacks.ModelCheckpoint")):
            continue
        if not callback.save_weights_only:
            raise ValueError(
                "ModelCheckpoint(save_weights_only=False) saves a whole Keras model, and an "
                "Estimator's model_fn is not one. Pass save_weights_only=True (each save "
                "writes the model_fn's variables to a .weights.h5 file), or use the model_dir's "
                "checkpoints and export_saved_model. See migration_guide/concepts.md."
            )
        if not str(callback.filepath).endswith(".h5"):
            raise ValueError(
                f"ModelCheckpoint({callback.filepath!r}, save_weights_only=True): the model_fn's "
                "variables are written as HDF5; give a path ending in .weights.h5 (the "
                "model_dir's checkpoints are the TF checkpoint format already)."
            )
