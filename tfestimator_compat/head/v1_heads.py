"""The heads of the `tf.compat.v1.estimator` canned estimators.

TF1's canned estimators reduced the training loss with
`tf.compat.v1.losses.compute_weighted_loss`, by default summing it over the
batch (`tf.compat.v1.losses.Reduction.SUM`): their `loss` is per batch while
`average_loss` stays per example (also a training summary), and their AUCs
summed trapezoids. Otherwise predictions, metrics and exports are those of
the V2 heads, which these are.
"""

from __future__ import annotations

import contextlib

import tensorflow as tf

from tfestimator_compat.head import base_head
from tfestimator_compat.head import head_utils
from tfestimator_compat.head.binary_class_head import BinaryClassHead
from tfestimator_compat.head.metric_keys import MetricKeys
from tfestimator_compat.head.metrics import AUCV1
from tfestimator_compat.head.multi_class_head import MultiClassHead
from tfestimator_compat.head.regression_head import RegressionHead
from tfestimator_compat.mode_keys import ModeKeys
from tfestimator_compat.spec import EstimatorSpec

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

    def loss(self, labels, logits, features=None, mode=None, regularization_losses=None):
        """As the V2 heads' loss, built in the head's own name scope (no `losses`),
        so the graph holds TF1's `<head>/weighted_loss/Sum`."""
        training_loss, _, _ = self._training_loss(labels, logits, features)
        return head_utils.add_regularization(training_loss, regularization_losses)

    def create_estimator_spec(self, features, mode, logits, labels=None, **kwargs):
        if mode != ModeKeys.TRAIN:
            return super().create_estimator_spec(features, mode, logits, labels=labels, **kwargs)
        return self._train_spec(features, logits, labels, **kwargs)

    def _train_spec(
        self,
        features,
        logits,
        labels,
        optimizer=None,
        trainable_variables=None,
        train_op_fn=None,
        update_ops=None,
        regularization_losses=None,
    ):
        """The TRAIN spec with TF1's ops and names: `<head>/truediv` is the
        average loss (with SUM reduction), which hooks and TF1 programs log."""
        with tf.name_scope(self.name or "head"):
            predictions = self.predictions(logits)
            training_loss, unweighted_loss, weights = self._training_loss(labels, logits, features)
            loss = head_utils.add_regularization(training_loss, regularization_losses)
            train_op = base_head.create_train_op(
                loss,
                optimizer=optimizer,
                trainable_variables=trainable_variables,
                train_op_fn=train_op_fn,
                update_ops=update_ops,
            )
            average_loss = None
            if self._loss_reduction == SUM:
                weight_sum = tf.reduce_sum(weights * tf.ones_like(unweighted_loss))
                average_loss = training_loss / weight_sum
        base_head.add_scalar_summary(self._summary_key(MetricKeys.LOSS), loss)
        if average_loss is not None:
            base_head.add_scalar_summary(self._summary_key(MetricKeys.LOSS_MEAN), average_loss)
        if regularization_losses is not None:
            base_head.add_scalar_summary(
                self._summary_key(MetricKeys.LOSS_REGULARIZATION),
                tf.math.add_n(list(regularization_losses)),
            )
        return EstimatorSpec(ModeKeys.TRAIN, predictions=predictions, loss=loss, train_op=train_op)


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
    return head_utils.binary_or_multi_class(
        n_classes,
        BinaryClassHeadV1,
        MultiClassHeadV1,
        weight_column=weight_column,
        label_vocabulary=label_vocabulary,
        loss_reduction=loss_reduction,
    )


def regression_head(label_dimension, weight_column, loss_reduction=SUM):
    """The head of the V1 regressors."""
    return RegressionHeadV1(
        label_dimension=label_dimension, weight_column=weight_column, loss_reduction=loss_reduction
    )


@contextlib.contextmanager
def model_name_scope(model_scope: str | None):
    """Builds what runs inside it (a head) in the name scope `model_scope`,
    re-entered, not uniquified: TF1's canned DNN and linear model_fns called
    their head inside their own variable scope, so its tensors were named
    `dnn/head/weighted_loss/Sum`, `linear/head/predictions/probabilities`,
    and hooks and programs fetch them by those names. None: no scope.
    """
    if model_scope is None:
        yield
        return
    current = tf.compat.v1.get_default_graph().get_name_scope()
    with tf.name_scope(f"{current}/{model_scope}/" if current else f"{model_scope}/"):
        yield
