"""The heads of the `tf.compat.v1.estimator` canned estimators.

TF1's canned estimators reduced the training loss with
`tf.compat.v1.losses.compute_weighted_loss`, by default summing it over the
batch (`tf.compat.v1.losses.Reduction.SUM`): their `loss` is per batch while
`average_loss` stays per example (also a training summary), and their AUCs
summed trapezoids. Otherwise predictions, metrics and exports are those of
the V2 heads, which these are.
"""

from __future__ import annotations

import tensorflow as tf

from tfestimator_compat.head import base_head
from tfestimator_compat.head import head_utils
from tfestimator_compat.head.binary_class_head import BinaryClassHead
from tfestimator_compat.head.metric_keys import MetricKeys
from tfestimator_compat.head.metrics import AUCV1
from tfestimator_compat.head.multi_class_head import MultiClassHead
from tfestimator_compat.head.regression_head import RegressionHead
from tfestimator_compat.mode_keys import ModeKeys

_Reduction = tf.compat.v1.losses.Reduction
SUM = _Reduction.SUM


class _V1Reduction:
    """Reduces the loss as TF1 did, with any `tf.compat.v1.losses.Reduction` but NONE."""

    def _validate_loss_reduction(self, loss_reduction):
        if loss_reduction not in _Reduction.all() or loss_reduction == _Reduction.NONE:
            valid = sorted(set(_Reduction.all()) - {_Reduction.NONE})
            raise ValueError(
                f"Invalid loss_reduction: {loss_reduction}. The tf.compat.v1 canned "
                f"estimators take a tf.compat.v1.losses.Reduction other than NONE: {valid}."
            )

    def _reduce_loss(self, unweighted_loss, weights):
        return tf.compat.v1.losses.compute_weighted_loss(
            tf.cast(unweighted_loss, tf.float32),
            weights=weights,
            reduction=self._loss_reduction,
            loss_collection=None,
        )

    def create_estimator_spec(self, features, mode, logits, labels=None, **kwargs):
        spec = super().create_estimator_spec(features, mode, logits, labels=labels, **kwargs)
        if mode == ModeKeys.TRAIN and self._loss_reduction == SUM:
            self._summarize_average_loss(features, logits, labels)
        return spec

    def _summarize_average_loss(self, features, logits, labels):
        """TF1 also logged the summed loss over the examples' total weight while training."""
        with tf.name_scope(self.name or "head"), tf.name_scope("average_loss"):
            logits = head_utils.check_logits(logits, self.logits_dimension)
            labels = self._processed_labels(logits, labels)
            loss, weights = self._unweighted_loss_and_weights(logits, labels, features)
            loss = tf.cast(loss, tf.float32)
            weight_sum = tf.reduce_sum(weights * tf.ones_like(loss))
            average = tf.reduce_sum(loss * weights) / weight_sum
        base_head.add_scalar_summary(self._summary_key(MetricKeys.LOSS_MEAN), average)


class BinaryClassHeadV1(_V1Reduction, BinaryClassHead):
    """`BinaryClassHead` with TF1's loss reduction and TF1's AUC formula."""

    def _auc(self, curve, name):
        return AUCV1(curve=curve, name=name)


class MultiClassHeadV1(_V1Reduction, MultiClassHead):
    """`MultiClassHead` with TF1's loss reduction."""


class RegressionHeadV1(_V1Reduction, RegressionHead):
    """`RegressionHead` with TF1's loss reduction."""


def classification_head(n_classes, weight_column, label_vocabulary, loss_reduction=SUM):
    """The head of the V1 classifiers: binary for 2 classes, multi-class otherwise."""
    if n_classes == 2:
        return BinaryClassHeadV1(
            weight_column=weight_column,
            label_vocabulary=label_vocabulary,
            loss_reduction=loss_reduction,
        )
    return MultiClassHeadV1(
        n_classes,
        weight_column=weight_column,
        label_vocabulary=label_vocabulary,
        loss_reduction=loss_reduction,
    )


def regression_head(label_dimension, weight_column, loss_reduction=SUM):
    """The head of the V1 regressors."""
    return RegressionHeadV1(
        label_dimension=label_dimension, weight_column=weight_column, loss_reduction=loss_reduction
    )
