"""TRAIN and EVAL exports as the original wrote them: TF1 graphs, one per mode.

Whoever exports the TRAIN or EVAL graph loads it back with the TF1 loader
(`tf.compat.v1.saved_model.loader.load`) to resume training or evaluate in a
Session, and runs the model's ops by their names (`mean/update_op`, the train
op, `global_step/Assign`). A `tf.saved_model.save` export keeps those ops
inside functions, so an export that holds such a mode is written as the
original wrote it: for each mode, in TRAIN, EVAL, PREDICT order, the receiver
and the `model_fn` are built in a plain `tf.Graph`, its variables restored
from the checkpoint by the Scaffold's saver (or a sharded `Saver`), and
`tf.compat.v1.saved_model.Builder` adds a MetaGraph with the mode's tags, the
Scaffold's `local_init_op` as its main op, the asset files and the train op.
The first mode's variables are the ones saved. PREDICT-only exports keep the
TF2 path (`saved_model`).
"""

import tensorflow as tf

from tfestimator_compat.engine import keras_flavours
from tfestimator_compat.engine import logs
from tfestimator_compat.engine.tracing.model_fn_graph import call_model_fn
from tfestimator_compat.engine.variables import variable_store
from tfestimator_compat.export import saved_model
from tfestimator_compat.export import temp_dirs
from tfestimator_compat.mode_keys import ModeKeys

_TAGS = {
    ModeKeys.TRAIN: [tf.saved_model.TRAINING],
    ModeKeys.EVAL: ["eval"],
    ModeKeys.PREDICT: [tf.saved_model.SERVING],
}
# The original added the modes in this order; the first one saves the variables.
_ORDER = (ModeKeys.TRAIN, ModeKeys.EVAL, ModeKeys.PREDICT)
# Where a SavedModel's MetaGraph keeps its train op (SavedModel format key).
_TRAIN_OP_KEY = "saved_model_train_op"
_GUIDE = "migration_guide/export.md#train-and-eval-graphs"
_WRITE_OPS = frozenset(
    {"AssignVariableOp", "AssignAddVariableOp", "AssignSubVariableOp", "Assign", "AssignAdd"}
)


def needs_graph_export(receiver_fns) -> bool:
    """Whether the export holds a TRAIN or EVAL graph, which only this path writes."""
    return any(receiver_fns.get(mode) for mode in (ModeKeys.TRAIN, ModeKeys.EVAL))


def export(
    estimator,
    export_dir_base,
    receiver_fns,
    assets_extra=None,
    as_text=False,
    checkpoint_path=None,
    strip_default_attrs=True,
):
    """Writes a SavedModel with a TF1 MetaGraph per mode in `receiver_fns`; returns its path.

    Arguments as `saved_model.export`, and `strip_default_attrs`: whether op
    attributes at their default values are left out of the graphs.
    """
    checkpoint_path = (
        checkpoint_path
        or estimator.latest_checkpoint()
        or saved_model._warm_start_checkpoint(estimator)
    )
    if not checkpoint_path:
        raise ValueError(f"Couldn't find trained model at {estimator.model_dir}.")
    with temp_dirs.export_folder(export_dir_base) as (export_dir, temp_dir):
        # The builder insists on an empty folder: the owner record waits outside.
        temp_dirs.release(temp_dir)
        builder = tf.compat.v1.saved_model.Builder(temp_dir)
        temp_dirs.record_owner(temp_dir)
        save_variables = True
        for mode in _ORDER:
            if receiver_fns.get(mode):
                _add_meta_graph(
                    estimator,
                    builder,
                    mode,
                    receiver_fns[mode],
                    checkpoint_path,
                    save_variables,
                    strip_default_attrs,
                )
                save_variables = False
        with logs.internal_tf_calls():
            builder.save(as_text)
        saved_model._copy_assets_extra(temp_dir, assets_extra)
    return export_dir


def _add_meta_graph(
    estimator, builder, mode, receiver_fn, checkpoint_path, save_variables, strip_default_attrs
):
    """Builds `mode`'s graph, restores it from `checkpoint_path`, adds it to `builder`."""
    with tf.Graph().as_default() as graph:
        tf.compat.v1.train.create_global_step(graph)
        tf.compat.v1.set_random_seed(estimator.config.tf_random_seed)
        inputs = saved_model.ReceiverInputs(receiver_fn, mode)
        features, labels = inputs()
        spec = _model_spec(estimator, features, labels, mode)
        receiver = inputs.receiver
        _make_keras_metrics_local(graph, spec.eval_metric_ops)
        metrics = _metric_pairs(graph, spec.eval_metric_ops) if mode == ModeKeys.EVAL else None
        outputs = saved_model.export_outputs_for_mode(
            mode,
            serving_export_outputs=spec.export_outputs,
            predictions=spec.predictions,
            loss=spec.loss,
            metrics=metrics,
        )
        with logs.internal_tf_calls():
            signature_defs = saved_model._build_signature_defs(
                receiver.receiver_tensors,
                outputs,
                getattr(receiver, "receiver_tensors_alternatives", None),
                serving_only=mode == ModeKeys.PREDICT,
            )
        local_init_op = spec.scaffold.local_init_op
        if local_init_op is None:
            local_init_op = tf.compat.v1.train.Scaffold.default_local_init_op()
        saver = spec.scaffold.saver or tf.compat.v1.train.Saver(sharded=True)
        if spec.train_op is not None:
            graph.add_to_collection(_TRAIN_OP_KEY, spec.train_op)
        with tf.compat.v1.Session(graph=graph, config=_session_config(estimator)) as session:
            _restore(saver, session, checkpoint_path, mode)
            meta_graph_args = dict(
                tags=_TAGS[mode],
                signature_def_map=signature_defs,
                assets_collection=graph.get_collection(tf.compat.v1.GraphKeys.ASSET_FILEPATHS),
                main_op=local_init_op,
                saver=saver,
                strip_default_attrs=strip_default_attrs,
            )
            with logs.internal_tf_calls():
                if save_variables:
                    builder.add_meta_graph_and_variables(session, **meta_graph_args)
                else:
                    builder.add_meta_graph(**meta_graph_args)


def _model_spec(estimator, features, labels, mode):
    """The model_fn's spec for `mode`, built in the current plain graph.

    An error from the model_fn there (Keras 3 code that needs eager execution,
    say) is raised as it is, with a note naming the guide page.
    """
    try:
        with variable_store.tf1_names_in_graph():
            return call_model_fn(
                estimator._model_fn,
                features,
                labels,
                mode,
                estimator._params_for(mode, export=True),
                estimator.config,
            )
    except Exception as error:
        error.add_note(
            f"Exporting the {mode} graph calls the model_fn in a TF1 graph, as the "
            f"original did; see {_GUIDE} for what such a model_fn must do."
        )
        raise


def _metric_pairs(graph, eval_metric_ops):
    """`eval_metric_ops` as the `(value, update_op)` pairs `EvalOutput` takes.

    A Keras metric's value is `result()`; its update op groups the ops the
    model_fn's `update_state` made to write its variables.
    """
    pairs = {}
    for name, metric in (eval_metric_ops or {}).items():
        if keras_flavours.is_metric(metric):
            writes = _ops_writing(graph, metric.variables)
            if not writes:
                raise ValueError(f'Please call update_state(...) on the "{metric.name}" metric')
            pairs[name] = (metric.result(), tf.group(*writes))
        else:
            pairs[name] = metric
    return pairs


def _make_keras_metrics_local(graph, eval_metric_ops):
    """Moves Keras metrics' variables to the local collections, as TF1 had them.

    Keras 3 makes them global variables; the original's were local: never in a
    checkpoint (so not restored here) and set to zero by the main op at load.
    """
    names = set()
    for metric in (eval_metric_ops or {}).values():
        if keras_flavours.is_metric(metric):
            names.update(_op_name(variable) for variable in metric.variables)
    if not names:
        return
    global_variables = graph.get_collection_ref(tf.compat.v1.GraphKeys.GLOBAL_VARIABLES)
    moved = [v for v in global_variables if _op_name(v) in names]
    global_variables[:] = [v for v in global_variables if _op_name(v) not in names]
    for key in (tf.compat.v1.GraphKeys.LOCAL_VARIABLES, tf.compat.v1.GraphKeys.METRIC_VARIABLES):
        for variable in moved:
            graph.add_to_collection(key, variable)


def _ops_writing(graph, variables):
    names = {_op_name(variable) for variable in variables}
    return [
        op
        for op in graph.get_operations()
        if op.type in _WRITE_OPS and op.inputs and op.inputs[0].op.name in names
    ]


def _op_name(variable):
    """The graph op of a TF variable (resource or ref), or of a Keras 3 variable's."""
    if not isinstance(variable, tf.Variable):
        variable = variable.value
    return variable.op.name


def _restore(saver, session, checkpoint_path, mode):
    """Restores the graph's variables; one the checkpoint lacks fails as in the original."""
    try:
        saver.restore(session, checkpoint_path)
    except tf.errors.NotFoundError as error:
        raise ValueError(
            f"Could not load all requested variables of the {mode} graph from the "
            f"checkpoint {checkpoint_path}: the model_fn made in mode {mode} a variable "
            "that the checkpoint lacks (one made only in that mode, which training never "
            "made, say). Make the variable in every mode, or leave the mode out of the "
            f"export.\n\n{error}"
        ) from error


def _session_config(estimator):
    """The Estimator's session config, with soft placement, as the original's export had."""
    config = tf.compat.v1.ConfigProto()
    if estimator.config.session_config is not None:
        config.CopyFrom(estimator.config.session_config)
    config.allow_soft_placement = True
    return config
