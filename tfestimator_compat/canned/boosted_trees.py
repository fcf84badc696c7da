"""`BoostedTreesClassifier`, `BoostedTreesRegressor`, `BoostedTreesEstimator` in plain TF ops.

TensorFlow >= 2.15 registers the `BoostedTrees*` ops the original ran on but
ships no kernel for them. These estimators grow the same kind of model with
ordinary ops, layer by layer as the original did:

1. Numeric columns are bucketized by quantiles of the first
   `n_batches_per_layer` batches (`1 / quantile_sketch_epsilon` buckets);
   those batches train nothing and do not advance the global step.
2. Each step computes the gradients and hessians of the head's loss with
   respect to the logits and adds them, per node of the layer being grown,
   feature and bucket, to the layer's statistics.
3. Every `n_batches_per_layer` steps the layer is grown: each node takes its
   best split by gain (with `l1_regularization`, `l2_regularization`,
   `tree_complexity` and `min_node_weight`), its children starting from its
   value plus `learning_rate` times their Newton step. A tree is finished
   after `max_depth` layers, or when no node of a layer splits; training ends
   after `n_trees` trees, or when a new tree cannot split its root.
4. With `center_bias`, the first steps move the first tree's root to the
   loss's optimum (Newton steps until one moves it by less than 0.01).

The ensemble lives in fixed-size variables under `boosted_trees/` (per tree
and node, in heap order: the split's feature, its bucket threshold, its gain
and the node's value), so it checkpoints by name and training resumes. A
model_dir of tensorflow-estimator 2.8 (a serialized `TreeEnsemble` resource)
cannot be read: see migration_guide/replacements.md#boosted-trees.
"""

from __future__ import annotations

import collections

import numpy as np
import tensorflow as tf
from tensorflow.python.feature_column import feature_column_v2 as fc_v2

from tfestimator_compat import checkpoints
from tfestimator_compat.canned import feature_layers
from tfestimator_compat.engine.stop_signal import stop_training_when
from tfestimator_compat.estimator import Estimator
from tfestimator_compat.head import BinaryClassHead
from tfestimator_compat.head import MultiClassHead
from tfestimator_compat.head import RegressionHead
from tfestimator_compat.head import head_utils
from tfestimator_compat.head.v1_heads import MultiClassHeadV1
from tfestimator_compat.mode_keys import ModeKeys

GUIDE = "migration_guide/replacements.md#boosted-trees"
_SCOPE = "boosted_trees"
# The original's bias centering stopped once a Newton step moved the bias less than this.
_CENTERING_EPSILON = 0.01
# Values per numeric feature the quantile pass keeps (the first ones seen).
_QUANTILE_SAMPLE_SIZE = 1 << 14
_PRUNING_MODES = ("none", "pre", "post")

_TreeHParams = collections.namedtuple(
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


def _validate_hparams(hparams):
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


def _unsupported(what):
    return ValueError(f"{what} is not supported by BoostedTrees here; see {GUIDE}.")


class _Layout:
    """The model's features: each column's values as bucket ids, one id per feature.

    Columns are taken in the order of their names, as the original did; an
    `indicator_column` gives one two-bucket feature per vocabulary entry, a
    `bucketized_column` one feature per source dimension, a numeric column one
    quantile-bucketized feature per dimension.
    """

    def __init__(self, feature_columns, num_quantiles):
        self.columns = sorted(feature_columns, key=lambda column: column.name)
        self.num_quantiles = num_quantiles
        self.names = []  # column name per feature id
        self.num_buckets = []  # per feature id
        self.equality = []  # per feature id: an id split (== goes left), not a threshold
        self.float_columns = []  # (column, dimension), numeric ones
        for column in self.columns:
            if isinstance(column, fc_v2.BucketizedColumn):
                width = _rank1_width(column.source_column)
                self._add(column.name, width, len(column.boundaries) + 1)
            elif isinstance(column, fc_v2.IndicatorColumn):
                categorical = column.categorical_column
                self._add(categorical.name, categorical.num_buckets, 2)
            elif isinstance(column, fc_v2.NumericColumn):
                width = _rank1_width(column)
                self.float_columns.append((column, width))
                self._add(column.name, width, num_quantiles)
            elif isinstance(column, fc_v2.CategoricalColumn) and not isinstance(
                column, (fc_v2.WeightedCategoricalColumn, fc_v2.CrossedColumn)
            ):
                # One more bucket than ids, so every id is a candidate split.
                self._add(column.name, 1, column.num_buckets + 1, equality=True)
            else:
                raise ValueError(f"Got unexpected feature column type: {column}")
        self.num_features = len(self.names)
        self.max_buckets = max(self.num_buckets)
        self.num_float_features = sum(width for _, width in self.float_columns)

    def _add(self, name, width, num_buckets, equality=False):
        self.names.extend([name] * width)
        self.num_buckets.extend([num_buckets] * width)
        self.equality.extend([equality] * width)


def _rank1_width(column):
    shape = column.shape
    if len(shape) > 1:
        raise ValueError(
            "For now, we only support Dense column with rank of 1, but column "
            f"`{column.name}` got: {shape}"
        )
    return int(shape[0]) if len(shape) else 1


def _float_values(cache, layout):
    """`[num_float_features, batch]` float32 values of the numeric columns."""
    parts = []
    for column, width in layout.float_columns:
        value = tf.cast(cache.get(column, None), tf.float32)
        parts.append(tf.reshape(value, [-1, width]))
    return tf.transpose(tf.concat(parts, axis=1))


def _bucketized(features, layout, boundaries):
    """`[batch, num_features]` int32 bucket ids, the float features bucketized by `boundaries`."""
    cache = fc_v2.FeatureTransformationCache(features)
    float_buckets = None
    if layout.float_columns:
        values = _float_values(cache, layout)
        float_buckets = tf.transpose(
            tf.searchsorted(boundaries, values, side="right", out_type=tf.int32)
        )
    parts, float_offset = [], 0
    for column in layout.columns:
        if isinstance(column, fc_v2.NumericColumn):
            width = _rank1_width(column)
            parts.append(float_buckets[:, float_offset : float_offset + width])
            float_offset += width
        elif isinstance(column, fc_v2.BucketizedColumn):
            value = cache.get(column, None)
            parts.append(
                tf.reshape(tf.cast(value, tf.int32), [-1, _rank1_width(column.source_column)])
            )
        elif isinstance(column, fc_v2.IndicatorColumn):
            value = cache.get(column, None)
            width = column.categorical_column.num_buckets
            parts.append(tf.cast(tf.reshape(value, [-1, width]) > 0, tf.int32))
        else:
            # One id per example, as the original's equality splits took (missing: 0).
            ids = column.get_sparse_tensors(cache, None).id_tensor
            dense = tf.sparse.to_dense(ids, default_value=0)
            parts.append(tf.cast(dense[:, :1], tf.int32))
    return tf.concat(parts, axis=1)


class _Ensemble:
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

        def variable(name, shape, dtype, value):
            return tf.compat.v1.get_variable(
                name,
                shape=shape,
                dtype=dtype,
                initializer=tf.compat.v1.constant_initializer(value),
                trainable=False,
                use_resource=True,
            )

        with tf.compat.v1.variable_scope(_SCOPE, reuse=tf.compat.v1.AUTO_REUSE):
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

        def variable(name, shape, dtype, value):
            return tf.compat.v1.get_variable(
                name,
                shape=shape,
                dtype=dtype,
                initializer=tf.compat.v1.constant_initializer(value),
                trainable=False,
                use_resource=True,
            )

        with tf.compat.v1.variable_scope(_SCOPE, reuse=tf.compat.v1.AUTO_REUSE):
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
                    [_QUANTILE_SAMPLE_SIZE, layout.num_float_features],
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

    def traverse(self, bucket_ids):
        """Each example's path through each tree.

        Returns:
            `(nodes, path_features, path_deltas)`: the `[batch, trees]` node each
            example ends at, and per depth the `[batch, trees]` feature split on
            (-1 where the example had reached a leaf) and the change of the
            node values it made (`[batch, trees, logits_dimension]`).
        """
        feature = self.feature.read_value()
        threshold = self.threshold.read_value()
        value = self.values()
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


def _l1_shrunk(gradients, l1):
    return tf.sign(gradients) * tf.maximum(tf.abs(gradients) - l1, 0.0)


def _weight_and_gain(gradients, hessians, l1, l2):
    """The Newton step of a node and the loss decrease it brings."""
    shrunk = _l1_shrunk(gradients, l1)
    denominator = hessians + l2
    positive = denominator > 0
    safe = tf.where(positive, denominator, tf.ones_like(denominator))
    weight = tf.where(positive, -shrunk / safe, tf.zeros_like(shrunk))
    gain = tf.where(positive, tf.square(shrunk) / safe, tf.zeros_like(shrunk))
    return weight, gain


def _weights_and_gains(gradients, hessians, l1, l2):
    """Newton steps `[..., D]` and gains `[...]` of `[..., D]` gradients, `[..., D * D]` hessians.

    One logit: the l1-shrunk step. More: the full-hessian step
    `-(H + l2 I)^+ g`, gain `g^T (H + l2 I)^+ g`, as the original's kernels
    solved it (they ignored l1 there). A softmax hessian is singular (adding a
    constant to every logit changes nothing): the pseudo-inverse takes the step
    without that constant, which the original's QR solve left arbitrary.
    """
    dimension = gradients.shape[-1]
    if dimension == 1:
        weight, gain = _weight_and_gain(gradients[..., 0], hessians[..., 0], l1, l2)
        return weight[..., None], gain
    matrix = tf.reshape(hessians, tf.concat([tf.shape(hessians)[:-1], [dimension, dimension]], 0))
    regularized = matrix + l2 * tf.eye(dimension)
    weight = -tf.linalg.matvec(tf.linalg.pinv(regularized), gradients)
    return weight, -tf.reduce_sum(gradients * weight, axis=-1)


def _hessian_weight(hessians):
    """How much hessian a node has: itself for one logit, its norm (as the original) for more."""
    if hessians.shape[-1] == 1:
        return hessians[..., 0]
    return tf.norm(hessians, axis=-1)


def _full_hessian(gradients, logits):
    """`[batch, D * D]` second derivatives of the loss, row by row of the gradients."""
    dimension = logits.shape[-1]
    if dimension == 1:
        return tf.gradients(gradients, logits, name="Hessians")[0]
    rows = [
        tf.gradients(gradients[:, row], logits, name=f"Hessian_{row}")[0]
        for row in range(dimension)
    ]
    return tf.reshape(tf.stack(rows, axis=1), [-1, dimension * dimension])


class _Grower:
    """The training op: quantiles, then statistics and a layer per `n_batches_per_layer` steps."""

    def __init__(self, ensemble, n_batches_per_layer):
        self.ensemble = ensemble
        self.hparams = ensemble.hparams
        self.layout = ensemble.layout
        self.n_batches = n_batches_per_layer

    def train_op(self, features, gradients, hessians, bucket_ids, nodes, global_step):
        ensemble = self.ensemble

        def grow():
            update = self._accumulate_and_grow(gradients, hessians, bucket_ids, nodes)
            with tf.control_dependencies([update]):
                return tf.group(global_step.assign_add(1))

        def quantiles():
            return self._accumulate_quantiles(features)

        def step():
            if not self.layout.float_columns:
                return grow()
            return tf.cond(ensemble.are_boundaries_ready.read_value(), grow, quantiles)

        return tf.cond(ensemble.done(), tf.no_op, step)

    def _accumulate_quantiles(self, features):
        ensemble = self.ensemble
        values = tf.transpose(
            _float_values(fc_v2.FeatureTransformationCache(features), self.layout)
        )
        size = ensemble.quantile_sample_size.read_value()
        positions = size + tf.range(tf.shape(values)[0])
        keep = positions < _QUANTILE_SAMPLE_SIZE
        store = tf.compat.v1.scatter_update(
            ensemble.quantile_sample,
            tf.boolean_mask(positions, keep),
            tf.boolean_mask(values, keep),
        )
        with tf.control_dependencies([store]):
            new_size = tf.minimum(size + tf.shape(values)[0], _QUANTILE_SAMPLE_SIZE)
            stored = ensemble.quantile_sample_size.assign(new_size)
            counted = ensemble.num_batches.assign_add(1)
        with tf.control_dependencies([stored, counted]):
            return tf.cond(
                ensemble.num_batches.read_value() >= self.n_batches, self._set_boundaries, tf.no_op
            )

    def _set_boundaries(self):
        ensemble = self.ensemble
        size = ensemble.quantile_sample_size.read_value()
        sample = tf.sort(ensemble.quantile_sample.read_value()[:size], axis=0)
        levels = tf.range(1, self.layout.num_quantiles)
        positions = tf.minimum(levels * size // self.layout.num_quantiles, size - 1)
        boundaries = tf.transpose(tf.gather(sample, positions))
        return tf.group(
            ensemble.boundaries.assign(boundaries),
            ensemble.are_boundaries_ready.assign(True),
            ensemble.num_batches.assign(0),
        )

    def _accumulate_and_grow(self, gradients, hessians, bucket_ids, nodes):
        ensemble, layout = self.ensemble, self.layout
        tree = tf.minimum(ensemble.tree_index.read_value(), self.hparams.n_trees - 1)
        layer = ensemble.layer.read_value()
        layer_start = 2**layer - 1
        node = tf.gather(nodes, tree, axis=1) - layer_start
        in_layer = tf.cast(node >= 0, tf.float32)
        node = tf.maximum(node, 0)
        num_features, num_buckets = layout.num_features, layout.max_buckets
        index = (
            node[:, None] * (num_features * num_buckets)
            + tf.range(num_features)[None, :] * num_buckets
            + bucket_ids
        )
        size = ensemble.layer_width * num_features * num_buckets

        def summed(values, variable):
            values = values * in_layer[:, None]
            tiled = tf.tile(values[:, None, :], [1, num_features, 1])
            sums = tf.math.unsorted_segment_sum(tiled, index, size)
            return variable.assign_add(tf.reshape(sums, variable.shape))

        added = tf.group(
            summed(gradients, ensemble.stats_gradients),
            summed(hessians, ensemble.stats_hessians),
            ensemble.num_batches.assign_add(1),
        )
        with tf.control_dependencies([added]):
            return tf.cond(
                ensemble.num_batches.read_value() >= self.n_batches, self._end_of_layer, tf.no_op
            )

    def _end_of_layer(self):
        ensemble = self.ensemble
        gradients, hessians = ensemble.statistics()
        gradients, hessians = gradients / self.n_batches, hessians / self.n_batches
        if self.hparams.center_bias:
            update = tf.cond(
                ensemble.center_bias_needed.read_value(),
                lambda: self._center_bias(gradients, hessians),
                lambda: self._grow_layer(gradients, hessians),
            )
        else:
            update = self._grow_layer(gradients, hessians)
        with tf.control_dependencies([update]):
            return tf.group(
                ensemble.stats_gradients.assign(tf.zeros_like(ensemble.stats_gradients)),
                ensemble.stats_hessians.assign(tf.zeros_like(ensemble.stats_hessians)),
                ensemble.num_batches.assign(0),
            )

    def _center_bias(self, gradients, hessians):
        ensemble, hparams = self.ensemble, self.hparams
        # A single logit only: the estimators refuse center_bias with more.
        weight, _ = _weight_and_gain(
            tf.reduce_sum(gradients[0, 0]), tf.reduce_sum(hessians[0, 0]), hparams.l1, hparams.l2
        )
        moved = ensemble.value.scatter_nd_add([[0, 0]], [weight])
        with tf.control_dependencies([moved]):
            return tf.cond(
                tf.abs(weight) < _CENTERING_EPSILON,
                lambda: tf.group(ensemble.center_bias_needed.assign(False)),
                tf.no_op,
            )

    def _grow_layer(self, gradients, hessians):
        ensemble, hparams, layout = self.ensemble, self.hparams, self.layout
        l1, l2 = hparams.l1, hparams.l2
        node_g = tf.reduce_sum(gradients[:, 0], axis=1)
        node_h = tf.reduce_sum(hessians[:, 0], axis=1)
        # Threshold t: buckets <= t go left; an id split t: id t goes left.
        equality = tf.constant(layout.equality)[None, :, None, None]
        left_g = tf.where(equality, gradients, tf.cumsum(gradients, axis=2))[:, :, :-1]
        left_h = tf.where(equality, hessians, tf.cumsum(hessians, axis=2))[:, :, :-1]

        def right_of(stats):
            after = tf.cumsum(stats, axis=2, exclusive=True, reverse=True)
            before = tf.cumsum(stats, axis=2, exclusive=True)
            return tf.where(equality, before + after, after)[:, :, :-1]

        right_g, right_h = right_of(gradients), right_of(hessians)
        left_w, left_gain = _weights_and_gains(left_g, left_h, l1, l2)
        right_w, right_gain = _weights_and_gains(right_g, right_h, l1, l2)
        _, node_gain = _weights_and_gains(node_g, node_h, l1, l2)
        left_h, right_h = _hessian_weight(left_h), _hessian_weight(right_h)
        raw_gain = left_gain + right_gain - node_gain[:, None, None]
        threshold_ok = tf.range(layout.max_buckets - 1)[None, :] < (
            tf.constant(layout.num_buckets)[:, None] - 1
        )
        valid = (
            threshold_ok[None]
            & (left_h > 0)
            & (right_h > 0)
            & (left_h >= hparams.min_node_weight)
            & (right_h >= hparams.min_node_weight)
        )
        candidates = layout.num_features * (layout.max_buckets - 1)
        flat_gain = tf.reshape(tf.where(valid, raw_gain, -np.inf), [-1, candidates])
        best = tf.argmax(flat_gain, axis=1, output_type=tf.int32)
        best_raw = tf.gather(flat_gain, best, batch_dims=1)
        best_gain = best_raw - hparams.tree_complexity
        if hparams.pruning_mode == "pre":
            splits = best_gain > 0
        else:
            splits = best_raw > 0
        layer = ensemble.layer.read_value()
        splits = splits & (tf.range(ensemble.layer_width) < 2**layer)
        tree = ensemble.tree_index.read_value()
        lr = hparams.learning_rate

        def chosen(table):
            flat = tf.reshape(table, tf.concat([[-1, candidates], tf.shape(table)[3:]], 0))
            return tf.gather(flat, best, batch_dims=1)

        local = tf.boolean_mask(tf.range(ensemble.layer_width), splits)
        nodes = 2**layer - 1 + local
        at_tree = tf.stack([tf.fill(tf.shape(nodes), tree), nodes], axis=1)
        left = tf.stack([tf.fill(tf.shape(nodes), tree), 2 * nodes + 1], axis=1)
        right = tf.stack([tf.fill(tf.shape(nodes), tree), 2 * nodes + 2], axis=1)
        parent_value = tf.gather_nd(ensemble.values(), at_tree)
        chosen_w = [tf.boolean_mask(chosen(w), splits) for w in (left_w, right_w)]
        update = tf.group(
            ensemble.feature.scatter_nd_update(
                at_tree, tf.boolean_mask(best // (layout.max_buckets - 1), splits)
            ),
            ensemble.threshold.scatter_nd_update(
                at_tree, tf.boolean_mask(best % (layout.max_buckets - 1), splits)
            ),
            ensemble.gain.scatter_nd_update(at_tree, tf.boolean_mask(best_gain, splits)),
            ensemble.set_values(left, parent_value + lr * chosen_w[0]),
            ensemble.set_values(right, parent_value + lr * chosen_w[1]),
            ensemble.num_attempted_layers.assign_add(1),
        )
        any_split = tf.reduce_any(splits)
        with tf.control_dependencies([update]):
            last_layer = layer + 1 >= hparams.max_depth
            return tf.cond(
                any_split,
                lambda: tf.cond(
                    last_layer,
                    self._finalize_tree,
                    lambda: tf.group(ensemble.layer.assign_add(1)),
                ),
                lambda: self._finalize_without_split(layer),
            )

    def _finalize_without_split(self, layer):
        # A tree whose root cannot split ends training: the next would see the same.
        return tf.cond(
            tf.equal(layer, 0),
            lambda: tf.group(self.ensemble.no_gain.assign(True)),
            self._finalize_tree,
        )

    def _finalize_tree(self):
        ensemble = self.ensemble
        pruned = self._post_prune() if self.hparams.pruning_mode == "post" else tf.no_op()
        with tf.control_dependencies([pruned]):
            return tf.group(
                ensemble.tree_index.assign_add(1),
                ensemble.num_finalized_trees.assign_add(1),
                ensemble.layer.assign(0),
            )

    def _post_prune(self):
        """Bottom up, a split whose children are leaves and whose gain is negative goes."""
        ensemble = self.ensemble
        tree = ensemble.tree_index.read_value()
        feature = ensemble.feature.read_value()[tree]
        gain = ensemble.gain.read_value()[tree]
        for depth in reversed(range(self.hparams.max_depth)):
            nodes = tf.range(2**depth - 1, 2 ** (depth + 1) - 1)
            children_are_leaves = (tf.gather(feature, 2 * nodes + 1) < 0) & (
                tf.gather(feature, 2 * nodes + 2) < 0
            )
            prune = (
                (tf.gather(feature, nodes) >= 0)
                & children_are_leaves
                & (tf.gather(gain, nodes) < 0)
            )
            pruned_nodes = tf.boolean_mask(nodes, prune)[:, None]
            count = tf.shape(pruned_nodes)[0]
            feature = tf.tensor_scatter_nd_update(
                feature, pruned_nodes, -tf.ones([count], tf.int32)
            )
            gain = tf.tensor_scatter_nd_update(gain, pruned_nodes, tf.zeros([count]))
        row = tf.stack([tf.fill([ensemble.num_nodes], tree), tf.range(ensemble.num_nodes)], axis=1)
        return tf.group(
            ensemble.feature.scatter_nd_update(row, feature),
            ensemble.gain.scatter_nd_update(row, gain),
        )


def _check_center_bias(head, hparams):
    # The original centered a single logit only; its classifier and regressor refuse more.
    if hparams.center_bias and head.logits_dimension > 1:
        raise _unsupported(f"center_bias with a head of logits_dimension {head.logits_dimension}")


def _bt_model_fn(
    features,
    labels,
    mode,
    head,
    layout,
    hparams,
    n_batches_per_layer,
    config,
    train_in_memory=False,
):
    feature_layers.validate_features(features)
    ensemble = _Ensemble(layout, hparams, head.logits_dimension)
    bucket_ids = _bucketized(features, layout, ensemble.boundaries.read_value())
    nodes, _, _ = ensemble.traverse(bucket_ids)
    logits = ensemble.logits_at(nodes)
    if mode != ModeKeys.TRAIN:
        return head.create_estimator_spec(
            features, mode, logits, labels=labels, train_op_fn=lambda _: tf.no_op()
        )
    if getattr(config, "train_distribute", None) is not None:
        raise _unsupported(
            "Training under a tf.distribute strategy (RunConfig(train_distribute=...))"
        )
    if train_in_memory:
        if n_batches_per_layer != 1:
            raise AssertionError(
                "When train_in_memory is enabled, input_fn should return the entire dataset "
                "as a single batch, and n_batches_per_layer should be set as 1."
            )
        if not config.is_chief or config.num_worker_replicas > 1 or config.num_ps_replicas > 0:
            raise ValueError("train_in_memory is supported only for non-distributed training.")
    ensemble.create_training_state()
    grower = _Grower(ensemble, n_batches_per_layer)
    global_step = tf.compat.v1.train.get_or_create_global_step()
    tf.compat.v1.summary.scalar("ensemble/num_trees", ensemble.tree_index.read_value())
    tf.compat.v1.summary.scalar(
        "ensemble/num_finalized_trees", ensemble.num_finalized_trees.read_value()
    )
    tf.compat.v1.summary.scalar(
        "ensemble/num_attempted_layers", ensemble.num_attempted_layers.read_value()
    )

    def train_op_fn(loss):
        gradients = tf.gradients(loss, logits, name="Gradients")[0]
        hessians = _full_hessian(gradients, logits)
        return grower.train_op(features, gradients, hessians, bucket_ids, nodes, global_step)

    spec = head.create_estimator_spec(
        features, mode, logits, labels=labels, train_op_fn=train_op_fn
    )
    # Training ends after the step that grew the last tree (or found no split),
    # as the original's stop hook, which looked again after each step.
    with tf.control_dependencies([spec.train_op]):
        stop_training_when(ensemble.done())
    return spec


def _explanations_model_fn(features, head, layout, hparams):
    """Predictions with each example's per-feature contributions and the bias."""
    feature_layers.validate_features(features)
    ensemble = _Ensemble(layout, hparams)
    bucket_ids = _bucketized(features, layout, ensemble.boundaries.read_value())
    nodes, path_features, path_deltas = ensemble.traverse(bucket_ids)
    logits = ensemble.logits_at(nodes)
    spec = head.create_estimator_spec(
        features, ModeKeys.PREDICT, logits, train_op_fn=lambda _: tf.no_op()
    )
    # Tree by tree, each tree's path from the root: the order the logit was built in.
    split_features = tf.reshape(tf.stack(path_features, axis=2), [tf.shape(logits)[0], -1])
    deltas = tf.reshape(tf.stack(path_deltas, axis=2), [tf.shape(logits)[0], -1])
    bias = tf.fill([tf.shape(logits)[0], 1], ensemble.bias())
    path_logits = bias + tf.cumsum(deltas, axis=1)
    if isinstance(head, BinaryClassHead):
        activation = tf.sigmoid
    else:
        activation = tf.identity
    path_values = activation(tf.concat([bias, path_logits], axis=1))
    changes = path_values[:, 1:] - path_values[:, :-1]
    contributions = tf.reduce_sum(
        tf.one_hot(split_features, layout.num_features) * changes[:, :, None], axis=1
    )
    predictions = dict(spec.predictions)
    predictions["_feature_contributions"] = contributions
    predictions["_bias"] = path_values[:, 0]
    return spec._replace(predictions=predictions)


def _maxent_loss(labels, logits):
    """Per-example softmax cross-entropy, its probability kept in `[1e-15, 1 - 1e-15]`.

    The original's multi-class loss: twice differentiable, and clipped
    probabilities contribute no gradient.
    """
    eps = 1e-15
    num_classes = logits.shape[-1]
    one_hot = tf.one_hot(tf.reshape(tf.cast(labels, tf.int64), [-1]), num_classes)
    exps = tf.exp(logits)
    probabilities = exps / (tf.reduce_sum(exps, axis=1, keepdims=True) + eps)
    label_probability = tf.reduce_sum(one_hot * probabilities, axis=1)
    label_probability = tf.where(label_probability >= eps, label_probability, eps)
    label_probability = tf.where(label_probability <= 1 - eps, label_probability, 1 - eps)
    return -tf.math.log(label_probability)[:, None]


def _classification_head(n_classes, weight_column, label_vocabulary):
    """The original's heads: sigmoid for 2 classes; softmax, with its own loss, for more."""
    if n_classes == 2:
        return BinaryClassHead(
            weight_column=weight_column,
            label_vocabulary=label_vocabulary,
            loss_reduction=head_utils.SUM_OVER_BATCH_SIZE,
        )
    return MultiClassHeadV1(
        n_classes,
        weight_column=weight_column,
        label_vocabulary=label_vocabulary,
        loss_reduction=tf.compat.v1.losses.Reduction.SUM_OVER_NONZERO_WEIGHTS,
        loss_fn=_maxent_loss,
    )


def _sum_by_name_sorted(names, values):
    sums = collections.OrderedDict()
    for name, value in zip(names, values):
        sums[name] = sums.get(name, 0.0) + float(value)
    return collections.OrderedDict(
        sorted(sums.items(), key=lambda item: abs(item[1]), reverse=True)
    )


class _BoostedTreesBase(Estimator):
    """The estimators' shared part: the model_fn, feature importances, explanations."""

    def __init__(
        self,
        head,
        feature_columns,
        n_batches_per_layer,
        model_dir,
        config,
        hparams,
        train_in_memory=False,
        is_classification=None,
    ):
        feature_columns = feature_layers.validate_feature_columns(feature_columns)
        _validate_hparams(hparams)
        _check_center_bias(head, hparams)
        layout = _Layout(feature_columns, int(1.0 / hparams.quantile_sketch_epsilon))
        self._layout, self._hparams, self._head = layout, hparams, head
        if is_classification is None:
            is_classification = isinstance(head, (BinaryClassHead, MultiClassHead))
        self._is_classification = is_classification

        def _model_fn(features, labels, mode, config):
            return _bt_model_fn(
                features,
                labels,
                mode,
                head,
                layout,
                hparams,
                n_batches_per_layer,
                config,
                train_in_memory,
            )

        super().__init__(model_fn=_model_fn, model_dir=model_dir, config=config)

    def experimental_feature_importances(self, normalize=False):
        """Gain-based feature importances, by column, most important first.

        Each split adds its gain to its column. Returns an `OrderedDict` of
        column name to importance, sorted by absolute importance.

        Raises:
            ValueError: when there is no trained model in `model_dir`.
            AssertionError: when normalizing an ensemble without splits, or
                importances that are negative (as the original asserted).
        """
        checkpoint = self.latest_checkpoint()
        if not checkpoint:
            raise ValueError(
                f"Found no checkpoint in {self.model_dir}. You should only call this method "
                "after training."
            )
        reader = checkpoints.reader(checkpoint)
        feature = reader.get_tensor(f"{_SCOPE}/tree_feature")
        gain = reader.get_tensor(f"{_SCOPE}/tree_gain")
        splits = feature >= 0
        importances = np.bincount(
            feature[splits], weights=gain[splits], minlength=self._layout.num_features
        )
        if normalize:
            assert np.all(importances >= 0), "feature_importances must be non-negative."
            total = np.sum(importances)
            assert total > 0, "Trees are all empty or contain only a root node."
            importances = importances / total
        return _sum_by_name_sorted(self._layout.names, importances)

    def experimental_predict_with_explanations(
        self, input_fn, predict_keys=None, hooks=None, checkpoint_path=None
    ):
        """Yields predictions with `dfc` (per-column contributions) and `bias`.

        Following each example's path tree by tree, every change of the
        prediction (a probability for classifiers, the value for regressors) is
        credited to the column split on; `bias` is the prediction of the first
        tree's root, so `bias + sum(dfc.values())` is the prediction. `dfc` is an
        `OrderedDict` sorted by absolute contribution. Needs `center_bias`.
        """
        if not self._hparams.center_bias:
            raise ValueError(
                "center_bias must be enabled during estimator instantiation when using "
                "experimental_predict_with_explanations."
            )
        if not self._is_classification:
            if getattr(self._head, "_inverse_link_fn", None) not in (None, tf.identity):
                raise ValueError(
                    "For now only identity inverse_link_fn in regression_head is supported "
                    "for experimental_predict_with_explanations."
                )
        head, layout, hparams = self._head, self._layout, self._hparams

        def _model_fn(features, labels, mode):
            return _explanations_model_fn(features, head, layout, hparams)

        explainer = Estimator(model_fn=_model_fn, model_dir=self.model_dir, config=self.config)
        if predict_keys is not None:
            predict_keys = set(predict_keys) | {"_feature_contributions", "_bias"}
        for prediction in explainer.predict(
            input_fn,
            predict_keys=predict_keys,
            hooks=hooks,
            checkpoint_path=checkpoint_path,
            yield_single_examples=True,
        ):
            contributions = prediction.pop("_feature_contributions")
            prediction["bias"] = float(prediction.pop("_bias"))
            prediction["dfc"] = _sum_by_name_sorted(layout.names, contributions)
            yield prediction


def _hparams(
    n_trees,
    max_depth,
    learning_rate,
    l1_regularization,
    l2_regularization,
    tree_complexity,
    min_node_weight,
    center_bias,
    pruning_mode,
    quantile_sketch_epsilon,
):
    return _TreeHParams(
        n_trees,
        max_depth,
        learning_rate,
        l1_regularization,
        l2_regularization,
        tree_complexity,
        min_node_weight,
        center_bias,
        pruning_mode,
        quantile_sketch_epsilon,
    )


class BoostedTreesClassifier(_BoostedTreesBase):
    """A gradient boosted trees classifier.

    Args:
        feature_columns: `bucketized_column`s, `indicator_column`s and numeric
            columns (bucketized by quantiles of the first layer's batches).
        n_batches_per_layer: batches whose statistics each layer is grown from.
        model_dir: where checkpoints and summaries go.
        n_classes: the number of classes; more than 2 fit one logit per class
            (leaves of `n_classes` values, full-hessian Newton steps) to the
            softmax loss averaged over the examples of nonzero weight.
        weight_column: name or `numeric_column` of the example weights.
        label_vocabulary: class names, when labels are strings.
        n_trees, max_depth, learning_rate: the ensemble's size and shrinkage.
        l1_regularization, l2_regularization: on the leaf values.
        tree_complexity: subtracted from each split's gain.
        min_node_weight: least hessian a child of a split must have.
        config: a `RunConfig`.
        center_bias: start with the loss's optimal constant in the first root.
        pruning_mode: 'none', 'pre' (split only on positive gain) or 'post'
            (grow, then remove negative-gain splits); pruning needs
            `tree_complexity > 0`.
        quantile_sketch_epsilon: numeric columns get `1 / epsilon` buckets.
        train_in_memory: the input_fn gives the whole data set as one batch
            (`n_batches_per_layer` must be 1; no distribution).

    Example:

    ```python
    est = tf.estimator.BoostedTreesClassifier(feature_columns, n_batches_per_layer=1)
    est.train(lambda: make_input_fn(dftrain, y_train)(), max_steps=100)
    ```
    """

    def __init__(
        self,
        feature_columns,
        n_batches_per_layer,
        model_dir=None,
        n_classes=2,
        weight_column=None,
        label_vocabulary=None,
        n_trees=100,
        max_depth=6,
        learning_rate=0.1,
        l1_regularization=0.0,
        l2_regularization=0.0,
        tree_complexity=0.0,
        min_node_weight=0.0,
        config=None,
        center_bias=False,
        pruning_mode="none",
        quantile_sketch_epsilon=0.01,
        train_in_memory=False,
    ):
        if n_classes > 2 and center_bias:
            raise ValueError("center_bias not yet support with n_classes > 2.")
        if n_classes < 2:
            raise ValueError(f"n_classes must be > 1: {n_classes}")
        head = _classification_head(n_classes, weight_column, label_vocabulary)
        hparams = _hparams(
            n_trees,
            max_depth,
            learning_rate,
            l1_regularization,
            l2_regularization,
            tree_complexity,
            min_node_weight,
            center_bias,
            pruning_mode,
            quantile_sketch_epsilon,
        )
        super().__init__(
            head,
            feature_columns,
            n_batches_per_layer,
            model_dir,
            config,
            hparams,
            train_in_memory,
            is_classification=True,
        )


class BoostedTreesRegressor(_BoostedTreesBase):
    """A gradient boosted trees regressor; arguments as `BoostedTreesClassifier`,
    with `label_dimension` (leaves of that many values) for `n_classes`."""

    def __init__(
        self,
        feature_columns,
        n_batches_per_layer,
        model_dir=None,
        label_dimension=1,
        weight_column=None,
        n_trees=100,
        max_depth=6,
        learning_rate=0.1,
        l1_regularization=0.0,
        l2_regularization=0.0,
        tree_complexity=0.0,
        min_node_weight=0.0,
        config=None,
        center_bias=False,
        pruning_mode="none",
        quantile_sketch_epsilon=0.01,
        train_in_memory=False,
    ):
        if label_dimension > 1 and center_bias:
            raise ValueError("center_bias not yet support with label_dimension > 1.")
        head = RegressionHead(
            label_dimension=label_dimension,
            weight_column=weight_column,
            loss_reduction=head_utils.SUM_OVER_BATCH_SIZE,
        )
        hparams = _hparams(
            n_trees,
            max_depth,
            learning_rate,
            l1_regularization,
            l2_regularization,
            tree_complexity,
            min_node_weight,
            center_bias,
            pruning_mode,
            quantile_sketch_epsilon,
        )
        super().__init__(
            head,
            feature_columns,
            n_batches_per_layer,
            model_dir,
            config,
            hparams,
            train_in_memory,
            is_classification=False,
        )


class BoostedTreesEstimator(_BoostedTreesBase):
    """Gradient boosted trees with any `head`: its loss is what the trees fit, with
    full-hessian steps for more than one logit (where `center_bias` is refused)."""

    def __init__(
        self,
        feature_columns,
        n_batches_per_layer,
        head,
        model_dir=None,
        weight_column=None,
        n_trees=100,
        max_depth=6,
        learning_rate=0.1,
        l1_regularization=0.0,
        l2_regularization=0.0,
        tree_complexity=0.0,
        min_node_weight=0.0,
        config=None,
        center_bias=False,
        pruning_mode="none",
        quantile_sketch_epsilon=0.01,
    ):
        hparams = _hparams(
            n_trees,
            max_depth,
            learning_rate,
            l1_regularization,
            l2_regularization,
            tree_complexity,
            min_node_weight,
            center_bias,
            pruning_mode,
            quantile_sketch_epsilon,
        )
        super().__init__(head, feature_columns, n_batches_per_layer, model_dir, config, hparams)


def _train_in_memory(estimator, train_input_fn, train_hooks):
    estimator.train(train_input_fn, hooks=train_hooks)
    return estimator


def boosted_trees_classifier_train_in_memory(
    train_input_fn,
    feature_columns,
    model_dir=None,
    n_classes=2,
    weight_column=None,
    label_vocabulary=None,
    n_trees=100,
    max_depth=6,
    learning_rate=0.1,
    l1_regularization=0.0,
    l2_regularization=0.0,
    tree_complexity=0.0,
    min_node_weight=0.0,
    config=None,
    train_hooks=None,
    center_bias=False,
    pruning_mode="none",
    quantile_sketch_epsilon=0.01,
):
    """Trains a `BoostedTreesClassifier` on one batch holding the whole data set; returns it."""
    estimator = BoostedTreesClassifier(
        feature_columns,
        1,
        model_dir=model_dir,
        n_classes=n_classes,
        weight_column=weight_column,
        label_vocabulary=label_vocabulary,
        n_trees=n_trees,
        max_depth=max_depth,
        learning_rate=learning_rate,
        l1_regularization=l1_regularization,
        l2_regularization=l2_regularization,
        tree_complexity=tree_complexity,
        min_node_weight=min_node_weight,
        config=config,
        center_bias=center_bias,
        pruning_mode=pruning_mode,
        quantile_sketch_epsilon=quantile_sketch_epsilon,
        train_in_memory=True,
    )
    return _train_in_memory(estimator, train_input_fn, train_hooks)


def boosted_trees_regressor_train_in_memory(
    train_input_fn,
    feature_columns,
    model_dir=None,
    label_dimension=1,
    weight_column=None,
    n_trees=100,
    max_depth=6,
    learning_rate=0.1,
    l1_regularization=0.0,
    l2_regularization=0.0,
    tree_complexity=0.0,
    min_node_weight=0.0,
    config=None,
    train_hooks=None,
    center_bias=False,
    pruning_mode="none",
    quantile_sketch_epsilon=0.01,
):
    """Trains a `BoostedTreesRegressor` on one batch holding the whole data set; returns it."""
    estimator = BoostedTreesRegressor(
        feature_columns,
        1,
        model_dir=model_dir,
        label_dimension=label_dimension,
        weight_column=weight_column,
        n_trees=n_trees,
        max_depth=max_depth,
        learning_rate=learning_rate,
        l1_regularization=l1_regularization,
        l2_regularization=l2_regularization,
        tree_complexity=tree_complexity,
        min_node_weight=min_node_weight,
        config=config,
        center_bias=center_bias,
        pruning_mode=pruning_mode,
        quantile_sketch_epsilon=quantile_sketch_epsilon,
        train_in_memory=True,
    )
    return _train_in_memory(estimator, train_input_fn, train_hooks)
