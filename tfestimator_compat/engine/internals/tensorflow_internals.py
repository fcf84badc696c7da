"""TensorFlow's Python internals (`tensorflow.python.*`) the package uses, each named for its use.

Module-level names are resolved when this module is imported (every module
named here is one `import tensorflow` has already loaded, so that costs no
time), and so are the private methods of TensorFlow's classes that the
functions below call, so a TensorFlow without one fails at
`import tfestimator_compat`. A private attribute that an object only gets when
it is made (an eager context's `_seed`, a Saver's `_var_list`) can only be
read when it is used: each is read by one function here, which says what the
package assumes of it. `tests/test_internals.py` checks them all.
"""

import contextlib
import sys

from tfestimator_compat.engine.internals.resolver import internal

_CONTEXT = "tensorflow.python.eager.context"
_DATASET_OPS = "tensorflow.python.data.ops.dataset_ops"
_EXPORT_OUTPUT = "tensorflow.python.saved_model.model_utils.export_output"
_EXPORT_UTILS = "tensorflow.python.saved_model.model_utils.export_utils"
_FC_V1 = "tensorflow.python.feature_column.feature_column"
_FC_V2 = "tensorflow.python.feature_column.feature_column_v2"
_FC_SEQUENCE = "tensorflow.python.feature_column.sequence_feature_column"
_LOOKUP_OPS = "tensorflow.python.ops.lookup_ops"
_OPS = "tensorflow.python.framework.ops"
_RESOURCE_VARIABLE_OPS = "tensorflow.python.ops.resource_variable_ops"
_STATELESS_RANDOM_OPS = "tensorflow.python.ops.gen_stateless_random_ops_v2"
_SUMMARY_OPS = "tensorflow.python.ops.summary_ops_v2"


def _check(module, *attributes):
    """Fails now, with `resolver`'s message, if a class of `module` lacks a private
    method the functions here call on its instances (called on the instance, not
    taken from the class, so a subclass's own version still runs)."""
    for attribute in attributes:
        internal(module, attribute)


# --- TensorFlow's generated API modules ---------------------------------------------


def loaded_compat_api_module(version):
    """TensorFlow's generated module behind `tf.compat.<version>` (`"v1"`, `"v2"`),
    `tensorflow._api.v2.compat.<version>`, once imported; None before. `tf.compat.v1`
    and `import tensorflow.compat.v1` may give it or a wrapper of it."""
    return sys.modules.get(f"tensorflow._api.v2.compat.{version}")


# --- Graphs and their ops -----------------------------------------------------------

_check(
    _OPS,
    "Graph._add_function",
    "Operation._add_control_input",
    "Operation._add_control_inputs",
    "Operation._remove_all_control_inputs",
    "Operation._update_input",
    "Operation._control_outputs",
    "Operation._is_stateful",
)


def graph_functions(graph):
    """The functions in `graph`'s library (`tf.cond` branches, `tf.while_loop` bodies,
    `tf.function`s it calls): a view of the values of its `_functions` dict, each
    with a `definition` (a `FunctionDef`) and an optional `cached_definition`."""
    return graph._functions.values()


def add_graph_function(graph, function):
    """Adds `function` (one of `graph_functions` of another graph) to `graph`'s library."""
    graph._add_function(function)


def control_outputs(op) -> list:
    """The ops that wait for `op` through a control edge."""
    return op._control_outputs


def add_control_input(op, control):
    """Makes `op` wait for the op `control`, once `op` exists (what
    `tf.control_dependencies` does only for ops made inside it)."""
    op._add_control_input(control)


def replace_control_inputs(op, controls):
    """Makes `op` wait for exactly the ops `controls`, instead of its control inputs."""
    op._remove_all_control_inputs()
    op._add_control_inputs(controls)


def update_input(op, index, tensor):
    """Makes `op` take `tensor` as its input `index`, in place of what it took."""
    op._update_input(index, tensor)


def is_stateful(op) -> bool:
    """Whether `op` (an op of a graph) holds state, by its op definition; a call of a
    function counts as stateful when any op of the function is."""
    return op._is_stateful


_import_graph_def_internal = internal(
    "tensorflow.python.framework.importer", "_import_graph_def_internal"
)


def import_graph_def_as_is(graph_def, input_map):
    """Imports the nodes of `graph_def` into the default graph with their own names
    (no prefix) and devices, not checking colocation (a node may come without the
    nodes it was colocated with); `input_map` maps input names to tensors, and
    `^name` to the op a control input is taken from. `tf.import_graph_def` can
    set none of that."""
    _import_graph_def_internal(
        graph_def,
        input_map=input_map,
        validate_colocation_constraints=False,
        name="",
        propagate_device_spec=True,
    )


# The shapes and dtypes a resource tensor (a variable's handle) carries for the
# ops that read it: `resource_handle_data(tensor)` gives them as a
# `HandleData` proto whose `shape_and_type` is empty when it carries none.
resource_handle_data = internal(_RESOURCE_VARIABLE_OPS, "get_resource_handle_data")
_set_handle_shapes_and_types = internal(_RESOURCE_VARIABLE_OPS, "_set_handle_shapes_and_types")


def set_resource_handle_data(tensor, handle_data):
    """Gives the resource tensor `tensor` of a graph the `handle_data` of another
    (a placeholder standing for a captured variable handle)."""
    _set_handle_shapes_and_types(tensor, handle_data, graph_mode=True)


# --- Function graphs and wrapped functions --------------------------------------------

# The graph of a `tf.function` or wrapped function: `FuncGraph(name)`, with
# `inputs`, `outputs`, `captures` and `add_capture` as `tf.function` uses them.
FuncGraph = internal("tensorflow.python.framework.func_graph", "FuncGraph")
# Traces a Python function into a `FuncGraph`; with `func_graph=` into that one.
func_graph_from_py_func = internal(
    "tensorflow.python.framework.func_graph", "func_graph_from_py_func"
)
# What `tf.compat.v1.wrap_function` returns: `WrappedFunction(func_graph,
# variable_holder, signature=None)`, callable with the graph's inputs.
WrappedFunction = internal("tensorflow.python.eager.wrap_function", "WrappedFunction")
# Keeps the variables a wrapped function's graph created; `VariableHolder()` holds none.
VariableHolder = internal("tensorflow.python.eager.wrap_function", "VariableHolder")


def variable_holder(wrapped):
    """The `VariableHolder` of the `WrappedFunction` `wrapped` (its graph's variables)."""
    return wrapped._variable_holder


def set_call_arguments(function, positional_count, keywords):
    """Makes the `WrappedFunction` `function` take its first `positional_count`
    graph inputs as arguments, which callers may also pass by the names
    `keywords` (in order), as `WrappedFunction.prune` sets them."""
    function._num_positional_args = positional_count
    function._arg_keywords = keywords


# --- The eager context ----------------------------------------------------------------

# The process's eager context (one object; `eager_context()` returns it).
eager_context = internal(_CONTEXT, "context")
# A context manager: eager execution on inside, whatever the caller's mode.
eager_mode = internal(_CONTEXT, "eager_mode")
# `FunctionCallOptions(executor_type=..., config_proto=...)`: how the context
# runs functions; `context.function_call_options` is one, and can be set to one.
FunctionCallOptions = internal(_CONTEXT, "FunctionCallOptions")
_clear_caches = internal("tensorflow.python.pywrap_tfe", "TFE_ContextClearCaches")


def held_function_call_options(context):
    """What `context` holds for this thread as its functions' call options: None
    until set, when `context.function_call_options` makes them from its config."""
    return context._thread_local_data.function_call_options


def hold_function_call_options(context, held):
    """Puts back what `held_function_call_options(context)` returned."""
    context._thread_local_data.function_call_options = held


def eager_seeds(context):
    """(global seed, op-seed generator) of the eager `context`.

    The generator's `randint(low, high)` gives the op seed of each random op
    made without one; the context has none (None here) until a global seed is
    set (`tf.random.set_seed`).
    """
    return context._seed, context.__dict__.get("_rng")


def set_eager_seeds(context, seed, generator):
    """Makes `context` seed random ops with global seed `seed` and op seeds from
    `generator` (as `eager_seeds` gives them; None removes the generator)."""
    context._seed = seed
    if generator is None:
        del context._rng
    else:
        context._rng = generator


def eager_device_name() -> str:
    """The device the eager context places ops on now (`tf.device`'s), or None."""
    return eager_context().device_name


def clear_eager_kernel_caches():
    """Drops the kernels the eager context keeps by op and attributes (a random
    op's with its state), as `tf.random.set_seed` does; nothing before the
    context has started."""
    handle = eager_context()._context_handle
    if handle is not None:
        _clear_caches(handle)


def collectives_configurable(context) -> bool:
    """Whether `context` has started and has no collective settings yet."""
    return context._context_handle is not None and context._collective_leader is None


def set_collective_settings(
    context, leader, scoped_allocator_enabled_ops, use_nccl_communication, device_filters
):
    """Records on a started `context` the collective settings that
    `context.configure_collective_ops` refuses once it has started."""
    context._collective_leader = leader
    context._collective_scoped_allocator_enabled_ops = scoped_allocator_enabled_ops
    context._collective_use_nccl_communication = use_nccl_communication
    context._collective_device_filters = device_filters


# Eager op callbacks: `add_op_callback(callback)` calls
# `callback(op_type, inputs, attrs, outputs, op_name=None, graph=None)` for each op
# run eagerly (graph None) or made in a graph, until `remove_op_callback(callback)`.
add_op_callback = internal("tensorflow.python.framework.op_callbacks", "add_op_callback")
remove_op_callback = internal("tensorflow.python.framework.op_callbacks", "remove_op_callback")
# `registered_op_def(op_type)`: the `OpDef` of a registered op type
# (`is_stateful`, `attr`), None for a function's name.
registered_op_def = internal("tensorflow.python.framework.op_def_registry", "get")

# --- Random seeds ---------------------------------------------------------------------

# The stateless ops that draw what `RandomUniform`, `RandomStandardNormal`,
# `TruncatedNormal` and `RandomUniformInt` draw, from the same Philox key and
# counter: `(shape, key, counter, alg, dtype=)`, the int one `(shape, key,
# counter, alg, minval, maxval)`.
stateless_random_uniform = internal(_STATELESS_RANDOM_OPS, "stateless_random_uniform_v2")
stateless_random_normal = internal(_STATELESS_RANDOM_OPS, "stateless_random_normal_v2")
stateless_truncated_normal = internal(_STATELESS_RANDOM_OPS, "stateless_truncated_normal_v2")
stateless_random_uniform_int = internal(_STATELESS_RANDOM_OPS, "stateless_random_uniform_int_v2")

# Graph -> the op seed its next random op without one takes (a weak-keyed dict).
_graph_op_seeds = internal("tensorflow.python.framework.random_seed", "_graph_to_seed_dict")
_NO_DEFAULT = object()


def graph_op_seed(graph, default=_NO_DEFAULT):
    """The op seed the next random op of `graph` without one takes: TF1's count of
    such ops. `default` when the graph has made none (KeyError without one)."""
    if default is _NO_DEFAULT:
        return _graph_op_seeds[graph]
    return _graph_op_seeds.get(graph, default)


def set_graph_op_seed(graph, op_seed):
    """Makes the next random op of `graph` without an op seed take `op_seed`."""
    _graph_op_seeds[graph] = op_seed


def forget_graph_op_seed(graph):
    """Starts `graph`'s op seeds over, as for a graph that made no random op yet."""
    _graph_op_seeds.pop(graph, None)


# --- Tensors --------------------------------------------------------------------------

_Tensor = internal("tensorflow.python.framework.tensor", "Tensor")
_check("tensorflow.python.framework.tensor", "Tensor._USE_EQUALITY")


def tensor_equality_enabled() -> bool:
    """Whether tensors compare element-wise (TF2) rather than by identity (TF1):
    what `tf.compat.v1.enable_tensor_equality` and `disable_tensor_equality` set."""
    return _Tensor._USE_EQUALITY


# --- Variables ------------------------------------------------------------------------

# A variable's method that `tf.control_dependencies([v])` and
# `graph.as_graph_element(v)` call for the tensor standing for it in a graph.
GRAPH_ELEMENT_METHOD = "_as_graph_element"
_check(_RESOURCE_VARIABLE_OPS, f"BaseResourceVariable.{GRAPH_ELEMENT_METHOD}")
# A TF2 variable made eagerly: `ResourceVariable(initial_value, dtype=, trainable=, name=)`.
ResourceVariable = internal(_RESOURCE_VARIABLE_OPS, "ResourceVariable")


def graph_element_of(variable_class, variable):
    """What `variable_class`'s own `GRAPH_ELEMENT_METHOD` gives for `variable`."""
    return getattr(variable_class, GRAPH_ELEMENT_METHOD)(variable)


def variable_initializer_op(variable):
    """The op a variable made in a graph is initialized by (None for one made
    eagerly, or not a variable); `init_from_checkpoint` replaces it with a restore."""
    return getattr(variable, "_initializer_op", None)


def save_slice_info(variable):
    """The `SaveSliceInfo` of a part of a partitioned variable (`full_name`,
    `full_shape`, `var_offset`, `var_shape`, `spec`), or None."""
    return getattr(variable, "_save_slice_info", None)


def distributed_container(variable):
    """A function returning the distributed variable a per-replica `variable`
    belongs to (or None once that is gone); None for any other variable."""
    return getattr(variable, "_distributed_container", None)


def in_graph_mode(variable) -> bool:
    """Whether `variable` was made in a TF1 graph (False when it cannot say)."""
    return getattr(variable, "_in_graph_mode", False)


def unique_id(variable):
    """The id TensorFlow keys a variable's optimizer slots by (`id(variable)` when
    it has none)."""
    return getattr(variable, "_unique_id", id(variable))


# How a name-based `Saver` saves a resource variable as (a slice of) a
# checkpoint entry: `ResourceVariableSaveable(variable, slice_spec, name)`.
ResourceVariableSaveable = internal(
    "tensorflow.python.training.saving.saveable_object_util", "ResourceVariableSaveable"
)
# A parameter-server strategy's wrappers around a variable; `.get()` gives the
# variable they wrap.
CachingVariable = internal("tensorflow.python.distribute.ps_values", "CachingVariable")
AggregatingVariable = internal("tensorflow.python.distribute.ps_values", "AggregatingVariable")

# --- Resources and the global step ----------------------------------------------------

# Collects the resources (lookup tables) made inside `resource_tracker_scope(tracker)`
# in `tracker.resources`.
ResourceTracker = internal("tensorflow.python.trackable.resource", "ResourceTracker")
resource_tracker_scope = internal("tensorflow.python.trackable.resource", "resource_tracker_scope")
# The collection a TF1 graph keeps the global-step read that hooks fetch in.
GLOBAL_STEP_READ_KEY = internal("tensorflow.python.training.training_util", "GLOBAL_STEP_READ_KEY")


def saver_var_list(saver):
    """What a `tf.compat.v1.train.Saver` was asked to save (a list or a dict), or None."""
    return getattr(saver, "_var_list", None)


def saver_retention(saver):
    """(max_to_keep, keep_checkpoint_every_n_hours) of a `tf.compat.v1.train.Saver`."""
    return saver._max_to_keep, saver._keep_checkpoint_every_n_hours


# --- tf.distribute --------------------------------------------------------------------


def worker_count(extended) -> int:
    """How many workers a strategy's `extended` trains on (1 when it cannot say)."""
    return getattr(extended, "_num_workers", 1)


def worker_index(extended) -> int:
    """This worker's index among the strategy's workers (0 when it cannot say)."""
    return getattr(extended, "_id_in_cluster", 0)


def has_cross_device_ops(extended) -> bool:
    """Whether a strategy's `extended` reduces across devices through cross-device ops."""
    return hasattr(extended, "_cross_device_ops")


def cross_device_ops(extended):
    """The `CrossDeviceOps` a strategy's `extended` reduces with, or None."""
    return getattr(extended, "_cross_device_ops", None)


def communication_options(extended):
    """The `tf.distribute.experimental.CommunicationOptions` a multi-worker
    strategy's `extended` was made with, or None."""
    return getattr(extended, "_communication_options", None)


def collective_launchers(cross_device_ops):
    """The launchers of a collective `CrossDeviceOps`' all-reduces, one per device
    (none for other kinds)."""
    return getattr(cross_device_ops, "_launchers", ())


def launcher_device(launcher) -> str:
    """The device a collective launcher runs its ops on."""
    return launcher._device


def launcher_ordering_token(launcher):
    """The resource variable a collective launcher orders its ops by in a
    function, or None (a launcher made for TF1 graphs)."""
    return getattr(launcher, "_ordering_token", None)


def set_launcher_ordering_token(launcher, token):
    """Gives a collective launcher `token` (a resource variable) to order its ops by."""
    launcher._ordering_token = token


def scaling_loss_for_estimator(strategy):
    """A context manager: inside, a TF1 optimizer called in a replica scales the
    loss by `1 / num_replicas`, as the original Estimator asked of it."""
    return strategy._scale_loss_for_estimator_enabled()


def variable_partitioner(extended):
    """The `variable_partitioner` a parameter-server strategy's `extended` splits
    variables with, or None."""
    return getattr(extended, "_variable_partitioner", None)


def set_variable_partitioner(extended, partitioner):
    """Makes a parameter-server strategy split new variables with `partitioner` (None: not)."""
    extended._variable_partitioner = partitioner


def coordinator_workers(coordinator) -> list:
    """The workers of a `ClusterCoordinator`, each with `create_resource(function)`."""
    return coordinator._cluster.workers


def coordinator_worker_devices(coordinator) -> list:
    """The device of each of a `ClusterCoordinator`'s workers, in their order."""
    return [worker.device_name for worker in coordinator._cluster.workers]


def add_coordinator_worker(coordinator, device_name):
    """Makes `device_name` (a device of this process) one more worker of
    `coordinator`: closures and per-worker resources then run there too."""
    cluster = coordinator._cluster
    worker_class = type(cluster.workers[0])
    cluster.workers.append(worker_class(len(cluster.workers), device_name, cluster))


def set_remote_value_type_spec(value, spec):
    """Tells a worker's `RemoteValue` (made by `create_resource`) the `TypeSpec` of
    what it holds, which a per-worker iterator's users read."""
    value._type_spec = spec


# `PerWorkerDistributedIterator(values)`: one iterator per worker, from their
# `RemoteValue`s, as `ClusterCoordinator.create_per_worker_dataset` makes it.
PerWorkerDistributedIterator = internal(
    "tensorflow.python.distribute.coordinator.values", "PerWorkerDistributedIterator"
)
# `normalize_cluster_spec(cluster_spec)`: a `ClusterSpec` from a dict, proto or one.
normalize_cluster_spec = internal(
    "tensorflow.python.distribute.multi_worker_util", "normalize_cluster_spec"
)
# `collective_leader(cluster_spec, task_type, task_id)`: the task that leads the
# collectives ("" in a single-task cluster), as a multi-worker strategy picks it.
collective_leader = internal("tensorflow.python.distribute.multi_worker_util", "collective_leader")

# --- tf.data --------------------------------------------------------------------------

# The class of `tf.compat.v1.data.Dataset`s.
DatasetV1 = internal(_DATASET_OPS, "DatasetV1")
_dataset_ops = internal(_DATASET_OPS)
_TF1_ITERATOR_MAKERS = ("make_one_shot_iterator", "make_initializable_iterator")
for _name in _TF1_ITERATOR_MAKERS:
    internal(_DATASET_OPS, _name)
    internal(_DATASET_OPS, f"DatasetV1.{_name}")


# What holds a tf.data iterator's resources, and the iterators inside it (a distributed
# or multi-device iterator holds one per worker or device).
_ITERATOR_RESOURCES = ("_iterator_resource", "_multi_device_iterator_resource")
_INNER_ITERATORS = ("_iterators", "_iterator", "_device_iterators")


def release_iterator_resources(iterator):
    """Drops the resource handles of `iterator` and of the iterators inside it.

    A tf.data iterator's resource (its buffers and reader threads) is
    destroyed when its last handle goes; the Python objects left, unusable, go
    with whatever cycle holds them. The attributes are TensorFlow's private
    ones: a missing one is skipped, so a TensorFlow that renamed them only
    frees later (canary: tests/test_internals.py).
    """
    for name in _ITERATOR_RESOURCES:
        if getattr(iterator, name, None) is not None:
            setattr(iterator, name, None)
    for name in _INNER_ITERATORS:
        inner = getattr(iterator, name, None)
        for each in inner if isinstance(inner, (list, tuple)) else [inner]:
            if each is not None:
                release_iterator_resources(each)


def tf1_iterator_patch_points() -> list:
    """(owner, name, original) of each place below the public API that TF1 code
    makes an iterator from a dataset through, for the package to replace and put
    back: the data module's `make_one_shot_iterator` and
    `make_initializable_iterator` functions, and `DatasetV1`'s methods of those
    names (as found in its `__dict__`)."""
    points = [(_dataset_ops, name, getattr(_dataset_ops, name)) for name in _TF1_ITERATOR_MAKERS]
    points += [(DatasetV1, name, DatasetV1.__dict__[name]) for name in _TF1_ITERATOR_MAKERS]
    return points


# --- Feature columns ------------------------------------------------------------------

# The base class of every v2 feature column (`name`, `parse_example_spec`).
FeatureColumn = internal(
    "tensorflow.python.feature_column.feature_column_v2_types", "FeatureColumn"
)
# Columns with dense values: `get_dense_tensor(transformation_cache, state_manager)`,
# `variable_shape`.
DenseColumn = internal(_FC_V2, "DenseColumn")
# Columns of ids: `get_sparse_tensors(transformation_cache, state_manager)`, `num_buckets`.
CategoricalColumn = internal(_FC_V2, "CategoricalColumn")
# Columns of sequences: `get_sequence_dense_tensor(transformation_cache, state_manager)`.
SequenceDenseColumn = internal(_FC_V2, "SequenceDenseColumn")
# The classes `tf.feature_column.numeric_column`, `bucketized_column`,
# `indicator_column`, `crossed_column`, `weighted_categorical_column`,
# `shared_embeddings` and `sequence_categorical_column_with_*` make.
NumericColumn = internal(_FC_V2, "NumericColumn")
BucketizedColumn = internal(_FC_V2, "BucketizedColumn")
IndicatorColumn = internal(_FC_V2, "IndicatorColumn")
CrossedColumn = internal(_FC_V2, "CrossedColumn")
WeightedCategoricalColumn = internal(_FC_V2, "WeightedCategoricalColumn")
SharedEmbeddingColumn = internal(_FC_V2, "SharedEmbeddingColumn")
SequenceCategoricalColumn = internal(_FC_V2, "SequenceCategoricalColumn")
# The class `tf.feature_column.sequence_numeric_column` makes.
SequenceNumericColumn = internal(_FC_SEQUENCE, "SequenceNumericColumn")
# `FeatureTransformationCache(features)`: what columns read their inputs through.
FeatureTransformationCache = internal(_FC_V2, "FeatureTransformationCache")
# Where columns create and find their variables and resources: a class whose
# `create_variable`, `add_variable`, `get_variable`, `add_resource`,
# `has_resource` and `get_resource` a layer implements.
StateManager = internal(_FC_V2, "StateManager")
# `is_feature_column_v2(columns)`: whether every column of the list is a v2 column.
is_feature_column_v2 = internal(_FC_V2, "is_feature_column_v2")
# `concatenate_context_input(context_input, sequence_input)`: a `[batch, width]`
# tensor tiled along the time axis of a `[batch, time, width']` one and joined to it.
concatenate_context_input = internal(_FC_SEQUENCE, "concatenate_context_input")
# `equal_sequence_lengths(lengths)`: the first of the sequence-length tensors,
# with a check that they are all equal.
equal_sequence_lengths = internal(_FC_SEQUENCE, "_assert_all_equal_and_return")
# Feature columns to and from the configs Keras layers save
# (`serialize_feature_columns(columns)`,
# `deserialize_feature_columns(configs, custom_objects=None)`).
serialize_feature_columns = internal(
    "tensorflow.python.feature_column.serialization", "serialize_feature_columns"
)
deserialize_feature_columns = internal(
    "tensorflow.python.feature_column.serialization", "deserialize_feature_columns"
)
# The class of TF1's `_numeric_column`s (v1 only), which `v1_dense_tensor` reads.
V1NumericColumn = internal(_FC_V1, "_NumericColumn")
_LazyBuilder = internal(_FC_V1, "_LazyBuilder")


def v1_dense_tensor(column, features):
    """The dense tensor of the v1-only column `column` (a `V1NumericColumn`) from `features`."""
    return column._get_dense_tensor(_LazyBuilder(features))


def v1_variable_shape(column):
    """The shape of a v1-only dense column's value per example (a `TensorShape`)."""
    return column._variable_shape


def forget_shared_embedding_tables(column):
    """Makes a `SharedEmbeddingColumn`'s creator forget the tables it made, which it
    keeps per graph key (shared by every traced graph): asked again, it makes
    its table again, through the variable store."""
    column.shared_embedding_column_creator._embedding_weights.clear()


# --- Lookup tables (TF1's, as `tf.contrib.lookup` gave them) --------------------------

# The base class of lookup tables (`lookup`, `key_dtype`, `value_dtype`).
LookupInterface = internal(_LOOKUP_OPS, "LookupInterface")
# TF1's lookup-table classes and builders that `tf.contrib.lookup` gave, and the
# hasher specs of `IdTableWithHashBuckets`.
HashTable = internal(_LOOKUP_OPS, "HashTable")
InitializableLookupTableBase = internal(_LOOKUP_OPS, "InitializableLookupTableBase")
IdTableWithHashBuckets = internal(_LOOKUP_OPS, "IdTableWithHashBuckets")
# Under this name the module has the raw op (keyword arguments only; a TF1
# graph's ref-typed table handle), not a table class: `tf.contrib.lookup`
# re-exports it as it is.
MutableDenseHashTable = internal(_LOOKUP_OPS, "MutableDenseHashTable")
TextFileIdTableInitializer = internal(_LOOKUP_OPS, "TextFileIdTableInitializer")
TextFileStringTableInitializer = internal(_LOOKUP_OPS, "TextFileStringTableInitializer")
HasherSpec = internal(_LOOKUP_OPS, "HasherSpec")
FastHashSpec = internal(_LOOKUP_OPS, "FastHashSpec")
StrongHashSpec = internal(_LOOKUP_OPS, "StrongHashSpec")
index_table_from_file = internal(_LOOKUP_OPS, "index_table_from_file")
index_to_string_table_from_file = internal(_LOOKUP_OPS, "index_to_string_table_from_file")
# `(mapping, num_oov_buckets, default_value, hasher_spec, dtype, name)`, positionally.
index_table_from_tensor = internal(_LOOKUP_OPS, "index_table_from_tensor")
# `(mapping, default_value, name)`, positionally.
index_to_string_table_from_tensor = internal(_LOOKUP_OPS, "index_to_string_table_from_tensor")

# --- SavedModel exports ---------------------------------------------------------------

# What an `EstimatorSpec`'s `export_outputs` hold: each builds its signature
# with `as_signature_def(receiver_tensors)`.
ExportOutput = internal(_EXPORT_OUTPUT, "ExportOutput")
ClassificationOutput = internal(_EXPORT_OUTPUT, "ClassificationOutput")
RegressionOutput = internal(_EXPORT_OUTPUT, "RegressionOutput")
PredictOutput = internal(_EXPORT_OUTPUT, "PredictOutput")
TrainOutput = internal(_EXPORT_OUTPUT, "TrainOutput")
EvalOutput = internal(_EXPORT_OUTPUT, "EvalOutput")
# The keys a lone feature, label and receiver tensor get in a signature.
SINGLE_FEATURE_DEFAULT_NAME = internal(_EXPORT_UTILS, "SINGLE_FEATURE_DEFAULT_NAME")
SINGLE_LABEL_DEFAULT_NAME = internal(_EXPORT_UTILS, "SINGLE_LABEL_DEFAULT_NAME")
SINGLE_RECEIVER_DEFAULT_NAME = internal(_EXPORT_UTILS, "SINGLE_RECEIVER_DEFAULT_NAME")
# `get_export_outputs(export_outputs, predictions)`: a spec's export outputs,
# checked, with the default serving one made from `predictions` when absent.
get_export_outputs = internal(_EXPORT_UTILS, "get_export_outputs")
# `export_outputs_for_mode(mode, serving_export_outputs=None, predictions=None,
# loss=None, metrics=None)`: the export outputs of a mode's MetaGraph.
export_outputs_for_mode = internal(_EXPORT_UTILS, "export_outputs_for_mode")
# `get_timestamped_export_dir(export_dir_base)`: a new `<base>/<timestamp>` path;
# `get_temp_export_dir(timestamped_export_dir)`: where it is written first.
get_timestamped_export_dir = internal(_EXPORT_UTILS, "get_timestamped_export_dir")
get_temp_export_dir = internal(_EXPORT_UTILS, "get_temp_export_dir")

# --- Files, logs, summaries, TPU, warm starts -----------------------------------------

_GRAPH_IO = internal("tensorflow.python.framework.graph_io")


def drop_write_graph_float_format():
    """TensorFlow <= 2.20's `tf.io.write_graph(..., as_text=True)` (so
    `CheckpointSaverHook`'s `graph.pbtxt`) passes `float_format=''` to
    `text_format.MessageToString`, which protobuf 7 no longer takes (TF 2.20
    allows protobuf 7; TF 2.21 stopped passing it). `graph_io` reads its
    `text_format` global when called: it gets one that drops the argument."""
    import inspect

    from google.protobuf import text_format

    if "float_format" in inspect.signature(text_format.MessageToString).parameters:
        return

    class _TextFormat:
        def __getattr__(self, name):
            return getattr(text_format, name)

        @staticmethod
        def MessageToString(message, float_format=None, **kwargs):  # noqa: N802
            return text_format.MessageToString(message, **kwargs)

    _GRAPH_IO.text_format = _TextFormat()


# `atomic_write_string_to_file(filename, contents)`: written to a temporary file, renamed.
atomic_write_string_to_file = internal(
    "tensorflow.python.lib.io.file_io", "atomic_write_string_to_file"
)
_silence_deprecation_notices = internal("tensorflow.python.util.deprecation", "silence")


@contextlib.contextmanager
def deprecation_notices_silenced():
    """TensorFlow's deprecation notices are not logged inside.

    TensorFlow's `silence()` puts the notices back only when its block ends
    without an exception; a failed save would leave every later notice of
    the user's own calls unprinted. Here they come back either way.
    """
    silenced = _silence_deprecation_notices()
    silenced.__enter__()
    try:
        yield
    finally:
        silenced.__exit__(None, None, None)


# `summary_writer_initializer_op()`: the init ops of the summary writers made in
# the current graph; `legacy_raw_flush(writer=)`: an op flushing one.
summary_writer_initializer_op = internal(_SUMMARY_OPS, "summary_writer_initializer_op")
legacy_raw_flush = internal(_SUMMARY_OPS, "legacy_raw_flush")
_ResourceSummaryWriter = internal(_SUMMARY_OPS, "_ResourceSummaryWriter")


def replace_summary_writer_init(init):
    """Makes `init` the `__init__` of the summary writers `tf.summary` makes (its
    private `_ResourceSummaryWriter` class); returns the one it replaced, which
    the same call puts back."""
    original = _ResourceSummaryWriter.__init__
    _ResourceSummaryWriter.__init__ = init
    return original


# `tpu_context()`: the TPU shard context of the function being built; its
# `number_of_shards` is None outside a TPU shard.
tpu_context = internal("tensorflow.python.tpu.tpu_function", "get_tpu_context")


def cross_shard_wrapped_optimizer(optimizer):
    """The optimizer a `tf.compat.v1.tpu.CrossShardOptimizer` wraps."""
    return optimizer._opt


# Warm-starts a variable (or its partitions) from a checkpoint's variable made
# with another vocabulary, row by row: keyword arguments `current_vocab_path`,
# `current_vocab_size`, `prev_ckpt`, `prev_vocab_path`, `previous_vocab_size`,
# `current_oov_buckets`, `prev_tensor_name`, `initializer`, `axis`.
warm_start_with_vocabulary = internal(
    "tensorflow.python.training.warm_starting_util", "_warm_start_var_with_vocab"
)
