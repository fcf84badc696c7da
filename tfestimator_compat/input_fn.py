"""Calling an `input_fn` and turning whatever it returns into a `tf.data.Dataset`.

An `input_fn` may return a Dataset of `(features, labels)` or of features, a
`(features, labels)` tuple of tensors, or tensors taken from a TF1 iterator
(`tf.compat.v1.data.make_one_shot_iterator(ds).get_next()`). The original ran
the whole input through the graph; a TF1 iterator read eagerly would yield only
its first batch. So when the input_fn makes a TF1 iterator it is called again
in a graph, its iterator reads placeholders instead, and what it computes from
them becomes a `map` over the iterator's dataset: every batch is used.
"""

import contextlib

import tensorflow as tf
from tensorflow.python.data.ops import dataset_ops

from tfestimator_compat import fn_args
from tfestimator_compat.model_fn_graph import placeholders_for


class InputFnResult:
    """A dataset of batches, and whether its elements are `(features, labels)`."""

    def __init__(self, dataset, has_labels):
        self.dataset = dataset
        self.has_labels = has_labels

    @property
    def endless(self):
        """True when the dataset is known to repeat forever."""
        return bool(self.dataset.cardinality() == tf.data.INFINITE_CARDINALITY)

    @property
    def features_spec(self):
        spec = self.dataset.element_spec
        return spec[0] if self.has_labels else spec

    @property
    def labels_spec(self):
        return self.dataset.element_spec[1] if self.has_labels else None

    def features_only(self):
        """The same input without labels, as PREDICT mode reads it."""
        if not self.has_labels:
            return self
        return InputFnResult(self.dataset.map(lambda features, labels: features), False)


def call_input_fn(input_fn, mode, params, config, context=None):
    """Calls `input_fn` with the arguments it names; returns an `InputFnResult`.

    `context` is the `tf.distribute.InputContext` an `input_fn` naming
    `input_context` gets (a single-replica one when None).
    """
    names = fn_args.fn_args(input_fn)
    kwargs = {}
    if "mode" in names:
        kwargs["mode"] = mode
    if "params" in names:
        kwargs["params"] = params
    if "config" in names:
        kwargs["config"] = config
    if "input_context" in names:
        kwargs["input_context"] = context or tf.distribute.InputContext()
    try:
        with _tf1_iterators(_refuse_eager_iterator):
            result = input_fn(**kwargs)
    except _NeedsGraph as needs_graph:
        dataset = _dataset_through_graph(lambda: input_fn(**kwargs), needs_graph.dataset)
    else:
        dataset = result if isinstance(result, tf.data.Dataset) else _repeated(result)
    # Reading ahead overlaps input with the steps, as a Session's queue did.
    dataset = dataset.prefetch(tf.data.AUTOTUNE)
    return InputFnResult(dataset, _has_labels(dataset.element_spec))


def _has_labels(element_spec):
    if isinstance(element_spec, (tuple, list)):
        if len(element_spec) != 2:
            raise ValueError("input_fn should return (features, labels) as a len 2 tuple.")
        return True
    return False


def _repeated(result):
    """Fixed tensors (or arrays) fed at every step, as a graph constant was."""
    if isinstance(result, list):
        result = tuple(result)
    return tf.data.Dataset.from_tensors(result).repeat()


class _NeedsGraph(Exception):
    """Raised from the first TF1 iterator an eager input_fn call makes."""

    def __init__(self, dataset):
        super().__init__("input_fn reads a TF1 iterator")
        self.dataset = dataset


def _refuse_eager_iterator(dataset):
    raise _NeedsGraph(dataset)


class _PlaceholderIterator:
    """Stands in for a TF1 iterator: `get_next()` gives placeholders of one batch."""

    def __init__(self, dataset, record):
        self._dataset = dataset
        self._record = record
        self.initializer = tf.no_op()

    def get_next(self, name=None):
        element = placeholders_for(self._dataset.element_spec)
        self._record.append((self._dataset, element))
        return element

    @property
    def element_spec(self):
        return self._dataset.element_spec


@contextlib.contextmanager
def _tf1_iterators(make_iterator):
    """Routes every way TF1 code makes an iterator from a dataset to `make_iterator`."""
    v1_data = tf.compat.v1.data
    saved = [
        (v1_data, "make_one_shot_iterator", v1_data.make_one_shot_iterator),
        (v1_data, "make_initializable_iterator", v1_data.make_initializable_iterator),
        (dataset_ops, "make_one_shot_iterator", dataset_ops.make_one_shot_iterator),
        (dataset_ops, "make_initializable_iterator", dataset_ops.make_initializable_iterator),
    ]
    methods = [
        (dataset_ops.DatasetV1, "make_one_shot_iterator"),
        (dataset_ops.DatasetV1, "make_initializable_iterator"),
    ]
    saved += [(owner, name, owner.__dict__[name]) for owner, name in methods]

    def patched(dataset, *args, **kwargs):
        return make_iterator(dataset)

    try:
        for owner, name, _ in saved:
            setattr(owner, name, patched)
        yield
    finally:
        for owner, name, original in saved:
            setattr(owner, name, original)


def _dataset_through_graph(call, eager_dataset):
    """Runs an input_fn that reads a TF1 iterator; returns a Dataset of its output.

    `eager_dataset` is the dataset the eager call made its iterator from; the
    graph call's own dataset lives in that graph and cannot leave it.
    """
    recorded = []
    built = {}

    def build():
        with _tf1_iterators(lambda dataset: _PlaceholderIterator(dataset, recorded)):
            built["result"] = call()
        return []

    wrapped = tf.compat.v1.wrap_function(build, signature=[])
    if len(recorded) != 1:
        raise ValueError(
            f"input_fn read {len(recorded)} TF1 iterators; exactly one "
            "(features, labels) iterator is supported. Return a tf.data.Dataset instead."
        )
    _, element = recorded[0]
    result = built["result"]
    if isinstance(result, list):
        result = tuple(result)
    feeds = tf.nest.flatten(element, expand_composites=True)
    transform = wrapped.prune(feeds, result)

    def apply(*components):
        flat = tf.nest.flatten(components, expand_composites=True)
        return transform(*flat)

    return eager_dataset.map(
        lambda *args: apply(*args), num_parallel_calls=tf.data.AUTOTUNE, deterministic=True
    ).prefetch(tf.data.AUTOTUNE)
