"""The checkpoint names of the `tf.compat.v1.estimator` canned estimators' optimizer state.

TF1's canned estimators built their model under a variable partitioner
(`min_max_variable_partitioner`, sized by the number of parameter servers).
Without parameter servers every variable is a single part, saved under its
own name (`dnn/logits/kernel`), but the optimizer slots kept the part in
their key: `dnn/logits/kernel/t_0/Adagrad` for the DNN models (built with
Keras layers), `linear/linear_model/x/weights/part_0/Ftrl` for the linear
ones. Adam's step-count powers were made in the head's name scope
(`dnn/head/beta1_power`, `linear/head/...`; `head/...` for the combined and
baseline models, whose heads were outside the model's scope). The variables
here stay whole; these names are what they are saved and restored under, so
checkpoints move both ways.
"""

from __future__ import annotations

import contextlib

import tensorflow as tf

# What `tf.compat.v1.train.min_max_variable_partitioner` named the only part,
# by how the variable was made.
KERAS_LAYER_PART = "t_0"
VARIABLE_SCOPE_PART = "part_0"


@contextlib.contextmanager
def tf1_optimizer_names(head_scope: str, slot_part: str | None = None):
    """Within: TF1 optimizers name their variables as under the original's partitioner.

    Args:
        head_scope: the name scope the original built the train op in
            (`dnn/head`, `linear/head`, `head`), where the optimizer's own
            variables (Adam's `beta1_power`) went.
        slot_part: the part inserted between a variable's name and its slot's
            (`t_0`, `part_0`), or None for slots named after the variable alone.
    """

    def creator(next_creator, **kwargs):
        name = kwargs.get("name") or ""
        if name.endswith("/"):
            kwargs["name"] = _slot_name(name, slot_part)
        elif _is_optimizer_non_slot(name, kwargs):
            kwargs["name"] = f"{head_scope}/{name}/"
        return next_creator(**kwargs)

    with tf.variable_creator_scope(creator):
        yield


def _slot_name(name, slot_part):
    """`.../kernel/Adagrad/` -> `.../kernel/<slot_part>/Adagrad/`."""
    if slot_part is None:
        return name
    primary, _, slot = name.rstrip("/").rpartition("/")
    if not primary or primary.endswith("/" + slot_part):
        return name
    return f"{primary}/{slot_part}/{slot}/"


def _is_optimizer_non_slot(name, kwargs):
    """A TF1 optimizer's own non-trainable variable (Adam's `beta1_power`), made at top level."""
    return (
        bool(name)
        and "/" not in name
        and name != tf.compat.v1.GraphKeys.GLOBAL_STEP
        and not kwargs.get("trainable", True)
        and not tf.compat.v1.get_default_graph().get_name_scope()
    )
