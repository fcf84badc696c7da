"""Calling an `input_fn` and turning whatever it returns into a `tf.data.Dataset`.

The original called the input_fn in the Estimator's graph and ran it with a
Session, so an input_fn could return anything a Session can fetch. Here one
of three routes reads it, the fastest that can:

1. A Dataset, or pure tensors computed eagerly (and NumPy or Python values),
   is read by tf.data inside the step functions: no Python per step.
2. Tensors from a TF1 iterator's `get_next()`, and whatever pure ops follow
   it (`features.pop("label")`, a cast), become a `map` over the iterator's
   dataset: the input_fn is called again in a graph where the iterator yields
   placeholders, and the graph from them to the result is the map function.
   (Read eagerly, a TF1 iterator would yield only its first batch.)
3. Anything else that needs a graph (queues, readers, queue runners, TF1
   lookup tables initialized in the graph, placeholders) is run by a Session,
   one `session.run` per batch (`tf1_input_graph`). So are tensors whose ops
   hold state or draw random numbers (`limit_epochs`, `count_up_to`, a
   variable, `tf.random.*`): a Session gave them new values at every run, and
   their end of input (`OutOfRangeError`) ends the loop that reads them.

Hooks reach the ops of routes 2 and 3 through `InputFnResult.session`, so an
iterator a hook initializes (with a `feed_dict`) is the one the batches come
from.

Whatever the structure (dicts with mixed keys, a bare tensor, no labels),
`input_structure` carries it through tf.data and back to the model_fn.
"""

import contextlib

import tensorflow as tf

from tfestimator_compat.engine import logs
from tfestimator_compat.engine import process_state
from tfestimator_compat.engine.inputs import input_errors
from tfestimator_compat.engine.inputs.input_structure import FlatStructure
from tfestimator_compat.engine.inputs.input_structure import NestedStructure
from tfestimator_compat.engine.inputs.input_structure import features_and_labels
from tfestimator_compat.engine.inputs.input_structure import leaves
from tfestimator_compat.engine.inputs.tf1_input_graph import TF1InputGraph
from tfestimator_compat.engine.internals import tensorflow_internals as tf_internals
from tfestimator_compat.engine.tracing import fn_args
from tfestimator_compat.engine.tracing import random_ops
from tfestimator_compat.engine.tracing import random_seeds
from tfestimator_compat.engine.tracing.model_fn_graph import placeholders_for


class InputFnResult:
    """A dataset of batches, and how each element unpacks to `(features, labels)`.

    Args:
        dataset: the batches.
        structure: a `NestedStructure` or `FlatStructure` (`input_structure`).
        graph_input: the `TF1InputGraph` the batches are read from, if any.
    """

    def __init__(self, dataset, structure, graph_input=None, input_fn=None, session=None):
        self.dataset = dataset
        self.structure = structure
        self._graph_input = graph_input
        # Runs ops of the input_fn's graph for hooks (None: it made no graph).
        self.session = session if session is not None else graph_input
        self.input_fn = input_fn
        # How many op seeds the input_fn's random ops took (`random_seeds.input_fn_seeds`).
        self.op_seeds = 0

    @property
    def source(self):
        """Where the input_fn is defined, for messages (looked up only when one is due)."""
        return input_errors.where(self.input_fn)

    @property
    def reads_through_a_session(self):
        """Whether a Session in this process reads the batches (queues, readers)."""
        return self._graph_input is not None

    @property
    def has_labels(self):
        return self.structure.has_labels

    @property
    def unpack(self):
        """`element -> (features, labels)`, for the step functions."""
        return self.structure.unpack

    @property
    def endless(self):
        """True when the dataset is known to repeat forever."""
        return bool(self.dataset.cardinality() == tf.data.INFINITE_CARDINALITY)

    @property
    def features_spec(self):
        return self.structure.unpack(self.dataset.element_spec)[0]

    @property
    def labels_spec(self):
        return self.structure.unpack(self.dataset.element_spec)[1]

    @property
    def trace_key(self):
        """Equal for inputs a traced model_fn can be reused with."""
        specs = repr(self.dataset.element_spec)
        # The model_fn's random ops take op seeds after the input_fn's.
        return (self.structure.key, specs, self.endless, self.op_seeds)

    def features_only(self):
        """The same input without labels, as PREDICT mode reads it."""
        if not self.has_labels:
            return self
        if isinstance(self.structure, NestedStructure):
            features = self.dataset.map(lambda features, labels: features)
            structure = NestedStructure(False)
        else:
            features, structure = self.dataset, self.structure.features_only()
        without_labels = InputFnResult(
            features, structure, self._graph_input, self.input_fn, self.session
        )
        without_labels.op_seeds = self.op_seeds
        return without_labels

    def warn_if_evaluation_never_ends(self, steps):
        """Warns (once per input_fn) that `evaluate(steps=None)` of an endless input hangs."""
        if steps is not None or not self.endless:
            return
        if not process_state.warn_once(("evaluation-never-ends", self.source)):
            return
        tf.compat.v1.logging.warning(
            "evaluate(steps=None) reads its input to the end, but the input of the "
            "input_fn at %s repeats forever, so this evaluation will not end (unless a "
            "hook stops it). Pass steps=, or do not .repeat() the evaluation input.",
            self.source,
        )

    @contextlib.contextmanager
    def reading(self):
        """Around the loop that reads the batches.

        A Session reading them closes after it, and an error of the input
        (a missing file) is raised once, as the input's own error: not
        wrapped by tf.data, nor repeated in the trace of the step function.
        """
        owner = self._graph_input.reading() if self._graph_input else contextlib.nullcontext()
        try:
            with owner, logs.reading_to_the_end_of_input():
                yield
        except tf.errors.OpError as error:
            cause = self._graph_input.error if self._graph_input else None
            if cause is None and not input_errors.raised_by_the_input(error):
                raise
            raise input_errors.input_error(cause or error, self.source) from None


def call_input_fn(input_fn, mode, params, config, context=None):
    """Calls `input_fn` with the arguments it names; returns an `InputFnResult`.

    `context` is the `tf.distribute.InputContext` an `input_fn` naming
    `input_context` gets (a single-replica one when None).

    The input_fn is first called eagerly. A Dataset, or tensors computed
    eagerly by pure ops, are read by tf.data: the input_fn was called once,
    as in the original. Tensors from ops that hold state are computed again
    in a graph. An input_fn that reads a TF1 iterator is called again in a
    graph: what it computes after `get_next()` becomes a
    `map` over the iterator's dataset when that is all it does, else (queues,
    readers, tables initialized in the graph) the graph is run by a Session
    (`tf1_input_graph`), as the original did.
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

    seed = getattr(config, "tf_random_seed", None)
    op_seeds = []

    def call():
        with (
            random_seeds.input_fn_seeds(seed) as taken,
            random_ops.restarting_eager_random_ops(),
            random_ops.eager_ops_run(random_ops.is_stateful_kind) as stateful,
        ):
            result = input_fn(**kwargs)
        op_seeds.append(taken.count)
        call.ran_stateful_ops = bool(stateful)
        return result

    inputs = _read(call)
    inputs.input_fn = input_fn
    # The call that made the input: the last one.
    inputs.op_seeds = op_seeds[-1] if op_seeds else 0
    # Reading ahead overlaps input with the steps, as a Session's queue did.
    inputs.dataset = inputs.dataset.prefetch(tf.data.AUTOTUNE)
    return inputs


def _read(call):
    """The input of `call`, by the first route that can read it (see `call_input_fn`)."""
    try:
        with _tf1_iterators(_refuse_eager_iterator):
            result = call()
    except _NeedsGraph as needs_graph:
        inputs = _mapped_iterator(call, needs_graph.dataset) or _through_session(call)
    except (RuntimeError, ValueError) as error:
        if not _needs_a_graph(error):
            raise
        inputs = _through_session(call)
    else:
        inputs = _eager_result(result, call)
    return inputs


def _needs_a_graph(error):
    """Whether an eager call failed on something only a graph has (queues, readers)."""
    return "eager execution" in str(error)


def _eager_result(result, call):
    if isinstance(result, tf.data.Dataset):
        return InputFnResult(result, NestedStructure(_has_labels(result.element_spec)))
    features, labels = features_and_labels(result)
    # NumPy and Python values, and tensors of pure ops, are fixed: the input_fn is
    # called again (in a graph) only when an op it ran may hold state.
    stateful = leaves((features, labels)) and call.ran_stateful_ops
    graph_input = _graph_holding_state(call) if stateful else None
    if graph_input is not None:
        return InputFnResult(graph_input.dataset(), graph_input.structure, graph_input)
    structure, tensors = FlatStructure.split(features, labels)
    # Fixed tensors are fed at every step, as a graph constant was.
    dataset = tf.data.Dataset.from_tensors(_element(tensors)).repeat()
    return InputFnResult(dataset, structure)


def _graph_holding_state(call):
    """The input_fn built in a graph of its own when its ops hold state, else None.

    Tensors computed eagerly are fixed values; they stand for the input only
    when the input_fn's ops are pure. Inside a traced function (a worker's
    input) its tensors are ops of that function already.
    """
    if not tf.executing_eagerly():
        return None
    try:
        graph_input = TF1InputGraph(call)
    except Exception:  # noqa: BLE001 - written for eager execution only: read as it ran
        return None
    return graph_input if graph_input.holds_state() else None


def _through_session(call):
    graph_input = TF1InputGraph(call)
    return InputFnResult(graph_input.dataset(), graph_input.structure, graph_input)


def _element(tensors):
    """A flat element; one that carries no tensor holds a stand-in (tf.data needs one)."""
    return tuple(tensors) if tensors else (tf.constant(0),)


def _has_labels(element_spec):
    if isinstance(element_spec, (tuple, list)):
        if len(element_spec) != 2:
            raise ValueError("input_fn should return (features, labels) as a len 2 tuple.")
        return True
    return False


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
        self.initializer = tf.no_op(name="placeholder_iterator_initializer")

    def get_next(self, name=None):
        element = placeholders_for(self._dataset.element_spec)
        # Flattened now: the input_fn may change the element (`features.pop("label")`).
        self._record.append(tf.nest.flatten(element, expand_composites=True))
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
    ]
    # The data module's functions, then `DatasetV1`'s methods.
    saved += tf_internals.tf1_iterator_patch_points()

    def patched(dataset, *args, **kwargs):
        return make_iterator(dataset)

    def patched_one_shot(dataset, *args, **kwargs):
        # TF1's one-shot iterator took an op seed (to seed its dataset
        # function), so the random ops after it take the ones after.
        tf.compat.v1.get_seed(None)
        return make_iterator(dataset)

    try:
        for owner, name, _ in saved:
            setattr(owner, name, patched_one_shot if "one_shot" in name else patched)
        yield
    finally:
        for owner, name, original in saved:
            setattr(owner, name, original)


def _mapped_iterator(call, eager_dataset):
    """The input as `eager_dataset.map(what the input_fn computes after get_next())`.

    None when that is not all the input_fn does: it reads more than one
    iterator, or its graph has queue runners or table initializers, which
    need a Session. `eager_dataset` is the dataset the eager call made its
    iterator from; the graph call's own dataset lives in that graph.
    """
    recorded = []
    built = {}

    def build():
        with _tf1_iterators(lambda dataset: _PlaceholderIterator(dataset, recorded)):
            built["result"] = call()
        return []

    wrapped = tf.compat.v1.wrap_function(build, signature=[])
    if len(recorded) != 1 or _needs_a_session(wrapped.graph):
        return None
    structure, tensors = FlatStructure.split(*features_and_labels(built["result"]))
    try:
        transform = wrapped.prune(recorded[0], tensors)
    except (ValueError, TypeError):
        # Something besides the iterator's batch feeds the output: a Session runs it.
        return None

    def apply(*components):
        return _element(transform(*tf.nest.flatten(components, expand_composites=True)))

    # A random op after get_next() drew one value per Session run, in order:
    # its map runs one element at a time then.
    stateful = any(tf_internals.is_stateful(op) for op in transform.graph.get_operations())
    parallel = None if stateful else tf.data.AUTOTUNE
    dataset = eager_dataset.map(apply, num_parallel_calls=parallel, deterministic=True)
    session = _MappedInputSession(wrapped, features_and_labels(built["result"]))
    return InputFnResult(dataset, structure, session=session)


class _MappedInputSession:
    """Runs a hook's fetches of the graph a mapped input_fn was called in.

    What a hook may run there is what needs no batch: the iterator's
    initializer (a no-op: each pass reads the dataset from its start), or a
    value the input_fn computed besides the batch. The tensors it returned
    (`batch_leaves`) are fetched in the step instead (`GraphSession.in_step`).
    """

    def __init__(self, wrapped, returned):
        self._wrapped = wrapped
        self.graph = wrapped.graph
        # What the input_fn returned: a hook fetching them gets the step's batch.
        self.batch_leaves = tuple(leaves(part) for part in returned)

    def run(self, fetches, feed_dict=None):
        feed_dict = feed_dict or {}
        try:
            pruned = self._wrapped.prune(list(feed_dict), fetches)
        except (ValueError, TypeError) as error:
            raise ValueError(
                "A hook runs tensors of the input_fn's batch with session.run, which "
                "reads the input here in tf.data, outside any Session. Return the "
                f"tensors from the input_fn and read them in the model_fn. ({error})"
            ) from None
        results = pruned(*feed_dict.values())
        return tf.nest.map_structure(
            lambda value: value.numpy() if hasattr(value, "numpy") else value, results
        )


def _needs_a_session(graph):
    collections = tf.compat.v1.GraphKeys
    if graph.get_collection(collections.QUEUE_RUNNERS):
        return True
    initializers = graph.get_collection(collections.TABLE_INITIALIZERS)
    return any(
        getattr(init, "name", "").split("/")[-1] != "placeholder_iterator_initializer"
        for init in initializers
    )
