"""`Head`: turns logits into predictions, a loss, metrics and a train op.

A head holds what a model's last layer means (binary or multi-class
classification, regression, ...) apart from the network that computes the
logits. Canned estimators build logits and hand them to a head; a custom
`model_fn` can do the same:

```python
def model_fn(features, labels, mode):
    logits = tf.keras.layers.Dense(head.logits_dimension)(features["x"])
    return head.create_estimator_spec(
        features, mode, logits, labels,
        train_op_fn=lambda loss: tf.compat.v1.train.AdagradOptimizer(0.1).minimize(
            loss, global_step=tf.compat.v1.train.get_global_step()))
```

Subclasses implement `loss`, `predictions`, `metrics`, `update_metrics` and
`_export_outputs`; `create_estimator_spec` puts them together for each mode.
"""

from __future__ import annotations

import abc

import keras
import tensorflow as tf

from tfestimator_compat.head import head_utils
from tfestimator_compat.head.metric_keys import MetricKeys
from tfestimator_compat.mode_keys import ModeKeys
from tfestimator_compat.spec import EstimatorSpec

DEFAULT_SERVING_KEY = tf.saved_model.DEFAULT_SERVING_SIGNATURE_DEF_KEY
CLASSIFY_SERVING_KEY = "classification"
REGRESS_SERVING_KEY = "regression"
PREDICT_SERVING_KEY = "predict"


class Head(abc.ABC):
    """Interface of the heads: what a model's logits mean.

    Args of the methods:
        features: the input dict (example weights are read from it).
        logits: `[D0, ..., DN, logits_dimension]` float tensor.
        labels: the labels as the input_fn returned them.
        regularization_losses: scalar losses added to the training loss.
    """

    @property
    @abc.abstractmethod
    def name(self) -> str | None:
        """The head's name; metric keys and summaries are suffixed with it."""

    @property
    @abc.abstractmethod
    def logits_dimension(self) -> int:
        """Size of the last dimension of the logits this head expects."""

    @property
    @abc.abstractmethod
    def loss_reduction(self) -> str:
        """How the training loss is reduced over the batch (`tf.losses.Reduction`)."""

    @abc.abstractmethod
    def loss(self, labels, logits, features=None, mode=None, regularization_losses=None):
        """The scalar training loss, regularization included."""

    @abc.abstractmethod
    def predictions(self, logits, keys=None):
        """Dict of prediction tensors (only `keys` when given)."""

    @abc.abstractmethod
    def metrics(self, regularization_losses=None):
        """Dict of fresh Keras metric objects, keyed as `evaluate()` reports them."""

    @abc.abstractmethod
    def update_metrics(self, eval_metrics, features, logits, labels, regularization_losses=None):
        """Updates the metrics of `metrics()` with a batch; returns them."""

    def _export_outputs(self, predictions):
        """Signature name -> `ExportOutput` for a SavedModel."""
        raise NotImplementedError(f"{type(self).__name__} does not define export outputs.")

    def _summary_key(self, key: str) -> str:
        return f"{key}/{self.name}" if self.name else key

    def _threshold_keys(self, key_format):
        return [self._summary_key(key_format % threshold) for threshold in self._thresholds]

    def _threshold_metrics(self):
        """Accuracy, precision and recall at each of the head's `thresholds`, by key."""
        metrics = {}
        for threshold, accuracy, precision, recall in zip(
            self._thresholds,
            self._threshold_keys(MetricKeys.ACCURACY_AT_THRESHOLD),
            self._threshold_keys(MetricKeys.PRECISION_AT_THRESHOLD),
            self._threshold_keys(MetricKeys.RECALL_AT_THRESHOLD),
        ):
            metrics[accuracy] = keras.metrics.BinaryAccuracy(name=accuracy, threshold=threshold)
            metrics[precision] = keras.metrics.Precision(name=precision, thresholds=threshold)
            metrics[recall] = keras.metrics.Recall(name=recall, thresholds=threshold)
        return metrics

    def _update_threshold_metrics(self, eval_metrics, labels, scores, sample_weight):
        for name in (
            self._threshold_keys(MetricKeys.ACCURACY_AT_THRESHOLD)
            + self._threshold_keys(MetricKeys.PRECISION_AT_THRESHOLD)
            + self._threshold_keys(MetricKeys.RECALL_AT_THRESHOLD)
        ):
            eval_metrics[name].update_state(labels, scores, sample_weight=sample_weight)

    def create_estimator_spec(
        self,
        features,
        mode,
        logits,
        labels=None,
        optimizer=None,
        trainable_variables=None,
        train_op_fn=None,
        update_ops=None,
        regularization_losses=None,
    ) -> EstimatorSpec:
        """The `EstimatorSpec` for `mode`, computed from `logits`.

        Args:
            features: the input dict.
            mode: a `ModeKeys` value.
            logits: the model's output.
            labels: required in TRAIN and EVAL.
            optimizer: in TRAIN, the optimizer minimizing the loss over
                `trainable_variables`: a Keras optimizer (run with the maths and
                checkpoint names of the original's Keras 2 optimizers), a
                `tf.compat.v1.train.Optimizer`, or one of this package's.
            trainable_variables: list or tuple of variables, with `optimizer`.
            train_op_fn: `train_op_fn(loss)` returning the train op, when no
                `optimizer` is given.
            update_ops: list or tuple of ops the train op also runs (batch
                normalization statistics).
            regularization_losses: list of scalar losses added to the loss.
        """
        with tf.name_scope(self.name or "head"):
            predictions = self.predictions(logits)
            if mode == ModeKeys.PREDICT:
                return EstimatorSpec(
                    mode,
                    predictions=predictions,
                    export_outputs=self._export_outputs(predictions),
                )
            loss = self.loss(
                labels,
                logits,
                features=features,
                mode=mode,
                regularization_losses=regularization_losses,
            )
            if mode == ModeKeys.EVAL:
                eval_metrics = self.update_metrics(
                    self.metrics(regularization_losses=regularization_losses),
                    features,
                    logits,
                    labels,
                    regularization_losses=regularization_losses,
                )
                return EstimatorSpec(
                    mode, predictions=predictions, loss=loss, eval_metric_ops=eval_metrics
                )
            train_op = create_train_op(
                loss,
                optimizer=optimizer,
                trainable_variables=trainable_variables,
                train_op_fn=train_op_fn,
                update_ops=update_ops,
            )
        add_loss_summaries(loss, regularization_losses, self._summary_key)
        return EstimatorSpec(mode, predictions=predictions, loss=loss, train_op=train_op)


def create_train_op(
    loss, optimizer=None, trainable_variables=None, train_op_fn=None, update_ops=None
):
    """The train op: `optimizer` over `trainable_variables`, or `train_op_fn(loss)`.

    Built under the top-level name scope `training`, where the original's
    optimizers put their slots (`training/Adagrad/<variable>/accumulator`).
    """
    if update_ops is not None and not isinstance(update_ops, (list, tuple)):
        raise ValueError(f"update_ops should be a list or a tuple. Given type: {type(update_ops)}.")
    with tf.name_scope(""), tf.name_scope("training"):
        if optimizer is not None:
            if train_op_fn is not None:
                raise ValueError("train_op_fn and optimizer cannot both be set.")
            if trainable_variables is None:
                raise ValueError("trainable_variables cannot be None. Given None")
            if not isinstance(trainable_variables, (list, tuple)):
                raise ValueError(
                    "trainable_variables should be a list or a tuple. "
                    f"Given type: {type(trainable_variables)}."
                )
            # Imported here: `canned` imports the heads, so not at module level.
            from tfestimator_compat.canned import optimizers

            train_op = optimizers.minimize(optimizer, loss, list(trainable_variables))
        elif train_op_fn is not None:
            train_op = train_op_fn(loss)
        else:
            raise ValueError("train_op_fn and optimizer cannot both be None.")
        if update_ops:
            train_op = tf.group(train_op, *update_ops)
    return train_op


def add_loss_summaries(loss, regularization_losses=None, summary_key=None):
    """The `loss` (and `regularization_loss`) scalars of a training run."""
    summary_key = summary_key or (lambda key: key)
    add_scalar_summary(summary_key(MetricKeys.LOSS), loss)
    if regularization_losses is not None:
        add_scalar_summary(
            summary_key(MetricKeys.LOSS_REGULARIZATION),
            tf.math.add_n(list(regularization_losses)),
        )


def add_scalar_summary(tag, value):
    """A v1 scalar summary at the top-level name scope, which the Estimator writes."""
    with tf.name_scope(""):
        tf.compat.v1.summary.scalar(tag, value)


def regularization_loss_metric(eval_metrics, key, regularization_losses):
    if regularization_losses is not None:
        eval_metrics[key].update_state(tf.math.add_n(list(regularization_losses)))


def validate_common(loss_reduction, loss_fn):
    """Checks `loss_reduction` (unless None, for a head that checks its own) and `loss_fn`."""
    if loss_reduction is not None:
        head_utils.validate_loss_reduction(loss_reduction)
    if loss_fn:
        head_utils.validate_loss_fn_args(loss_fn)


class SingleHead(Head):
    """A head with one loss over its own logits (all but `MultiHead`).

    Subclasses call `__init__` with the arguments every head takes, once their
    own are validated, and define `_processed_labels(logits, labels)` and
    `_unweighted_loss_and_weights(logits, labels, features)`.
    """

    def __init__(self, weight_column, loss_reduction, loss_fn, name):
        self._validate_loss_reduction(loss_reduction)
        validate_common(None, loss_fn)
        self._weight_column = weight_column
        self._loss_reduction = loss_reduction
        self._loss_fn = loss_fn
        self._name = name

    @property
    def name(self):
        return self._name

    @property
    def loss_reduction(self):
        return self._loss_reduction

    def loss(self, labels, logits, features=None, mode=None, regularization_losses=None):
        """Example-weighted, reduced by `loss_reduction`, plus the regularization losses."""
        with tf.name_scope("losses"):
            training_loss, _, _ = self._training_loss(labels, logits, features)
            return head_utils.add_regularization(training_loss, regularization_losses)

    def _training_loss(self, labels, logits, features):
        """The reduced loss, with the per-example losses and weights it reduced."""
        logits = head_utils.check_logits(logits, self.logits_dimension)
        labels = self._processed_labels(logits, labels)
        unweighted_loss, weights = self._unweighted_loss_and_weights(logits, labels, features)
        return self._reduce_loss(unweighted_loss, weights), unweighted_loss, weights

    def _validate_loss_reduction(self, loss_reduction):
        head_utils.validate_loss_reduction(loss_reduction)

    def _reduce_loss(self, unweighted_loss, weights):
        """The training loss from per-example losses and weights, by `loss_reduction`."""
        return head_utils.weighted_loss(unweighted_loss, weights, self._loss_reduction)
