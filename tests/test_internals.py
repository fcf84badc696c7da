"""Canaries for `engine/internals`: every private TensorFlow and Keras name the package
uses exists on the installed versions and behaves as the package assumes.

Each test covers some of the boundary's names (`covers`); one test checks that
every name the boundary exposes is covered, so a new internal comes with its
canary. A test that fails here names the internal a TensorFlow or Keras
release changed, before a user's run meets it.
"""

import collections
import importlib.util
import logging
import os
import subprocess
import sys
import types

import keras
import numpy as np
import pytest
import tensorflow as tf

from tfestimator_compat.engine.internals import keras_internals
from tfestimator_compat.engine.internals import resolver
from tfestimator_compat.engine.internals import tensorflow_internals as tfi
from tfestimator_compat.engine.internals import tensorflow_protos
from tfestimator_compat.tpu import cross_shard

_COVERED = collections.defaultdict(set)


def covers(module, *names):
    """Marks a test as the canary of `names` of the boundary module `module`."""

    def mark(test):
        for name in names:
            assert hasattr(module, name), f"{module.__name__} has no {name}"
            _COVERED[module.__name__].add(name)
        return test

    return mark


def _exposed(module):
    """The names a boundary module exposes (what `resolver` gives it aside)."""
    return {
        name
        for name, value in vars(module).items()
        if not name.startswith("_") and not isinstance(value, types.ModuleType)
    } - {"internal"}


# --- The resolver ---------------------------------------------------------------------


def test_the_resolver_gets_a_private_name_or_a_dotted_attribute_of_it():
    assert resolver.internal("tensorflow.python.framework.ops", "Operation") is tf.Operation
    graph_method = resolver.internal("tensorflow.python.framework.ops", "Graph.as_graph_def")
    assert graph_method is tf.Graph.as_graph_def
    module = resolver.internal("tensorflow.python.framework.ops")
    assert module.Operation is tf.Operation
    assert resolver.internal("tensorflow.python.framework.ops", "_no_such_name", default=3) == 3


def test_a_missing_internal_is_an_import_error_naming_it_its_module_and_the_versions():
    with pytest.raises(resolver.MissingInternalError) as raised:
        resolver.internal("tensorflow.python.framework.ops", "_canary_made_up_name")
    error = raised.value
    assert isinstance(error, ImportError)
    assert (error.module, error.attribute) == (
        "tensorflow.python.framework.ops",
        "_canary_made_up_name",
    )
    message = str(error)
    assert "`_canary_made_up_name`" in message
    assert "`tensorflow.python.framework.ops`" in message
    assert f"TensorFlow {tf.__version__}" in message
    assert f"Keras {keras.__version__}" in message
    assert "newer than tfestimator_compat knows" in message
    assert "please report" in message


def test_a_missing_private_module_is_named_even_with_a_default():
    with pytest.raises(resolver.MissingInternalError) as raised:
        resolver.internal("keras.src.canary_made_up_module", "anything", default=None)
    message = str(raised.value)
    assert "Keras's private module `keras.src.canary_made_up_module`" in message
    assert "This Keras is newer" in message
    assert isinstance(raised.value.__cause__, ModuleNotFoundError)


def test_a_tensorflow_without_an_internal_fails_at_import_with_the_resolvers_message():
    # A TensorFlow that dropped one: the package's import stops there, not a run.
    code = (
        "import tensorflow.python.framework.random_seed as random_seed\n"
        "del random_seed._graph_to_seed_dict\n"
        "import tfestimator_compat\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3"),
        cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
    )
    assert result.returncode != 0
    assert "MissingInternalError" in result.stderr
    assert "`_graph_to_seed_dict` of TensorFlow's private module" in result.stderr


def test_every_name_the_boundary_exposes_has_a_canary():
    for module in (tfi, tensorflow_protos, keras_internals):
        assert _exposed(module) - _COVERED[module.__name__] == set(), module.__name__


# --- tensorflow_internals: generated API modules, graphs and ops ------------------------


@covers(tfi, "loaded_compat_api_module")
def test_the_generated_compat_modules_are_found_once_imported():
    import tensorflow.compat.v1  # noqa: F401

    module = tfi.loaded_compat_api_module("v1")
    assert module is not None and module.Session is tf.compat.v1.Session
    assert tfi.loaded_compat_api_module("v0") is None


@covers(tfi, "graph_functions", "add_graph_function")
def test_a_graphs_function_library_is_listed_and_copied_into_another_graph():
    with tf.Graph().as_default() as graph:
        x = tf.constant(1.0)
        tf.cond(x > 0, lambda: x + 1, lambda: x - 1)
    functions = list(tfi.graph_functions(graph))
    names = {f.definition.signature.name for f in functions}
    assert len(names) == 2  # the two branches
    for function in functions:
        definition = getattr(function, "cached_definition", None) or function.definition
        assert definition.node_def
    other = tf.Graph()
    for function in functions:
        tfi.add_graph_function(other, function)
    assert {f.definition.signature.name for f in tfi.graph_functions(other)} == names


@covers(
    tfi,
    "control_outputs",
    "add_control_input",
    "replace_control_inputs",
    "update_input",
    "is_stateful",
)
def test_an_ops_edges_are_read_and_rewired_in_place():
    with tf.Graph().as_default():
        a, b, c = (tf.constant(float(i), name=n) for i, n in ((1, "a"), (2, "b"), (3, "c")))
        total = tf.add(a, b, name="total")
        tfi.add_control_input(total.op, c.op)
        assert total.op.control_inputs == [c.op]
        assert tfi.control_outputs(c.op) == [total.op]
        tfi.replace_control_inputs(total.op, [a.op])
        assert total.op.control_inputs == [a.op]
        assert tfi.control_outputs(c.op) == []
        tfi.update_input(total.op, 1, c)
        assert [t.name for t in total.op.inputs] == ["a:0", "c:0"]
        drawn = tf.raw_ops.RandomStandardNormal(shape=[1], dtype=tf.float32)
        assert tfi.is_stateful(drawn.op) and not tfi.is_stateful(total.op)
        with tf.compat.v1.Session() as session:
            assert session.run(total) == 4.0


@covers(tfi, "import_graph_def_as_is")
def test_nodes_are_imported_under_their_own_names_and_devices_fed_from_the_input_map():
    with tf.Graph().as_default() as source:
        x = tf.compat.v1.placeholder(tf.float32, [], name="x")
        with tf.device("/cpu:0"):
            tf.multiply(x, tf.constant(2.0, name="two"), name="y")
    nodes = {node.name: node for node in source.as_graph_def().node}
    graph_def = tf.compat.v1.GraphDef(versions=source.graph_def_versions)
    for name in ("two", "y"):  # not the placeholder: the input map feeds it
        graph_def.node.add().CopyFrom(nodes[name])
    with tf.Graph().as_default() as target:
        fed = tf.constant(3.0, name="fed")
        tfi.import_graph_def_as_is(graph_def, {"x:0": fed})
        imported = target.get_operation_by_name("y")
        assert imported.inputs[0] is fed
        assert "CPU:0" in imported.device
        with tf.compat.v1.Session() as session:
            assert session.run("y:0") == 6.0


@covers(tfi, "resource_handle_data", "set_resource_handle_data")
def test_a_resource_placeholder_takes_a_variable_handles_shape_and_dtype():
    with tf.Graph().as_default():
        variable = tf.Variable([1.0, 2.0])
        data = tfi.resource_handle_data(variable.handle)
        assert data.shape_and_type[0].dtype == tf.float32.as_datatype_enum
        placeholder = tf.compat.v1.placeholder(tf.resource, [])
        assert not tfi.resource_handle_data(placeholder).shape_and_type
        tfi.set_resource_handle_data(placeholder, data)
        given = tfi.resource_handle_data(placeholder).shape_and_type[0]
        assert tf.TensorShape(given.shape).as_list() == [2]


# --- Function graphs and wrapped functions ----------------------------------------------


@covers(
    tfi,
    "FuncGraph",
    "WrappedFunction",
    "VariableHolder",
    "variable_holder",
    "set_call_arguments",
)
def test_a_function_graph_becomes_a_callable_taking_named_arguments():
    wrapped = tf.compat.v1.wrap_function(lambda: tf.constant(1.0), signature=[])
    assert isinstance(wrapped.graph, tfi.FuncGraph)
    assert isinstance(tfi.variable_holder(wrapped), tfi.VariableHolder)
    graph = tfi.FuncGraph("canary")
    with graph.as_default():
        x = tf.compat.v1.placeholder(tf.float32, [], name="x")
        y = x * 2.0
    graph.inputs.append(x)
    graph.outputs.append(y)
    graph.structured_outputs = y
    graph.structured_input_signature = None
    function = tfi.WrappedFunction(graph, variable_holder=tfi.VariableHolder())
    tfi.set_call_arguments(function, 1, ["x"])
    assert function(tf.constant(3.0)).numpy() == 6.0
    assert function(x=tf.constant(4.0)).numpy() == 8.0


@covers(tfi, "func_graph_from_py_func")
def test_a_python_function_is_traced_into_a_given_function_graph():
    graph = tfi.FuncGraph("canary_values")
    with graph.as_default():
        marker = tf.constant(5.0, name="marker")
    traced = tfi.func_graph_from_py_func(
        "canary_values",
        lambda: tf.constant(True),
        args=None,
        kwargs=None,
        signature=[],
        func_graph=graph,
        add_control_dependencies=False,
    )
    assert traced is graph and marker.graph is graph
    assert tfi.WrappedFunction(traced, tfi.VariableHolder(), signature=[])().numpy()


# --- The eager context ------------------------------------------------------------------


@covers(tfi, "eager_context", "eager_mode")
def test_eager_mode_turns_eager_execution_on_inside_a_graph():
    assert tfi.eager_context() is tfi.eager_context()
    with tf.Graph().as_default():
        assert not tf.executing_eagerly()
        with tfi.eager_mode():
            assert tf.executing_eagerly()
        assert not tf.executing_eagerly()


@covers(tfi, "FunctionCallOptions", "held_function_call_options", "hold_function_call_options")
def test_function_call_options_are_replaced_and_put_back():
    ctx = tfi.eager_context()
    held = tfi.held_function_call_options(ctx)
    options = ctx.function_call_options
    config = tf.compat.v1.ConfigProto()
    config.graph_options.rewrite_options.disable_meta_optimizer = True
    ctx.function_call_options = tfi.FunctionCallOptions(
        executor_type=options.executor_type, config_proto=config
    )
    try:
        assert tfi.held_function_call_options(ctx) is not None
        now = tf.compat.v1.ConfigProto.FromString(ctx.function_call_options.config_proto_serialized)
        assert now.graph_options.rewrite_options.disable_meta_optimizer
    finally:
        tfi.hold_function_call_options(ctx, held)
    assert tfi.held_function_call_options(ctx) is held


class _FixedOpSeed:
    """An op-seed generator giving every random op the same op seed."""

    def __init__(self, op_seed):
        self.op_seed, self.calls = op_seed, 0

    def randint(self, low, high):
        self.calls += 1
        return self.op_seed


@covers(tfi, "eager_seeds", "set_eager_seeds", "clear_eager_kernel_caches")
def test_eager_random_ops_take_the_contexts_seeds_and_restart_once_kernels_are_dropped():
    ctx = tfi.eager_context()
    held = tfi.eager_seeds(ctx)
    generator = _FixedOpSeed(8181)
    tfi.set_eager_seeds(ctx, 4242, generator)
    try:
        assert tfi.eager_seeds(ctx) == (4242, generator)
        tfi.clear_eager_kernel_caches()
        first = tf.random.normal([3]).numpy()
        second = tf.random.normal([3]).numpy()
        assert generator.calls == 2
        assert not np.allclose(first, second)  # one cached kernel goes on drawing
        tfi.clear_eager_kernel_caches()
        np.testing.assert_array_equal(tf.random.normal([3]).numpy(), first)
    finally:
        tfi.set_eager_seeds(ctx, *held)
    assert tfi.eager_seeds(ctx)[0] == held[0] and tfi.eager_seeds(ctx)[1] is held[1]


@covers(tfi, "eager_device_name")
def test_the_eager_device_name_is_the_device_scopes():
    assert not tfi.eager_device_name()
    with tf.device("/cpu:0"):
        assert tfi.eager_device_name().endswith("device:CPU:0")


@covers(tfi, "collectives_configurable", "set_collective_settings")
def test_collective_settings_recorded_on_a_context_are_the_ones_it_then_accepts():
    fresh = type(tfi.eager_context())()  # never started: no process-wide effect
    assert not tfi.collectives_configurable(fresh)
    settings = dict(
        collective_leader="/job:worker/replica:0/task:0",
        scoped_allocator_enabled_ops=("CollectiveReduce",),
        use_nccl_communication=False,
        device_filters=("/job:worker/task:0",),
    )
    tfi.set_collective_settings(
        fresh,
        leader=settings["collective_leader"],
        scoped_allocator_enabled_ops=settings["scoped_allocator_enabled_ops"],
        use_nccl_communication=settings["use_nccl_communication"],
        device_filters=settings["device_filters"],
    )
    fresh.configure_collective_ops(**settings)  # the same: accepted as configured
    with pytest.raises(ValueError):
        fresh.configure_collective_ops(**dict(settings, collective_leader="/job:chief"))
    tf.constant(0)  # the process's context has started
    started = tfi.eager_context()
    assert tfi.collectives_configurable(started) == (started._collective_leader is None)


@covers(tfi, "add_op_callback", "remove_op_callback", "registered_op_def")
def test_eager_ops_are_seen_by_a_callback_until_it_is_removed():
    seen = []

    def callback(op_type, inputs, attrs, outputs, op_name=None, graph=None):
        if graph is None:
            seen.append((op_type, dict(zip(attrs[::2], attrs[1::2])) if attrs else {}))

    tfi.add_op_callback(callback)
    try:
        tf.raw_ops.RandomUniform(shape=[1], dtype=tf.float32, seed=3, seed2=4)
    finally:
        tfi.remove_op_callback(callback)
    tf.raw_ops.RandomUniform(shape=[1], dtype=tf.float32, seed=3, seed2=4)
    # The type comes as bytes, the attributes by name (ints, as `random_ops` reads them).
    assert [op_type for op_type, _ in seen] == [b"RandomUniform"]
    assert [getattr(seen[0][1][name], "i", seen[0][1][name]) for name in ("seed", "seed2")] == [
        3,
        4,
    ]
    op_def = tfi.registered_op_def("RandomUniform")
    assert op_def.is_stateful and {"seed", "seed2"} <= {attr.name for attr in op_def.attr}
    assert not tfi.registered_op_def("AddV2").is_stateful
    assert tfi.registered_op_def("NoSuchOpCanary") is None


# --- Random seeds -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "op_type, twin",
    [
        ("RandomUniform", "stateless_random_uniform"),
        ("RandomStandardNormal", "stateless_random_normal"),
        ("TruncatedNormal", "stateless_truncated_normal"),
        ("RandomUniformInt", "stateless_random_uniform_int"),
    ],
)
@covers(
    tfi,
    "stateless_random_uniform",
    "stateless_random_normal",
    "stateless_truncated_normal",
    "stateless_random_uniform_int",
)
def test_a_stateless_twin_draws_the_stateful_kernels_first_values(op_type, twin):
    tfi.clear_eager_kernel_caches()
    seed, seed2 = 9091, 57
    key = tf.bitcast(tf.constant([seed], tf.int64), tf.uint64)
    counter = tf.bitcast(tf.constant([0, seed2], tf.int64), tf.uint64)
    if op_type == "RandomUniformInt":
        stateful = tf.raw_ops.RandomUniformInt(
            shape=[6], minval=0, maxval=100, seed=seed, seed2=seed2
        )
        drawn = getattr(tfi, twin)([6], key, counter, 1, 0, 100)
    else:
        stateful = getattr(tf.raw_ops, op_type)(shape=[6], dtype=tf.float32, seed=seed, seed2=seed2)
        drawn = getattr(tfi, twin)([6], key, counter, 1, dtype=tf.float32)
    np.testing.assert_array_equal(drawn.numpy(), stateful.numpy())


@covers(tfi, "graph_op_seed", "set_graph_op_seed", "forget_graph_op_seed")
def test_a_graphs_op_seed_counter_is_read_set_and_forgotten():
    with tf.Graph().as_default() as graph:
        with pytest.raises(KeyError):
            tfi.graph_op_seed(graph)
        assert tfi.graph_op_seed(graph, None) is None
        graph.seed = 5
        tfi.set_graph_op_seed(graph, 10)
        tf.random.uniform([1])
        (random,) = [op for op in graph.get_operations() if op.type == "RandomUniform"]
        assert random.get_attr("seed2") == 10
        assert tfi.graph_op_seed(graph) == 11 == tfi.graph_op_seed(graph, 0)
        tfi.forget_graph_op_seed(graph)
        assert tfi.graph_op_seed(graph, 7) == 7


# --- Tensors and variables --------------------------------------------------------------


@covers(tfi, "tensor_equality_enabled")
def test_tensor_equality_is_what_enable_and_disable_tensor_equality_set():
    before = tfi.tensor_equality_enabled()
    try:
        tf.compat.v1.disable_tensor_equality()
        assert tfi.tensor_equality_enabled() is False
        tf.compat.v1.enable_tensor_equality()
        assert tfi.tensor_equality_enabled() is True
    finally:
        if before:
            tf.compat.v1.enable_tensor_equality()
        else:
            tf.compat.v1.disable_tensor_equality()


@covers(tfi, "GRAPH_ELEMENT_METHOD", "graph_element_of")
def test_the_graph_element_method_is_what_a_graph_asks_an_object_for():
    with tf.Graph().as_default() as graph:
        tensor = tf.constant(1.0)
        stand_in = type("StandIn", (), {tfi.GRAPH_ELEMENT_METHOD: lambda self: tensor})()
        assert graph.as_graph_element(stand_in) is tensor
        with tf.control_dependencies([stand_in]):
            after = tf.constant(2.0)
        assert after.op.control_inputs == [tensor.op]
        variable = tf.Variable(1.0)
        assert tfi.graph_element_of(type(variable), variable).op.type == "ReadVariableOp"
    eager = tf.Variable(1.0)
    assert tfi.graph_element_of(type(eager), eager) is None


@covers(tfi, "ResourceVariable")
def test_a_resource_variable_is_made_eagerly_as_a_counter():
    counter = tfi.ResourceVariable(0, dtype=tf.int64, trainable=False, name="canary/counter")
    counter.assign_add(3)
    assert isinstance(counter, tf.Variable) and counter.numpy() == 3


@covers(tfi, "variable_initializer_op", "in_graph_mode", "unique_id")
def test_a_variables_initializer_op_mode_and_slot_key():
    with tf.Graph().as_default():
        variable = tf.Variable(1.0)
        assert tfi.variable_initializer_op(variable) is variable.initializer
        assert tfi.in_graph_mode(variable) is True
    eager = tf.Variable(1.0)
    assert tfi.variable_initializer_op(eager) is None
    assert tfi.in_graph_mode(eager) is False
    other = tf.Variable(1.0)
    assert tfi.unique_id(eager) == tfi.unique_id(eager) != tfi.unique_id(other)
    plain = object()
    assert tfi.variable_initializer_op(plain) is None and tfi.unique_id(plain) == id(plain)


@covers(tfi, "save_slice_info", "ResourceVariableSaveable")
def test_a_partitioned_variables_parts_know_their_slice_and_save_as_one():
    with tf.Graph().as_default():
        parts = list(
            tf.compat.v1.get_variable(
                "p", [4, 2], partitioner=tf.compat.v1.fixed_size_partitioner(2)
            )
        )
        info = tfi.save_slice_info(parts[1])
        assert (info.full_name, info.full_shape, info.var_offset) == ("p", [4, 2], [2, 0])
        assert info.var_shape == [2, 2] and info.spec == "4 2 2,2:0,2"
        assert tfi.save_slice_info(tf.Variable(1.0)) is None
    variable = tf.Variable(np.ones([2, 2], np.float32))
    saveable = tfi.ResourceVariableSaveable(variable, "4 2 2,2:0,2", "p")
    assert [(spec.name, spec.slice_spec) for spec in saveable.specs] == [("p", "4 2 2,2:0,2")]


@covers(tfi, "distributed_container", "CachingVariable", "AggregatingVariable")
def test_a_strategys_variables_are_found_from_their_parts_and_wrappers():
    strategy = tf.distribute.MirroredStrategy(["/cpu:0"])
    with strategy.scope():
        mirrored = tf.Variable(1.0)
    component = mirrored.values[0]
    assert tfi.distributed_container(component.handle)() is mirrored
    plain = tf.Variable(1.0)
    assert tfi.distributed_container(plain) is None
    assert tfi.CachingVariable(plain).get() is plain
    aggregating = tfi.AggregatingVariable(strategy, plain, tf.VariableAggregation.SUM)
    assert aggregating.get() is plain


# --- Resources, the global step, savers -------------------------------------------------


@covers(tfi, "ResourceTracker", "resource_tracker_scope")
def test_resources_made_in_a_tracker_scope_are_tracked():
    tracker = tfi.ResourceTracker()
    with tfi.resource_tracker_scope(tracker):
        table = tf.lookup.StaticHashTable(
            tf.lookup.KeyValueTensorInitializer([1], [2], tf.int64, tf.int64), -1
        )
    assert any(resource is table for resource in tracker.resources)


@covers(tfi, "GLOBAL_STEP_READ_KEY")
def test_hooks_fetch_the_global_step_read_kept_under_the_key():
    with tf.Graph().as_default():
        step = tf.compat.v1.train.get_or_create_global_step()
        read = tf.identity(step.read_value(), name="read_for_hooks")
        tf.compat.v1.add_to_collection(tfi.GLOBAL_STEP_READ_KEY, read)
        hook = tf.compat.v1.train.StopAtStepHook(last_step=5)
        hook.begin()
        assert hook.before_run(None).fetches is read


@covers(tfi, "saver_var_list", "saver_retention")
def test_a_savers_variables_and_retention_are_read():
    with tf.Graph().as_default():
        variable = tf.Variable(1.0, name="v")
        saver = tf.compat.v1.train.Saver(
            {"key": variable}, max_to_keep=3, keep_checkpoint_every_n_hours=2.0
        )
        assert tfi.saver_var_list(saver) == {"key": variable}
        assert tfi.saver_retention(saver) == (3, 2.0)
    assert tfi.saver_var_list(object()) is None


# --- tf.distribute ----------------------------------------------------------------------


@covers(
    tfi,
    "worker_count",
    "worker_index",
    "has_cross_device_ops",
    "cross_device_ops",
    "communication_options",
    "collective_launchers",
    "launcher_device",
    "launcher_ordering_token",
    "set_launcher_ordering_token",
)
def test_a_multi_worker_strategys_workers_and_all_reduce_launchers():
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    extended = strategy.extended
    assert (tfi.worker_count(extended), tfi.worker_index(extended)) == (1, 0)
    assert tfi.has_cross_device_ops(extended)
    ops = tfi.cross_device_ops(extended)
    assert isinstance(ops, tf.distribute.CrossDeviceOps)
    options = tfi.communication_options(extended)
    implementation = tf.distribute.experimental.CommunicationImplementation
    assert isinstance(options.implementation, implementation)
    launchers = list(tfi.collective_launchers(ops))
    assert launchers
    launcher = launchers[0]
    assert tfi.launcher_device(launcher).endswith("CPU:0")
    held = tfi.launcher_ordering_token(launcher)
    assert held is None or isinstance(held, tf.Variable)
    token = tf.Variable(0.0, trainable=False)
    tfi.set_launcher_ordering_token(launcher, token)
    try:
        assert tfi.launcher_ordering_token(launcher) is token
    finally:
        tfi.set_launcher_ordering_token(launcher, held)
    nothing = object()
    assert (tfi.worker_count(nothing), tfi.worker_index(nothing)) == (1, 0)
    assert not tfi.has_cross_device_ops(nothing) and tfi.cross_device_ops(None) is None
    assert tfi.communication_options(nothing) is None
    assert tuple(tfi.collective_launchers(None)) == ()


@covers(tfi, "scaling_loss_for_estimator")
def test_inside_the_estimators_loss_scaling_tf1_losses_are_averaged_over_replicas():
    # What TF1 optimizers read to scale a replica's loss by 1 / num_replicas.
    reduction = tf.compat.v1.distribute.get_loss_reduction
    strategy = tf.distribute.MirroredStrategy(["/cpu:0"])
    with strategy.scope():
        assert reduction() == tf.distribute.ReduceOp.SUM
        with tfi.scaling_loss_for_estimator(strategy):
            assert reduction() == tf.distribute.ReduceOp.MEAN
        assert reduction() == tf.distribute.ReduceOp.SUM


@covers(
    tfi,
    "variable_partitioner",
    "set_variable_partitioner",
    "coordinator_workers",
    "coordinator_worker_devices",
    "add_coordinator_worker",
    "set_remote_value_type_spec",
    "PerWorkerDistributedIterator",
)
def test_parameter_server_internals_are_where_the_package_reads_them():
    # A parameter-server strategy and its coordinator need a running cluster
    # (tests/test_ps_cluster.py runs one): here, what TF's own code sets and reads.
    from tensorflow.python.distribute import parameter_server_strategy_v2 as ps_strategy
    from tensorflow.python.distribute.coordinator import cluster_coordinator
    from tensorflow.python.distribute.coordinator import values as coordinator_values

    extended_class = ps_strategy.ParameterServerStrategyV2Extended
    assert "_variable_partitioner" in extended_class.__init__.__code__.co_names
    assert "_variable_partitioner" in extended_class._create_variable.__code__.co_names
    stand_in = types.SimpleNamespace()
    assert tfi.variable_partitioner(stand_in) is None
    tfi.set_variable_partitioner(stand_in, "partitioner")
    assert tfi.variable_partitioner(stand_in) == "partitioner"
    assert "_cluster" in cluster_coordinator.ClusterCoordinator.__init__.__code__.co_names
    assert "workers" in cluster_coordinator.Cluster.__init__.__code__.co_names
    coordinator = types.SimpleNamespace(_cluster=types.SimpleNamespace(workers=["w"]))
    assert tfi.coordinator_workers(coordinator) == ["w"]
    # A worker made as the coordinator makes its own takes its closures by its index.
    finished = types.SimpleNamespace(get=lambda timeout=None, tag=None: None)
    cluster = types.SimpleNamespace(closure_queue=finished, failure_handler=None)
    cluster.workers = [cluster_coordinator.Worker(0, "/job:worker/replica:0/task:0", cluster)]
    coordinator = types.SimpleNamespace(_cluster=cluster)
    tfi.add_coordinator_worker(coordinator, "/job:chief/replica:0/task:0")
    assert tfi.coordinator_worker_devices(coordinator) == [
        "/job:worker/replica:0/task:0",
        "/job:chief/replica:0/task:0",
    ]
    assert cluster.workers[1].worker_index == 1
    assert "worker_index" in cluster_coordinator.Worker._process_queue.__code__.co_names
    value = coordinator_values.RemoteValueImpl(None, None)
    spec = tf.data.IteratorSpec(tf.TensorSpec([], tf.int64))
    tfi.set_remote_value_type_spec(value, spec)
    assert value._type_spec is spec
    iterator = tfi.PerWorkerDistributedIterator((value,))
    assert isinstance(iterator, tf.distribute.experimental.coordinator.PerWorkerValues)


@covers(tfi, "normalize_cluster_spec", "collective_leader")
def test_a_cluster_spec_is_normalized_and_names_its_collective_leader():
    spec = tfi.normalize_cluster_spec({"worker": ["a:1", "b:2"]})
    assert isinstance(spec, tf.train.ClusterSpec)
    assert spec.as_dict() == {"worker": ["a:1", "b:2"]}
    assert tfi.collective_leader(spec, "worker", 1) == "/job:worker/replica:0/task:0"


# --- tf.data ----------------------------------------------------------------------------


@covers(tfi, "DatasetV1", "tf1_iterator_patch_points")
def test_tf1_iterator_makers_are_found_called_and_replaced():
    assert tfi.DatasetV1 is tf.compat.v1.data.Dataset
    points = tfi.tf1_iterator_patch_points()
    assert [name for _, name, _ in points] == [
        "make_one_shot_iterator",
        "make_initializable_iterator",
    ] * 2
    with tf.Graph().as_default():
        dataset = tf.compat.v1.data.Dataset.range(3)
        for _, _, original in points:
            iterator = original(dataset)
            assert iterator.get_next().dtype == tf.int64
        owner, name, original = points[2]  # DatasetV1's method
        setattr(owner, name, lambda self: "replaced")
        try:
            assert dataset.make_one_shot_iterator() == "replaced"
        finally:
            setattr(owner, name, original)
        assert dataset.make_one_shot_iterator() != "replaced"


@covers(tfi, "release_iterator_resources")
def test_a_released_iterator_holds_no_resource_of_its_own_or_of_its_inner_iterators():
    iterator = iter(tf.data.Dataset.range(3))
    assert next(iterator).numpy() == 0
    assert getattr(iterator, "_iterator_resource", None) is not None  # what it releases
    tfi.release_iterator_resources(iterator)
    assert iterator._iterator_resource is None
    strategy = tf.distribute.OneDeviceStrategy("/cpu:0")
    distributed = iter(strategy.experimental_distribute_dataset(tf.data.Dataset.range(4).batch(2)))
    next(distributed)
    tfi.release_iterator_resources(distributed)
    inner = [distributed]
    while inner:  # every iterator inside it, at any depth, let go of its resource
        each = inner.pop()
        for name in ("_iterator_resource", "_multi_device_iterator_resource"):
            assert getattr(each, name, None) is None
        for name in ("_iterators", "_iterator", "_device_iterators"):
            value = getattr(each, name, None)
            inner += [v for v in (value if isinstance(value, (list, tuple)) else [value]) if v]


# --- Feature columns --------------------------------------------------------------------


@covers(
    tfi,
    "FeatureColumn",
    "DenseColumn",
    "CategoricalColumn",
    "SequenceDenseColumn",
    "NumericColumn",
    "BucketizedColumn",
    "IndicatorColumn",
    "CrossedColumn",
    "WeightedCategoricalColumn",
    "SequenceCategoricalColumn",
    "SequenceNumericColumn",
)
def test_feature_columns_are_of_the_classes_the_package_tells_them_by():
    fc = tf.feature_column
    numeric = fc.numeric_column("x")
    ids = fc.categorical_column_with_identity("id", 4)
    sequence_ids = fc.sequence_categorical_column_with_identity("s", 4)
    made = {
        tfi.NumericColumn: numeric,
        tfi.BucketizedColumn: fc.bucketized_column(numeric, [0.0]),
        tfi.IndicatorColumn: fc.indicator_column(ids),
        tfi.CrossedColumn: fc.crossed_column(["a", "b"], 4),
        tfi.WeightedCategoricalColumn: fc.weighted_categorical_column(ids, "w"),
        tfi.SequenceCategoricalColumn: sequence_ids,
        tfi.SequenceNumericColumn: tf.feature_column.sequence_numeric_column("n"),
    }
    for cls, column in made.items():
        assert isinstance(column, cls) and isinstance(column, tfi.FeatureColumn), cls
    assert isinstance(numeric, tfi.DenseColumn) and isinstance(ids, tfi.CategoricalColumn)
    assert isinstance(fc.embedding_column(sequence_ids, 2), tfi.SequenceDenseColumn)


@covers(
    tfi,
    "FeatureTransformationCache",
    "StateManager",
    "is_feature_column_v2",
    "serialize_feature_columns",
    "deserialize_feature_columns",
)
def test_v2_columns_read_features_through_a_cache_and_serialize():
    column = tf.feature_column.numeric_column("x", shape=(2,))
    cache = tfi.FeatureTransformationCache({"x": tf.constant([[1.0, 2.0]])})
    np.testing.assert_array_equal(column.get_dense_tensor(cache, None).numpy(), [[1.0, 2.0]])
    methods = {"create_variable", "add_variable", "get_variable"}
    assert methods | {"add_resource", "has_resource", "get_resource"} <= set(dir(tfi.StateManager))
    assert tfi.is_feature_column_v2([column])
    v1_only = tfi.V1NumericColumn("w", (1,), None, tf.float32, None)
    assert not tfi.is_feature_column_v2([column, v1_only])
    configs = tfi.serialize_feature_columns([column])
    assert tfi.deserialize_feature_columns(configs) == [column]


@covers(tfi, "concatenate_context_input", "equal_sequence_lengths")
def test_sequence_inputs_are_joined_to_context_and_their_lengths_checked():
    joined = tfi.concatenate_context_input(tf.ones([2, 3]), tf.zeros([2, 4, 5]))
    assert joined.shape == (2, 4, 8)
    lengths = tfi.equal_sequence_lengths([tf.constant([2, 3]), tf.constant([2, 3])])
    np.testing.assert_array_equal(lengths.numpy(), [2, 3])
    with pytest.raises(tf.errors.InvalidArgumentError):
        tfi.equal_sequence_lengths([tf.constant([2, 3]), tf.constant([2, 1])])


@covers(tfi, "V1NumericColumn", "v1_dense_tensor", "v1_variable_shape")
def test_a_v1_only_column_gives_its_dense_tensor_and_width():
    column = tfi.V1NumericColumn("w", (2,), None, tf.float32, None)
    dense = tfi.v1_dense_tensor(column, {"w": tf.constant([[2.0, 3.0]])})
    np.testing.assert_array_equal(dense.numpy(), [[2.0, 3.0]])
    assert tfi.v1_variable_shape(column) == tf.TensorShape([2])


@covers(tfi, "SharedEmbeddingColumn", "forget_shared_embedding_tables")
def test_shared_embeddings_forget_the_tables_they_made():
    with tf.Graph().as_default():
        ids = [tf.feature_column.categorical_column_with_identity(k, 3) for k in "ab"]
        columns = tf.feature_column.shared_embeddings(ids, 2)
        assert all(isinstance(column, tfi.SharedEmbeddingColumn) for column in columns)
        features = {"a": tf.constant([[1]], tf.int64), "b": tf.constant([[2]], tf.int64)}
        columns[0].get_dense_tensor(tfi.FeatureTransformationCache(features), None)
        creator = columns[0].shared_embedding_column_creator
        assert creator._embedding_weights
        tfi.forget_shared_embedding_tables(columns[0])
        assert not creator._embedding_weights


# --- Lookup tables ----------------------------------------------------------------------


@pytest.fixture
def vocabulary(tmp_path):
    path = tmp_path / "vocabulary.txt"
    path.write_text("a\nb\nc\n")
    return str(path)


@covers(
    tfi,
    "LookupInterface",
    "HashTable",
    "InitializableLookupTableBase",
    "TextFileIdTableInitializer",
    "TextFileStringTableInitializer",
    "index_table_from_file",
    "index_to_string_table_from_file",
)
def test_tf1_tables_map_keys_from_tensors_and_files(vocabulary):
    table = tfi.HashTable(tf.lookup.KeyValueTensorInitializer(["a"], [1], tf.string, tf.int64), -1)
    assert isinstance(table, tfi.InitializableLookupTableBase)
    assert isinstance(table, tfi.LookupInterface)
    assert table.lookup(tf.constant(["a", "z"])).numpy().tolist() == [1, -1]
    ids = tfi.HashTable(tfi.TextFileIdTableInitializer(vocabulary), -1)
    assert ids.lookup(tf.constant(["b"])).numpy().tolist() == [1]
    words = tfi.HashTable(tfi.TextFileStringTableInitializer(vocabulary), "?")
    assert words.lookup(tf.constant([2], tf.int64)).numpy().tolist() == [b"c"]
    from_file = tfi.index_table_from_file(vocabulary, num_oov_buckets=1)
    assert from_file.lookup(tf.constant(["c", "zz"])).numpy().tolist() == [2, 3]
    back = tfi.index_to_string_table_from_file(vocabulary)
    assert back.lookup(tf.constant([0, 9], tf.int64)).numpy().tolist() == [b"a", b"UNK"]


@covers(
    tfi,
    "IdTableWithHashBuckets",
    "MutableDenseHashTable",
    "HasherSpec",
    "FastHashSpec",
    "StrongHashSpec",
    "index_table_from_tensor",
    "index_to_string_table_from_tensor",
)
def test_tf1_table_builders_take_their_positional_arguments():
    assert isinstance(tfi.FastHashSpec, tfi.HasherSpec) and tfi.FastHashSpec.hasher == "fasthash"
    assert tfi.StrongHashSpec([1, 2]).hasher == "stronghash"
    buckets = tfi.IdTableWithHashBuckets(
        None, num_oov_buckets=2, hasher_spec=tfi.FastHashSpec, key_dtype=tf.string
    )
    assert set(buckets.lookup(tf.constant(["x", "y"])).numpy().tolist()) <= {0, 1}
    # TF's private lookup module has the raw op under this name (not a table
    # class), which `tf.contrib.lookup` re-exports as it is: a graph op.
    with tf.Graph().as_default():
        handle = tfi.MutableDenseHashTable(empty_key=tf.constant(0, tf.int64), value_dtype=tf.int64)
        assert handle.op.type == "MutableDenseHashTable"
    mapping = tf.constant(["a", "b"])
    table = tfi.index_table_from_tensor(mapping, 1, -1, tfi.FastHashSpec, tf.string, None)
    assert table.lookup(tf.constant(["b", "z"])).numpy().tolist() == [1, 2]
    back = tfi.index_to_string_table_from_tensor(mapping, "UNK", None)
    assert back.lookup(tf.constant([1, 5], tf.int64)).numpy().tolist() == [b"b", b"UNK"]


# --- SavedModel exports -----------------------------------------------------------------


@covers(
    tfi,
    "ExportOutput",
    "ClassificationOutput",
    "RegressionOutput",
    "PredictOutput",
    "TrainOutput",
    "EvalOutput",
)
def test_export_outputs_build_their_signatures():
    with tf.Graph().as_default():
        # Classification and regression signatures take one string tensor of examples.
        receiver = {"examples": tf.compat.v1.placeholder(tf.string, [None], name="examples")}
        value = tf.constant([[0.5]])
        loss = tf.reduce_sum(value)
        built = {
            tfi.ClassificationOutput(scores=value): "tensorflow/serving/classify",
            tfi.RegressionOutput(value): "tensorflow/serving/regress",
            tfi.PredictOutput({"y": value}): "tensorflow/serving/predict",
            tfi.TrainOutput(loss=loss, predictions={"y": value}): "tensorflow/supervised/training",
            tfi.EvalOutput(loss=loss, predictions={"y": value}): "tensorflow/supervised/eval",
        }
        for output, method in built.items():
            assert isinstance(output, tfi.ExportOutput)
            assert output.as_signature_def(receiver).method_name == method


@covers(
    tfi,
    "SINGLE_FEATURE_DEFAULT_NAME",
    "SINGLE_LABEL_DEFAULT_NAME",
    "SINGLE_RECEIVER_DEFAULT_NAME",
    "get_export_outputs",
    "export_outputs_for_mode",
)
def test_export_outputs_are_made_for_a_spec_and_for_each_mode():
    defaults = (
        tfi.SINGLE_FEATURE_DEFAULT_NAME,
        tfi.SINGLE_LABEL_DEFAULT_NAME,
        tfi.SINGLE_RECEIVER_DEFAULT_NAME,
    )
    assert defaults == ("feature", "label", "input")
    with tf.Graph().as_default():
        predictions = tf.constant([[1.0]])
        outputs = tfi.get_export_outputs(None, predictions)
        serving = outputs[tf.saved_model.DEFAULT_SERVING_SIGNATURE_DEF_KEY]
        assert isinstance(serving, tfi.PredictOutput)
        train = tfi.export_outputs_for_mode("train", loss=tf.constant(1.0))
        assert [type(output) for output in train.values()] == [tfi.TrainOutput]


@covers(tfi, "get_timestamped_export_dir", "get_temp_export_dir")
def test_export_directories_are_timestamped_under_the_base(tmp_path):
    export_dir = tfi.get_timestamped_export_dir(str(tmp_path))
    assert isinstance(export_dir, bytes) and not os.path.exists(export_dir)
    assert os.path.dirname(os.fsdecode(export_dir)) == str(tmp_path)
    assert os.path.basename(os.fsdecode(export_dir)).isdigit()
    temp = os.fsdecode(tfi.get_temp_export_dir(export_dir))
    assert os.path.dirname(temp) == str(tmp_path) and "temp" in os.path.basename(temp)


# --- Files, logs, summaries, TPU, warm starts -------------------------------------------


@covers(tfi, "atomic_write_string_to_file")
def test_a_file_is_written_whole(tmp_path):
    path = str(tmp_path / "state")
    tfi.atomic_write_string_to_file(path, "model_checkpoint_path: 'x'\n")
    assert open(path).read() == "model_checkpoint_path: 'x'\n"
    assert os.listdir(tmp_path) == ["state"]


@covers(tfi, "drop_write_graph_float_format")
def test_a_graph_is_written_as_text_whatever_protobuf_takes(tmp_path):
    from google.protobuf import text_format

    tfi.drop_write_graph_float_format()  # again: it is idempotent
    graph = tf.Graph()
    with graph.as_default():
        tf.constant(1.0 / 3.0, name="third")
    path = tf.io.write_graph(graph, str(tmp_path), "graph.pbtxt", as_text=True)
    read = text_format.Parse(open(path).read(), tf.compat.v1.GraphDef())
    assert [node.name for node in read.node] == ["third"]


class _Records(logging.Handler):
    def __init__(self):
        super().__init__()
        self.messages = []

    def emit(self, record):
        self.messages.append(record.getMessage())


@covers(tfi, "deprecation_notices_silenced")
def test_deprecation_notices_are_not_logged_inside():
    from tensorflow.python.util import deprecation

    def notices():
        # A function of its own: each is deprecated (and noticed) once.
        function = deprecation.deprecated(None, "Canary.")(lambda: None)
        records = _Records()
        logger = logging.getLogger("tensorflow")
        logger.addHandler(records)
        try:
            function()
        finally:
            logger.removeHandler(records)
        return [message for message in records.messages if "deprecated" in message]

    with tfi.deprecation_notices_silenced():
        assert notices() == []
    assert notices()
    # Back after a block that raised, too (TensorFlow's own `silence()` is not).
    with pytest.raises(OSError), tfi.deprecation_notices_silenced():
        raise OSError("a failed save")
    assert notices()


@covers(
    tfi,
    "summary_writer_initializer_op",
    "legacy_raw_flush",
    "replace_summary_writer_init",
)
def test_summary_writers_made_are_recorded_initialized_and_flushed(tmp_path):
    made = []

    def recording_init(self, *args, **kwargs):
        original_init(self, *args, **kwargs)
        made.append(self)

    original_init = tfi.replace_summary_writer_init(recording_init)
    try:
        with tf.Graph().as_default():
            tf.summary.create_file_writer(str(tmp_path))
            init_ops = tfi.summary_writer_initializer_op()
            flush_ops = [tfi.legacy_raw_flush(writer=op.inputs[0]) for op in init_ops]
            with tf.compat.v1.Session() as session:
                session.run(init_ops)
                session.run(flush_ops)
    finally:
        assert tfi.replace_summary_writer_init(original_init) is recording_init
    assert len(made) == 1 and len(init_ops) == 1
    assert any(name.startswith("events.out.tfevents") for name in os.listdir(tmp_path))
    tf.summary.create_file_writer(str(tmp_path / "after"))
    assert len(made) == 1


@covers(tfi, "tpu_context", "cross_shard_wrapped_optimizer")
def test_off_a_tpu_there_is_no_shard_and_a_cross_shard_optimizer_wraps_its_own():
    assert tfi.tpu_context().number_of_shards is None
    inner = tf.compat.v1.train.GradientDescentOptimizer(0.1)
    assert tfi.cross_shard_wrapped_optimizer(cross_shard.CrossShardOptimizer(inner)) is inner


@covers(tfi, "warm_start_with_vocabulary")
def test_a_variable_is_warm_started_row_by_row_from_another_vocabulary(tmp_path):
    old, new = tmp_path / "old.txt", tmp_path / "new.txt"
    old.write_text("a\nb\nc\n")
    new.write_text("c\na\nd\n")
    checkpoint = tf.train.Checkpoint(emb=tf.Variable([[1.0], [2.0], [3.0]]))
    path = checkpoint.write(str(tmp_path / "ckpt"))
    key = "emb/.ATTRIBUTES/VARIABLE_VALUE"
    variable = tf.Variable(np.zeros([3, 1], np.float32))
    tfi.warm_start_with_vocabulary(
        variable,
        current_vocab_path=str(new),
        current_vocab_size=3,
        prev_ckpt=path,
        prev_vocab_path=str(old),
        previous_vocab_size=3,
        current_oov_buckets=0,
        prev_tensor_name=key,
        initializer=tf.constant_initializer(-1.0),
        axis=0,
    )
    np.testing.assert_array_equal(variable.numpy(), [[3.0], [1.0], [-1.0]])


# --- tensorflow_protos ------------------------------------------------------------------


@covers(tensorflow_protos, "SavedModel", "data_type_enum")
def test_the_saved_model_proto_holds_meta_graphs_and_dtype_names_map_to_enums():
    saved_model = tensorflow_protos.SavedModel()
    meta_graph = tf.compat.v1.MetaGraphDef()
    meta_graph.meta_info_def.tags.append("serve")
    saved_model.meta_graphs.add().CopyFrom(meta_graph)
    parsed = tensorflow_protos.SavedModel()
    parsed.ParseFromString(saved_model.SerializeToString())
    assert list(parsed.meta_graphs[0].meta_info_def.tags) == ["serve"]
    assert tensorflow_protos.data_type_enum("DT_FLOAT") == tf.float32.as_datatype_enum
    assert tf.as_dtype(tensorflow_protos.data_type_enum("DT_STRING")) == tf.string
    with pytest.raises(ValueError):
        tensorflow_protos.data_type_enum("DT_CANARY")


# --- keras_internals --------------------------------------------------------------------


@covers(keras_internals, "name_uids", "set_name_uids")
def test_keras_counts_automatic_names_where_it_is_told():
    held = keras_internals.name_uids()
    keras_internals.set_name_uids(collections.defaultdict(int))
    try:
        assert [keras.layers.Dense(1).name for _ in range(2)] == ["dense", "dense_1"]
        assert keras_internals.name_uids()["dense"] == 2
    finally:
        keras_internals.set_name_uids(held)
    assert keras_internals.name_uids() is held


@covers(keras_internals, "name_scope_stack", "set_name_scope_stack")
def test_keras_names_variables_under_the_name_scope_stack():
    with keras.name_scope("outer"):
        stack = keras_internals.name_scope_stack()
        assert [scope.name for scope in stack] == ["outer"]
        assert keras.Variable(1.0, name="inside").path == "outer/inside"
        keras_internals.set_name_scope_stack([])
        try:
            assert keras.Variable(1.0, name="outside").path == "outside"
        finally:
            keras_internals.set_name_scope_stack(stack)


@covers(keras_internals, "global_seed_generator", "set_global_seed_generator")
def test_unseeded_keras_random_ops_draw_from_the_global_seed_generator():
    held = keras_internals.global_seed_generator()
    keras_internals.set_global_seed_generator(None)
    try:
        keras.random.normal([1])
        made = keras_internals.global_seed_generator()
        assert isinstance(made, keras.random.SeedGenerator)
        keras.random.normal([1])
        assert keras_internals.global_seed_generator() is made
    finally:
        keras_internals.set_global_seed_generator(held)


@covers(keras_internals, "loaded_tf_keras_namespace")
def test_the_tf_keras_namespace_is_what_tf_keras_gives():
    assert keras_internals.loaded_tf_keras_namespace() is tf.keras
    # Not imported here (that would change what the installer finds): it exists.
    assert importlib.util.find_spec("keras._tf_keras.keras.optimizers.legacy") is not None
    assert keras_internals.loaded_tf_keras_namespace("no_such_submodule") is None


@covers(keras_internals, "to_snake_case", "Functional")
def test_keras_names_and_functional_models():
    assert keras_internals.to_snake_case("Adam") == "adam"
    assert keras_internals.to_snake_case("SGD") == "sgd"
    assert keras.optimizers.Adam().name.startswith(keras_internals.to_snake_case("Adam"))
    inputs = keras.Input((2,))
    functional = keras.Model(inputs, keras.layers.Dense(1)(inputs))
    assert isinstance(functional, keras_internals.Functional)
    assert not isinstance(keras.Sequential([keras.layers.Dense(1)]), keras_internals.Functional)


@covers(keras_internals, "backing_variable", "learning_rate_variable", "compiled_metrics")
def test_keras_objects_give_their_variables_and_compiled_metrics():
    variable = keras.Variable(1.0)
    backing = keras_internals.backing_variable(variable)
    assert isinstance(backing, tf.Variable)
    variable.assign(5.0)
    assert backing.numpy() == 5.0
    plain = tf.Variable(1.0)
    assert keras_internals.backing_variable(plain) is plain
    learning_rate = keras_internals.learning_rate_variable(keras.optimizers.Adam(0.25))
    assert float(learning_rate.numpy()) == 0.25
    assert keras_internals.learning_rate_variable(object()) is None
    inputs = keras.Input((1,))
    model = keras.Model(inputs, keras.layers.Dense(1)(inputs))
    model.compile(loss="mse")
    assert keras_internals.compiled_metrics(model) is None
    model.compile(loss="mse", metrics=["mae"])
    compiled = keras_internals.compiled_metrics(model)
    y = np.array([[1.0]], np.float32)
    compiled.update_state(y, y * 3.0, None)
    assert dict(zip(compiled.result(), compiled.metrics))
    assert float(compiled.result()["mae"]) == 2.0


@covers(keras_internals, "is_graph_network", "compile_arguments")
def test_a_tf_keras_model_says_how_it_was_built_and_compiled():
    assert keras_internals.is_graph_network(object()) is False
    tf_keras = pytest.importorskip("tf_keras")
    inputs = tf_keras.Input((2,))
    model = tf_keras.Model(inputs, tf_keras.layers.Dense(1)(inputs))
    assert keras_internals.is_graph_network(model) is True
    model.compile(optimizer="sgd", loss="mse", metrics=["mae"])
    arguments = keras_internals.compile_arguments(model)
    assert (arguments["optimizer"].__class__.__name__, arguments["loss"]) == ("SGD", "mse")
    assert arguments["metrics"] == ["mae"]
