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

This module holds the estimators and the in-memory trainers; the features
are in `boosted_trees_features`, the ensemble's variables in
`boosted_trees_ensemble`, the training op in `boosted_trees_growing` and the
model_fns in `boosted_trees_model_fn`.
"""

from __future__ import annotations

import collections

import numpy as np
import tensorflow as tf

from tfestimator_compat.canned import feature_layers
from tfestimator_compat.canned.boosted_trees_ensemble import SCOPE
from tfestimator_compat.canned.boosted_trees_ensemble import TreeHParams
from tfestimator_compat.canned.boosted_trees_ensemble import validate_hparams
from tfestimator_compat.canned.boosted_trees_features import Layout
from tfestimator_compat.canned.boosted_trees_model_fn import bt_model_fn
from tfestimator_compat.canned.boosted_trees_model_fn import check_center_bias
from tfestimator_compat.canned.boosted_trees_model_fn import explanations_model_fn
from tfestimator_compat.engine.state import checkpoints
from tfestimator_compat.estimator import Estimator
from tfestimator_compat.head import BinaryClassHead
from tfestimator_compat.head import MultiClassHead
from tfestimator_compat.head import RegressionHead
from tfestimator_compat.head import head_utils
from tfestimator_compat.head.v1_heads import MultiClassHeadV1


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
    """Sums by column name, keeping numpy's float64 as the original returned it."""
    sums = collections.OrderedDict()
    for name, value in zip(names, values):
        sums[name] = sums.get(name, 0) + value
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
        validate_hparams(hparams)
        check_center_bias(head, hparams)
        layout = Layout(feature_columns, int(1.0 / hparams.quantile_sketch_epsilon))
        self._layout, self._hparams, self._head = layout, hparams, head
        if is_classification is None:
            is_classification = isinstance(head, (BinaryClassHead, MultiClassHead))
        self._is_classification = is_classification

        def _model_fn(features, labels, mode, config):
            return bt_model_fn(
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
        feature = reader.get_tensor(f"{SCOPE}/tree_feature")
        gain = reader.get_tensor(f"{SCOPE}/tree_gain")
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
            return explanations_model_fn(features, head, layout, hparams)

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
            prediction["bias"] = prediction.pop("_bias")
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
    return TreeHParams(
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
