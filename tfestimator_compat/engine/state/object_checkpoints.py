"""Object-based checkpoints: a `tf.train.Checkpoint` as the Scaffold's saver.

TensorFlow's estimator guide and checkpoint migration guide return
`Scaffold(saver=tf.train.Checkpoint(step=..., net=..., optimizer=...))` from a
model_fn. The original then saved and restored by that object graph: keys such
as `step/.ATTRIBUTES/VARIABLE_VALUE`, so `tf.train.Checkpoint(...).restore(
tf.train.latest_checkpoint(model_dir))` restores them after training. What it
did, and what this module does:

- checkpoints are still `model.ckpt-<step>`, listed in the `checkpoint` state
  file with absolute paths, the newest 5 kept (the defaults of the TF1 Saver
  the original built around the Checkpoint, whatever the RunConfig says);
- train, evaluate and export restore through the Checkpoint; a model variable
  it does not reach has no value then, and the model refuses to start;
- a Keras 3 optimizer the Checkpoint reaches ran its updates as its Keras 2
  equivalent (`keras_optimizers_in_graph`): its step count is written under
  its own key, and the equivalent's slots and hyperparameters are written
  beside the Checkpoint's objects (`STAND_INS`), so training resumes with them;
- the checkpoint has no `global_step` key (unless the Checkpoint names one so):
  `train(max_steps=...)` cannot tell how far it is, as in the original.
"""

import os

import keras
import tensorflow as tf

from tfestimator_compat.engine.state import checkpoints
from tfestimator_compat.engine.tracing import keras_optimizers_in_graph

# The original wrapped the Checkpoint in a TF1 Saver made with its defaults.
MAX_TO_KEEP = 5


# The checkpoint child holding the variables that ran in place of a Keras 3 optimizer's.
STAND_INS = "keras2_optimizer_variables"


def is_object_saver(saver) -> bool:
    """Whether a Scaffold's saver is a `tf.train.Checkpoint` (object-based keys)."""
    return isinstance(saver, tf.train.Checkpoint)


def reachable_variables(checkpoint):
    """The TensorFlow variables `checkpoint` saves: those its object graph reaches."""
    found = []
    for trackable in tf.train.TrackableView(checkpoint).descendants():
        if isinstance(trackable, keras.Variable):
            trackable = trackable.value
        if isinstance(trackable, tf.Variable) and not any(trackable is v for v in found):
            found.append(trackable)
    return found


def stand_ins(checkpoint, store, graph):
    """TF1 name -> variable of the Keras 2 equivalents of the Keras 3 optimizers
    `checkpoint` reaches (empty when none ran in their place).

    Args:
        checkpoint: the Scaffold's `tf.train.Checkpoint`.
        store: the Estimator's `VariableStore`, which names the variables.
        graph: the traced model_fn graph the equivalents made their variables in.
    """
    found = {}
    for _, equivalent in _equivalents(checkpoint):
        with graph.as_default():
            variables = equivalent.variables()
        found.update(zip(store.names_of(variables), variables))
    return found


def step_counters(checkpoint, graph):
    """(Keras 3 optimizer's `iterations`, its equivalent's) for each stand-in."""
    with graph.as_default():
        return [(optimizer.iterations, eq.iterations) for optimizer, eq in _equivalents(checkpoint)]


def _equivalents(checkpoint):
    """(Keras 3 optimizer, the Keras 2 equivalent that ran its updates) `checkpoint` reaches."""
    pairs = []
    for trackable in tf.train.TrackableView(checkpoint).descendants():
        equivalent = keras_optimizers_in_graph.equivalent_of(trackable)
        if equivalent is not None:
            pairs.append((trackable, equivalent))
    return pairs


def _with_stand_ins(checkpoint, variables):
    """`checkpoint`'s objects, and `variables` (TF1 name -> variable) under `STAND_INS`."""
    if not variables:
        return checkpoint
    children = dict(tf.train.TrackableView(checkpoint).children(checkpoint))
    holder = tf.Module()
    holder.by_name = dict(variables)
    return tf.train.Checkpoint(**children, **{STAND_INS: holder})


def restore(checkpoint_path, checkpoint, variables=None):
    """Loads `checkpoint`'s objects (and `stand_ins`) from an object-based checkpoint.

    Raises:
        tf.errors.NotFoundError: the checkpoint lacks an object the model's
            Checkpoint has (a name-based checkpoint, or another model's).
    """
    try:
        status = _with_stand_ins(checkpoint, variables).read(checkpoint_path)
        status.assert_existing_objects_matched()
    except AssertionError as error:
        raise tf.errors.NotFoundError(
            None,
            None,
            f"Restoring from checkpoint {checkpoint_path} failed: the Scaffold's "
            f"tf.train.Checkpoint does not find its objects there ({error}). It was not "
            "written by this Checkpoint: start from a new model_dir, or restore it with "
            "the Saver that wrote it.",
        ) from None


class ObjectCheckpointSaver:
    """Writes `model.ckpt-<step>` checkpoints of a `tf.train.Checkpoint` into `model_dir`.

    Keeps the newest `MAX_TO_KEEP`, counting those the state file already
    lists, as the original's Saver did after a restart.
    """

    def __init__(self, model_dir, checkpoint, variables=None, counters=()):
        self._model_dir = model_dir
        self._counters = list(counters)
        self._checkpoint = _with_stand_ins(checkpoint, variables)
        state = checkpoints.checkpoint_state(model_dir)
        self._kept = list(state.all_model_checkpoint_paths) if state is not None else []
        self.last_saved_step = None

    def save(self, step):
        tf.io.gfile.makedirs(self._model_dir)
        for own, ran in self._counters:
            # A Keras 3 optimizer's own count stayed 0 while its equivalent ran.
            own.assign(tf.cast(ran, own.dtype))
        prefix = os.path.join(self._model_dir, checkpoints.CHECKPOINT_BASENAME)
        path = self._checkpoint.write(f"{prefix}-{step}")
        self._kept = [kept for kept in self._kept if kept != path] + [path]
        removed, self._kept = self._kept[:-MAX_TO_KEEP], self._kept[-MAX_TO_KEEP:]
        tf.compat.v1.train.update_checkpoint_state(self._model_dir, path, self._kept)
        for old in removed:
            for name in tf.io.gfile.glob(old + ".*"):
                tf.io.gfile.remove(name)
        self.last_saved_step = step
        return path
