"""Which ops of a graph write given variables.

A Keras 2 `Metric` listed its `updates`, and the original `EstimatorSpec`
refused a metric with none, or with updates in another graph. A Keras 3
metric lists none: the assignments to its variables in a graph stand for
them. Variables are met in two ways: made in that graph (a `tf.Graph` a spec
is built in by hand), or made eagerly and captured by it (the traced
`model_fn`'s graph).
"""

import tensorflow as tf

WRITE_OPS = frozenset(
    {
        "AssignVariableOp",
        "AssignAddVariableOp",
        "AssignSubVariableOp",
        "ResourceScatterAdd",
        "ResourceScatterUpdate",
    }
)


def handles(variable) -> list:
    """The resource handles behind a Keras, TF or distributed variable."""
    if hasattr(variable, "path"):
        variable = variable.value
    # A `tf.distribute` variable has one copy per device.
    values = getattr(variable, "values", None)
    copies = values if isinstance(values, tuple) else (variable,)
    return [copy.handle for copy in copies]


def internal_handles(variables, graph=None) -> set:
    """Ids of the tensors through which `graph` (the default one) uses `variables`:
    their handles, and the placeholders that capture them."""
    graph = graph or tf.compat.v1.get_default_graph()
    ids = {id(handle) for v in variables for handle in handles(v)}
    captures = getattr(graph, "captures", ())  # a FuncGraph's only
    captured = {id(inner) for outer, inner in captures if id(outer) in ids}
    return ids | captured


def uses(op, handle_ids, op_types) -> bool:
    """Whether `op` is of `op_types` and takes a variable through `handle_ids`."""
    return op.type in op_types and bool(op.inputs) and id(op.inputs[0]) in handle_ids


def ops_writing(variables, graph=None) -> list:
    """The ops of `graph` (the default one) that assign to one of `variables`,
    their initializers left out."""
    graph = graph or tf.compat.v1.get_default_graph()
    handle_ids = internal_handles(variables, graph)
    initializers = {id(_initializer(v)) for v in variables if graph in graphs_of([v])}
    return [
        op
        for op in graph.get_operations()
        if uses(op, handle_ids, WRITE_OPS) and id(op) not in initializers
    ]


def graphs_of(variables) -> list:
    """The graphs that made `variables`; eager ones have none."""
    found = []
    for variable in variables:
        for handle in handles(variable):
            graph = getattr(handle, "graph", None)
            if not tf.is_symbolic_tensor(handle) or graph is None:
                continue
            if not any(graph is seen for seen in found):
                found.append(graph)
    return found


def _initializer(variable):
    """The op that gave a graph's own variable its initial value. (Asked of a
    variable the graph captured, `initializer` would add one.)"""
    if hasattr(variable, "path"):
        variable = variable.value
    return variable.initializer
