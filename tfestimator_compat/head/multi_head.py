"""`MultiHead`: several named heads trained together on one model's logits."""

from __future__ import annotations

import keras
import tensorflow as tf

from tfestimator_compat.export import PredictOutput
from tfestimator_compat.head import base_head
from tfestimator_compat.head.metric_keys import MetricKeys
from tfestimator_compat.mode_keys import ModeKeys
from tfestimator_compat.spec import EstimatorSpec


class MultiHead(base_head.Head):
    """Combines named heads: the loss is their (weighted) sum.

    Logits are a dict from head name to that head's logits, or one tensor
    whose last dimension is split among the heads in order. Labels are a dict
    from head name to labels. Predictions are keyed `(head_name, key)`;
    metrics keep each head's keys (suffixed with its name) and add
    `loss/<head_name>`. Export signatures are each head's, named
    `<head_name>/<signature>`, plus `predict` with all predictions and the
    first head's default signature.

    Args:
        heads: the heads, each with a `name`.
        head_weights: weights of the heads' losses in the total loss.

    Example:

    ```python
    head = tf.estimator.MultiHead([
        tf.estimator.MultiLabelHead(n_classes=3, name="topics"),
        tf.estimator.RegressionHead(name="score"),
    ])
    ```
    """

    def __init__(self, heads, head_weights=None):
        if not heads:
            raise ValueError(f"Must specify heads. Given: {heads}")
        if head_weights and len(head_weights) != len(heads):
            raise ValueError(
                "heads and head_weights must have the same size. "
                f"Given len(heads): {len(heads)}. Given len(head_weights): {len(head_weights)}."
            )
        for head in heads:
            if head.name is None:
                raise ValueError(f"All given heads must have name specified. Given: {head}")
        self._heads = tuple(heads)
        self._head_weights = tuple(head_weights) if head_weights else ()
        self._loss_keys = tuple(f"{MetricKeys.LOSS}/{head.name}" for head in self._heads)

    @property
    def name(self):
        return "_".join(head.name for head in self._heads)

    @property
    def logits_dimension(self):
        return sum(head.logits_dimension for head in self._heads)

    @property
    def loss_reduction(self):
        reductions = [head.loss_reduction for head in self._heads]
        if len(set(reductions)) > 1:
            raise ValueError(
                f"The loss_reduction must be the same for different heads. Given: {reductions}"
            )
        return reductions[0]

    def _split_logits(self, logits):
        with tf.name_scope("split_logits"):
            logits = tf.convert_to_tensor(logits)
            dimensions = [head.logits_dimension for head in self._heads]
            last = logits.shape[-1]
            if last is not None and last != sum(dimensions):
                raise ValueError(
                    f"Could not split logits of shape {logits.shape.as_list()} among the heads "
                    f"with individual logits dimensions: {dimensions}. The last dimension of "
                    f"the logits tensor should equal {sum(dimensions)} but is {last}."
                )
            parts = tf.split(logits, dimensions, axis=-1)
        return {head.name: part for head, part in zip(self._heads, parts)}

    def _logits_dict(self, logits, labels=None):
        names = [head.name for head in self._heads]
        if isinstance(logits, dict):
            missing = sorted(set(names) - set(logits))
            if missing:
                raise ValueError(f"logits has missing values for head(s): {missing}")
            logits_dict = logits
        else:
            logits_dict = self._split_logits(logits)
        if labels is not None:
            if not isinstance(labels, dict):
                raise ValueError(f"labels must be a dict. Given: {labels}")
            missing = sorted(set(names) - set(labels))
            if missing:
                raise ValueError(f"labels has missing values for head(s): {missing}")
        return logits_dict

    def loss(self, labels, logits, features=None, mode=None, regularization_losses=None):
        logits_dict = self._logits_dict(logits, labels)
        losses = [
            head.loss(labels[head.name], logits_dict[head.name], features=features, mode=mode)
            for head in self._heads
        ]
        with tf.name_scope("merge_losses"):
            if self._head_weights:
                losses = [loss * weight for loss, weight in zip(losses, self._head_weights)]
            loss = tf.math.add_n(losses)
            if regularization_losses is not None:
                loss += tf.math.add_n(list(regularization_losses))
        return loss

    def predictions(self, logits, keys=None):
        logits_dict = self._logits_dict(logits)
        predictions = {}
        with tf.name_scope("merge_pred"):
            for head in self._heads:
                for key, value in head.predictions(logits_dict[head.name]).items():
                    predictions[(head.name, key)] = value
        return predictions

    def metrics(self, regularization_losses=None):
        eval_metrics = {}
        if regularization_losses is not None:
            key = self._summary_key(MetricKeys.LOSS_REGULARIZATION)
            eval_metrics[key] = keras.metrics.Mean(name=MetricKeys.LOSS_REGULARIZATION)
        with tf.name_scope("merge_eval"):
            for loss_key in self._loss_keys:
                eval_metrics[loss_key] = keras.metrics.Mean(name=loss_key)
        return eval_metrics

    def update_metrics(self, eval_metrics, features, logits, labels, regularization_losses=None):
        """Updates `metrics()` and adds each head's metrics, updated, to them."""
        logits_dict = self._logits_dict(logits, labels)
        base_head.regularization_loss_metric(
            eval_metrics, self._summary_key(MetricKeys.LOSS_REGULARIZATION), regularization_losses
        )
        for head, loss_key in zip(self._heads, self._loss_keys):
            head_logits, head_labels = logits_dict[head.name], labels[head.name]
            eval_metrics[loss_key].update_state(
                head.loss(head_labels, head_logits, features=features)
            )
            updated = head.update_metrics(head.metrics(), features, head_logits, head_labels)
            eval_metrics.update(updated or {})
        return eval_metrics

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
        with tf.name_scope(self.name):
            logits_dict = self._logits_dict(logits, labels)
            head_specs = []
            if mode != ModeKeys.EVAL:
                # Each head's own spec: export outputs when predicting, and its
                # summaries (`loss/<head name>`) when training. Built first, as
                # in the original, whose train op then took the name scope
                # `training_2` (`training_2/Adagrad/...` in its checkpoints).
                head_specs = [
                    head.create_estimator_spec(
                        features,
                        mode,
                        logits_dict[head.name],
                        labels[head.name] if labels else None,
                        train_op_fn=lambda _: tf.no_op(),
                    )
                    for head in self._heads
                ]
            predictions = self.predictions(logits)
            if mode == ModeKeys.PREDICT:
                return EstimatorSpec(
                    mode,
                    predictions=predictions,
                    export_outputs=self._merged_export_outputs(head_specs),
                )
            loss = self.loss(labels, logits, features, mode, regularization_losses)
            if mode == ModeKeys.EVAL:
                eval_metrics = self.update_metrics(
                    self.metrics(regularization_losses),
                    features,
                    logits,
                    labels,
                    regularization_losses=regularization_losses,
                )
                return EstimatorSpec(
                    mode, predictions=predictions, loss=loss, eval_metric_ops=eval_metrics
                )
            if mode != ModeKeys.TRAIN:
                raise ValueError(f"mode={mode} unrecognized")
            train_op = base_head.create_train_op(
                loss,
                optimizer=optimizer,
                trainable_variables=trainable_variables,
                train_op_fn=train_op_fn,
                update_ops=update_ops,
            )
        base_head.add_loss_summaries(loss, regularization_losses)
        return EstimatorSpec(mode, predictions=predictions, loss=loss, train_op=train_op)

    def _merged_export_outputs(self, head_specs):
        first = head_specs[0].export_outputs
        if base_head.DEFAULT_SERVING_KEY not in first:
            raise ValueError(
                f"{self._heads[0].name} did not specify default export_outputs. Given: {first} "
                "Suggested fix: Use one of the heads in tf.estimator, or include key "
                f"{base_head.DEFAULT_SERVING_KEY} in export_outputs."
            )
        export_outputs = {base_head.DEFAULT_SERVING_KEY: first[base_head.DEFAULT_SERVING_KEY]}
        merged_predictions = {}
        for head, spec in zip(self._heads, head_specs):
            for key, output in spec.export_outputs.items():
                name = head.name if key == base_head.DEFAULT_SERVING_KEY else f"{head.name}/{key}"
                export_outputs[name] = output
                if key == base_head.PREDICT_SERVING_KEY and isinstance(output, PredictOutput):
                    for output_key, tensor in output.outputs.items():
                        merged_predictions[f"{head.name}/{output_key}"] = tensor
        export_outputs[base_head.PREDICT_SERVING_KEY] = PredictOutput(merged_predictions)
        return export_outputs
