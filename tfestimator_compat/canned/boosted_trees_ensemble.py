"""BoostedTrees' ensemble: fixed-size, checkpointed variables, and paths through its trees.

Per tree and node, in heap order, the split's feature, its bucket threshold,
its gain and the node's value(s) live under `boosted_trees/`, with the
grower's state beside them, so the ensemble checkpoints by name and training
resumes.
"""

from __future__ import annotations

import collections

import tensorflow as tf

SCOPE = "boosted_trees"
# Values per numeric feature the quantile pass keeps (the first ones seen).
QUANTILE_SAMPLE_SIZE = 1 << 14
_PRUNING_MODES = ("none", "pre", "post")

TreeHParams = collections.namedtuple(
    "TreeHParams",
    [
        "n_trees",
        "max_depth",
        "learning_rate",
        "l1",
        "l2",
        "tree_complexity",
        "min_node_weight",
        "center_bias",
        "pruning_mode",
        "quantile_sketch_epsilon",
    ],
)


def validate_hparams(hparams):
    for name in ("n_trees", "max_depth", "learning_rate", "quantile_sketch_epsilon"):
        if getattr(hparams, name) <= 0:
            raise ValueError(f"Expected {name} > 0, received: {getattr(hparams, name)}")
    for name in ("l1", "l2", "tree_complexity", "min_node_weight"):
        if getattr(hparams, name) < 0:
            raise ValueError(f"Expected {name} >= 0, received: {getattr(hparams, name)}")
    if hparams.pruning_mode not in _PRUNING_MODES:
        raise ValueError(
            f"pruning_mode must be one of {_PRUNING_MODES}, got: {hparams.pruning_mode!r}"
        )
    if hparams.pruning_mode != "none" and hparams.tree_complexity <= 0:
        raise ValueError("For pruning, tree_complexity must be positive.")


def _state_variable(name, shape, dtype, value):
    """A non-trainable resource variable of the ensemble's checkpointed state."""
    return tf.compat.v1.get_variable(
        name,
        shape=shape,
        dtype=dtype,
        initializer=tf.compat.v1.constant_initializer(value),
        trainable=False,
        use_resource=True,
    )


class Ensemble:
    """The ensemble's and the grower's variables, created in the model_fn's graph.

    With `logits_dimension` D > 1 each node holds D values and the statistics
    D gradients and the D * D entries of the full hessian; with one logit the
    variables keep their single-logit shapes.
    """

    def __init__(self, layout, hparams, logits_dimension=1):
        self.layout = layout
        self.hparams = hparams
        self.logits_dimension = logits_dimension
        self.hessian_dimension = logits_dimension**2
        self.num_nodes = 2 ** (hparams.max_depth + 1) - 1
        self.layer_width = 2 ** (hparams.max_depth - 1)
        self.equality = tf.constant(layout.equality, tf.bool)
        trees, nodes = hparams.n_trees, self.num_nodes

        variable = _state_variable
        with tf.compat.v1.variable_scope(SCOPE, reuse=tf.compat.v1.AUTO_REUSE):
            self.feature = variable("tree_feature", [trees, nodes], tf.int32, -1)
            self.threshold = variable("tree_threshold", [trees, nodes], tf.int32, 0)
            self.value = variable(
                "tree_value", [trees, nodes] + self._per_logit(logits_dimension), tf.float32, 0.0
            )
            self.gain = variable("tree_gain", [trees, nodes], tf.float32, 0.0)
            self.boundaries = variable(
                "bucket_boundaries",
                [max(layout.num_float_features, 1), layout.num_quantiles - 1],
                tf.float32,
                0.0,
            )

    def create_training_state(self):
        """The grower's state: where it is, and the statistics of the layer being grown."""
        layout, hparams = self.layout, self.hparams

        variable = _state_variable
        with tf.compat.v1.variable_scope(SCOPE, reuse=tf.compat.v1.AUTO_REUSE):
            self.tree_index = variable("tree_index", [], tf.int32, 0)
            self.layer = variable("layer", [], tf.int32, 0)
            self.num_finalized_trees = variable("num_finalized_trees", [], tf.int32, 0)
            self.num_attempted_layers = variable("num_attempted_layers", [], tf.int32, 0)
            self.no_gain = variable("stopped_without_gain", [], tf.bool, False)
            self.center_bias_needed = variable(
                "center_bias_needed", [], tf.bool, bool(hparams.center_bias)
            )
            self.are_boundaries_ready = variable(
                "are_boundaries_ready", [], tf.bool, not layout.float_columns
            )
            self.num_batches = variable("accumulated_batches", [], tf.int32, 0)
            stats_shape = [self.layer_width, layout.num_features, layout.max_buckets]
            self.stats_gradients = variable(
                "stats_gradients",
                stats_shape + self._per_logit(self.logits_dimension),
                tf.float32,
                0.0,
            )
            self.stats_hessians = variable(
                "stats_hessians",
                stats_shape + self._per_logit(self.hessian_dimension),
                tf.float32,
                0.0,
            )
            if layout.float_columns:
                self.quantile_sample = variable(
                    "quantile_sample",
                    [QUANTILE_SAMPLE_SIZE, layout.num_float_features],
                    tf.float32,
                    0.0,
                )
                self.quantile_sample_size = variable("quantile_sample_size", [], tf.int32, 0)

    def _per_logit(self, size):
        # A single logit keeps the variables' shapes of single-logit checkpoints.
        return [size] if self.logits_dimension > 1 else []

    def values(self):
        """`[trees, nodes, logits_dimension]` node values."""
        value = self.value.read_value()
        return tf.reshape(value, [self.hparams.n_trees, self.num_nodes, self.logits_dimension])

    def statistics(self):
        """The layer's `[width, features, buckets, D]` gradients and `[..., D * D]` hessians."""
        shape = [self.layer_width, self.layout.num_features, self.layout.max_buckets]
        gradients = tf.reshape(self.stats_gradients.read_value(), shape + [self.logits_dimension])
        hessians = tf.reshape(self.stats_hessians.read_value(), shape + [self.hessian_dimension])
        return gradients, hessians

    def set_values(self, indices, values):
        """Writes `[k, D]` values at `[k, 2]` (tree, node) indices."""
        return self.value.scatter_nd_update(
            indices, tf.reshape(values, [-1] + self._per_logit(self.logits_dimension))
        )

    def done(self):
        return tf.logical_or(
            self.num_finalized_trees.read_value() >= self.hparams.n_trees,
            self.no_gain.read_value(),
        )

    def traverse(self, bucket_ids, dtype=tf.float32):
        """Each example's path through each tree.

        `dtype`: of the changes of the node values (float64 for explanations,
        whose contributions the original summed in float64).

        Returns:
            `(nodes, path_features, path_deltas)`: the `[batch, trees]` node each
            example ends at, and per depth the `[batch, trees]` feature split on
            (-1 where the example had reached a leaf) and the change of the
            node values it made (`[batch, trees, logits_dimension]`).
        """
        feature = self.feature.read_value()
        threshold = self.threshold.read_value()
        value = tf.cast(self.values(), dtype)
        batch = tf.shape(bucket_ids)[0]
        nodes = tf.zeros([batch, self.hparams.n_trees], tf.int32)
        at = _per_example

        path_features, path_deltas = [], []
        for _ in range(self.hparams.max_depth):
            split_feature = at(feature, nodes)
            is_split = split_feature >= 0
            bucket = tf.gather(bucket_ids, tf.maximum(split_feature, 0), batch_dims=1)
            split_threshold = at(threshold, nodes)
            equality = tf.gather(self.equality, tf.maximum(split_feature, 0))
            right = tf.cast(
                tf.where(equality, tf.not_equal(bucket, split_threshold), bucket > split_threshold),
                tf.int32,
            )
            children = tf.where(is_split, 2 * nodes + 1 + right, nodes)
            path_features.append(split_feature)
            path_deltas.append(at(value, children) - at(value, nodes))
            nodes = children
        return nodes, path_features, path_deltas

    def logits(self, bucket_ids):
        nodes, _, _ = self.traverse(bucket_ids)
        return self.logits_at(nodes)

    def logits_at(self, nodes):
        return tf.reduce_sum(_per_example(self.values(), nodes), axis=1)

    def bias(self):
        return self.values()[0, 0, 0]


def _per_example(table, nodes):
    """`table[tree, nodes[example, tree]]` of a `[trees, nodes, ...]` table:
    `[batch, trees, ...]`."""
    gathered = tf.gather(table, tf.transpose(nodes), batch_dims=1)
    return tf.transpose(gathered, [1, 0] + list(range(2, table.shape.rank)))
