"""A `keras.Model` whose train, test and predict steps run a traced `model_fn`.

The model owns no layers: the variables belong to the Estimator's
`VariableStore` and the computation is a function pruned from the
`ModelFnGraph`. Each step calls that function on the batch with a set of
fetches (the loss, the train op, metric updates, what hooks asked for); Keras
supplies the loop, callbacks and data handling, and each call of the step
function runs the chunk of steps the training loop asks for (a `ChunkRequest`)
in one `tf.function`, so checkpoints, summaries and hooks still land on
exactly the steps they are due.

Keras callbacks that read or write the model's weights (`EarlyStopping(
restore_best_weights=True)`, `ModelCheckpoint(save_weights_only=True)`) get
the model_fn's checkpointed variables as its weights (`weights_by_name`).
"""

import h5py
import keras
import tensorflow as tf

from tfestimator_compat.engine.internals import tensorflow_internals
from tfestimator_compat.engine.loop import compiled_step
from tfestimator_compat.engine.loop import step_errors
from tfestimator_compat.engine.loop import stop_signal
from tfestimator_compat.engine.loop.chunks import ChunkRequest
from tfestimator_compat.engine.loop.chunks import ChunkResult
from tfestimator_compat.engine.tracing.model_fn_graph import cache_key


def _any_nan(loss):
    """Whether any value of a floating `loss` is NaN (False for other dtypes)."""
    if not loss.dtype.is_floating:
        return tf.constant(False)
    return tf.reduce_any(tf.math.is_nan(loss))


def _batch_major_shape(shape):
    """The shape of one batch's rows of a fetch (scalars become one row)."""
    if shape.rank is None:
        return tf.TensorShape(None)
    return tf.TensorShape([None]).concatenate(shape[1:])


def _rows_fully_defined(shape) -> bool:
    return shape.rank is not None and shape[1:].is_fully_defined()


def _concat(array):
    """The rows a `TensorArray` of batches holds, also when it holds none.

    TensorFlow cannot concatenate an empty list whose rows' shape is not fully
    known; the last call of a prediction, past the end of the input, has one.
    """
    shape = array.element_shape
    if shape.rank is not None and shape[1:].is_fully_defined():
        return array.concat()
    # Of unknown rank (a lookup in a table made outside the graph), any empty stands in.
    rows = [] if shape.rank is None else [d or 0 for d in shape[1:].as_list()]
    empty = tf.zeros([0] + rows, array.dtype)
    return tf.cond(array.size() > 0, array.concat, lambda: empty)


def _zeros_like(fetches):
    """Stand-ins for a step's outputs before the first step has run."""

    def zeros(fetch):
        if isinstance(fetch, tf.SparseTensor):
            rank = fetch.shape.rank or 1
            return tf.SparseTensor(
                tf.zeros([0, rank], tf.int64),
                tf.zeros([0], fetch.dtype),
                tf.zeros([rank], tf.int64),
            )
        return tf.zeros([], fetch.dtype)

    return {
        key: tf.nest.map_structure(zeros, fetch)
        for key, fetch in fetches.items()
        if not isinstance(fetch, tf.Operation)
    }


class _StepFunctions:
    """What the steps fetch, and the function traced for that.

    A plain object, so Keras attribute tracking leaves its dicts alone.
    """

    def __init__(self):
        self.fetches = {}
        self.first_fetches = {}
        self.extras = {}
        self.graph_function = None
        # While a multi-step function is traced: whether the step being traced
        # fetches the extras (a boolean tensor), None when there are none.
        self.events = None
        self.made = {}

    def run(self, flat):
        """One step's outputs: the fetches, and the extras when they are due."""
        if not self.extras:
            return self.graph_function(*flat)
        outputs, extras = self.graph_function(self.events, *flat)
        return dict(outputs, **extras)


def _stacked(array, dtype):
    """The values written to a `TensorArray`, stacked; none when none were."""
    return tf.cond(array.size() > 0, array.stack, lambda: tf.zeros([0], dtype))


class _EndlessInput:
    """Step data of an input that repeats forever: batches, read without checks.

    One step's data is a batch, or a tuple of one batch per replica.
    """

    def __init__(self, iterator, replicas):
        self._iterator = iterator
        self._replicas = replicas

    def batch(self):
        """The next step's batches, read directly (raises at the end of input)."""
        if self._replicas == 1:
            return self._iterator.get_next()
        return tuple(self._iterator.get_next() for _ in range(self._replicas))

    def read(self):
        """The next step's data, as the loop carries it."""
        return self.batch()

    def holding(self, batch):
        """`batch`, read directly, as the loop carries data."""
        return batch

    def nothing(self, like):
        """What stands for data not read: any value of the data's structure."""
        return like

    def more(self, steps_left, data):
        """Whether a step runs on `data`: steps are left and data is there."""
        return steps_left

    def value(self, data):
        return data


class _FiniteInput(_EndlessInput):
    """Step data of an input that may end: optionals, one per replica, empty at
    the end. A step short of a batch per replica does not run, as the
    original's per-replica iterators stopped."""

    def read(self):
        return [self._iterator.get_next_as_optional() for _ in range(self._replicas)]

    def holding(self, batch):
        batches = batch if self._replicas > 1 else (batch,)
        return [tf.experimental.Optional.from_value(b) for b in batches]

    def nothing(self, like):
        return [tf.experimental.Optional.empty(self._iterator.element_spec) for _ in like]

    def more(self, steps_left, data):
        return tf.logical_and(steps_left, tf.reduce_all([o.has_value() for o in data]))

    def value(self, data):
        if self._replicas == 1:
            return data[0].get_value()
        return tuple(optional.get_value() for optional in data)


class ModelFnModel(keras.Model):
    """Runs a `ModelFnGraph` as Keras steps.

    Args:
        graph: the `ModelFnGraph` of one mode.
        unpack: `element -> (features, labels)` for the dataset's elements
            (`InputFnResult.unpack`).
        endless_input: whether the dataset repeats forever (chunks then skip
            the end-of-input checks).
        compiled: whether the step functions run with XLA auto-clustering
            (`compiled_step`; off unless the user asked for it).
    """

    def __init__(self, graph, unpack, endless_input=False, compiled=False):
        super().__init__(name="model_fn")
        self._graph = graph
        self._unpack = unpack
        self.endless_input = endless_input
        self.compiled_step = compiled
        self._steps = _StepFunctions()
        self.chunk_request = None  # what the next call runs (`request_chunk`)
        self.last_chunk = None  # what the last call returned (`record_call`)
        self.steps_run = 0
        self.calls = 0  # of the step function, for tests and benchmarks of chunking
        self._predict_iterator = None
        self._read_iterators = []  # what the current fit or evaluate reads
        with tf.init_scope():
            self._loss_total = tf.Variable(0.0, trainable=False, name="eval_loss_total")
        # Checkpoint name -> variable: what callbacks see as the weights (no global step).
        self.weights_by_name = {}
        self.weights_were_set = False
        self.built = True

    def get_weights(self):
        """The model_fn's variables' values, in checkpoint-name order."""
        return [_value_of(self.weights_by_name[name]) for name in sorted(self.weights_by_name)]

    def set_weights(self, weights):
        """Assigns values `get_weights` returned; the training loop then saves them."""
        names = sorted(self.weights_by_name)
        if len(weights) != len(names):
            raise ValueError(
                f"set_weights got {len(weights)} values for the model_fn's {len(names)} "
                "variables; pass what get_weights() returned."
            )
        for name, value in zip(names, weights):
            self.weights_by_name[name].assign(value)
        self.weights_were_set = True

    def save_weights(self, filepath, overwrite=True):
        """Writes each variable's value to an HDF5 file under its checkpoint name.

        HDF5 reads `/` as a group separator, and a variable may be named like
        another's group (`w` and `w/Adagrad`), so names are stored with `:`
        (never part of a TF1 variable name) in place of `/`.
        """
        if not str(filepath).endswith(".h5"):
            raise ValueError(
                f"The filename must end in `.h5` (`.weights.h5`). Received: {filepath}"
            )
        if not overwrite and tf.io.gfile.exists(filepath):
            raise FileExistsError(f"{filepath} exists and overwrite=False.")
        with h5py.File(filepath, "w") as f:
            for name in sorted(self.weights_by_name):
                f.create_dataset(name.replace("/", ":"), data=_value_of(self.weights_by_name[name]))

    def load_weights(self, filepath, skip_mismatch=False, **kwargs):
        """Assigns the values a `save_weights` file holds, by checkpoint name."""
        stored = _read_h5(filepath)
        missing = sorted(set(self.weights_by_name) - set(stored))
        if missing and not skip_mismatch:
            raise ValueError(f"{filepath} has no values for the variables {missing}.")
        for name, variable in self.weights_by_name.items():
            if name in stored:
                variable.assign(stored[name])
        self.weights_were_set = True

    def save(self, filepath, overwrite=True, **kwargs):
        raise ValueError(
            "An Estimator's model_fn is not a Keras model that `model.save` can write "
            f"(asked to save {filepath}). For ModelCheckpoint pass save_weights_only=True "
            "(a .weights.h5 file of the model_fn's variables); the model_dir's checkpoints and "
            "export_saved_model are the whole model. See migration_guide/concepts.md."
        )

    def request_chunk(self, request: ChunkRequest):
        """Sets what the next call of the step function runs and returns.

        Each combination of fetches gets its own traced function, cached, so
        combinations that alternate trace once each. The first step's extras
        are gated: one function runs every step, computing them only when due.
        """
        self.chunk_request = request
        steps = self._steps
        steps.fetches = dict(request.fetches)
        steps.extras = {
            key: value
            for key, value in request.first_step_fetches.items()
            if key not in steps.fetches
        }
        steps.first_fetches = dict(steps.fetches, **steps.extras)
        gated = steps.extras or None
        steps.graph_function = self._graph.function(steps.fetches, gated=gated)

    def _call_graph(self, data):
        """Runs the step function on one step's data: a batch, or one per replica."""
        flat = []
        for element in data if self._graph.num_replicas > 1 else (data,):
            features, labels = self._unpack(element)
            flat += self._graph.flat_inputs(features, labels)
        outputs = self._steps.run(flat)
        return {key: value for key, value in outputs.items() if value is not None}

    def train_step(self, data):
        return self._call_graph(data)

    def test_step(self, data):
        outputs = self._call_graph(data)
        if "loss" in outputs:
            self._loss_total.assign_add(tf.cast(outputs["loss"], tf.float32))
        return outputs

    def reset_eval_loss(self):
        self._loss_total.assign(0.0)
        self.steps_run = 0

    def mean_eval_loss(self):
        """Mean of the per-batch losses, as the original's `metrics.mean(loss)`
        (0.0 when no batch ran, as that metric divided)."""
        return self._loss_total.numpy() / self.steps_run if self.steps_run else 0.0

    def _multi_step_function(self, step_function, stops_at_nan_loss=False):
        """A `tf.function` that runs up to `n` steps on batches of `iterator`.

        When the first step fetches more than the others (summaries, logged
        values, what hooks ask for), that step fetches the extras, and so does
        every step `every` steps after it; the one step function computes
        them only on those steps. The function returns the first step's
        outputs, the last step's outputs, how many steps ran (fewer than `n`
        at the end of the input), and the extras of the later event steps,
        stacked. `n` and `every` are tensors, so one trace serves every chunk
        the training loop picks.

        Each step's batch is read while the step before it runs (nothing
        orders the two), and only when that next step is due, so a call takes
        exactly the batches of the steps it runs; but a step whose model_fn
        stop signal comes out true ends the call and training, dropping the
        batch read for the step that would have followed; so does a training
        step whose loss is NaN (`stops_at_nan_loss`). The first step's
        batch is read directly: at the end of the input that raises
        OutOfRangeError, which ends the epoch.
        """

        def one_step(data):
            return self.distribute_strategy.run(step_function, args=(data,))

        def relaxed(structure):
            return tf.nest.map_structure(lambda t: tf.TensorShape(None), structure)

        def specs(structure):
            return tf.nest.map_structure(tf.type_spec_from_value, structure)

        def running(steps_left, outputs):
            going = steps_left
            if stop_signal.FETCH_KEY in outputs:
                going = tf.logical_and(going, tf.logical_not(outputs[stop_signal.FETCH_KEY]))
            if stops_at_nan_loss and "loss" in outputs:
                # The original's NaN check raised at the step whose loss was NaN:
                # the call ends there, and the loop callback raises.
                going = tf.logical_and(going, tf.logical_not(_any_nan(outputs["loss"])))
            return going

        @tf.autograph.experimental.do_not_convert
        def multi_step(iterator, n, every):
            steps = self._steps
            source_type = _EndlessInput if self.endless_input else _FiniteInput
            source = source_type(iterator, self._graph.num_replicas)
            outputs = _zeros_like(steps.fetches)
            first = _zeros_like(steps.first_fetches)
            data = source.holding(source.batch())
            # The later event steps' extras, when each is one tensor (hooks'
            # nested requests come from one-step calls only).
            arrays = {
                key: tf.TensorArray(
                    fetch.dtype, size=0, dynamic_size=True, element_shape=fetch.shape
                )
                for key, fetch in steps.extras.items()
                if isinstance(fetch, tf.Tensor)
            }

            def step(i, outputs, data, first, arrays):
                # Steps run one at a time (parallel_iterations=1): they update
                # the same variables, and a step must see the previous one's
                # updates, as consecutive Session runs did.
                following = tf.cond(i + 1 < n, source.read, lambda: source.nothing(data))
                due = tf.equal(i % every, 0)
                steps.events = due
                fetched = one_step(source.value(data))
                steps.events = None
                if not steps.extras:
                    return i + 1, fetched, following, first, arrays
                first = tf.cond(tf.equal(i, 0), lambda: fetched, lambda: first)

                def write():
                    return {key: arrays[key].write(i // every - 1, fetched[key]) for key in arrays}

                if arrays:
                    arrays = tf.cond(tf.logical_and(due, i > 0), write, lambda: arrays)
                return i + 1, {key: fetched[key] for key in outputs}, following, first, arrays

            ran, last, _, first, arrays = tf.while_loop(
                lambda i, outputs, data, first, arrays: source.more(running(i < n, outputs), data),
                step,
                (tf.constant(0), outputs, data, first, arrays),
                shape_invariants=(
                    tf.TensorShape([]),
                    relaxed(outputs),
                    specs(data),
                    relaxed(first),
                    relaxed(arrays),
                ),
                parallel_iterations=1,
            )
            if not steps.extras:
                return last, last, ran, {}
            dtypes = {key: steps.extras[key].dtype for key in arrays}
            return first, last, ran, {key: _stacked(arrays[key], dtypes[key]) for key in arrays}

        return tf.function(multi_step, reduce_retracing=True)

    def _chunked(self, kind, step_function):
        """What Keras calls per iteration of its loop: one chunk of steps."""

        def run(iterator):
            if not any(read is iterator for read in self._read_iterators):
                self._read_iterators.append(iterator)
            multi_step = self._cached(
                kind, lambda: self._multi_step_function(step_function, kind == "train")
            )
            n = self.chunk_request.steps
            every = self.chunk_request.event_every or n
            try:
                with compiled_step.autoclustering(self.compiled_step):
                    first, outputs, ran, events = multi_step(
                        iterator, tf.constant(n), tf.constant(every)
                    )
            except tf.errors.OpError as error:
                raise step_errors.told_from_the_graph(error, self._graph.graph) from None
            if int(ran) == 0:
                raise StopIteration  # the input ended before this call
            self.record_call(first, outputs, ran, events)
            return {"loss": outputs["loss"]} if "loss" in outputs else {}

        return run

    def fit(self, *args, **kwargs):
        try:
            return super().fit(*args, **kwargs)
        finally:
            self._release_read_iterators()

    def evaluate(self, *args, **kwargs):
        try:
            return super().evaluate(*args, **kwargs)
        finally:
            self._release_read_iterators()

    def _release_read_iterators(self):
        """Frees the input iterators the loop read, now that it is over.

        When a loop stops before its input ends (`steps=`, `max_steps`, a
        repeated dataset), Keras's epoch iterator keeps the iterator in a
        reference cycle, so only a later garbage collection would destroy it:
        in the middle of another call, which would then wait for the old
        input's reader threads to stop (stalls of up to a second).
        """
        for iterator in self._read_iterators:
            tensorflow_internals.release_iterator_resources(iterator)
        self._read_iterators = []

    def record_call(self, first, last, ran, events):
        """Keeps what a call of the multi-step function returned, for the loop callbacks."""
        self.last_chunk = ChunkResult(first=first, last=last, steps_run=int(ran), events=events)
        self.steps_run += self.last_chunk.steps_run
        self.calls += 1

    def train_multi_step(self):
        """The training multi-step `tf.function` of `(iterator, n, every)` for the
        current fetches (see `_multi_step_function`), for a loop that calls it itself."""
        return self._cached("train", lambda: self._multi_step_function(self.train_step, True))

    def _cached(self, kind, make):
        fetches = self._steps.first_fetches
        key = (kind, cache_key(self._steps.fetches), cache_key(fetches))
        if key not in self._steps.made:
            # The fetches stay referenced so their ids stay unique.
            self._steps.made[key] = (make(), fetches)
        return self._steps.made[key][0]

    def make_train_function(self, force=False):
        self.train_function = self._chunked("train", self.train_step)
        return self.train_function

    def make_test_function(self, force=False):
        self.test_function = self._chunked("test", self.test_step)
        return self.test_function

    def make_predict_function(self, force=False):
        """A function of `(iterator, n)` that predicts on up to `n` next batches.

        It returns, for each fetched tensor, the batches' results concatenated
        along the first axis, each batch's leading size, and how many batches
        ran; `predict_batches` splits them back into batches. Running many
        batches per call keeps the per-call cost off the per-batch time.
        """

        def make():
            fetched = [t for t in tf.nest.flatten(self._steps.fetches)]
            # Rows whose shape changes from batch to batch (a sequence model's
            # `[batch, T, ...]` predictions) cannot be concatenated: one batch per call.
            layout = {"one_batch_per_call": not all(_rows_fully_defined(t.shape) for t in fetched)}

            @tf.autograph.experimental.do_not_convert
            def predict_chunk(iterator, n):
                arrays = [
                    tf.TensorArray(
                        t.dtype,
                        size=0,
                        dynamic_size=True,
                        infer_shape=False,
                        element_shape=_batch_major_shape(t.shape),
                    )
                    for t in fetched
                ]
                sizes = tf.TensorArray(tf.int32, size=0, dynamic_size=True)

                def predict(i, arrays, sizes, data):
                    flat = tf.nest.flatten(self.predict_step(data))
                    layout["structure"] = self.predict_step_structure
                    layout["scalar"] = [t.shape.rank == 0 for t in flat]
                    flat = [t[None] if t.shape.rank == 0 else t for t in flat]
                    arrays = [a.write(i, t) for a, t in zip(arrays, flat)]
                    return arrays, sizes.write(i, tf.stack([tf.shape(t)[0] for t in flat]))

                def more(i, done, arrays, sizes):
                    return tf.logical_and(i < n, tf.logical_not(done))

                def next_batch(i, done, arrays, sizes):
                    optional = iterator.get_next_as_optional()
                    has_value = optional.has_value()
                    arrays, sizes = tf.cond(
                        has_value,
                        lambda: predict(i, arrays, sizes, optional.get_value()),
                        lambda: (arrays, sizes),
                    )
                    return (
                        i + tf.cast(has_value, tf.int32),
                        tf.logical_not(has_value),
                        arrays,
                        sizes,
                    )

                # Unlike training and evaluation steps, predictions update no
                # shared state, so batches may overlap.
                count, _, arrays, sizes = tf.while_loop(
                    more, next_batch, (tf.constant(0), tf.constant(False), arrays, sizes)
                )
                return [_concat(a) for a in arrays], sizes.stack(), count

            function = tf.function(predict_chunk).get_concrete_function(
                self._predict_iterator, tf.TensorSpec([], tf.int32)
            )
            return function, layout

        self.predict_function = self._cached("predict", make)
        return self.predict_function

    def predict_step(self, data):
        outputs = self._call_graph(data)
        self.predict_step_structure = outputs
        return outputs

    def predict_batches(self, dataset, before_batch=None, batches_per_call=32):
        """Yields what each batch of `dataset` fetched, as numpy.

        `before_batch()`, when given, runs before each batch and may change the
        fetches (prediction hooks do); then each call predicts one batch.
        """
        self._predict_iterator = iter(dataset)
        try:
            yield from self._predicted_batches(before_batch, batches_per_call)
        finally:
            # The iterator (and a Session reading the input) ends with the prediction.
            self._predict_iterator = None

    def _predicted_batches(self, before_batch, batches_per_call):
        while True:
            if before_batch is not None:
                before_batch()
            predict, layout = self.make_predict_function()
            one = before_batch is not None or layout["one_batch_per_call"]
            n = 1 if one else batches_per_call
            try:
                with compiled_step.autoclustering(self.compiled_step):
                    arrays, sizes, count = predict(self._predict_iterator, tf.constant(n))
            except tf.errors.OpError as error:
                raise step_errors.told_from_the_graph(error, self._graph.graph) from None
            if int(count) == 0:
                return
            arrays = [a.numpy() for a in arrays]
            ends = sizes.numpy().cumsum(axis=0)
            for batch in range(int(count)):
                flat = [
                    array[end - size][()] if scalar else array[end - size : end]
                    for array, end, size, scalar in zip(
                        arrays,
                        ends[batch],
                        ends[batch] - (ends[batch - 1] if batch else 0),
                        layout["scalar"],
                    )
                ]
                yield tf.nest.pack_sequence_as(layout["structure"], flat)


# Where a (distributed) iterator keeps the iterators it reads, and its resources.
def _value_of(variable):
    """A variable's value as NumPy (one device's copy of a distributed one)."""
    return tf.convert_to_tensor(variable).numpy()


def _read_h5(filepath):
    """Checkpoint name -> value of every dataset in a `save_weights` file."""
    stored = {}

    def read(name, item):
        if isinstance(item, h5py.Dataset):
            stored[name.replace(":", "/")] = item[()]

    with h5py.File(filepath, "r") as f:
        f.visititems(read)
    return stored
