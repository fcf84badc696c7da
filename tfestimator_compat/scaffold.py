"""What a `tf.compat.v1.train.Scaffold` in the spec changes, as the original applied it.

- `init_fn(scaffold, session)` runs when the model starts without a checkpoint
  of its own (`Estimator._initialize`), with a `GraphSession`.
- `saver`: a `tf.compat.v1.train.Saver` made in the model_fn decides what the
  checkpoints hold and under which keys (`var_list`, a list or a renaming
  dict) and how many are kept (`max_to_keep`, `keep_checkpoint_every_n_hours`),
  for saving and for restoring in every mode.
- `InMemoryEvaluatorHook` refuses both, as the original did (`check_in_memory`).
"""

import tensorflow as tf

from tfestimator_compat.hooks import GraphSession
from tfestimator_compat.tensor_semantics import tf1_tensor_semantics


def run_init_fn(model_fn_graph):
    """Runs the Scaffold's `init_fn`, if any, on the model's variables.

    Called when the model starts without a checkpoint of its own, after the
    variables got their initial values (and warm-starting), as the original
    called it; typically it restores pretrained weights with a TF1 Saver.
    """
    init_fn = model_fn_graph.spec.scaffold.init_fn
    if init_fn is None:
        return
    with model_fn_graph.graph.as_default(), tf1_tensor_semantics():
        init_fn(GraphSession(model_fn_graph))


def check_in_memory(spec_scaffold):
    """In-memory evaluation copies the training values; a custom saver or init_fn would not run."""
    for field in ("saver", "init_fn"):
        if getattr(spec_scaffold, field) is not None:
            raise ValueError(
                f"InMemoryEvaluator does not support custom {field}: the model_fn's "
                f"Scaffold sets `{field}`, which in-memory evaluation cannot apply. "
                "Evaluate from checkpoints (estimator.evaluate, train_and_evaluate) instead."
            )


def saved_variables(saver, store):
    """Checkpoint key -> variable for the Scaffold's `saver`; None when it saves the defaults.

    Args:
        saver: the Scaffold's saver, or None.
        store: the Estimator's `VariableStore`.
    """
    var_list = getattr(saver, "_var_list", None) if _is_tf1_saver(saver) else None
    if var_list is None:
        return None
    pairs = var_list.items() if isinstance(var_list, dict) else [(None, v) for v in var_list]
    variables = store.global_variables()
    saved = {}
    for key, variable in pairs:
        names = store.names_of([variable])
        if not names or names[0] not in variables:
            raise ValueError(
                f"The Scaffold's Saver saves {variable!r}, which is not a global variable of "
                "the model_fn. Build the Saver from the model_fn's own variables."
            )
        saved[key or names[0]] = variables[names[0]]
    return saved


def checkpoints_to_keep(saver, config):
    """(max_to_keep, keep_checkpoint_every_n_hours): the Scaffold saver's, or the RunConfig's."""
    if _is_tf1_saver(saver):
        return saver._max_to_keep, saver._keep_checkpoint_every_n_hours
    return config.keep_checkpoint_max, config.keep_checkpoint_every_n_hours


def _is_tf1_saver(saver):
    return isinstance(saver, tf.compat.v1.train.Saver)
