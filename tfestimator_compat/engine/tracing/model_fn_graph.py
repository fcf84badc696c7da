"""Runs a TF1-style `model_fn` once, in a TF1-style graph, for one mode.

The original called the `model_fn` in a fresh `tf.Graph` per `train()`,
`evaluate()` and `predict()`, then ran that graph in a Session. Here the
`model_fn` is traced by `tf.compat.v1.wrap_function`: a graph where
placeholders, collections, `get_variable`, v1 optimizers and v1 metrics behave
as they did, while its variables live in the Estimator's `VariableStore`.
`function(fetches)` prunes that graph to a concrete function of the input
batch, as a Session run of those fetches did: only what the fetches need runs,
so the Keras step functions can call it like any TF2 function.
"""

import contextlib
import inspect

import tensorflow as tf

from tfestimator_compat.engine import keras_flavours
from tfestimator_compat.engine import logs
from tfestimator_compat.engine.distributed import distribution
from tfestimator_compat.engine.inputs.input_structure import flat_tensors
from tfestimator_compat.engine.inputs.input_structure import leaves
from tfestimator_compat.engine.inputs.input_structure import map_leaves
from tfestimator_compat.engine.internals import tensorflow_internals as tf_internals
from tfestimator_compat.engine.tracing import fn_args
from tfestimator_compat.engine.tracing import graph_pruning
from tfestimator_compat.engine.tracing import keras_optimizers_in_graph as keras_optimizers
from tfestimator_compat.engine.tracing import random_ops
from tfestimator_compat.engine.tracing.tensor_semantics import tf1_tensor_semantics
from tfestimator_compat.engine.variables import variable_writes
from tfestimator_compat.mode_keys import ModeKeys
from tfestimator_compat.spec import EstimatorSpec

_READ_OPS = frozenset({"ReadVariableOp", "ResourceGather"})


def placeholders_for(spec):
    """Graph placeholders shaped like a dataset element (unknown batch size kept)."""

    def placeholder(component):
        if isinstance(component, tf.SparseTensorSpec):
            return tf.compat.v1.sparse_placeholder(component.dtype, component.shape)
        if isinstance(component, tf.TensorSpec):
            return tf.compat.v1.placeholder(component.dtype, component.shape)
        raise TypeError(
            f"input_fn produced a {type(component).__name__}; features and labels "
            "must be Tensors, SparseTensors, or dicts of them."
        )

    return map_leaves(placeholder, spec, is_leaf=lambda x: isinstance(x, tf.TypeSpec))


def placeholder_inputs(features_spec, labels_spec):
    """`make_inputs` for batches of a dataset: placeholders of their specs."""

    def make_inputs():
        labels = None if labels_spec is None else placeholders_for(labels_spec)
        return placeholders_for(features_spec), labels

    return make_inputs


def call_model_fn(model_fn, features, labels, mode, params, config):
    """Calls `model_fn` in the current graph as the original did; returns its spec.

    The arguments it names are passed, v1 summaries, TF1 tensor semantics and
    Keras optimizers' `apply_gradients` behave as in TF1 graph mode, and what it
    returns is checked to be an `EstimatorSpec` for `mode` (a spec of mode None
    takes `mode`, as the original never read it).
    """
    kwargs = fn_args.model_fn_kwargs(model_fn, labels, mode, params, config)
    with logs.v1_summaries_written_by_the_estimator(), tf1_tensor_semantics():
        with keras_optimizers.tf1_apply_gradients():
            spec = model_fn(features=features, **kwargs)
    if inspect.isgenerator(spec) or not isinstance(spec, EstimatorSpec):
        raise ValueError(f"model_fn should return an EstimatorSpec. Given: {type(spec).__name__}")
    if spec.mode is None:
        spec = EstimatorSpec(**dict(spec._asdict(), mode=mode))
    if spec.mode != mode:
        raise ValueError(
            f"model_fn returned an EstimatorSpec for mode {spec.mode!r} when "
            f"called with mode {mode!r}."
        )
    return spec


class ModelFnGraph:
    """The graph of one `model_fn` call in `mode`, and functions pruned from it.

    Args:
        model_fn: the user's `model_fn`.
        mode: a `ModeKeys` value.
        make_inputs: called inside the graph; returns `(features, labels)`
            (labels may be None): placeholders shaped like the input batches
            (`placeholder_inputs`), or what a serving receiver builds.
        store: the `VariableStore` that owns the variables.
        params: the Estimator's params (passed when the model_fn names them).
        config: the Estimator's `RunConfig`.
        strategy: a `tf.distribute.Strategy` to call the model_fn once per
            replica under (see `distribution`), or None for one call. The
            inputs are then one batch per replica, in replica order.
        first_op_seed: the op seed the graph's first random op takes: the
            input_fn's took the ones before, in the original's graph
            (`random_seeds`).
        restartable_random_ops: whether seeded random ops draw from counters
            that `random_ops.restart()` sets back at each call, as from the
            original's fresh Session (`random_ops`); an export leaves them
            stateful, as the original's SavedModel had them.
    """

    def __init__(
        self,
        model_fn,
        mode,
        make_inputs,
        store,
        params,
        config,
        strategy=None,
        first_op_seed=0,
        restartable_random_ops=False,
    ):
        self.mode = mode
        self._restartable_random_ops = restartable_random_ops
        self.random_ops = random_ops.RandomOpCounters()
        self._first_op_seed = first_op_seed
        self._model_fn = model_fn
        self._make_inputs = make_inputs
        self._store = store
        self._resources = tf_internals.ResourceTracker()
        self._params = params
        self._config = config
        self._strategy = strategy
        self.num_replicas = distribution.num_replicas(strategy)
        self._ops_when_reads_were_ordered = 0
        self._train_ops = []
        self._batch_free_train_op = None
        with strategy.scope() if strategy is not None else contextlib.nullcontext():
            self._wrapped = tf.compat.v1.wrap_function(self._build, signature=[])
        self._functions = {}
        self._fetchables = {}
        self._graph_defs = graph_pruning.GraphDefCache(self.graph)

    @property
    def graph(self):
        return self._wrapped.graph

    @property
    def resources(self):
        """Resources the model_fn created (lookup tables), which an export must track."""
        return list(self._resources.resources)

    def _build(self):
        with self._store.seeds.tracing(self._first_op_seed):
            self._build_seeded()

    def _build_seeded(self):
        graph = tf.compat.v1.get_default_graph()
        replica_inputs = [self._make_inputs() for _ in range(self.num_replicas)]
        self.features, self.labels = replica_inputs[0]
        # The batch as the model_fn got it, before it could change the dicts.
        self.batch_leaves = (leaves(self.features), leaves(self.labels))
        self._feeds = [t for inputs in replica_inputs for t in self.flat_inputs(*inputs)]
        with self._store.scope(), tf_internals.resource_tracker_scope(self._resources):
            self.global_step = tf.compat.v1.train.get_or_create_global_step()
            if self._strategy is None:
                spec = self._call_model_fn(*replica_inputs[0])
            else:
                spec = distribution.call_for_each_replica(
                    self._strategy, self._call_model_fn, replica_inputs
                )
            if self._restartable_random_ops:
                spec = self._make_random_ops_restartable(graph, spec)
            self.metric_values, updates = self._split_metrics(spec)
            self.metric_update_op = tf.group(*updates, name="metric_updates")
            self.summary_op = self._summary_op(spec)
            train_op = getattr(spec, "train_op", None)
            self._train_ops = [_as_op(train_op)] if train_op is not None else []
            self._add_global_step_read()
            self._initialize_tables_before_use(graph)
            self.initializer_overrides = self._initializer_overrides(graph)
        self.spec = spec
        self.collections = {
            key: graph.get_collection(key) for key in graph.get_all_collection_keys()
        }

    def _make_random_ops_restartable(self, graph, spec):
        """Gives the seeded random ops counters that each call restarts
        (`random_ops`); returns `spec` with the outputs it names of replaced ops
        swapped for their twins'."""
        self.random_ops = random_ops.make_restartable(graph)
        return spec._replace(
            predictions=self.random_ops.substitute(spec.predictions),
            loss=self.random_ops.substitute(spec.loss),
        )

    def _call_model_fn(self, features, labels):
        return call_model_fn(
            self._model_fn, features, labels, self.mode, self._params, self._config
        )

    def _initializer_overrides(self, graph):
        """Ops the model_fn made to initialize variables from a checkpoint, grouped.

        `tf.compat.v1.train.init_from_checkpoint` replaces a variable's
        initializer with a restore op; in the original it ran only when the
        model started without a checkpoint of its own. None when there are none.
        """
        overrides = [
            tf_internals.variable_initializer_op(variable)
            for variable in graph.get_collection(tf.compat.v1.GraphKeys.GLOBAL_VARIABLES)
            if isinstance(tf_internals.variable_initializer_op(variable), tf.Operation)
            and tf_internals.variable_initializer_op(variable).graph is graph
        ]
        return tf.group(*overrides, name="init_from_checkpoint") if overrides else None

    def _add_global_step_read(self):
        """The global step as hooks read it: its value when the step started.

        TF1 hooks fetch `training_util`'s global-step read tensor. It is created
        here, ordered before every op that advances the global step, so a hook
        that fetches it sees the step the run started at, as in the original.
        """
        with tf.name_scope("global_step/"):
            read = tf.identity(self.global_step.read_value(), name="read_for_hooks")
        tf.compat.v1.add_to_collection(tf_internals.GLOBAL_STEP_READ_KEY, read)
        self.global_step_read = read
        self._order_variable_reads()

    def _order_variable_reads(self):
        """Makes every read of a variable run before the ops that update it.

        A TF1 graph orders only what data or control dependencies order, and
        a read with neither towards an update (a summary of a bias, a
        host_call's `tf.reshape(global_step, [1])`, a logged
        `tf.identity(global_step)`) could run before or after the train op's
        update of the same variable: in a Session run it was ready first and
        so mostly saw the value from before the step, and under load sometimes
        the next one, so summaries came out with repeated and missing steps.
        Each read that does not already wait for an update is put before the
        updates of its variable, so all of them see the value the step started
        with. Reads the model_fn ordered after the train op (through
        `tf.control_dependencies`) keep that order.
        """
        graph = tf.compat.v1.get_default_graph()
        ops = graph.get_operations()
        if len(ops) == self._ops_when_reads_were_ordered:
            return  # no op was added since the last pass: every read is ordered
        self._ops_when_reads_were_ordered = len(ops)
        handles = {id(inner) for _, inner in graph.captures}
        global_step = {id(h) for h in variable_writes.internal_handles([self.global_step], graph)}
        # The step's updates: what the train op runs, and the global step's.
        # Other writes (init_from_checkpoint's restores, hooks' own assigns)
        # keep their order, or a restore would wait for the step's input.
        in_step = _upstream(self._train_ops)
        reads, writes = {}, {}
        for op in ops:
            if variable_writes.uses(op, handles, _READ_OPS):
                reads.setdefault(id(op.inputs[0]), []).append(op)
            for handle in _written_handles(op):
                if id(handle) in handles and (op in in_step or id(handle) in global_step):
                    writes.setdefault(id(handle), []).append(op)
        if not writes:
            return
        after_writes = _downstream([w for ws in writes.values() for w in ws])
        for handle, handle_writes in writes.items():
            for read in reads.get(handle, ()):
                if read in after_writes:
                    continue
                for write in handle_writes:
                    if read not in write.control_inputs:
                        tf_internals.add_control_input(write, read)

    def _initialize_tables_before_use(self, graph):
        """Makes every use of a TF1 lookup table wait for the table's initializer.

        The original ran `tf.compat.v1.tables_initializer()` once per Session.
        Here a table made in the model_fn lives as long as one function call,
        so its initializer runs in every call that uses it, before the use
        (initializing a table again with the same data is allowed).
        """
        initializers = {}
        for init in graph.get_collection(tf.compat.v1.GraphKeys.TABLE_INITIALIZERS):
            # Tables created outside the graph (TF2 feature columns) list None here.
            if isinstance(init, tf.Operation) and init.inputs:
                initializers.setdefault(init.inputs[0].op, []).append(init)
        if not initializers:
            return
        initializer_ops = {init for inits in initializers.values() for init in inits}
        for op in graph.get_operations():
            if op in initializer_ops or not op.inputs:
                continue
            for init in initializers.get(op.inputs[0].op, ()):
                tf_internals.add_control_input(op, init)

    def _summary_op(self, spec):
        """The summaries a training run writes: the scaffold's, or all of them
        with the `loss` scalar the original added unless one exists."""
        if self.mode != ModeKeys.TRAIN:
            return None
        if spec.scaffold.summary_op is not None:
            return spec.scaffold.summary_op
        summaries = tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.SUMMARIES)
        if not any(_is_loss_summary(summary) for summary in summaries):
            with logs.v1_summaries_written_by_the_estimator():
                tf.compat.v1.summary.scalar("loss", spec.loss)
        return tf.compat.v1.summary.merge_all()

    def _split_metrics(self, spec):
        """Metric name -> value tensor, and the ops that update all metrics.

        v1 metrics come as `(value, update_op)`; for a Keras `Metric` the value
        is `result()` and the updates are the ops that write its variables,
        which are local to each evaluation.
        """
        values, updates = {}, []
        if self.mode != ModeKeys.EVAL:
            return values, updates
        for name, metric in spec.eval_metric_ops.items():
            if keras_flavours.is_metric(metric):
                # The spec checked that the model_fn updates it.
                self._store.mark_local(metric.variables)
                values[name] = metric.result()
                updates.extend(variable_writes.ops_writing(metric.variables))
            else:
                value, update = metric
                values[name] = value
                updates.append(update)
        return values, updates

    def batch_free_train_function(self):
        """A function running the train op's ops that need no input batch, or None.

        When the input ran out, the original's last `session.run` of the train
        op failed at the read of the batch, but ops the batch did not feed had
        already run: a global step advanced by an `assign_add` of its own (as
        KMeans's and many model_fns' were) ended one past the batches read.
        Run at the end of the input, this does what that last run did.
        """
        if not self._train_ops or self._strategy is not None:
            return None
        if self._batch_free_train_op is None:
            fed_by_batch = _downstream([feed.op for feed in self._feeds])
            free = _upstream(self._train_ops) - fed_by_batch
            writes = [op for op in free if _written_handles(op)]
            with self.graph.as_default():
                self._batch_free_train_op = tf.group(*writes, name="batch_free_train_ops")
        if not self._batch_free_train_op.control_inputs:
            return None
        return self.value_function(self._batch_free_train_op)

    def variables_written_by(self, op, variables):
        """Those of `variables` that running `op` (a Scaffold's init op) writes.

        Everything `op` waits for runs with it: its inputs and control inputs,
        transitively.
        """
        internal = {id(v): variable_writes.internal_handles([v], self.graph) for v in variables}
        written = set()
        # A tensor, or what `var.assign` returns, stands for the op that makes it.
        pending, seen = [op if isinstance(op, tf.Operation) else op.op], set()
        while pending:
            current = pending.pop()
            if current in seen:
                continue
            seen.add(current)
            written.update(
                key
                for key, handles in internal.items()
                if variable_writes.uses(current, handles, variable_writes.WRITE_OPS)
            )
            pending.extend(current.control_inputs)
            pending.extend(tensor.op for tensor in current.inputs)
        return [v for v in variables if id(v) in written]

    @contextlib.contextmanager
    def extending(self):
        """The graph as default, for code that adds to it after the model_fn
        (hooks' `begin`); variables it makes go to the store too."""
        with self.graph.as_default(), self._store.scope():
            yield

    def fetchable(self, fetches):
        """`fetches` (tensors, ops, variables or graph names) as tensors of this graph.

        An op becomes a tensor that depends on it, and a variable a read of it,
        so any structure a Session could run can be fetched from a function.
        """

        def as_tensor(fetch):
            key = fetch if isinstance(fetch, str) else id(fetch)
            if key not in self._fetchables:
                self._fetchables[key] = (fetch, make_tensor(fetch))
            return self._fetchables[key][1]

        def make_tensor(fetch):
            if isinstance(fetch, str):
                fetch = self.graph.as_graph_element(fetch)
            with self.graph.as_default():
                if isinstance(fetch, tf.Operation):
                    with tf.control_dependencies([fetch]):
                        return tf.constant(0)
                if isinstance(fetch, tf.Variable) or hasattr(fetch, "path"):
                    return tf.identity(fetch)
            return fetch

        return tf.nest.map_structure(as_tensor, _session_structure(fetches))

    def results(self, fetches, outputs):
        """Fetched values as `session.run` returned them: numpy, None for ops."""

        def result(fetch, output):
            if isinstance(fetch, str):
                fetch = self.graph.as_graph_element(fetch)
            if isinstance(fetch, tf.Operation):
                return None
            return output.numpy() if hasattr(output, "numpy") else output

        structure = _session_structure(fetches)
        values = tf.nest.map_structure(result, structure, outputs, check_types=False)
        with tf1_tensor_semantics():
            return _restore_keys(fetches, values)

    def function(self, fetches, feeds=None, gated=None):
        """A function that runs and returns `fetches`, as a Session run did.

        It takes the flat input batch, or `feeds` (a list of tensors of this
        graph) when given. `fetches` is a nested structure of tensors and ops
        (ops come back as None). With `gated` (a structure of tensors fetched
        on some steps only) it takes a boolean first and returns
        `(fetches, gated)`, the gated ones computed only when it is True (see
        `graph_pruning.prune`). Functions are cached by the objects involved.
        """
        feeds = self._feeds if feeds is None else list(feeds)
        key = cache_key((feeds, fetches, gated))
        if key not in self._functions:
            # Hooks read tensors of their own after the model_fn (a
            # LoggingTensorHook given the global step variable): order those too.
            with self.graph.as_default():
                self._order_variable_reads()
            # The fetches stay referenced so their ids stay unique.
            pruned = self._pruned(feeds, fetches, gated)
            self._functions[key] = (pruned, (feeds, fetches, gated))
        return self._functions[key][0]

    def _pruned(self, feeds, fetches, gated=None):
        """`prune`, also fed the values the graph captures anew at every call.

        Collective ops (the all-reduce of a distribution strategy) take a fresh
        instance key per call; the graph holds placeholders for those, filled
        by closures that `prune` does not know about.
        """
        deferred = list(self.graph.deferred_internal_captures)
        pruned = graph_pruning.prune(
            self._wrapped, feeds + deferred, fetches, self._graph_defs, gated=gated
        )
        if not deferred:
            return pruned
        closures = list(self.graph.deferred_external_captures)

        def call(*inputs):
            captured = tf.nest.flatten([closure() for closure in closures])
            return pruned(*inputs, *captured)

        return call

    def value_function(self, fetches):
        """A function of no input that evaluates `fetches` from variables alone."""
        return self.function(fetches, feeds=[])

    def flat_inputs(self, features, labels=None):
        """The batch as the flat list of tensors the pruned functions take."""
        return flat_tensors(features, labels)


def cache_key(structure):
    """A key for functions made for `structure`: the objects in it and where they are.

    Two fetch dicts holding the same tensors under different names need
    different functions, as the outputs are named after the fetches.
    """
    objects = tuple(id(x) for x in tf.nest.flatten(structure))
    return objects, repr(tf.nest.map_structure(lambda _: None, structure))


def _written_handles(op):
    """The variable handles `op` updates: an assignment's variable, or every
    resource an optimizer's apply op takes (the variable and its slots)."""
    if op.type in variable_writes.WRITE_OPS:
        return op.inputs[:1]
    if op.type.startswith(("ResourceApply", "ResourceSparseApply")):
        return [t for t in op.inputs if t.dtype == tf.resource]
    return []


def _as_op(fetch):
    return fetch if isinstance(fetch, tf.Operation) else fetch.op


def _upstream(ops):
    """`ops` and every op they wait for, through data or control edges."""
    return _reachable(ops, lambda op: [t.op for t in op.inputs] + list(op.control_inputs))


def _downstream(ops):
    """`ops` and every op that waits for one of them, through data or control edges."""

    def consumers(op):
        outputs = [c for output in op.outputs for c in output.consumers()]
        return outputs + tf_internals.control_outputs(op)

    return _reachable(ops, consumers)


def _reachable(ops, neighbours):
    seen, pending = set(), list(ops)
    while pending:
        op = pending.pop()
        if op in seen:
            continue
        seen.add(op)
        pending.extend(neighbours(op))
    return seen


def _session_structure(fetches):
    """`fetches` as `tf.nest` can take them, where a Session accepted more.

    Lists become tuples (Keras step outputs must be tuples), and a dict keyed
    by tensors (`LoggingTensorHook([loss])` fetches one) becomes the tuple of
    its values in order; `_restore_keys` puts the keys back.
    """
    if isinstance(fetches, (list, tuple)) and not hasattr(fetches, "_fields"):
        return tuple(_session_structure(item) for item in fetches)
    if isinstance(fetches, dict):
        if not _keyed_by_graph_elements(fetches):
            return {key: _session_structure(value) for key, value in fetches.items()}
        return tuple(_session_structure(value) for value in fetches.values())
    return fetches


def _keyed_by_graph_elements(mapping):
    """Whether a dict has tensor (or op, variable) keys, which `tf.nest` cannot sort."""
    return any(isinstance(key, (tf.Tensor, tf.Operation, tf.Variable)) for key in mapping)


def _restore_keys(fetches, values):
    """`values`, shaped as `_session_structure(fetches)`, in the shape of `fetches`."""
    if isinstance(fetches, (list, tuple)) and not hasattr(fetches, "_fields"):
        return type(fetches)(_restore_keys(f, v) for f, v in zip(fetches, values))
    if isinstance(fetches, dict):
        if not _keyed_by_graph_elements(fetches):
            return type(fetches)((key, _restore_keys(f, values[key])) for key, f in fetches.items())
        pairs = zip(fetches.items(), values)
        return type(fetches)((key, _restore_keys(f, v)) for (key, f), v in pairs)
    return values


def _is_loss_summary(summary):
    """Whether `summary` already reports the loss: its op is named, or its tag is, `loss`."""
    if summary.op.name == "loss":
        return True
    return (
        summary.op.type == "ScalarSummary" and tf.get_static_value(summary.op.inputs[0]) == b"loss"
    )
