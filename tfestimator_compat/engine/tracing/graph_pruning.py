"""Cuts a function of some tensors out of a wrapped TF1 graph, quickly.

A Session ran only the part of its graph that the fetches needed. Here each
set of fetches becomes a function of its own, pruned from the `model_fn`'s
graph. `WrappedFunction.prune` does that by copying the needed ops one by one
through Python (`lift_to_graph`), which for a wide & deep model_fn (thousands
of ops, pruned twice per `train()`) took longer than building the graph. This
module selects the needed nodes on the `GraphDef` and imports them in one C++
call (`import_graph_def`), which makes the same function: the same ops, names,
devices and captured variables.
"""

import tensorflow as tf

from tfestimator_compat.engine.internals import tensorflow_internals as tf_internals

# Attributes `WrappedFunction.prune` drops too: colocation with ops that may
# not be copied, and the TPU replication context the copy is no longer in.
_DROPPED_ATTRS = ("_class", "_tpu_replicate")
# Where the new function's inputs are named: the imported nodes keep their
# names only where no name in the graph starts like theirs.
_INPUT_SCOPE = "pruned_inputs"
# Reads a gated branch does not delay (a gather may be costly: it stays gated).
_UNGATED_READ_OPS = frozenset({"ReadVariableOp"})


class GraphDefCache:
    """The `GraphDef` of a graph that only grows, made again only once it has grown."""

    def __init__(self, graph):
        self._graph = graph
        self._version = None
        self._nodes = None

    def nodes(self):
        """Node name -> NodeDef, without the function library."""
        version = self._graph.version
        if version != self._version:
            graph_def = self._graph.as_graph_def()
            self._nodes = {node.name: node for node in graph_def.node}
            self._version = version
        return self._nodes


def prune(wrapped, feeds, fetches, graph_defs=None, gated=None):
    """A `WrappedFunction` of `feeds` that returns `fetches`, as `wrapped.prune` makes.

    Args:
        wrapped: the `WrappedFunction` whose graph holds feeds and fetches.
        feeds: tensors of that graph, the new function's arguments in order
            (what a Session's feed_dict overrode).
        fetches: a structure of tensors, composite tensors and ops of that
            graph (ops come back as None).
        graph_defs: a `GraphDefCache` of `wrapped.graph`, kept by a caller
            that prunes the same graph again.
        gated: None, or a structure of tensors that only some runs fetch
            (summaries, logged values). The function then takes a boolean
            first argument and returns `(fetches, gated)`: the ops only
            `gated` needs run inside a `tf.cond` on it, and give zeros when it
            is False. One function then serves the steps that fetch them and
            the steps that do not, so a step loop calls (and TensorFlow
            optimizes) the model once.
    """
    graph = wrapped.graph
    nodes = (graph_defs or GraphDefCache(graph)).nodes()
    internal_captures = {id(c) for c in graph.internal_captures}
    feeds = [f for f in feeds if id(f) not in internal_captures]
    # Tensors the new function gets from outside: its arguments and captures.
    replaced = {f.name: f for f in feeds}
    replaced.update((internal.name, internal) for internal in graph.internal_captures)
    flat_fetches = tf.nest.flatten(fetches, expand_composites=True)
    tensors = [f for f in flat_fetches if isinstance(f, tf.Tensor)]
    operations = [f for f in flat_fetches if isinstance(f, tf.Operation)]
    gated_tensors = [] if gated is None else tf.nest.flatten(gated, expand_composites=True)
    needed, edges = _needed_nodes(_starts(tensors + operations, replaced), nodes, replaced)
    gated_only, gated_edges = _needed_nodes(
        _starts(gated_tensors, replaced), nodes, replaced, needed
    )
    # Variables are read ungated, as early as the step allows: inside the
    # branch a read would wait for everything the branch takes, and could then
    # see the step's own update, which in a Session run it mostly did not.
    # Reads that wait for gated ops (an update's result) stay with them.
    reads = {
        name
        for name in gated_only
        if nodes[name].op in _UNGATED_READ_OPS
        and not any(_node_of(edge) in gated_only for edge in nodes[name].input)
    }
    _, read_edges = _needed_nodes(reads, nodes, replaced, needed)
    needed, edges, gated_only = needed | reads, edges | read_edges, gated_only - reads
    _check_fed(needed | gated_only, nodes)

    with graph.as_default():
        pruned = tf_internals.FuncGraph("pruned")
    with pruned.as_default():
        events = None
        if gated is not None:
            events = tf.compat.v1.placeholder(tf.bool, [], name=f"{_INPUT_SCOPE}/events")
        used = edges | gated_edges | {t.name for t in tensors + gated_tensors}
        captured = {internal.name: external for external, internal in graph.captures}
        placeholders = _placeholders(captured, replaced, used)
        # Arguments first, then captures: the order a call passes them in.
        pruned.inputs.extend([events] if events is not None else [])
        pruned.inputs.extend(placeholders[f.name] for f in feeds)
        for name, placeholder in placeholders.items():
            if name in captured:
                pruned.add_capture(captured[name], placeholder)
        for function in tf_internals.graph_functions(graph):
            tf_internals.add_graph_function(pruned, function)
        _import(needed, nodes, graph, _input_map(edges, placeholders, replaced))

        def lifted(x):
            if isinstance(x, tf.Operation):
                return pruned.get_operation_by_name(x.name)
            if x.name in placeholders:
                return placeholders[x.name]
            return pruned.get_tensor_by_name(x.name)

        outputs = tf.nest.map_structure(
            lambda x: None if isinstance(x, tf.Operation) else lifted(x),
            fetches,
            expand_composites=True,
        )
        if gated is not None:
            gated_outputs = tf.cond(
                events,
                lambda: _gated_branch(gated_tensors, gated_only, nodes, graph, lifted),
                lambda: [tf.zeros([], t.dtype) for t in gated_tensors],
            )
            gated_outputs = tf.nest.pack_sequence_as(gated, gated_outputs, expand_composites=True)
            outputs = (outputs, gated_outputs)

    pruned.outputs.extend(
        t for t in tf.nest.flatten(outputs, expand_composites=True) if t is not None
    )
    pruned.control_outputs.extend(lifted(op) for op in operations)
    pruned.variables = graph.variables
    pruned.structured_outputs = outputs
    pruned.structured_input_signature = None
    function = tf_internals.WrappedFunction(
        pruned, variable_holder=tf_internals.variable_holder(wrapped)
    )
    # Arguments are named after the tensors they feed, as `prune` named them.
    tf_internals.set_call_arguments(
        function,
        len(pruned.inputs) - len(pruned.internal_captures),
        ([events.op.name] if events is not None else []) + [f.op.name for f in feeds],
    )
    return function


def _starts(fetched, replaced):
    """The op names a search for what `fetched` needs starts from."""
    return [
        x.name if isinstance(x, tf.Operation) else x.op.name
        for x in fetched
        if isinstance(x, tf.Operation) or x.name not in replaced
    ]


def _placeholders(captured, replaced, used):
    """Original tensor name -> the placeholder standing for it in the new function:
    every feed (an argument, used or not), and the captures something uses."""
    placeholders = {}
    for name, tensor in replaced.items():
        if name not in captured or name in used or "^" + tensor.op.name in used:
            placeholders[name] = _placeholder_like(tensor, f"{_INPUT_SCOPE}/{len(placeholders)}")
    return placeholders


def _input_map(edges, placeholders, replaced):
    """What `import_graph_def` connects the imported nodes' inputs from outside to."""
    input_map = {name: placeholders[name] for name in placeholders if name in edges}
    for name, placeholder in placeholders.items():
        control = "^" + replaced[name].op.name
        if control in edges:
            # A control input is mapped to the op of the tensor given.
            input_map.setdefault(control, placeholder)
    return input_map


def _import(names, nodes, graph, input_map):
    """Imports the nodes `names` (of `graph`) into the default graph, as they were."""
    graph_def = tf.compat.v1.GraphDef(versions=graph.graph_def_versions)
    for name in names:
        node = graph_def.node.add()
        node.CopyFrom(nodes[name])
        for attr in _DROPPED_ATTRS:
            if attr in node.attr:
                del node.attr[attr]
    tf_internals.import_graph_def_as_is(graph_def, input_map)


def _gated_branch(gated_tensors, gated_only, nodes, graph, lifted):
    """The branch that computes `gated_tensors`: the nodes only they need, imported
    into the branch, fed by captures of what the rest of the function computed."""
    branch = tf.compat.v1.get_default_graph()
    for function in tf_internals.graph_functions(graph):
        tf_internals.add_graph_function(branch, function)
    input_map, waits_for = {}, set()
    for name in gated_only:
        for edge in nodes[name].input:
            if edge.startswith("^"):
                if edge[1:] not in gated_only:
                    waits_for.add(edge[1:])
                continue
            tensor = edge if ":" in edge else edge + ":0"
            if tensor.rsplit(":", 1)[0] not in gated_only and tensor not in input_map:
                outside = lifted(graph.get_tensor_by_name(tensor))
                input_map[tensor] = branch.capture(outside, name=f"{_INPUT_SCOPE}/{len(input_map)}")
    if waits_for:
        # What the gated nodes wait for runs before the branch does.
        ops = [lifted(graph.get_operation_by_name(name)) for name in sorted(waits_for)]
        with tf.control_dependencies(ops):
            anchor = tf.constant(0, name=f"{_INPUT_SCOPE}/after")
        input_map.update(("^" + name, anchor) for name in waits_for)
    _import(gated_only, nodes, graph, input_map)
    return [
        branch.get_tensor_by_name(t.name)
        if t.op.name in gated_only
        else tf.identity(branch.capture(lifted(t)))
        for t in gated_tensors
    ]


def _needed_nodes(starts, nodes, replaced, known=frozenset()):
    """The nodes that running `starts` runs, and the edges into them.

    Everything they wait for through data and control edges, except what
    `replaced` names (tensors that come from outside, and the ops that make
    them when only waited for) and the nodes in `known` (already found).
    Edges are normalized (`a` becomes `a:0`).
    """
    replaced_ops = {name.rsplit(":", 1)[0] for name in replaced}
    needed, edges, pending = set(), set(), list(starts)
    while pending:
        name = pending.pop()
        if name in needed or name in known:
            continue
        needed.add(name)
        for edge in nodes[name].input:
            if edge.startswith("^"):
                edges.add(edge)
                if edge[1:] not in replaced_ops:
                    pending.append(edge[1:])
                continue
            tensor = edge if ":" in edge else edge + ":0"
            edges.add(tensor)
            if tensor not in replaced:
                pending.append(tensor.rsplit(":", 1)[0])
    return needed, edges


def _node_of(edge):
    """The node an input edge (`a`, `a:1` or `^a`) comes from."""
    return edge.lstrip("^").split(":")[0]


def _check_fed(needed, nodes):
    """Raises what a Session run raised when a needed placeholder had no value."""
    unfed = sorted(name for name in needed if nodes[name].op == "Placeholder")
    if unfed:
        raise tf.errors.InvalidArgumentError(
            None,
            None,
            f"You must feed a value for placeholder tensor '{unfed[0]}': the fetches "
            f"need it and no input or feed_dict gives it (all such: {unfed}).",
        )


def _placeholder_like(tensor, name):
    """A placeholder of `tensor`'s dtype, shape, device and variable metadata."""
    with tf.device(tensor.op.device):
        placeholder = tf.compat.v1.placeholder(tensor.dtype, tensor.shape, name=name)
    handle_data = tf_internals.resource_handle_data(tensor)
    if handle_data.shape_and_type:
        tf_internals.set_resource_handle_data(placeholder, handle_data)
    return placeholder
