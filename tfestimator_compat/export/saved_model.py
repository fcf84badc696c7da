"""Exporting an Estimator as a SavedModel through `tf.saved_model.save`.

For each mode asked for, the receiver function and the `model_fn` are traced
together into one TF1-style graph (`ModelFnGraph`), whose variables are
restored from the checkpoint. The signatures are the ones the original
Estimator wrote (TF's own `build_all_signature_defs` decides them from the
`export_outputs`); each becomes a `tf.function` over a function pruned from
that graph, fed at the signature's input tensors. `tf.saved_model.save` writes
them; the method names TF Serving dispatches on (`tensorflow/serving/classify`,
...) and the `train`/`eval` MetaGraphs of `experimental_export_all_saved_models`
are then set in `saved_model.pb`. Everything is written under `temp-<ts>` and
renamed to `<ts>` when complete, so a crash never leaves an export that looks
finished (`temp_dirs`: the next export removes what a killed one left).
"""

import os
import shutil

import tensorflow as tf

from tfestimator_compat import warm_starting
from tfestimator_compat.engine import logs
from tfestimator_compat.engine.internals import tensorflow_internals as tf_internals
from tfestimator_compat.engine.internals import tensorflow_protos as tf_protos
from tfestimator_compat.engine.state import text_protos
from tfestimator_compat.export import temp_dirs
from tfestimator_compat.export.receivers import ServingInputReceiver
from tfestimator_compat.export.receivers import SupervisedInputReceiver
from tfestimator_compat.export.receivers import TensorServingInputReceiver
from tfestimator_compat.mode_keys import ModeKeys

_TAGS = {
    ModeKeys.PREDICT: tf.saved_model.SERVING,
    ModeKeys.TRAIN: tf.saved_model.TRAINING,
    ModeKeys.EVAL: "eval",
}
_SAVED_MODEL_PB = "saved_model.pb"


class ReceiverInputs:
    """`make_inputs` for a `ModelFnGraph`: runs a receiver function in the graph."""

    def __init__(self, receiver_fn, mode):
        self._receiver_fn = receiver_fn
        self._mode = mode
        self.receiver = None

    def __call__(self):
        receiver = self._receiver_fn()
        if self._mode == ModeKeys.PREDICT:
            expected = (ServingInputReceiver, TensorServingInputReceiver)
            what = "a ServingInputReceiver or TensorServingInputReceiver"
        else:
            expected = (SupervisedInputReceiver,)
            what = "a SupervisedInputReceiver"
        if not isinstance(receiver, expected):
            raise TypeError(
                f"The input receiver function for mode {self._mode!r} must return "
                f"{what}; it returned {type(receiver).__name__}."
            )
        self.receiver = receiver
        return receiver.features, getattr(receiver, "labels", None)


def export(
    estimator, export_dir_base, receiver_fns, assets_extra=None, as_text=False, checkpoint_path=None
):
    """Writes a SavedModel with a MetaGraph per mode in `receiver_fns`; returns its path.

    Args:
        estimator: the `Estimator`.
        export_dir_base: the export goes to `export_dir_base/<unix seconds>`.
        receiver_fns: dict mode -> receiver function (serving receivers for
            PREDICT, supervised receivers for TRAIN and EVAL).
        assets_extra: dict destination path (under `assets.extra/`) -> source file.
        as_text: write `saved_model.pbtxt` instead of `saved_model.pb`.
        checkpoint_path: the checkpoint to export; the newest when None.
    """
    checkpoint_path = (
        checkpoint_path or estimator.latest_checkpoint() or _warm_start_checkpoint(estimator)
    )
    if not checkpoint_path:
        raise ValueError(f"Couldn't find trained model at {estimator.model_dir}.")
    module = tf.Module()
    module.variables_by_name = {}
    module.local_variables = []
    module.assets = []
    module.resources = []
    signatures, model_signature_defs, tags_of = {}, {}, {}
    for mode, receiver_fn in receiver_fns.items():
        graph, receiver = estimator._trace_for_export(mode, receiver_fn, checkpoint_path)
        module.variables_by_name.update(estimator._model_state.variables_of(graph))
        # Metric and other local variables a model_fn made (before branching on
        # mode, say) are read by the signatures too; the original's loader
        # initialized them. Tracked here, they are saved at their initial values.
        module.local_variables.extend(_local_variables(graph))
        # Tracked, each is copied into `assets/` and listed in the MetaGraph's
        # asset_file_def, as the original's builder listed ASSET_FILEPATHS.
        module.assets.extend(tf.saved_model.Asset(path) for path in _asset_files(graph))
        module.resources.extend(_servable_resources(graph))
        # TF builds SignatureDefs from graph tensors, with TF1 helpers.
        with graph.graph.as_default(), logs.internal_tf_calls():
            signature_defs = _signature_defs(mode, graph, receiver)
        for key, signature_def in signature_defs.items():
            signatures[key] = _signature_function(graph, signature_def)
            model_signature_defs[key] = signature_def
            tags_of[key] = _TAGS[mode]
    if not signatures:
        raise ValueError(
            "Nothing to export: no signature could be built from the export_outputs "
            "and the receiver (see the log for the signatures that were excluded)."
        )

    with temp_dirs.export_folder(export_dir_base) as (export_dir, temp_dir):
        with logs.internal_tf_calls():
            tf.saved_model.save(module, temp_dir, signatures=signatures)
        _finish_meta_graphs(temp_dir, model_signature_defs, tags_of, as_text)
        _copy_assets_extra(temp_dir, assets_extra)
    return export_dir


def _warm_start_checkpoint(estimator):
    """With no checkpoint of its own, the original exported its warm-start checkpoint."""
    settings = estimator._warm_start_settings
    return None if settings is None else warm_starting.checkpoint_of(settings)


_SAVEABLE_TABLES = (tf.lookup.experimental.MutableHashTable, tf.lookup.experimental.DenseHashTable)


def _servable_resources(graph):
    """The graph's resources (lookup tables), refusing the ones the checkpoint held.

    A mutable table made in the model_fn lives for one traced call here and is
    neither checkpointed nor restored; exported, it would serve its empty
    state where the original served the trained contents.
    """
    resources = graph.resources
    for resource in resources:
        if isinstance(resource, _SAVEABLE_TABLES):
            raise ValueError(
                f"The model_fn makes the mutable lookup table {resource.name!r}, whose "
                "contents the original saved with the checkpoint and exported; here it "
                "is not checkpointed, so the export would serve an empty table. See "
                "migration_guide/export.md#mutable-lookup-tables."
            )
    return resources


def _local_variables(graph):
    keys = (tf.compat.v1.GraphKeys.LOCAL_VARIABLES, tf.compat.v1.GraphKeys.METRIC_VARIABLES)
    found = {}
    for key in keys:
        for variable in graph.collections.get(key, []):
            if isinstance(variable, tf.Variable):
                found[id(variable)] = variable
    return list(found.values())


def _asset_files(graph):
    """The files named in the model_fn's `ASSET_FILEPATHS` collection (vocabularies, say)."""
    paths = []
    for tensor in graph.collections.get(tf.compat.v1.GraphKeys.ASSET_FILEPATHS, []):
        path = tf.get_static_value(tensor) if tf.is_tensor(tensor) else tensor
        if path is None:
            raise ValueError(
                f"ASSET_FILEPATHS holds {tensor}, whose value is not known when the model is "
                "traced; add a tf.constant of the file's path instead."
            )
        paths.append(os.fsdecode(path.item() if hasattr(path, "item") else path))
    return paths


def _signature_defs(mode, graph, receiver):
    """The SignatureDefs the original exported for this mode, by key."""
    spec = graph.spec
    if mode == ModeKeys.PREDICT:
        return _build_signature_defs(
            receiver.receiver_tensors,
            spec.export_outputs,
            receiver.receiver_tensors_alternatives,
            serving_only=True,
        )
    metrics = dict(graph.metric_values) if mode == ModeKeys.EVAL else None
    outputs = export_outputs_for_mode(
        mode, predictions=spec.predictions, loss=spec.loss, metrics=_as_pairs(graph, metrics)
    )
    return _build_signature_defs(receiver.receiver_tensors, outputs, serving_only=False)


def export_outputs_for_mode(mode, **outputs):
    """A mode's export outputs as the original built them (`predictions`, `loss`,
    `metrics`, `serving_export_outputs`): a `PredictOutput`, `TrainOutput` or `EvalOutput`."""
    return tf_internals.export_outputs_for_mode(mode, **outputs)


def _build_signature_defs(receiver_tensors, export_outputs, alternatives=None, serving_only=True):
    """One signature per export output, and per (alternative receiver, output).

    Keys are the output keys, and `<alternative>:<output key>` for the
    alternatives. An output that cannot serve from those inputs (a classify
    output fed anything but one string tensor, say) is left out and logged,
    as the original did.
    """
    receivers = {None: receiver_tensors}
    receivers.update(alternatives or {})
    signature_defs, excluded = {}, {}
    for receiver_name, tensors in receivers.items():
        for output_key, export_output in export_outputs.items():
            key = str(output_key) if receiver_name is None else f"{receiver_name}:{output_key}"
            try:
                signature_def = export_output.as_signature_def(tensors)
            except ValueError as error:
                excluded[key] = str(error)
                continue
            if serving_only and not tf.compat.v1.saved_model.is_valid_signature(signature_def):
                excluded[key] = "not a valid serving signature"
                continue
            signature_defs[key] = signature_def
    for key, reason in excluded.items():
        # The original reported the signatures it left out at INFO.
        tf.compat.v1.logging.info("Signature %r is not exported: %s", key, reason)
    return signature_defs


def _as_pairs(graph, metrics):
    """Metrics as the `(value, update)` pairs `EvalOutput` expects."""
    if metrics is None:
        return None
    return {name: (value, graph.metric_update_op) for name, value in metrics.items()}


def _tensor(graph, tensor_info, key):
    if tensor_info.WhichOneof("encoding") != "name":
        raise ValueError(
            f"Signature input/output {key!r} is a SparseTensor or composite; exported "
            "signatures take and return dense tensors only."
        )
    return graph.get_tensor_by_name(tensor_info.name)


def _signature_function(graph, signature_def):
    """A concrete `tf.function` serving `signature_def` from the pruned graph."""
    inputs = {key: _tensor(graph.graph, info, key) for key, info in signature_def.inputs.items()}
    outputs = {key: _tensor(graph.graph, info, key) for key, info in signature_def.outputs.items()}
    keys = sorted(inputs)
    pruned = graph.function(outputs, feeds=[inputs[key] for key in keys])
    specs = [tf.TensorSpec(inputs[key].shape, inputs[key].dtype, name=key) for key in keys]

    @tf.function(input_signature=specs, autograph=False)
    def signature(*args):
        # TensorFlow reports a serving input of the wrong shape deep inside the
        # model, or not at all; EnsureShape names the input and both shapes.
        return pruned(*[tf.ensure_shape(arg, spec.shape) for arg, spec in zip(args, specs)])

    return signature.get_concrete_function()


def _finish_meta_graphs(export_dir, model_signature_defs, tags_of, as_text):
    """Sets method names and tensor names, and splits signatures into one MetaGraph per tag.

    Args:
        export_dir: where `tf.saved_model.save` wrote the SavedModel.
        model_signature_defs: signature key -> the SignatureDef the original
            would have written, over the model's own graph tensors.
        tags_of: signature key -> the tag of its MetaGraph.
        as_text: write `saved_model.pbtxt` instead of `saved_model.pb`.
    """
    path = os.path.join(export_dir, _SAVED_MODEL_PB)
    saved_model = tf_protos.SavedModel()
    with tf.io.gfile.GFile(path, "rb") as f:
        saved_model.ParseFromString(f.read())
    serving = saved_model.meta_graphs[0]
    _keep_model_tensor_names(serving, model_signature_defs)
    by_tag = {}
    for key, tag in tags_of.items():
        by_tag.setdefault(tag, []).append(key)
    template = tf_protos.SavedModel()
    template.meta_graphs.add().CopyFrom(serving)
    del saved_model.meta_graphs[:]
    for tag in sorted(by_tag, key=lambda t: t != tf.saved_model.SERVING):
        meta_graph = saved_model.meta_graphs.add()
        meta_graph.CopyFrom(template.meta_graphs[0])
        meta_graph.meta_info_def.ClearField("tags")
        meta_graph.meta_info_def.tags.append(tag)
        for key in list(meta_graph.signature_def):
            if key not in by_tag[tag]:
                del meta_graph.signature_def[key]
            else:
                method_name = model_signature_defs[key].method_name
                meta_graph.signature_def[key].method_name = method_name
    if as_text:
        # As the original: the text form replaces the binary one.
        tf.io.gfile.remove(path)
        text_protos.write(saved_model, os.path.join(export_dir, "saved_model.pbtxt"))
    else:
        with tf.io.gfile.GFile(path, "wb") as f:
            f.write(saved_model.SerializeToString())


def _keep_model_tensor_names(meta_graph, model_signature_defs):
    """Names the signatures' tensors in the exported graph after the model's own.

    `tf.saved_model.save` names them after the signature (`serving_default_x`,
    `StatefulPartitionedCall:0`); code that runs the GraphDef in a Session by
    name (`x_in:0`, `probabilities:0`), as the original's export allowed, finds
    them again: an input placeholder is renamed, an output gets an Identity of
    the model tensor's name. A name already taken (two signatures of one model
    tensor, or a tensor that is not an op's first output) keeps TF's name.
    """
    graph_def = meta_graph.graph_def
    taken = {node.name for node in graph_def.node}
    renamed = {}
    for key, model in model_signature_defs.items():
        signature = meta_graph.signature_def[key]
        for input_key, info in signature.inputs.items():
            wanted = _first_output_node(model.inputs[input_key].name)
            current = _first_output_node(info.name)
            if wanted and current and wanted not in taken:
                renamed[current] = wanted
                taken.add(wanted)
                info.name = wanted + ":0"
        for output_key, info in signature.outputs.items():
            wanted = _first_output_node(model.outputs[output_key].name)
            if wanted and wanted not in taken:
                node = graph_def.node.add(name=wanted, op="Identity", input=[info.name])
                node.attr["T"].type = info.dtype
                taken.add(wanted)
                info.name = wanted + ":0"
    for node in graph_def.node:
        if node.name in renamed:
            node.name = renamed[node.name]
        node.input[:] = [_renamed_input(name, renamed) for name in node.input]


def _first_output_node(tensor_name):
    """`op` for a tensor named `op:0`; None for any other output."""
    node, _, index = tensor_name.rpartition(":")
    return node if index == "0" and node else None


def _renamed_input(name, renamed):
    control = name.startswith("^")
    node, colon, index = name.lstrip("^").partition(":")
    node = renamed.get(node, node)
    return ("^" if control else "") + node + colon + index


def _copy_assets_extra(export_dir, assets_extra):
    """Copies `{destination under assets.extra/: source path}` into the export."""
    for destination, source in (assets_extra or {}).items():
        target = os.path.join(export_dir, "assets.extra", destination)
        tf.io.gfile.makedirs(os.path.dirname(target))
        if tf.io.gfile.isdir(source):
            shutil.copytree(source, target)
        else:
            tf.io.gfile.copy(source, target, overwrite=True)
