"""`tf.contrib.predictor`: a SavedModel (or an Estimator) as a function of a feed dict.

TF 1.x programs served an exported model in-process with
`predictor = tf.contrib.predictor.from_saved_model(export_dir)` and
`predictor({"x": batch})`. Here, as there, the model is loaded with the TF1
loader into a graph and `tf.compat.v1.Session` of its own, so it works in
graph mode (`run --tf1`) and next to eager code alike, and the outputs are
NumPy arrays.

Example:

```python
export_dir = estimator.export_saved_model("/tmp/export", serving_input_receiver_fn)
predict = tf.contrib.predictor.from_saved_model(export_dir)
predict({"x": features})["probabilities"]
```
"""

import shutil
import tempfile
from typing import Dict

import numpy as np
import tensorflow as tf

_DEFAULT_TAGS = "serve"
# Estimators of TF 1.x also named the default signature this way.
_ALTERNATIVE_KEY = "default_input_alternative:{}"


class SavedModelPredictor:
    """Runs one signature of a SavedModel: `predictor(feed_dict) -> {output key: array}`.

    Args:
        export_dir: the SavedModel directory.
        signature_def_key: the signature to run; default `serving_default`.
        signature_def: a `SignatureDef` proto to run instead of a named one.
        input_names: {key: tensor name} to feed, instead of a signature's inputs.
        output_names: {key: tensor name} to fetch, with `input_names`.
        tags: the MetaGraph's tags, comma-separated; default `serve`.
        graph: the `tf.Graph` to load into; default a new one.
        config: a `tf.compat.v1.ConfigProto` for the session.
    """

    def __init__(
        self,
        export_dir,
        signature_def_key=None,
        signature_def=None,
        input_names=None,
        output_names=None,
        tags=None,
        graph=None,
        config=None,
    ):
        if (input_names is None) != (output_names is None):
            raise ValueError(
                "Pass both input_names and output_names, or neither to use a signature."
            )
        tags = (tags or _DEFAULT_TAGS).split(",")
        self._graph = graph or tf.Graph()
        with self._graph.as_default():
            self._session = tf.compat.v1.Session(config=config)
            meta_graph = tf.compat.v1.saved_model.loader.load(self._session, tags, export_dir)
        if input_names is None:
            if signature_def is None:
                signature_def = _signature(meta_graph, signature_def_key)
            input_names = {key: info.name for key, info in signature_def.inputs.items()}
            output_names = {key: info.name for key, info in signature_def.outputs.items()}
        self._feed_tensors = self._tensors(input_names)
        self._fetch_tensors = self._tensors(output_names)

    def _tensors(self, names):
        return {key: self._graph.get_tensor_by_name(name) for key, name in names.items()}

    def __call__(self, input_dict: Dict) -> Dict:
        """Runs the model on `input_dict` (input key -> value); returns output key -> array."""
        unknown = sorted(set(input_dict) - set(self._feed_tensors))
        if unknown:
            raise ValueError(
                f"Unrecognized input keys {unknown}. Known input keys: "
                f"{sorted(self._feed_tensors)}."
            )
        missing = sorted(set(self._feed_tensors) - set(input_dict))
        if missing:
            raise ValueError(
                f"Missing input keys {missing}; the signature takes {sorted(self._feed_tensors)}."
            )
        feed_dict = {
            self._feed_tensors[key]: _checked_feed(key, self._feed_tensors[key], value)
            for key, value in input_dict.items()
        }
        return self._session.run(self._fetch_tensors, feed_dict=feed_dict)

    graph = property(lambda self: self._graph)
    session = property(lambda self: self._session)
    feed_tensors = property(lambda self: self._feed_tensors)
    fetch_tensors = property(lambda self: self._fetch_tensors)


def _checked_feed(key, tensor, value):
    """`value` as an array for input `key`, or an error naming the key.

    A Session would cast numbers silently, and name only the tensor (or
    nothing) when a value's kind or shape does not fit.
    """
    array = np.asarray(value)
    expects_text = tensor.dtype == tf.string
    is_text = array.dtype.kind in "SUO"
    if expects_text != is_text or (not is_text and array.dtype.kind not in "biuf"):
        raise TypeError(
            f"Input {key!r} must be {tensor.dtype.name}; got an array of {array.dtype}."
        )
    if not tensor.shape.is_compatible_with(array.shape):
        raise ValueError(
            f"Input {key!r} must have shape {tensor.shape.as_list()}; got {list(array.shape)}."
        )
    return array


def _signature(meta_graph, key):
    key = key or tf.saved_model.DEFAULT_SERVING_SIGNATURE_DEF_KEY
    signatures = meta_graph.signature_def
    for candidate in (key, _ALTERNATIVE_KEY.format(key)):
        if candidate in signatures:
            return signatures[candidate]
    raise ValueError(
        f"The SavedModel has no signature {key!r}. Available signatures are "
        f"{sorted(signatures)}; pass one as signature_def_key."
    )


def from_saved_model(
    export_dir,
    signature_def_key=None,
    signature_def=None,
    input_names=None,
    output_names=None,
    tags=None,
    graph=None,
    config=None,
) -> SavedModelPredictor:
    """A predictor for the SavedModel in `export_dir`; see `SavedModelPredictor`."""
    return SavedModelPredictor(
        export_dir,
        signature_def_key=signature_def_key,
        signature_def=signature_def,
        input_names=input_names,
        output_names=output_names,
        tags=tags,
        graph=graph,
        config=config,
    )


def from_estimator(
    estimator,
    serving_input_receiver_fn,
    output_key=None,
    graph=None,
    config=None,
) -> SavedModelPredictor:
    """A predictor for `estimator`'s latest checkpoint, fed like `serving_input_receiver_fn`.

    The estimator is exported to a temporary directory and loaded from there,
    which gives the graph the original built from the `model_fn` directly.

    Args:
        estimator: a trained `tf.estimator.Estimator`.
        serving_input_receiver_fn: what `export_saved_model` takes.
        output_key: the `export_outputs` key to run; default the serving default.
        graph: the `tf.Graph` to load into; default a new one.
        config: a `tf.compat.v1.ConfigProto` for the session.
    """
    export_base = tempfile.mkdtemp(prefix="predictor-")
    try:
        export_dir = estimator.export_saved_model(export_base, serving_input_receiver_fn)
        return SavedModelPredictor(
            export_dir, signature_def_key=output_key, graph=graph, config=config
        )
    finally:
        shutil.rmtree(export_base, ignore_errors=True)


__all__ = ["from_estimator", "from_saved_model"]
