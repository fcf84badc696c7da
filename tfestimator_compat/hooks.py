"""The `SessionRunHook` names of `tf.estimator`, and the check of hooks a user passes.

The hook classes are TensorFlow's own (`tf.compat.v1.train.*`), so user hooks
that subclass them keep working. `engine/loop/hook_runner.py` runs them around
the Keras steps of a traced `model_fn`, as a `MonitoredSession` did.
"""

import tensorflow as tf

from tfestimator_compat.engine import keras_flavours

_train = tf.compat.v1.train

SessionRunHook = _train.SessionRunHook
SessionRunArgs = _train.SessionRunArgs
SessionRunContext = _train.SessionRunContext
SessionRunValues = _train.SessionRunValues
LoggingTensorHook = _train.LoggingTensorHook
StopAtStepHook = _train.StopAtStepHook
CheckpointSaverHook = _train.CheckpointSaverHook
CheckpointSaverListener = _train.CheckpointSaverListener
NanTensorHook = _train.NanTensorHook
NanLossDuringTrainingError = _train.NanLossDuringTrainingError
StepCounterHook = _train.StepCounterHook
SummarySaverHook = _train.SummarySaverHook
FinalOpsHook = _train.FinalOpsHook
FeedFnHook = _train.FeedFnHook
GlobalStepWaiterHook = _train.GlobalStepWaiterHook
ProfilerHook = _train.ProfilerHook
SecondOrStepTimer = _train.SecondOrStepTimer


def check_hooks(hooks, message="All hooks must be SessionRunHook instances, given: {}"):
    """`hooks` as a tuple, each a `SessionRunHook` or a Keras callback.

    Keras callbacks are an extension of the original. `message` is the
    original's wording for the place the hooks came from.
    """
    hooks = tuple(hooks or ())
    for hook in hooks:
        if not isinstance(hook, SessionRunHook) and not keras_flavours.is_callback(hook):
            raise TypeError(message.format(hook))
    return hooks
