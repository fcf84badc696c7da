"""What a `tf.compat.v1.train.Scaffold` in the spec changes, as the original applied it.

- `init_fn(scaffold, session)` runs when the model starts without a checkpoint
  of its own (`Estimator._initialize`), with a `GraphSession`.
- `saver`: a `tf.compat.v1.train.Saver` made in the model_fn decides what the
  checkpoints hold and under which keys (`var_list`, a list or a renaming
  dict) and how many are kept (`max_to_keep`, `keep_checkpoint_every_n_hours`),
  for saving and for restoring in every mode.
- `init_op` runs instead of the default initialization (initial values,
  warm-starting) when there is no checkpoint; `local_init_op` runs after the
  restore or initialization, once `ready_for_local_init_op` reports nothing;
  then `ready_op` must report nothing. Left unset, each is what the original's
  default checked: that every variable has a value (`make_ready`).
- `InMemoryEvaluatorHook` refuses a custom saver or init_fn, as the original
  did (`check_in_memory`).
"""

import numpy as np
import tensorflow as tf

from tfestimator_compat.engine.internals import tensorflow_internals as tf_internals
from tfestimator_compat.engine.loop.hook_runner import GraphSession
from tfestimator_compat.engine.tracing.tensor_semantics import tf1_tensor_semantics
from tfestimator_compat.engine.variables.variable_store import is_rng_state

_GraphKeys = tf.compat.v1.GraphKeys


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


def run_init_op(model_fn_graph, store):
    """Runs the Scaffold's `init_op`; returns the names of the variables it initialized.

    None when there is no `init_op` (the default initialization applies), or
    when an `init_fn` follows it (which may initialize any variable).
    """
    init_op = model_fn_graph.spec.scaffold.init_op
    if init_op is None:
        return None
    _run(model_fn_graph, init_op, model_fn_graph.spec.scaffold.init_feed_dict)
    if model_fn_graph.spec.scaffold.init_fn is not None:
        return None
    written = model_fn_graph.variables_written_by(init_op, _graph_variables(model_fn_graph))
    return set(store.names_of(written))


def make_ready(model_fn_graph, store, initialized, source):
    """Runs the Scaffold's local init and checks the model is ready, as the original did.

    Args:
        model_fn_graph: the `ModelFnGraph` about to run.
        store: the Estimator's `VariableStore`.
        initialized: names of the global variables that got a value from
            the restore or the `init_op`; None for all of them.
        source: what gave them their values, for the error message.

    Raises:
        RuntimeError: a variable would have had no value in the original
            (which then refused to start), or a custom ready op says not ready.
    """
    scaffold_ = model_fn_graph.spec.scaffold
    variables = _graph_variables(model_fn_graph)
    # Keras 3's random-op state is no model variable the original knew of.
    names = [name for name in store.names_of(variables) if not is_rng_state(name)]
    # Evaluation state (v1 and Keras metrics) is local whatever its collection.
    global_names = [name for name in names if not store.is_local(name)]
    local_names = [name for name in names if store.is_local(name)]
    initialized = set(global_names) if initialized is None else set(initialized)
    _check_ready(
        model_fn_graph,
        scaffold_.ready_for_local_init_op,
        "ready_for_local_init_op",
        [name for name in global_names if name not in initialized],
        source,
    )
    local_init_op = scaffold_.local_init_op
    if local_init_op is None:
        initialized.update(local_names)
    else:
        _run(model_fn_graph, local_init_op)
        written = model_fn_graph.variables_written_by(local_init_op, variables)
        initialized.update(store.names_of(written))
        source = f"{source} and the Scaffold's local_init_op"
    _check_ready(
        model_fn_graph,
        scaffold_.ready_op,
        "ready_op",
        [name for name in names if name not in initialized],
        source,
    )


def _check_ready(model_fn_graph, ready_op, field, uninitialized, source):
    if ready_op is not None:
        report = np.ravel(_run(model_fn_graph, ready_op))
        if report.size:
            not_ready = [item.decode() if isinstance(item, bytes) else item for item in report]
            raise RuntimeError(
                f"The Scaffold's {field} reports the model is not ready: {not_ready}. "
                f"It is checked after {source}, as the original Estimator checked it."
            )
    elif uninitialized:
        raise RuntimeError(
            f"Variables {sorted(uninitialized)} have no value after {source}; the original "
            "Estimator refused to start such a model. Initialize them there (a custom "
            "init_op can group tf.compat.v1.global_variables_initializer(), a custom "
            "local_init_op tf.compat.v1.local_variables_initializer(), a Saver must "
            "list every variable), or leave that Scaffold field unset."
        )


def _run(model_fn_graph, fetch, feed_dict=None):
    """Runs a Scaffold op (an op, a tensor, or what `var.assign` returns), fed `feed_dict`."""
    return GraphSession(model_fn_graph).run(fetch, feed_dict)


def _graph_variables(model_fn_graph):
    """The variables the model_fn made or used: its graph's global and local ones."""
    collections = model_fn_graph.collections
    variables = collections.get(_GraphKeys.GLOBAL_VARIABLES, [])
    local = collections.get(_GraphKeys.LOCAL_VARIABLES, [])
    return list(variables) + [v for v in local if not any(v is seen for seen in variables)]


def check_in_memory(model_fn_graph):
    """In-memory evaluation copies the training values of the global variables;
    a custom saver or init_fn would not run, other saveables would not be copied."""
    spec_scaffold = model_fn_graph.spec.scaffold
    for field in ("saver", "init_fn"):
        if getattr(spec_scaffold, field) is not None:
            raise ValueError(
                f"InMemoryEvaluator does not support custom {field}: the model_fn's "
                f"Scaffold sets `{field}`, which in-memory evaluation cannot apply. "
                "Evaluate from checkpoints (estimator.evaluate, train_and_evaluate) instead."
            )
    if model_fn_graph.collections.get(_GraphKeys.SAVEABLE_OBJECTS):
        raise ValueError(
            "InMemoryEvaluator does not support saveables other than global variables: "
            "the model_fn adds to the SAVEABLE_OBJECTS collection, whose state in-memory "
            "evaluation cannot copy. Evaluate from checkpoints instead."
        )


def saved_variables(saver, store):
    """Checkpoint key -> variable for the Scaffold's `saver`; None when it saves the defaults.

    Args:
        saver: the Scaffold's saver, or None.
        store: the Estimator's `VariableStore`.
    """
    var_list = tf_internals.saver_var_list(saver) if _is_tf1_saver(saver) else None
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


def restore_with_custom_saver(model_fn_graph, checkpoint_path):
    """Restores through the Scaffold's saver when it is not a `tf.compat.v1.train.Saver`.

    A saver of another class (a subclass of none, a wrapper that records its
    calls) does its own restoring, as the original let it: its `restore` gets
    a session of the model_fn's graph. Returns whether it did; a TF1 Saver is
    applied by name instead (`saved_variables`).
    """
    saver = model_fn_graph.spec.scaffold.saver
    if saver is None or _is_tf1_saver(saver):
        return False
    with model_fn_graph.graph.as_default(), tf1_tensor_semantics():
        saver.restore(GraphSession(model_fn_graph), checkpoint_path)
    return True


def checkpoints_to_keep(saver, config):
    """(max_to_keep, keep_checkpoint_every_n_hours): the Scaffold saver's, or the RunConfig's."""
    if _is_tf1_saver(saver):
        return tf_internals.saver_retention(saver)
    return config.keep_checkpoint_max, config.keep_checkpoint_every_n_hours


def _is_tf1_saver(saver):
    return isinstance(saver, tf.compat.v1.train.Saver)
