"""`_Head`: the interface TF1's heads shared, which libraries subclassed for their own heads.

tensorflow-estimator kept its TF1 heads in `canned/head.py` behind a private
base class, `_Head`. Libraries built on tf.estimator (CTR model zoos, ranking
and ensembling libraries) subclassed it and wrote `create_estimator_spec`
themselves, so the base class itself did little: it names the interface and
turns a subclass's `_create_tpu_estimator_spec` into an `EstimatorSpec`.
As in the original, nothing is enforced when a subclass is defined (its
`abc.ABCMeta` was a Python 2 spelling that Python 3 ignores): a missing piece
raises `NotImplementedError` when it is called.

Libraries also built TF1's own heads with the private factories
(`_binary_logistic_or_multi_class_head`, `_regression_head`, ...) and called
`create_estimator_spec(optimizer=...)` without naming the variables: these
are the `tf.compat.v1` canned estimators' heads, taking that call.
"""

from __future__ import annotations

import collections

import tensorflow as tf

from tfestimator_compat.head import head_utils
from tfestimator_compat.head.v1_heads import SUM
from tfestimator_compat.head.v1_heads import BinaryClassHeadV1
from tfestimator_compat.head.v1_heads import MultiClassHeadV1
from tfestimator_compat.head.v1_heads import RegressionHeadV1

# The signature keys TF1's heads exported under.
DEFAULT_SERVING_KEY = tf.saved_model.DEFAULT_SERVING_SIGNATURE_DEF_KEY
CLASSIFY_SERVING_KEY = "classification"
REGRESS_SERVING_KEY = "regression"
PREDICT_SERVING_KEY = "predict"

LossSpec = collections.namedtuple(
    "LossSpec", ["training_loss", "unreduced_loss", "weights", "processed_labels"]
)
LossSpec.__doc__ = """What `_Head.create_loss` returns: the reduced training loss, the
per-example loss, the example weights and the labels as the head processed them."""


def summary_key(head_name: str | None, key: str) -> str:
    """`key/head_name`, or `key` for an unnamed head: how TF1's heads named metrics."""
    return f"{key}/{head_name}" if head_name else key


class Head:
    """The TF1 head interface: `name`, `logits_dimension`, `create_loss`, `create_estimator_spec`.

    A subclass implements `create_estimator_spec` (or `_create_tpu_estimator_spec`,
    whose `TPUEstimatorSpec` this class converts) and calls it from a `model_fn`.

    Example:

    ```python
    class MeanSquaredHead(_Head):
        name = "mse"
        logits_dimension = 1

        def create_estimator_spec(self, features, mode, logits, labels=None,
                                  train_op_fn=None, **kwargs):
            loss = tf.compat.v1.losses.mean_squared_error(labels, logits)
            return tf.estimator.EstimatorSpec(
                mode, predictions=logits, loss=loss, train_op=train_op_fn(loss))
    ```
    """

    @property
    def name(self):
        """The head's name, which suffixes its metric keys (`summary_key`)."""
        raise NotImplementedError("Calling an abstract method.")

    @property
    def logits_dimension(self):
        """The size of the logits' last dimension."""
        raise NotImplementedError("Calling an abstract method.")

    def create_loss(self, features, mode, logits, labels):
        """A `LossSpec` for `logits` against `labels`."""
        raise NotImplementedError("Calling an abstract method.")

    def create_estimator_spec(
        self,
        features,
        mode,
        logits,
        labels=None,
        optimizer=None,
        train_op_fn=None,
        regularization_losses=None,
    ):
        """The `EstimatorSpec` of the subclass's `_create_tpu_estimator_spec`."""
        try:
            spec = self._create_tpu_estimator_spec(
                features, mode, logits, labels, optimizer, train_op_fn, regularization_losses
            )
        except NotImplementedError:
            raise NotImplementedError(
                "Subclasses of _Head must implement `create_estimator_spec()` or "
                "_create_tpu_estimator_spec()."
            ) from None
        return spec.as_estimator_spec()

    def _create_tpu_estimator_spec(
        self,
        features,
        mode,
        logits,
        labels=None,
        optimizer=None,
        train_op_fn=None,
        regularization_losses=None,
    ):
        raise NotImplementedError("TPUEstimatorSpec not available for this model head.")


class _TF1Call:
    """Takes TF1's `create_estimator_spec` call: an optimizer trains every trainable
    variable, and the graph's `UPDATE_OPS` (batch norm's) run with the train op."""

    def create_estimator_spec(
        self,
        features,
        mode,
        logits,
        labels=None,
        optimizer=None,
        train_op_fn=None,
        regularization_losses=None,
    ):
        trainable = tf.compat.v1.trainable_variables() if optimizer is not None else None
        return super().create_estimator_spec(
            features,
            mode,
            logits,
            labels=labels,
            optimizer=optimizer,
            trainable_variables=trainable,
            train_op_fn=train_op_fn,
            update_ops=tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.UPDATE_OPS),
            regularization_losses=regularization_losses,
        )

    def create_loss(self, features, mode, logits, labels):
        """TF1's `LossSpec`: reduced loss, per-example loss, weights, processed labels."""
        logits = head_utils.check_logits(logits, self.logits_dimension)
        processed = self._processed_labels(logits, labels)
        unreduced, weights = self._unweighted_loss_and_weights(logits, processed, features)
        return LossSpec(self._reduce_loss(unreduced, weights), unreduced, weights, processed)


class BinaryLogisticHead(_TF1Call, BinaryClassHeadV1, Head):
    """TF1's binary head (`_BinaryLogisticHeadWithSigmoidCrossEntropyLoss`)."""

    def __init__(
        self,
        weight_column=None,
        thresholds=None,
        label_vocabulary=None,
        loss_reduction=SUM,
        loss_fn=None,
        name=None,
    ):
        super().__init__(weight_column, thresholds, label_vocabulary, loss_reduction, loss_fn, name)


class MultiClassHead(_TF1Call, MultiClassHeadV1, Head):
    """TF1's multi-class head (`_MultiClassHeadWithSoftmaxCrossEntropyLoss`)."""

    def __init__(
        self,
        n_classes,
        weight_column=None,
        label_vocabulary=None,
        loss_reduction=SUM,
        loss_fn=None,
        name=None,
    ):
        super().__init__(n_classes, weight_column, label_vocabulary, loss_reduction, loss_fn, name)


class RegressionHead(_TF1Call, RegressionHeadV1, Head):
    """TF1's regression head (`_RegressionHeadWithMeanSquaredErrorLoss`)."""

    def __init__(
        self,
        label_dimension,
        weight_column=None,
        loss_reduction=SUM,
        loss_fn=None,
        inverse_link_fn=None,
        name=None,
    ):
        super().__init__(
            label_dimension, weight_column, loss_reduction, loss_fn, inverse_link_fn, name
        )


def regression_head(
    weight_column=None,
    label_dimension=1,
    loss_reduction=SUM,
    loss_fn=None,
    inverse_link_fn=None,
    name=None,
):
    """TF1's `_regression_head`: mean squared error, summed over the batch by default."""
    return RegressionHead(
        label_dimension, weight_column, loss_reduction, loss_fn, inverse_link_fn, name
    )


def binary_logistic_or_multi_class_head(n_classes, weight_column, label_vocabulary, loss_reduction):
    """TF1's `_binary_logistic_or_multi_class_head`: binary for 2 classes."""
    return head_utils.binary_or_multi_class(
        n_classes,
        BinaryLogisticHead,
        MultiClassHead,
        weight_column=weight_column,
        label_vocabulary=label_vocabulary,
        loss_reduction=loss_reduction,
    )
