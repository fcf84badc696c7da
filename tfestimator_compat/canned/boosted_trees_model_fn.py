"""BoostedTrees' model_fn, and the one that adds per-feature explanations to predictions."""

from __future__ import annotations

import tensorflow as tf

from tfestimator_compat.canned import feature_layers
from tfestimator_compat.canned.boosted_trees_ensemble import Ensemble
from tfestimator_compat.canned.boosted_trees_features import bucketized
from tfestimator_compat.canned.boosted_trees_growing import Grower
from tfestimator_compat.canned.boosted_trees_growing import full_hessian
from tfestimator_compat.engine.loop.stop_signal import stop_training_when
from tfestimator_compat.head import BinaryClassHead
from tfestimator_compat.mode_keys import ModeKeys

GUIDE = "migration_guide/replacements.md#boosted-trees"


def unsupported(what):
    return ValueError(f"{what} is not supported by BoostedTrees here; see {GUIDE}.")


def check_center_bias(head, hparams):
    # The original centered a single logit only; its classifier and regressor refuse more.
    if hparams.center_bias and head.logits_dimension > 1:
        raise unsupported(f"center_bias with a head of logits_dimension {head.logits_dimension}")


def bt_model_fn(
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
    ensemble = Ensemble(layout, hparams, head.logits_dimension)
    bucket_ids = bucketized(features, layout, ensemble.boundaries.read_value())
    nodes, _, _ = ensemble.traverse(bucket_ids)
    logits = ensemble.logits_at(nodes)
    if mode != ModeKeys.TRAIN:
        return head.create_estimator_spec(
            features, mode, logits, labels=labels, train_op_fn=lambda _: tf.no_op()
        )
    if getattr(config, "train_distribute", None) is not None:
        raise unsupported(
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
    grower = Grower(ensemble, n_batches_per_layer)
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
        hessians = full_hessian(gradients, logits)
        return grower.train_op(features, gradients, hessians, bucket_ids, nodes, global_step)

    spec = head.create_estimator_spec(
        features, mode, logits, labels=labels, train_op_fn=train_op_fn
    )
    # Training ends after the step that grew the last tree (or found no split),
    # as the original's stop hook, which looked again after each step.
    with tf.control_dependencies([spec.train_op]):
        stop_training_when(ensemble.done())
    return spec


def explanations_model_fn(features, head, layout, hparams):
    """Predictions with each example's per-feature contributions and the bias.

    Both are float64, as the original computed them (in numpy, from the path's
    float32 logits): in float32 their sum missed the probability by up to
    2e-7, more than the 7 decimals the model-understanding tutorial asserts.
    """
    feature_layers.validate_features(features)
    ensemble = Ensemble(layout, hparams)
    bucket_ids = bucketized(features, layout, ensemble.boundaries.read_value())
    nodes, path_features, path_deltas = ensemble.traverse(bucket_ids, tf.float64)
    logits = ensemble.logits_at(nodes)
    spec = head.create_estimator_spec(
        features, ModeKeys.PREDICT, logits, train_op_fn=lambda _: tf.no_op()
    )
    # Tree by tree, each tree's path from the root: the order the logit was built in.
    split_features = tf.reshape(tf.stack(path_features, axis=2), [tf.shape(logits)[0], -1])
    deltas = tf.reshape(tf.stack(path_deltas, axis=2), [tf.shape(logits)[0], -1])
    bias = tf.fill([tf.shape(logits)[0], 1], tf.cast(ensemble.bias(), tf.float64))
    path_logits = bias + tf.cumsum(deltas, axis=1)
    if isinstance(head, BinaryClassHead):
        activation = tf.sigmoid
    else:
        activation = tf.identity
    path_values = activation(tf.concat([bias, path_logits], axis=1))
    changes = path_values[:, 1:] - path_values[:, :-1]
    contributions = tf.reduce_sum(
        tf.one_hot(split_features, layout.num_features, dtype=tf.float64) * changes[:, :, None],
        axis=1,
    )
    predictions = dict(spec.predictions)
    predictions["_feature_contributions"] = contributions
    predictions["_bias"] = path_values[:, 0]
    return spec._replace(predictions=predictions)
