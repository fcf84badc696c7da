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
import re
import time

import numpy as np
import tensorflow as tf

from tfestimator_compat.engine import logs
from tfestimator_compat.engine.internals import tensorflow_protos as tf_protos
from tfestimator_compat.engine.variables import partitioned_variables
from tfestimator_compat.engine.variables.variable_store import is_table
from tfestimator_compat.engine.variables.variable_store import per_device_copies

CHECKPOINT_BASENAME = "model.ckpt"
# Where the original's model_to_estimator kept the step in object-based checkpoints.
OBJECT_GLOBAL_STEP = "estimator_global_step/.ATTRIBUTES/VARIABLE_VALUE"
_SCANS = 4
_RESCAN_SECS = 0.1


def latest_checkpoint(model_dir):
    """Path prefix of the newest complete checkpoint in `model_dir`, or None.

    The state file's newest entry is used when its files are complete. When
    they are missing or truncated (a file deleted by hand, a disk filled up),
    the newest complete checkpoint listed in the state file or present in the
    directory is used, with a warning. When checkpoint files exist but none is
    complete, this raises naming them, rather than returning None and letting
    training start over on top of the user's checkpoints.
    """
    if not model_dir or not tf.io.gfile.exists(model_dir):
        return None
    for attempt in range(_SCANS):
        found, problems = _newest_complete(model_dir)
        if found is not None or not problems:
            if problems:
                tf.compat.v1.logging.warning(
                    "Using checkpoint %s: newer ones are unusable (%s).", found, "; ".join(problems)
                )
            return found
        # A job writing or pruning checkpoints right now leaves files half
        # there for a moment; look again before calling the directory damaged.
        time.sleep(_RESCAN_SECS * (attempt + 1))
    raise ValueError(
        f"model_dir {model_dir} has checkpoints but none is complete: "
        + "; ".join(problems)
        + ". Restore the missing files, or move them away to start from scratch."
    )


def _newest_complete(model_dir):
    """(newest complete checkpoint or None, why each newer one is unusable)."""
    problems = []
    for prefix in _candidates_newest_first(model_dir):
        problem = incomplete(prefix)
        if problem is None:
            return prefix, problems
        problems.append(problem)
    return None, problems


def _candidates_newest_first(model_dir):
    """Checkpoint prefixes the state file lists, then any others found, newest first."""
    listed = []
    state = None
    try:
        state = checkpoint_state(model_dir)
    except tf.errors.OpError as error:
        tf.compat.v1.logging.warning("Ignoring unreadable checkpoint state file: %s", error)
    if state is not None:
        # TensorFlow has already joined relative entries onto `model_dir`.
        paths = [state.model_checkpoint_path, *reversed(state.all_model_checkpoint_paths)]
        listed = [path for path in paths if path]
    found = {
        name[: -len(".index")]
        for name in tf.io.gfile.glob(os.path.join(model_dir, CHECKPOINT_BASENAME + "-*.index"))
    }
    found |= {
        name.split(".data-")[0]
        for name in tf.io.gfile.glob(os.path.join(model_dir, CHECKPOINT_BASENAME + "-*.data-*"))
    }
    others = sorted((p for p in found if p not in listed), key=_step_of_prefix, reverse=True)
    unique = []
    for prefix in listed + others:
        if prefix not in unique:
            unique.append(prefix)
    return unique


def checkpoint_state(model_dir):
    """`tf.train.get_checkpoint_state`, whose error for a state file that is not
    UTF-8 text names that file (TensorFlow's names none)."""
    try:
        return tf.train.get_checkpoint_state(model_dir)
    except UnicodeDecodeError as error:
        path = os.path.join(model_dir, "checkpoint")
        raise UnicodeDecodeError(
            error.encoding,
            error.object,
            error.start,
            error.end,
            f"{error.reason}, in the checkpoint state file {path}. It is not the text file "
            "TensorFlow writes: restore it from a backup, or move it away to use the newest "
            "complete checkpoint found by name",
        ) from error


def _step_of_prefix(prefix):
    suffix = prefix.rsplit("-", 1)[-1]
    return int(suffix) if suffix.isdigit() else -1


def reader(prefix):
    """A reader of the checkpoint at `prefix`, on any filesystem `tf.io.gfile` reaches.

    `tf.train.load_checkpoint` first asks whether the path is a directory,
    which some filesystems (TensorFlow's `ram://`) answer yes for any path.
    """
    return tf.compat.v1.train.NewCheckpointReader(prefix)


def incomplete(prefix):
    """Why the checkpoint at `prefix` cannot be restored, or None when it looks whole."""
    index = prefix + ".index"
    if not tf.io.gfile.exists(index):
        return f"{index} is missing"
    try:
        checkpoint = reader(prefix)
    except (tf.errors.OpError, ValueError) as error:
        return f"{index} is unreadable ({type(error).__name__})"
    data_files = tf.io.gfile.glob(prefix + ".data-*")
    if not data_files:
        return f"{prefix}.data-00000-of-00001 is missing"
    expected = _data_bytes(checkpoint)
    try:
        actual = sum(tf.io.gfile.stat(path).length for path in data_files)
    except tf.errors.NotFoundError:
        return f"{data_files[0]} vanished while being read"
    if actual < expected:
        return f"{data_files[0]} is truncated ({actual} of at least {expected} bytes)"
    return None


# How the index lists each stored tensor or slice: `<key> (DT_FLOAT) [4,3]`.
_INDEX_ENTRY = re.compile(rb" \((DT_[A-Z0-9_]+)\) \[([0-9,]*)\]\n")


def _data_bytes(checkpoint):
    """The bytes of tensor data a checkpoint's index promises (strings aside).

    Counted per stored entry: a variable saved in slices may not hold every
    slice of its full shape under one key (the original's canned estimators
    saved a partitioned variable's slots that way).
    """
    total = 0
    for dtype_name, shape in _INDEX_ENTRY.findall(checkpoint.debug_string()):
        dtype = tf.as_dtype(tf_protos.data_type_enum(dtype_name.decode()))
        if dtype != tf.string:
            total += int(np.prod([int(size) for size in shape.split(b",") if size])) * dtype.size
    return total


def global_step_of(checkpoint_path):
    """The `global_step` stored in a checkpoint (0 when it has none)."""
    checkpoint = reader(checkpoint_path)
    for key in (tf.compat.v1.GraphKeys.GLOBAL_STEP, OBJECT_GLOBAL_STEP):
        if checkpoint.has_tensor(key):
            return int(checkpoint.get_tensor(key))
    return 0


def check_restorable(checkpoint_path, variables, advice=None):
    """Raises unless every variable is in the checkpoint with its shape and dtype
    (and every table with its keys and values).

    The original let a Saver find a mismatch halfway through restoring, or
    quietly reshaped; here nothing is touched until the whole model fits.
    `advice` replaces the default of what to do about missing keys.
    """
    if not _is_checkpoint(checkpoint_path):
        # The original's Saver refused such a path with a ValueError.
        raise ValueError(
            f"{checkpoint_path} is not a checkpoint: there is no {checkpoint_path}.index. "
            "Pass a checkpoint prefix such as <model_dir>/model.ckpt-100; "
            "estimator.latest_checkpoint() gives the newest one."
        )
    checkpoint = reader(checkpoint_path)
    shapes = checkpoint.get_variable_to_shape_map()
    dtypes = checkpoint.get_variable_to_dtype_map()
    tables = {name: entry for name, entry in variables.items() if is_table(entry)}
    variables = partitioned_variables.by_checkpoint_name(
        {name: entry for name, entry in variables.items() if name not in tables}
    )
    missing = sorted(name for name in variables if name not in shapes)
    missing += sorted(key for name in tables for key in table_keys(name) if key not in shapes)
    if missing:
        raise tf.errors.NotFoundError(
            None,
            None,
            f"Restoring from checkpoint failed: key(s) {missing} not found in "
            f"checkpoint {checkpoint_path}. "
            + (
                advice
                or "The model_fn creates variables the checkpoint does not have: check the "
                "variable names, or start from a new model_dir (use warm_start_from to "
                "load matching variables)."
            ),
        )
    problems = []
    for name, variable in variables.items():
        # A variable made with `validate_shape=False` takes whatever shape was saved.
        model_shape = partitioned_variables.full_shape(variable)
        model_dtype = partitioned_variables.dtype_of(variable)
        if model_shape is not None and shapes[name] != model_shape:
            problems.append(
                f"{name}: shape {shapes[name]} in the checkpoint, {model_shape} in the model"
            )
        elif dtypes[name].base_dtype != model_dtype.base_dtype:
            problems.append(
                f"{name}: dtype {dtypes[name].name} in the checkpoint, "
                f"{model_dtype.name} in the model"
            )
    if problems:
        raise CheckpointMismatchError(
            None,
            None,
            "Restoring from checkpoint failed. This is most likely due to a mismatch between "
            "the current graph and the graph from the checkpoint. "
            f"Checkpoint {checkpoint_path} does not match the model:\n  "
            + "\n  ".join(problems)
            + "\nMake the model_fn create these variables as the checkpoint has them, or "
            "start from a new model_dir (warm_start_from loads the variables that match).",
        )


def table_keys(name):
    """The checkpoint keys of the table `name`: its keys and its values."""
    return (f"{name}-keys", f"{name}-values")


def _is_checkpoint(path):
    """Whether `path` is a checkpoint prefix (or a single-file TF1 checkpoint)."""
    if tf.io.gfile.exists(path + ".index"):
        return True
    return tf.io.gfile.exists(path) and not tf.io.gfile.isdir(path)


class CheckpointMismatchError(tf.errors.InvalidArgumentError, ValueError):
    """A checkpoint whose variables have other shapes or dtypes than the model's.

    An `InvalidArgumentError`, as the original's Saver raised, and a
    `ValueError`, as earlier versions of this package raised.
    """


class KeyAliases:
    """The other keys a checkpoint may hold variables under, as an earlier writer named them.

    Args:
        aliases: checkpoint key -> the keys to try, in order, when the
            checkpoint does not have it.
        advice: what to do when a key and all its aliases are missing.
    """

    def __init__(self, aliases, advice=None):
        self.aliases = dict(aliases)
        self.advice = advice

    def resolve(self, checkpoint_path, variables):
        """`variables` keyed as the checkpoint holds them (unknown keys as they were)."""
        if not _is_checkpoint(checkpoint_path):
            return variables
        held = reader(checkpoint_path).get_variable_to_shape_map()
        resolved = {}
        for key, variable in variables.items():
            found = [k for k in (key, *self.aliases.get(key, ())) if k in held]
            resolved[found[0] if found else key] = variable
        return resolved


def restore(checkpoint_path, variables, aliases=None):
    """Loads `variables` (TF1 name -> variable) from a name-based checkpoint.

    With `aliases` (`KeyAliases`), a variable whose key the checkpoint lacks is
    read from the first of its aliases the checkpoint has.
    """
    advice = None
    if aliases is not None:
        variables = aliases.resolve(checkpoint_path, variables)
        advice = aliases.advice
    check_restorable(checkpoint_path, variables, advice)
    name_based_saver(variables).restore(None, checkpoint_path)
    for variable in variables.values():
        if is_table(variable):
            continue
        first, *others = per_device_copies(variable)
        for other in others:
            other.assign(first)


def name_based_saver(variables, **kwargs):
    """A TF1 `Saver` of `variables` (TF1 name -> variable), made eagerly.

    TF2 logs that such a Saver is deprecated; it is how the original's
    name-based checkpoints are written and read, so the notice is not shown.
    """
    with logs.internal_tf_calls():
        return tf.compat.v1.train.Saver(var_list=saveable(variables), **kwargs)


def saveable(variables):
    """`variables` as a name-based Saver takes them.

    A distributed variable (one copy per device, kept equal by its strategy)
    is saved as its first copy, under its one TF1 name, as the original wrote
    it; `restore` loads that copy and sets the others from it. The parts of a
    partitioned variable are saved as slices of it, under its name.
    """
    saved = {}
    for name, entry in partitioned_variables.by_checkpoint_name(variables).items():
        if is_table(entry):
            # Saved as `<name>-keys` and `<name>-values`, as TF1 saved it.
            saved[name] = entry
        elif isinstance(entry, list):
            parts = [per_device_copies(part)[0] for part in entry]
            saved.update(partitioned_variables.slice_saveables(name, parts))
        else:
            saved[name] = per_device_copies(entry)[0]
    return saved


class CheckpointSaver:
    """Writes `model.ckpt-<step>` checkpoints of `variables` into `model_dir`.

    Keeps the newest `max_to_keep` (all when 0 or None), counting those already
    listed in the state file, as a restarted original job did; checkpoints the
    state file does not list (kept by `keep_checkpoint_every_n_hours`, by a
    `max_to_keep=None` job, or left behind by a rollback of the state file)
    are the user's and stay, as they did in the original. Only the temporary
    files of a write that a killed job left unfinished are removed.
    """

    def __init__(self, model_dir, variables, max_to_keep=5, keep_checkpoint_every_n_hours=10000):
        self._prefix = os.path.join(model_dir, CHECKPOINT_BASENAME)
        self._saver = name_based_saver(
            variables,
            max_to_keep=max_to_keep,
            keep_checkpoint_every_n_hours=keep_checkpoint_every_n_hours,
            save_relative_paths=True,
        )
        state = checkpoint_state(model_dir)
        if state is not None:
            self._saver.recover_last_checkpoints(list(state.all_model_checkpoint_paths))
        _remove_unfinished_writes(model_dir)
        self.last_saved_step = None

    def save(self, step):
        tf.io.gfile.makedirs(os.path.dirname(self._prefix))
        path = self._saver.save(None, self._prefix, global_step=step, write_meta_graph=False)
        self.last_saved_step = step
        return path


def _remove_unfinished_writes(model_dir):
    """Deletes the temporary files of checkpoint writes a killed job left.

    TensorFlow writes `<prefix>.index` and `.data-*` under a `.tempstate<N>`
    suffix (and a sharded save under `<prefix>_temp/`) and renames them once
    complete; nothing else is a write in progress, so nothing else is removed.
    """
    pattern = os.path.join(model_dir, CHECKPOINT_BASENAME + "-*")
    for path in tf.io.gfile.glob(pattern):
        name = os.path.basename(path)
        if ".tempstate" not in name and not name.endswith("_temp"):
            continue
        tf.compat.v1.logging.info("Removing %s, left by an interrupted checkpoint write.", path)
        try:
            if tf.io.gfile.isdir(path):
                tf.io.gfile.rmtree(path)
            else:
                tf.io.gfile.remove(path)
        except tf.errors.NotFoundError:
            pass
