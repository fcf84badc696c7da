"""An input_fn run as the original ran it: in a graph of its own, read by a Session.

Queues, readers (`TFRecordReader().read`), queue runners (`shuffle_batch`,
`string_input_producer`, `add_queue_runner(QueueRunner(...))`), epoch
counters (`limit_epochs`, `num_epochs=`) and lookup tables initialized in the
graph have no eager or `tf.function` form. So the input_fn is built once in a
`tf.Graph`, and each pass over the input opens a `tf.compat.v1.Session` on
it, runs its initializers, starts its queue runners and fetches one batch per
`session.run`, ending at `OutOfRangeError` as a `MonitoredSession` did. The
batches reach the step functions through `tf.data.Dataset.from_generator`:
one Python call per batch, and none per step inside a batch.

The Session of a pass opens when the loop that reads it starts (`reading`),
before the hooks' `after_create_session`, as a `MonitoredSession` created
its Session before calling them: hooks then run the input's ops on it
(`run`), such as an initializable iterator's initializer fed NumPy arrays.
"""

import contextlib
import gc
import threading

import tensorflow as tf

from tfestimator_compat.engine.inputs.input_structure import FlatStructure
from tfestimator_compat.engine.inputs.input_structure import features_and_labels
from tfestimator_compat.engine.inputs.input_structure import leaves

# How long stopped queue runners get to finish before the Session closes.
_STOP_GRACE_SECS = 10


class TF1InputGraph:
    """The graph an input_fn built, and the Sessions reading batches from it.

    Args:
        call: calls the input_fn; returns `(features, labels)` or features.
    """

    def __init__(self, call):
        self.graph = tf.Graph()
        with self.graph.as_default():
            features, labels = features_and_labels(call())
            self.structure, self._fetches = FlatStructure.split(features, labels)
            # What the input_fn returned: a hook fetching them gets the step's batch.
            self.batch_leaves = (leaves(features), leaves(labels))
            self._initializer = tf.group(
                tf.compat.v1.global_variables_initializer(),
                tf.compat.v1.local_variables_initializer(),
                tf.compat.v1.tables_initializer(),
            )
        self.graph.finalize()
        self._readers = set()
        self._lock = threading.Lock()
        # The Session hooks run the input's ops on, and whether no pass took it yet.
        self._current = None
        self._fresh = None
        # What a Session run raised: tf.data hands it on wrapped in an UnknownError.
        self.error = None

    def dataset(self):
        """The batches, read by a Session opened on each pass over the dataset."""
        signature = tuple(_spec_of(tensor) for tensor in self._fetches)
        if not signature:
            raise ValueError(
                "input_fn returned no tensors to read; return a tf.data.Dataset, "
                "or (features, labels) holding at least one tensor."
            )
        return tf.data.Dataset.from_generator(self._batches, output_signature=signature)

    def holds_state(self):
        """Whether the input_fn's ops hold state or draw random numbers.

        Such tensors (an epoch counter of `limit_epochs`, a variable, a queue,
        a random op) took new values at every `session.run` of the original,
        so they are read per batch by a Session; pure ones can be computed once.
        """
        return any(op.op_def.is_stateful for op in self.graph.get_operations())

    def _open(self):
        reader = _Reader(self.graph, self._initializer)
        with self._lock:
            self._readers.add(reader)
        return reader

    def run(self, fetches, feed_dict=None):
        """Runs `fetches` of the input's graph on the Session the batches are read from."""
        with self._lock:
            reader = self._current
        if reader is None:
            raise RuntimeError(
                "The input_fn's graph is run only while its input is read: from a "
                "hook's after_create_session, before_run or after_run."
            )
        return reader.run(fetches, feed_dict)

    def _batches(self):
        reader = None
        try:
            with self._lock:
                reader, self._fresh = self._fresh, None
            if reader is None:
                reader = self._open()
                with self._lock:
                    self._current = reader
            while True:
                values = reader.next(self._fetches)
                if values is None:
                    return
                yield tuple(_tensor_value(value) for value in values)
        except tf.errors.OpError as error:
            self.error = error
            raise
        finally:
            # The Session hooks run on stays open until the reading loop ends.
            if reader is not None and reader is not self._current:
                self._forget(reader)

    def _forget(self, reader):
        reader.stop()
        with self._lock:
            self._readers.discard(reader)

    @contextlib.contextmanager
    def reading(self):
        """Around the loop that reads the input: its Sessions are closed when it ends."""
        self.error = None
        try:
            try:
                self._current = self._fresh = self._open()
            except tf.errors.OpError as error:
                self.error = error
                raise
            yield
        finally:
            with self._lock:
                readers = list(self._readers)
                self._current = self._fresh = None
            for reader in readers:
                self._forget(reader)
            # A tf.data iterator left in a reference cycle (an input stopped
            # early) would be finalized at exit, after Python, with a warning.
            gc.collect()


class _Reader:
    """One Session on the input graph, with the queue runners it started."""

    def __init__(self, graph, initializer):
        self._session = tf.compat.v1.Session(graph=graph)
        self._coordinator = tf.train.Coordinator()
        self._stopped = False
        self._lock = threading.Lock()
        self._threads = []
        try:
            self._session.run(initializer)
            # The runners the input_fn added, started as a MonitoredSession
            # started them (`start_queue_runners` would warn as if the user called it).
            for runner in graph.get_collection(tf.compat.v1.GraphKeys.QUEUE_RUNNERS):
                self._threads += runner.create_threads(
                    self._session, coord=self._coordinator, daemon=True, start=True
                )
        except BaseException:
            self.stop()
            raise

    def run(self, fetches, feed_dict=None):
        """Runs `fetches` on this Session, as a hook's `session.run` did."""
        return self._session.run(fetches, feed_dict=feed_dict)

    def next(self, fetches):
        """The next batch, or None at the end of the input (or once stopped)."""
        if self._stopped:
            return None
        try:
            return self._session.run(fetches)
        except (tf.errors.OutOfRangeError, tf.errors.CancelledError):
            # A queue runner's error (a missing file) ends the input with that error.
            self._coordinator.raise_requested_exception()
            return None

    def stop(self):
        """Stops the queue runners and closes the Session; safe to call twice."""
        with self._lock:
            if self._stopped:
                return
            self._stopped = True
        self._coordinator.request_stop()
        try:
            self._coordinator.join(self._threads, stop_grace_period_secs=_STOP_GRACE_SECS)
        except tf.errors.OpError:
            pass  # a queue runner's error, already raised by `next`
        finally:
            self._session.close()


def _spec_of(tensor):
    if isinstance(tensor, tf.SparseTensor):
        return tf.SparseTensorSpec(tensor.shape, tensor.dtype)
    if isinstance(tensor, tf.RaggedTensor):
        raise TypeError(
            "input_fn returned a RaggedTensor built from queues or readers; "
            "return it from a tf.data.Dataset instead."
        )
    return tf.TensorSpec(tensor.shape, tensor.dtype)


def _tensor_value(value):
    """A Session's value as `from_generator` takes it: sparse values become SparseTensors."""
    if isinstance(value, tf.compat.v1.SparseTensorValue):
        return tf.SparseTensor(value.indices, value.values, value.dense_shape)
    return value
