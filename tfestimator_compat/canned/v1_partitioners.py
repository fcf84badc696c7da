"""The partitioners of the `tf.compat.v1.estimator` canned models, by the number of ps tasks.

The original's V1 DNN, linear and wide & deep models always built their
variables under `min_max_variable_partitioner(max_partitions=num_ps_replicas)`:
the DNN's layers in parts of at least 256 KiB, the input layer and the linear
model (unless `input_layer_partitioner` / `partitioner` was given) of at least
64 MiB. In a parameter-server job a large variable was so several parts, each
of whose optimizer slots was saved under a key of its own
(`dnn/hiddenlayer_0/kernel/t_1/Adagrad`, see `v1_variables`); the same
partitioners here give a ps job the original's keys and slices. Without ps
tasks each variable was one part, saved as the whole variable, which is what
a variable built without a partitioner is here.
"""

import tensorflow as tf

# The original's smallest parts: its default for the DNN layers, and its
# choice for the input layer and the linear model.
_LAYER_SLICE_BYTES = 256 << 10
_INPUT_SLICE_BYTES = 64 << 20


def num_ps_replicas(config) -> int:
    """The ps tasks of the `RunConfig`'s cluster (0 for an evaluator or one process)."""
    return config.num_ps_replicas if config is not None else 0


def checked(partitioner, argument):
    """`partitioner`, once known to be one (or None)."""
    if partitioner is not None and not callable(partitioner):
        raise ValueError(f"{argument} must be a partitioner (a callable). Given: {partitioner}")
    return partitioner


def _default(num_ps, min_slice_size):
    """The partitioner the original's V1 canned models used where the user gave none.

    It splits a variable into as many parts as there are ps tasks, each at
    least `min_slice_size` bytes. Without ps tasks it made one part, saved as
    the whole variable: a whole variable here has the same keys, so None.
    """
    if not num_ps:
        return None
    return tf.compat.v1.min_max_variable_partitioner(
        max_partitions=num_ps, min_slice_size=min_slice_size
    )


def dnn(input_layer_partitioner):
    """The DNN's partitioners by the number of ps tasks: the hidden and logits
    layers' in slices of at least 256 KiB, the input layer's (unless given) of 64 MiB."""
    input_layer_partitioner = checked(input_layer_partitioner, "input_layer_partitioner")

    def partitioners(num_ps):
        return {
            "partitioner": _default(num_ps, _LAYER_SLICE_BYTES),
            "input_layer_partitioner": input_layer_partitioner
            or _default(num_ps, _INPUT_SLICE_BYTES),
        }

    return partitioners


def linear(partitioner):
    """The linear model's partitioner by the number of ps tasks: the one given,
    or slices of at least 64 MiB."""
    partitioner = checked(partitioner, "partitioner")

    def partitioners(num_ps):
        default = _default(num_ps, _INPUT_SLICE_BYTES)
        return {"partitioner": partitioner or default}

    return partitioners


def combined(input_layer_partitioner):
    """The wide & deep partitioners: the DNN's, with the input layer's for the linear part too."""
    dnn_partitioners = dnn(input_layer_partitioner)

    def partitioners(num_ps):
        kwargs = dnn_partitioners(num_ps)
        return {
            "dnn_partitioner": kwargs["partitioner"],
            "input_layer_partitioner": kwargs["input_layer_partitioner"],
        }

    return partitioners
