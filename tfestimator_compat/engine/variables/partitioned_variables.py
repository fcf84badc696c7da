"""Partitioned variables: one variable to the user and the checkpoint, parts in memory.

`tf.compat.v1.get_variable(..., partitioner=...)` (or a partitioner set on a
`variable_scope`) makes a `PartitionedVariable`: TF1's own code splits the
shape and creates each part (`emb/part_0`, `emb/part_1`, ...) through the
variable store, and tags it with a `SaveSliceInfo` naming the whole variable
(`emb`), its full shape and where the part lies in it. Optimizer slots of a
part are tagged the same way (`emb/Adagrad`). Those tags decide how the parts
are saved: as the original did, under the whole variable's name, each part as
a slice of it, so `tf.train.list_variables` shows `emb` with its full shape
and either program reads the other's checkpoint, whatever the number of parts
on each side.

The parts are ordinary variables of the store, so a strategy places (and may
later shard) them as it places any variable.
"""

from __future__ import annotations

import numpy as np
import tensorflow as tf

from tfestimator_compat.engine.internals import tensorflow_internals as tf_internals


def slice_info(variable):
    """The `SaveSliceInfo` of a part of a partitioned variable, or None."""
    return tf_internals.save_slice_info(variable)


def checkpoint_name(name, variable) -> str:
    """The key `variable` (store name `name`) is saved under: the whole
    variable's name for a part, its own otherwise."""
    info = slice_info(variable)
    return name if info is None else info.full_name


def by_checkpoint_name(variables) -> dict:
    """Store name -> variable, regrouped as checkpoint key -> variable or parts.

    The parts of a partitioned variable come as a list ordered by their
    offset, which is how a name-based `Saver` takes a variable saved in slices.
    """
    grouped = {}
    for name, variable in variables.items():
        key = checkpoint_name(name, variable)
        if slice_info(variable) is None:
            grouped[key] = variable
        else:
            grouped.setdefault(key, []).append(variable)
    for value in grouped.values():
        if isinstance(value, list):
            value.sort(key=lambda part: slice_info(part).var_offset)
    return grouped


def slice_saveables(name, parts) -> dict:
    """What a name-based `Saver` saves `parts` as: each a slice of `name`.

    Keyed apart (the Saver needs distinct keys, not the saved names). Built
    here rather than left to the Saver, which asks each part for its graph
    op, as a strategy's per-device variable cannot answer.
    """
    return {
        f"{name}@{slice_info(part).spec}": tf_internals.ResourceVariableSaveable(
            part, slice_info(part).spec, name
        )
        for part in parts
    }


def full_shape(entry):
    """The shape a checkpoint records for a variable or for a list of its parts
    (None for a variable of unknown rank, made with `validate_shape=False`)."""
    if isinstance(entry, list):
        return list(slice_info(entry[0]).full_shape)
    return entry.shape.as_list() if entry.shape.rank is not None else None


def dtype_of(entry):
    return (entry[0] if isinstance(entry, list) else entry).dtype


def whole_from_parts(parts, full_shape):
    """The whole value of a variable from its parts' values, in order, or None.

    For an export of this package, which holds each part under its own name
    (`emb/part_0`, ...): the parts are joined along the one axis where they
    add up to `full_shape`.
    """
    shapes = [list(np.shape(part)) for part in parts]
    for axis, size in enumerate(full_shape):
        others = [shape[:axis] + shape[axis + 1 :] for shape in shapes]
        if sum(shape[axis] for shape in shapes) == size and all(
            other == full_shape[:axis] + full_shape[axis + 1 :] for other in others
        ):
            return np.concatenate(parts, axis=axis)
    return None


def assign(entry, value) -> None:
    """Sets a variable, or each part of a partitioned one, from the whole value."""
    if not isinstance(entry, list):
        entry.assign(tf.cast(value, entry.dtype))
        return
    value = np.asarray(value)
    for part in entry:
        info = slice_info(part)
        index = tuple(
            slice(offset, offset + size) for offset, size in zip(info.var_offset, info.var_shape)
        )
        part.assign(tf.cast(value[index], part.dtype))
