"""The variables of one Estimator, created once and shared by every mode.

A TF1 `model_fn` creates its variables each time it is called: once per
`train()`, `evaluate()` and `predict()` in the original, each time in a fresh
graph, and they met again only through the checkpoint. Here the `model_fn` is
traced into a graph whose variables are lifted out of it, so the store hands a
variable that already exists back to every later call, keyed by the name TF1
graph mode would have given it. That name is also the checkpoint key.
"""

import collections
import contextlib
import contextvars
import threading

import keras
import numpy as np
import tensorflow as tf

from tfestimator_compat.engine.distributed import cluster
from tfestimator_compat.engine.internals import keras_internals
from tfestimator_compat.engine.internals import tensorflow_internals as tf_internals
from tfestimator_compat.engine.tracing.random_seeds import GraphSeeds
from tfestimator_compat.engine.variables import stored_tables
from tfestimator_compat.engine.variables import variable_initializers
from tfestimator_compat.engine.variables.identity_tables import WeakIdentityTable
from tfestimator_compat.engine.variables.initial_values import DeferredInitialValues

_GraphKeys = tf.compat.v1.GraphKeys
_LOCAL_COLLECTIONS = (_GraphKeys.LOCAL_VARIABLES, _GraphKeys.METRIC_VARIABLES)
# Keras 3 keeps random-op state in variables of this name; TF1 had none, so it
# is per-process state, never part of a checkpoint.
_KERAS_RNG_STATE = "seed_generator_state"
# The graph collection that lists the store's tables a traced graph uses.
TABLES = "tfestimator_compat_checkpointed_tables"
_CURRENT = contextvars.ContextVar("variable_store", default=None)


class VariableStore:
    """Owns the variables a `model_fn` creates, by their TF1 names.

    Global variables (weights, optimizer slots, `global_step`) are what a
    checkpoint holds. Local variables (v1 metric accumulators, Keras metric
    state) start from their initial value at every evaluation.

    Args:
        strategy: a `tf.distribute.Strategy` that owns the global variables
            (they are its distributed variables in every mode), or None.
        seed: `RunConfig.tf_random_seed`: the graph seed of the model_fn's
            traces and of the variables' initial values (see `random_seeds`).
    """

    def __init__(self, strategy=None, seed=None):
        self._strategy = strategy
        self.seeds = GraphSeeds(seed)
        self._deferred = DeferredInitialValues(self.seeds)
        self._op_seeds_taken = {}  # key -> how many op seeds its initializer took
        self._variables = {}
        self._local_initial_values = {}
        self._tables = {}

    @property
    def on_parameter_servers(self) -> bool:
        """Whether the variables live on a parameter-server cluster's `ps` tasks."""
        return cluster.is_ps_strategy(self._strategy)

    @contextlib.contextmanager
    def scope(self):
        """Routes variable creation in the current graph through the store.

        Also gives Keras layers built inside the scope the auto-names a fresh
        TF1 graph gave them (`dense`, `dense_1`, ...), as the original called
        the `model_fn` in a new graph each time.
        """
        created_here = set()
        tables_here = set()

        def unique_table(name):
            name = _unique(name, tables_here)
            tables_here.add(name)
            return name

        def creator(next_creator, **kwargs):
            if _remaking.active:
                # The strategy's own variable, made by `_create` below.
                return next_creator(**kwargs)
            name = _unique(_tf1_name(kwargs), created_here)
            created_here.add(name)
            key = _store_key(name, kwargs)
            variable = self._variables.get(key)
            if variable is None:
                variable = self._create(next_creator, name, kwargs, key)
            else:
                # The original made its initializer again in each call's graph,
                # where it took op seeds as it did the first time.
                self.seeds.skip_op_seeds(self._op_seeds_taken.get(key, 0))
            _add_to_collections(variable, kwargs, self.is_local(key))
            return variable

        uids = keras_internals.name_uids()
        keras_internals.set_name_uids(collections.defaultdict(int))
        token = _CURRENT.set(self)
        try:
            with tf.variable_creator_scope(creator), stored_tables.kept_in(self, unique_table):
                yield
        except BaseException:
            self._initialize_deferred(failing=True)
            raise
        else:
            self._initialize_deferred()
        finally:
            _CURRENT.reset(token)
            keras_internals.set_name_uids(uids)

    def _initialize_deferred(self, failing=False):
        """Gives the variables created holding zeros their initial values
        (`initial_values`). If that fails, they leave the store: a later trace
        makes them again. `failing`: the scope is ending with an error, which
        is the one to raise."""
        try:
            keys = self._deferred.compute()
        except Exception:
            for key in self._deferred.discard():
                self._variables.pop(key, None)
                self._local_initial_values.pop(key, None)
            if failing:
                return
            raise
        # Called where the trace's graph is the default: the values are read eagerly.
        with tf.init_scope():
            for key in keys:
                if key in self._local_initial_values:
                    self._local_initial_values[key] = np.array(self._variables[key].numpy())

    def table(self, name, make, checkpoint=True):
        """The store's lookup table `name`, made by `make()` the first time.

        A TF1 table made in a `model_fn` lived as long as its Session, and one
        made with `checkpoint=True` was saved with the variables (as
        `<name>-keys` and `<name>-values`). Made in a trace, it would live for
        one step function call; this one is made eagerly, kept with the
        variables (so every later trace gets it back), and, with `checkpoint`,
        listed in the current graph under `TABLES`, so the graph's checkpoints
        include it.
        """
        if name not in self._tables:
            with tf.init_scope():
                self._tables[name] = make()
        table = self._tables[name]
        graph = tf.compat.v1.get_default_graph()
        if checkpoint and name not in graph.get_collection(TABLES):
            graph.add_to_collection(TABLES, name)
        return table

    def tables_of(self, names):
        """Name -> table for the store's tables among `names` (a graph's `TABLES`)."""
        return {name: self._tables[name] for name in names if name in self._tables}

    def _create(self, next_creator, name, kwargs, key):
        """Makes the store's variable `key` when a trace first asks for it:
        eagerly, its initializer taking the op seeds the original's took."""
        initial_value = _static_initial_value(name, kwargs["initial_value"])
        placed = _ps_task_asked_for()
        # The initializer takes the op seeds the trace's next random op would.
        first_op_seed = end_op_seed = self.seeds.next_op_seed()
        with tf.init_scope():
            recipe = initializer = initial_value
            deferred = callable(initial_value) and DeferredInitialValues.can_defer(kwargs)
            if deferred:
                initial_value = DeferredInitialValues.stand_in(kwargs)
            elif callable(initial_value):
                # It may read earlier variables: they get their values first.
                self._initialize_deferred()
                initial_value, end_op_seed, recipe = self.seeds.initial_value(
                    name, initial_value, first_op_seed
                )
            created = dict(kwargs, initial_value=initial_value, name=name + "/")
            variable = self._new_variable(next_creator, name, created, placed)
            copies = per_device_copies(variable)
            if deferred:
                end_op_seed = self._deferred.add(key, name, initializer, copies, first_op_seed)
                recipe = self.seeds.recipe(name, initializer, first_op_seed)
            variable_initializers.remember_initial_value(variable, recipe, copies)
            if _is_local(name, kwargs):
                # Its value once it has it (`_initialize_deferred`).
                self._local_initial_values[key] = None if deferred else np.array(variable.numpy())
        self._op_seeds_taken[key] = end_op_seed - first_op_seed
        self.seeds.skip_op_seeds(end_op_seed - first_op_seed)
        self._variables[key] = variable
        return variable

    def _new_variable(self, next_creator, name, created, placed):
        """The variable made from `created` (the creator's kwargs with its initial
        value), under the strategy where `_needs_strategy_scope` says so (on the
        `ps` task `placed` asked for), as traces see it."""
        if self._needs_strategy_scope(name, created):
            _remaking.active = True
            try:
                with self._strategy.scope(), _placed_on(placed):
                    variable = _unwrapped(tf.Variable(**_variable_args(created)))
            finally:
                _remaking.active = False
        else:
            variable = next_creator(**created)
        return _seen_from_traces(variable, name)

    def _needs_strategy_scope(self, name, kwargs):
        """Whether a global variable is made outside the strategy (a mode that does
        not replicate the model_fn) and must be made under it all the same."""
        return (
            self._strategy is not None
            and not tf.distribute.has_strategy()
            and not _is_local(name, kwargs)
        )

    def is_local(self, name):
        return name in self._local_initial_values

    def mark_local(self, variables):
        """Makes `variables` evaluation state: reset per call, never saved."""
        self._initialize_deferred()
        names = {id(v): n for n, v in self._variables.items()}
        for variable in variables:
            name = names.get(id(_tf_variable(variable)))
            if name is not None and not self.is_local(name):
                with tf.init_scope():
                    self._local_initial_values[name] = np.array(self._variables[name].numpy())

    def reset_local_variables(self):
        # A variable made in a scope still open (a hook's in-memory evaluation
        # during `train()`) may still hold its stand-in zeros: since Keras 3.16
        # passes `shape` to `tf.Variable`, Keras metric state is deferred too.
        self._initialize_deferred()
        for name, value in self._local_initial_values.items():
            self._variables[name].assign(value)

    def get(self, name):
        return self._variables.get(name)

    def global_variables(self):
        """Name -> variable for everything a checkpoint holds, sorted by name."""
        return {
            name: self._variables[name]
            for name in sorted(self._variables)
            if not self.is_local(name)
        }

    def names_of(self, variables):
        """The store names of `variables`, in order; unknown ones are skipped."""
        names = {id(v): n for n, v in self._variables.items()}
        found = (names.get(id(_tf_variable(v))) for v in variables)
        return [name for name in found if name is not None]


@contextlib.contextmanager
def tf1_names_in_graph():
    """Names variables made in a plain `tf.Graph` as the original's fresh graph did.

    TF1 graph mode names `get_variable`, `tf.Variable` and v1 metrics itself. A
    Keras 3 layer's variables would come out under its uniquified call scope
    (`dense_1_1/kernel`) and after Keras's process-wide auto-names (`dense_6`);
    here they take the layer's path as Keras 2 did (`dense_1/kernel`), with
    auto-names counted from this graph on, so they match the checkpoint's keys.
    A TF2 `tf.Variable` drops `collections=`; the variable goes where it asked.
    """
    taken = set()

    def creator(next_creator, **kwargs):
        if _keras_name_scopes():
            name = _unique(_tf1_name(kwargs), taken)
            taken.add(name)
            kwargs = dict(kwargs, name=name + "/")
        variable = next_creator(**kwargs)
        if kwargs.get("collections") is not None:
            _in_collections_asked_for(variable, kwargs)
        return variable

    uids = keras_internals.name_uids()
    keras_internals.set_name_uids(collections.defaultdict(int))
    try:
        with tf.variable_creator_scope(creator):
            yield
    finally:
        keras_internals.set_name_uids(uids)


def _in_collections_asked_for(variable, kwargs):
    """Puts a graph variable in the `collections` it asked for, and only there."""
    graph = tf.compat.v1.get_default_graph()
    wanted = list(kwargs["collections"])
    if _is_trainable(kwargs) and _GraphKeys.GLOBAL_VARIABLES in wanted:
        wanted.append(_GraphKeys.TRAINABLE_VARIABLES)
    for key in (_GraphKeys.GLOBAL_VARIABLES, _GraphKeys.TRAINABLE_VARIABLES):
        if key not in wanted:
            listed = graph.get_collection_ref(key)
            listed[:] = [v for v in listed if v is not variable]
    _add_to_collections(variable, kwargs, local=_GraphKeys.GLOBAL_VARIABLES not in wanted)


def is_table(entry) -> bool:
    """Whether a checkpointed entry is one of the store's tables, not a variable."""
    return isinstance(entry, tf_internals.LookupInterface)


def current():
    """The store whose `scope()` is active (the model_fn being traced), or None."""
    return _CURRENT.get()


class _Remaking(threading.local):
    """Set while the store makes a variable again under its strategy: the
    creators around the model_fn already saw (and named) it once."""

    active = False


_remaking = _Remaking()


def remaking_under_strategy() -> bool:
    """Whether the variable being created is the store's variable made again under
    its strategy; creators that rename variables must then leave it alone."""
    return _remaking.active


_VARIABLE_ARGS = (
    "initial_value",
    "trainable",
    "validate_shape",
    "caching_device",
    "name",
    "dtype",
    "constraint",
    "synchronization",
    "aggregation",
    "shape",
)


def _variable_args(kwargs):
    """The creator's arguments that `tf.Variable` takes."""
    return {key: kwargs[key] for key in _VARIABLE_ARGS if kwargs.get(key) is not None}


def _static_initial_value(name, initial_value):
    """`initial_value`, a constant where the model_fn passed a tensor: a value
    computed in its graph cannot initialize a variable made outside it."""
    if not tf.is_tensor(initial_value) or tf.executing_eagerly():
        return initial_value
    value = tf.get_static_value(initial_value)
    if value is None:
        raise ValueError(
            f"Variable {name!r} is initialized from a tensor computed in "
            "the model_fn. Pass an initializer or a callable instead, e.g. "
            "tf.compat.v1.get_variable(name, initializer=...)."
        )
    return value


class _Device(collections.namedtuple("_Device", ["device", "name"])):
    """What a strategy's `colocate_with` takes: something with a device."""


def _ps_task_asked_for():
    """The ps task's device a variable is asked to live on, or None.

    A TF1 optimizer makes its slots (and Adam its beta powers) eagerly, in
    `colocate_with(primary)`, which there is a device scope of the primary's
    device. A parameter-server strategy places variables round robin unless
    told to colocate, so without this a slot lands on another task than its
    variable and the update op cannot be placed.
    """
    if not tf.executing_eagerly():
        return None
    device = tf_internals.eager_device_name() or ""
    return _Device(device, device) if "/job:ps/" in device else None


@contextlib.contextmanager
def _placed_on(device):
    """Makes the strategy create the variables made inside on `device` (a `_Device`)."""
    if device is None:
        yield
        return

    def creator(next_creator, **kwargs):
        return next_creator(**dict(kwargs, colocate_with=device))

    with tf.variable_creator_scope(creator):
        yield


def _unwrapped(variable):
    """The variable a parameter-server strategy placed, without its wrappers.

    `ParameterServerStrategy` hands out its variables wrapped (a cache of
    reads for the coordinator, an aggregation for replicas): the model_fn
    runs once and TF1 code (partitioned variables' slots) needs the
    variable itself.
    """
    while isinstance(variable, (tf_internals.CachingVariable, tf_internals.AggregatingVariable)):
        variable = variable.get()
    return variable


def per_device_copies(variable) -> list:
    """The per-device variables behind a `tf.distribute` variable, or `[variable]`."""
    values = getattr(variable, "values", None)
    return list(values) if isinstance(values, tuple) else [variable]


def _tf_variable(variable):
    """The `tf.Variable` behind a Keras variable, or the variable itself."""
    return (
        keras_internals.backing_variable(variable)
        if isinstance(variable, keras.Variable)
        else variable
    )


class _OpName:
    """What `variable.op` gives TF1 code, which reads its name (and a graph,
    that v1 optimizers pair with the name to key a variable's slots)."""

    type = "VarHandleOp"
    graph = None

    def __init__(self, name):
        self.name = name


_SEEN_FROM_TRACES = {}
# The store's variable -> the name TF1 graph mode gave it (`_seen_from_traces`).
_TF1_NAMES = WeakIdentityTable()


def tf1_name(variable):
    """The name TF1 graph mode gave the store's `variable` (its checkpoint key), or
    None for a variable the store did not make."""
    return _TF1_NAMES.get(variable)


def _seen_from_traces(variable, name):
    """Lets TF1 code treat the store's eager variable as part of the traced graph.

    TF1 hooks accept a fetch only if its `.graph` is the current graph
    (`LoggingTensorHook({"w": w})`), and they name things after the global
    step's op (`StepCounterHook` writes `global_step/sec`). The variable's
    class becomes a subclass that answers `.graph` with the graph being
    traced, and `.op` with an object carrying its name: for the global step
    in a trace, and always for the parts of a partitioned variable (TF1
    optimizers name a part's slot after its op, under `init_scope`); other
    variables keep having no `.op`. Its initializer is an op of the graph being
    traced (`variable_initializers`). Eagerly, everything behaves as before.
    """
    base = type(variable)
    if base not in _SEEN_FROM_TRACES:

        def graph(self):
            if tf.executing_eagerly():
                return base.graph.__get__(self)
            return tf.compat.v1.get_default_graph()

        def op(self):
            if tf_internals.save_slice_info(self) or (
                tf1_name(self) == tf.compat.v1.GraphKeys.GLOBAL_STEP and not tf.executing_eagerly()
            ):
                return _OpName(tf1_name(self))
            return base.op.__get__(self)

        members = {
            "graph": property(graph),
            "op": property(op),
            **variable_initializers.graph_mode_members(base, tf1_name),
        }
        _SEEN_FROM_TRACES[base] = type(base.__name__, (base,), members)
    variable.__class__ = _SEEN_FROM_TRACES[base]
    _TF1_NAMES[variable] = name
    return variable


def _keras_name_scopes():
    stack = keras_internals.name_scope_stack() or []
    return [scope.name for scope in stack]


def _tf1_name(kwargs):
    """The name TF1 graph mode would have given this variable.

    `get_variable` passes its full variable-scope name; `tf.Variable` and v1
    metrics pass a short name under the current name scope. Keras 3 layers enter
    their name scope more than once, so TF uniquifies it (`dense_1_1`); the
    layer's own path (`dense_1`) is what Keras 2 in TF1 graph mode used.
    """
    requested = kwargs.get("name") or "Variable"
    if requested.endswith("/"):
        # A trailing slash names the variable in full (v1 optimizer slots do this).
        return requested.rstrip("/")
    name = requested
    scope = tf.compat.v1.get_default_graph().get_name_scope()
    parts = scope.split("/") if scope else []
    keras_scopes = _keras_name_scopes()
    if keras_scopes:
        parts = parts[: max(0, len(parts) - len(keras_scopes))] + keras_scopes
    return "/".join(parts + [name])


def _unique(name, taken):
    """TF1 graphs suffixed a repeated variable name with `_1`, `_2`, ..."""
    if name not in taken:
        return name
    index = 1
    while f"{name}_{index}" in taken:
        index += 1
    return f"{name}_{index}"


def _store_key(name, kwargs):
    """The key of a variable in the store: its TF1 name, but for a local variable
    made in a replicated trace, which is per replica and so cannot serve a mode
    that runs on one device (a metric a model_fn makes in every mode, with only
    `train_distribute` set). Local variables are never saved, so the key is free."""
    if _is_local(name, kwargs) and tf.distribute.has_strategy():
        return f"{name}@replicated"
    return name


def _is_local(name, kwargs):
    collections_ = kwargs.get("collections") or ()
    return (
        any(key in collections_ for key in _LOCAL_COLLECTIONS)
        or is_rng_state(name)
        or _is_keras_metric_state(kwargs)
    )


def _is_keras_metric_state(kwargs):
    """Whether a variable is a Keras metric's: untrained, synchronized on read,
    made by `tf.Variable` (which takes no collections) or in no collection.

    Keras 2 made metric variables in no collection, so the original's Saver
    left them out (whether the spec returned the metric or not) and each
    evaluation started them afresh.
    """
    return (
        kwargs.get("collections", []) == []
        and kwargs.get("synchronization") == tf.VariableSynchronization.ON_READ
        and not kwargs.get("trainable")
    )


def is_rng_state(name):
    """Whether the store's variable `name` is Keras 3's random-op state, which TF1 had not."""
    return name.endswith(_KERAS_RNG_STATE)


def _is_trainable(kwargs):
    trainable = kwargs.get("trainable")
    if trainable is None:
        return kwargs.get("synchronization") != tf.VariableSynchronization.ON_READ
    return bool(trainable)


def _add_to_collections(variable, kwargs, local):
    """Adds `variable` to the current graph's collections, once.

    v1 optimizers find what to train in `TRAINABLE_VARIABLES`, and
    `get_global_step()` looks in `GLOBAL_STEP`: a variable handed back from the
    store never ran the constructor that would have added it.
    """
    graph = tf.compat.v1.get_default_graph()
    if _is_keras_metric_state(kwargs):
        return  # in no collection, as Keras 2 made it; a spec returning it lists it
    keys = list(kwargs.get("collections") or [_GraphKeys.GLOBAL_VARIABLES])
    if _is_trainable(kwargs) and not local and _GraphKeys.TRAINABLE_VARIABLES not in keys:
        keys.append(_GraphKeys.TRAINABLE_VARIABLES)
    for key in keys:
        if not any(existing is variable for existing in graph.get_collection(key)):
            graph.add_to_collection(key, variable)
