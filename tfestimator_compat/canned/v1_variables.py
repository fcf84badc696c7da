"""The checkpoint names of the `tf.compat.v1.estimator` canned estimators' optimizer state.

TF1's canned estimators built their model under a variable partitioner
(`min_max_variable_partitioner`, sized by the number of parameter servers, or
the `partitioner` / `input_layer_partitioner` given). Every variable was saved
under its own name (`dnn/logits/kernel`), as one slice per part when it had
several, but the optimizer slots kept the part in their key: the slot of part
`i` was `dnn/logits/kernel/t_<i>/Adagrad` in the DNN models (built with Keras
layers) and `linear/linear_model/x/weights/part_<i>/Ftrl` in the linear ones,
each holding that part's slice; the combined models named slots after the
variable alone. Adam's step-count powers were made in the head's name scope
(`dnn/head/beta1_power`, `linear/head/...`; `head/...` for the combined and
baseline models, whose heads were outside the model's scope). Variables the
user did not ask to partition stay whole here (the original's single part);
these names are what they and their slots are saved and restored under, so
checkpoints move both ways.
"""

from __future__ import annotations

import contextlib
import re

import tensorflow as tf

from tfestimator_compat.engine.variables import variable_store

# What the original put between a variable's name and its slot's, before the
# part's index, by how the variable was made.
KERAS_LAYER_PART = "t"
VARIABLE_SCOPE_PART = "part"
# The name TF1 gives the parts of a partitioned variable.
_PARTITION_PART = re.compile(r".*/part_(\d+)")


@contextlib.contextmanager
def tf1_optimizer_names(head_scope: str, slot_part: str | None = None):
    """Within: TF1 optimizers name their variables as under the original's partitioner.

    Args:
        head_scope: the name scope the original built the train op in
            (`dnn/head`, `linear/head`, `head`), where the optimizer's own
            variables (Adam's `beta1_power`) went.
        slot_part: the part inserted between a variable's name and its slot's
            (`t`, `part`, followed by the part's index), or None for slots
            named after the variable alone.
    """

    def creator(next_creator, **kwargs):
        name = kwargs.get("name") or ""
        if variable_store.remaking_under_strategy():
            return next_creator(**kwargs)  # named already, on its way through the store
        if name.endswith("/"):
            kwargs["name"] = _slot_name(name, slot_part)
        elif _is_optimizer_non_slot(name, kwargs):
            kwargs["name"] = f"{head_scope}/{name}/"
        return next_creator(**kwargs)

    with tf.variable_creator_scope(creator):
        yield


def _slot_name(name, slot_part):
    """`.../kernel/Adagrad/` -> `.../kernel/<slot_part>_0/Adagrad/`.

    The slot of a part (`.../weights/part_1/Ftrl/`) gets that part's index
    (`.../weights/part_1/<slot_part>_1/Ftrl/`): TF1 names a part's slot after
    what follows the part's own name, so it is saved as a slice of
    `.../weights/<slot_part>_1/Ftrl`.
    """
    if slot_part is None:
        return name
    primary, _, slot = name.rstrip("/").rpartition("/")
    if not primary:
        return name
    part = _PARTITION_PART.fullmatch(primary)
    return f"{primary}/{slot_part}_{part.group(1) if part else 0}/{slot}/"


def _is_optimizer_non_slot(name, kwargs):
    """A TF1 optimizer's own non-trainable variable (Adam's `beta1_power`), made at top level."""
    return (
        bool(name)
        and "/" not in name
        and name != tf.compat.v1.GraphKeys.GLOBAL_STEP
        and not kwargs.get("trainable", True)
        and not tf.compat.v1.get_default_graph().get_name_scope()
    )
