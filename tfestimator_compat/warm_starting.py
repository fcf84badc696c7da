"""`warm_start_from`: initialize a new model from another model's checkpoint.

Warm-starting happens only when `model_dir` has no checkpoint of its own, as in
the original; afterwards the model_dir's checkpoints win.
"""

import collections
import os
import re

import tensorflow as tf

from tfestimator_compat.engine.internals import tensorflow_internals as tf_internals
from tfestimator_compat.engine.state import checkpoints
from tfestimator_compat.engine.variables import partitioned_variables

VocabInfo = tf.compat.v1.train.VocabInfo


class WarmStartSettings(
    collections.namedtuple(
        "WarmStartSettings",
        [
            "ckpt_to_initialize_from",
            "vars_to_warm_start",
            "var_name_to_vocab_info",
            "var_name_to_prev_var_name",
        ],
    )
):
    """Which variables to warm-start, and from where.

    Args:
        ckpt_to_initialize_from: a checkpoint path prefix or a directory
            holding checkpoints.
        vars_to_warm_start: a regex matched against TRAINABLE variable names
            (default `.*`), a list of regexes matched against all global
            variables (slots and batch-norm statistics too), a list of
            variables, or None to warm-start only `var_name_to_vocab_info`.
        var_name_to_vocab_info: variable name -> `VocabInfo`, for embeddings
            whose vocabulary changed.
        var_name_to_prev_var_name: variable name -> its name in the checkpoint.

    Example:

    ```python
    ws = WarmStartSettings("/tmp/old_model", vars_to_warm_start="dense.*")
    estimator = Estimator(model_fn, warm_start_from=ws)
    ```
    """

    def __new__(
        cls,
        ckpt_to_initialize_from,
        vars_to_warm_start=".*",
        var_name_to_vocab_info=None,
        var_name_to_prev_var_name=None,
    ):
        if not ckpt_to_initialize_from:
            raise ValueError("`ckpt_to_initialize_from` MUST be set in WarmStartSettings")
        return super().__new__(
            cls,
            ckpt_to_initialize_from,
            vars_to_warm_start,
            var_name_to_vocab_info or {},
            var_name_to_prev_var_name or {},
        )


def settings_from(warm_start_from):
    """Normalizes `Estimator(warm_start_from=...)` into `WarmStartSettings` or None."""
    if warm_start_from is None:
        return None
    if isinstance(warm_start_from, (str, bytes, os.PathLike)):
        path = os.fsdecode(warm_start_from)
        variables_prefix = os.path.join(path, "variables", "variables")
        if tf.io.gfile.exists(variables_prefix + ".index"):
            tf.compat.v1.logging.info("Warm-starting from a SavedModel")
            return WarmStartSettings(ckpt_to_initialize_from=variables_prefix)
        return WarmStartSettings(ckpt_to_initialize_from=path)
    if isinstance(warm_start_from, WarmStartSettings):
        return warm_start_from
    raise ValueError(
        "warm_start_from must be a string or a WarmStartSettings, instead got "
        f"{type(warm_start_from)}"
    )


def checkpoint_of(settings):
    """The checkpoint `settings` warm-start from: the newest in a directory (None when
    it holds none), or the path given."""
    path = os.fsdecode(settings.ckpt_to_initialize_from)
    if tf.io.gfile.isdir(path):
        return tf.train.latest_checkpoint(path)
    return path


def _checkpoint_path(settings):
    checkpoint = checkpoint_of(settings)
    if checkpoint is None:
        path = os.fsdecode(settings.ckpt_to_initialize_from)
        raise ValueError(f"Couldn't find a checkpoint to warm-start from in {path}.")
    return checkpoint


def _selected(settings, store, trainable_names):
    """Store names to warm-start, in the ways `vars_to_warm_start` can say it."""
    wanted = settings.vars_to_warm_start
    all_names = list(store.global_variables())
    if wanted is None:
        return [
            name
            for name in trainable_names
            if partitioned_variables.checkpoint_name(name, store.get(name))
            in settings.var_name_to_vocab_info
        ]
    if isinstance(wanted, str):
        return [name for name in trainable_names if re.match(wanted, name)]
    if isinstance(wanted, (list, tuple)) and all(isinstance(w, str) for w in wanted):
        return [name for name in all_names if any(re.match(w, name) for w in wanted)]
    if isinstance(wanted, (list, tuple)):
        return store.names_of(wanted)
    raise ValueError(
        "vars_to_warm_start must be a string regex, a list of regexes, a list of "
        f"variables, or None; got {type(wanted)}"
    )


# Exports of this package track variables by TF1 name under this attribute;
# their checkpoint keys are object paths, mapped back to the names here.
_EXPORTED_PREFIX = "variables_by_name/"
_EXPORTED_SUFFIX = "/.ATTRIBUTES/VARIABLE_VALUE"


def _unescape(object_name):
    """Undoes the object-graph escaping of a name ('/' is '.S', '.' is '..')."""
    out, i = [], 0
    while i < len(object_name):
        pair = object_name[i : i + 2]
        if pair == ".S":
            out.append("/")
            i += 2
        elif pair == "..":
            out.append(".")
            i += 2
        else:
            out.append(object_name[i])
            i += 1
    return "".join(out)


def _tensor_keys(reader):
    """TF1 name -> key in the checkpoint: itself, or its object path in an export."""
    keys = {}
    for key in reader.get_variable_to_shape_map():
        if key.startswith(_EXPORTED_PREFIX) and key.endswith(_EXPORTED_SUFFIX):
            keys[_unescape(key[len(_EXPORTED_PREFIX) : -len(_EXPORTED_SUFFIX)])] = key
        else:
            keys.setdefault(key, key)
    return keys


def _whole_from_export(reader, keys, name, variable):
    """`name`'s value joined from its parts (`name/part_0`, ...), which an export of
    this package holds apart; None when there are none that make up `variable`."""
    parts = []
    while f"{name}/part_{len(parts)}" in keys:
        parts.append(reader.get_tensor(keys[f"{name}/part_{len(parts)}"]))
    if not parts:
        return None
    return partitioned_variables.whole_from_parts(parts, partitioned_variables.full_shape(variable))


def warm_start(settings, store, trainable_names):
    """Assigns the selected variables from `settings.ckpt_to_initialize_from`."""
    checkpoint = _checkpoint_path(settings)
    reader = checkpoints.reader(checkpoint)
    keys = _tensor_keys(reader)
    shapes = {name: reader.get_variable_to_shape_map()[key] for name, key in keys.items()}
    tf.compat.v1.logging.info("Warm-starting with WarmStartSettings: %s", settings)
    selected = {name: store.get(name) for name in _selected(settings, store, trainable_names)}
    # A partitioned variable is warm-started whole, by its name, as TF1 did.
    for name, variable in partitioned_variables.by_checkpoint_name(selected).items():
        previous = settings.var_name_to_prev_var_name.get(name, name)
        vocab = settings.var_name_to_vocab_info.get(name)
        whole = None
        if previous not in shapes and vocab is None:
            whole = _whole_from_export(reader, keys, previous, variable)
        if whole is not None:
            partitioned_variables.assign(variable, whole)
            continue
        if previous not in shapes:
            raise ValueError(
                f"Warm-starting variable {name!r}: tensor {previous!r} is not in "
                f"checkpoint {checkpoint}. Map it with var_name_to_prev_var_name, "
                "or leave it out of vars_to_warm_start."
            )
        if vocab is not None:
            tf_internals.warm_start_with_vocabulary(
                variable,
                current_vocab_path=vocab.new_vocab,
                current_vocab_size=vocab.new_vocab_size,
                prev_ckpt=checkpoint,
                prev_vocab_path=vocab.old_vocab,
                previous_vocab_size=vocab.old_vocab_size,
                current_oov_buckets=vocab.num_oov_buckets,
                prev_tensor_name=previous,
                initializer=vocab.backup_initializer,
                axis=vocab.axis,
            )
            continue
        model_shape = partitioned_variables.full_shape(variable)
        if shapes[previous] != model_shape:
            raise ValueError(
                f"Warm-starting variable {name!r} from {previous!r}: shape "
                f"{shapes[previous]} in checkpoint {checkpoint}, "
                f"{model_shape} in the model."
            )
        partitioned_variables.assign(variable, reader.get_tensor(keys[previous]))
        tf.compat.v1.logging.debug("Warm-started %s from %s", name, previous)
