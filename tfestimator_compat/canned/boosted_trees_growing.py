"""BoostedTrees' training op: quantiles, per-layer statistics, best splits, centering, pruning."""

from __future__ import annotations

import numpy as np
import tensorflow as tf

from tfestimator_compat.canned.boosted_trees_ensemble import QUANTILE_SAMPLE_SIZE
from tfestimator_compat.canned.boosted_trees_features import float_values
from tfestimator_compat.engine.internals import tensorflow_internals as tf_internals

# The original's bias centering stopped once a Newton step moved the bias less than this.
_CENTERING_EPSILON = 0.01


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


def full_hessian(gradients, logits):
    """`[batch, D * D]` second derivatives of the loss, row by row of the gradients."""
    dimension = logits.shape[-1]
    if dimension == 1:
        return tf.gradients(gradients, logits, name="Hessians")[0]
    rows = [
        tf.gradients(gradients[:, row], logits, name=f"Hessian_{row}")[0]
        for row in range(dimension)
    ]
    return tf.reshape(tf.stack(rows, axis=1), [-1, dimension * dimension])


class Grower:
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
            float_values(tf_internals.FeatureTransformationCache(features), self.layout)
        )
        size = ensemble.quantile_sample_size.read_value()
        positions = size + tf.range(tf.shape(values)[0])
        keep = positions < QUANTILE_SAMPLE_SIZE
        store = tf.compat.v1.scatter_update(
            ensemble.quantile_sample,
            tf.boolean_mask(positions, keep),
            tf.boolean_mask(values, keep),
        )
        with tf.control_dependencies([store]):
            new_size = tf.minimum(size + tf.shape(values)[0], QUANTILE_SAMPLE_SIZE)
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
