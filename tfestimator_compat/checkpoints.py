"""Name-based checkpoints in the original Estimator's layout.

A model_dir holds `checkpoint` (the state file, relative paths) and
`model.ckpt-N.index` / `.data-00000-of-00001`, keyed by TF1 variable names, so
`tf.train.load_variable(model_dir, "dense/kernel")`, the original Estimator and
checkpoints it wrote all work with the same files. TensorFlow writes each file
under a temporary name and renames it, and the state file is replaced
atomically after the new checkpoint is complete; old checkpoints are deleted
only after that. A kill at any moment therefore leaves the state file pointing
at a complete checkpoint.
"""

import os

import tensorflow as tf

CHECKPOINT_BASENAME = "model.ckpt"


def latest_checkpoint(model_dir):
    """Path prefix of the newest checkpoint in `model_dir`, or None."""
    if not model_dir or not tf.io.gfile.exists(model_dir):
        return None
    return tf.train.latest_checkpoint(model_dir)


def global_step_of(checkpoint_path):
    """The `global_step` stored in a checkpoint (0 when it has none)."""
    reader = tf.train.load_checkpoint(checkpoint_path)
    if not reader.has_tensor(tf.compat.v1.GraphKeys.GLOBAL_STEP):
        return 0
    return int(reader.get_tensor(tf.compat.v1.GraphKeys.GLOBAL_STEP))


def check_restorable(checkpoint_path, variables):
    """Raises unless every variable is in the checkpoint with its shape and dtype.

    The original let a Saver find a mismatch halfway through restoring, or
    quietly reshaped; here nothing is touched until the whole model fits.
    """
    reader = tf.train.load_checkpoint(checkpoint_path)
    shapes = reader.get_variable_to_shape_map()
    dtypes = reader.get_variable_to_dtype_map()
    missing = sorted(name for name in variables if name not in shapes)
    if missing:
        raise tf.errors.NotFoundError(
            None,
            None,
            f"Restoring from checkpoint failed: key(s) {missing} not found in "
            f"checkpoint {checkpoint_path}. The model_fn creates variables the "
            "checkpoint does not have: check the variable names, or start from a "
            "new model_dir (use warm_start_from to load matching variables).",
        )
    problems = []
    for name, variable in variables.items():
        model_shape = variable.shape.as_list()
        if shapes[name] != model_shape:
            problems.append(
                f"{name}: shape {shapes[name]} in the checkpoint, {model_shape} in the model"
            )
        elif dtypes[name].base_dtype != variable.dtype.base_dtype:
            problems.append(
                f"{name}: dtype {dtypes[name].name} in the checkpoint, "
                f"{variable.dtype.name} in the model"
            )
    if problems:
        raise ValueError(
            f"Checkpoint {checkpoint_path} does not match the model:\n  " + "\n  ".join(problems)
        )


def restore(checkpoint_path, variables):
    """Loads `variables` (TF1 name -> variable) from a name-based checkpoint."""
    check_restorable(checkpoint_path, variables)
    tf.compat.v1.train.Saver(var_list=variables).restore(None, checkpoint_path)


class CheckpointSaver:
    """Writes `model.ckpt-<step>` checkpoints of `variables` into `model_dir`.

    Keeps the newest `max_to_keep` (all when 0 or None), counting those already
    listed in the state file, as a restarted original job did.
    """

    def __init__(self, model_dir, variables, max_to_keep=5, keep_checkpoint_every_n_hours=10000):
        self._prefix = os.path.join(model_dir, CHECKPOINT_BASENAME)
        self._saver = tf.compat.v1.train.Saver(
            var_list=variables,
            max_to_keep=max_to_keep,
            keep_checkpoint_every_n_hours=keep_checkpoint_every_n_hours,
            save_relative_paths=True,
        )
        state = tf.train.get_checkpoint_state(model_dir)
        if state is not None:
            self._saver.recover_last_checkpoints(list(state.all_model_checkpoint_paths))
        self.last_saved_step = None

    def save(self, step):
        tf.io.gfile.makedirs(os.path.dirname(self._prefix))
        path = self._saver.save(None, self._prefix, global_step=step, write_meta_graph=False)
        self.last_saved_step = step
        return path
