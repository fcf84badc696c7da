"""Wide & deep models: a linear model and a DNN whose logits are added.

`DNNLinearCombinedClassifier`, `DNNLinearCombinedRegressor` and
`DNNLinearCombinedEstimator` train the `linear/` part with one optimizer (FTRL
by default) and the `dnn/` part with another (Adagrad by default), with the
original's variables. As in the original, the DNN optimizer advances the
global step and the linear one counts its own `iter` (the linear optimizer
does when there is no DNN part).
"""

from __future__ import annotations

import math

import tensorflow as tf

from tfestimator_compat.canned import feature_layers
from tfestimator_compat.canned import optimizers
from tfestimator_compat.canned.dnn import dnn_logits
from tfestimator_compat.canned.heads import classification_head
from tfestimator_compat.canned.heads import regression_head
from tfestimator_compat.canned.linear import linear_logits
from tfestimator_compat.canned.summaries import add_layer_summary
from tfestimator_compat.estimator import Estimator
from tfestimator_compat.head import head_utils
from tfestimator_compat.mode_keys import ModeKeys

DNN_LEARNING_RATE = 0.001
_LINEAR_LEARNING_RATE = 0.005


def linear_learning_rate(num_linear_feature_columns):
    return min(_LINEAR_LEARNING_RATE, 1.0 / math.sqrt(num_linear_feature_columns))


def dnn_linear_combined_model_fn(
    features,
    labels,
    mode,
    head,
    linear_feature_columns=None,
    linear_optimizer="Ftrl",
    dnn_feature_columns=None,
    dnn_optimizer="Adagrad",
    dnn_hidden_units=None,
    dnn_activation_fn=tf.nn.relu,
    dnn_dropout=None,
    batch_norm=False,
    linear_sparse_combiner="sum",
    input_layer_partitioner=None,
    dnn_partitioner=None,
):
    """The `model_fn` of the combined estimators: `head` on the summed logits.

    `input_layer_partitioner` partitions the feature columns' variables of both
    parts, `dnn_partitioner` the DNN's other ones.
    """
    feature_layers.validate_features(features)
    if not linear_feature_columns and not dnn_feature_columns:
        raise ValueError("Either linear_feature_columns or dnn_feature_columns must be defined.")
    training = mode == ModeKeys.TRAIN
    parts = []
    if dnn_feature_columns:
        if not dnn_hidden_units:
            raise ValueError(
                "dnn_hidden_units must be defined when dnn_feature_columns is specified."
            )
        logits, variables, update_ops = dnn_logits(
            features,
            mode,
            head.logits_dimension,
            dnn_hidden_units,
            dnn_feature_columns,
            activation_fn=dnn_activation_fn,
            dropout=dnn_dropout,
            batch_norm=batch_norm,
            input_layer_partitioner=input_layer_partitioner,
            partitioner=dnn_partitioner,
        )
        parts.append((logits, variables, update_ops, dnn_optimizer, DNN_LEARNING_RATE))
    if linear_feature_columns:
        logits, variables = linear_logits(
            features,
            linear_feature_columns,
            head.logits_dimension,
            linear_sparse_combiner,
            training,
            partitioner=input_layer_partitioner,
        )
        if training:
            add_layer_summary(logits, "linear", "linear")
        learning_rate = linear_learning_rate(len(linear_feature_columns))
        parts.append((logits, variables, [], linear_optimizer, learning_rate))

    def train_op_fn(loss):
        train_ops = []
        for index, (_, variables, update_ops, optimizer, learning_rate) in enumerate(parts):
            optimizer = optimizers.get_optimizer(optimizer, learning_rate=learning_rate)
            train_ops.append(
                optimizers.minimize(optimizer, loss, variables, advance_global_step=index == 0)
            )
            train_ops.extend(update_ops)
        return tf.group(*train_ops)

    return head.create_estimator_spec(
        features,
        mode,
        tf.math.add_n([part[0] for part in parts]),
        labels=labels,
        train_op_fn=train_op_fn,
    )


class DNNLinearCombinedEstimator(Estimator):
    """A linear model and a DNN added together, with any head.

    Args:
        head: a `Head` defining loss, metrics and predictions.
        model_dir: where checkpoints and summaries go.
        linear_feature_columns: inputs of the linear part.
        linear_optimizer: its optimizer (see `LinearEstimator`); a name gets
            learning rate `min(0.005, 1 / sqrt(len(linear_feature_columns)))`.
        dnn_feature_columns: inputs of the DNN part.
        dnn_optimizer: its optimizer (see `DNNEstimator`); a name gets learning
            rate 0.001.
        dnn_hidden_units: widths of the hidden layers.
        dnn_activation_fn: activation of the hidden layers.
        dnn_dropout: probability of dropping a hidden unit while training.
        config: a `RunConfig`.
        batch_norm: batch-normalize each hidden layer.
        linear_sparse_combiner: 'sum' (default), 'mean' or 'sqrtn'.
    """

    def __init__(
        self,
        head,
        model_dir=None,
        linear_feature_columns=None,
        linear_optimizer="Ftrl",
        dnn_feature_columns=None,
        dnn_optimizer="Adagrad",
        dnn_hidden_units=None,
        dnn_activation_fn=tf.nn.relu,
        dnn_dropout=None,
        config=None,
        batch_norm=False,
        linear_sparse_combiner="sum",
        warm_start_from=None,
    ):
        linear_feature_columns = list(linear_feature_columns or [])
        dnn_feature_columns = list(dnn_feature_columns or [])
        if not linear_feature_columns and not dnn_feature_columns:
            raise ValueError(
                "Either linear_feature_columns or dnn_feature_columns must be defined."
            )

        def _model_fn(features, labels, mode):
            feature_layers.require_v2_columns(linear_feature_columns)
            feature_layers.require_v2_columns(dnn_feature_columns)
            return dnn_linear_combined_model_fn(
                features,
                labels,
                mode,
                head,
                linear_feature_columns=linear_feature_columns,
                linear_optimizer=linear_optimizer,
                dnn_feature_columns=dnn_feature_columns,
                dnn_optimizer=dnn_optimizer,
                dnn_hidden_units=dnn_hidden_units,
                dnn_activation_fn=dnn_activation_fn,
                dnn_dropout=dnn_dropout,
                batch_norm=batch_norm,
                linear_sparse_combiner=linear_sparse_combiner,
            )

        super().__init__(
            model_fn=_model_fn, model_dir=model_dir, config=config, warm_start_from=warm_start_from
        )


class DNNLinearCombinedClassifier(DNNLinearCombinedEstimator):
    """A wide & deep classifier: linear and DNN logits added.

    Args:
        model_dir: where checkpoints and summaries go.
        linear_feature_columns: inputs of the linear part.
        linear_optimizer: see `DNNLinearCombinedEstimator`.
        dnn_feature_columns: inputs of the DNN part.
        dnn_optimizer: see `DNNLinearCombinedEstimator`.
        dnn_hidden_units: widths of the hidden layers.
        dnn_activation_fn: activation of the hidden layers.
        dnn_dropout: probability of dropping a hidden unit while training.
        n_classes: number of classes (2: binary, with a single logit).
        weight_column: name or `numeric_column` of the example weights.
        label_vocabulary: class names, when labels are strings.
        config: a `RunConfig`.
        warm_start_from: checkpoint or `WarmStartSettings` to start from.
        loss_reduction: `tf.losses.Reduction` `SUM_OVER_BATCH_SIZE` or `SUM`.
        batch_norm: batch-normalize each hidden layer.
        linear_sparse_combiner: 'sum' (default), 'mean' or 'sqrtn'.

    Example:

    ```python
    classifier = tf.estimator.DNNLinearCombinedClassifier(
        linear_feature_columns=[country_x_language],
        dnn_feature_columns=[tf.feature_column.embedding_column(country, 4), age],
        dnn_hidden_units=[64, 32])
    ```
    """

    def __init__(
        self,
        model_dir=None,
        linear_feature_columns=None,
        linear_optimizer="Ftrl",
        dnn_feature_columns=None,
        dnn_optimizer="Adagrad",
        dnn_hidden_units=None,
        dnn_activation_fn=tf.nn.relu,
        dnn_dropout=None,
        n_classes=2,
        weight_column=None,
        label_vocabulary=None,
        config=None,
        warm_start_from=None,
        loss_reduction=head_utils.SUM_OVER_BATCH_SIZE,
        batch_norm=False,
        linear_sparse_combiner="sum",
    ):
        super().__init__(
            classification_head(n_classes, weight_column, label_vocabulary, loss_reduction),
            model_dir=model_dir,
            linear_feature_columns=linear_feature_columns,
            linear_optimizer=linear_optimizer,
            dnn_feature_columns=dnn_feature_columns,
            dnn_optimizer=dnn_optimizer,
            dnn_hidden_units=dnn_hidden_units,
            dnn_activation_fn=dnn_activation_fn,
            dnn_dropout=dnn_dropout,
            config=config,
            batch_norm=batch_norm,
            linear_sparse_combiner=linear_sparse_combiner,
            warm_start_from=warm_start_from,
        )


class DNNLinearCombinedRegressor(DNNLinearCombinedEstimator):
    """A wide & deep regressor: linear and DNN outputs added.

    Args are those of `DNNLinearCombinedClassifier`, with `label_dimension`
    (number of regression targets) instead of `n_classes` and `label_vocabulary`.
    """

    def __init__(
        self,
        model_dir=None,
        linear_feature_columns=None,
        linear_optimizer="Ftrl",
        dnn_feature_columns=None,
        dnn_optimizer="Adagrad",
        dnn_hidden_units=None,
        dnn_activation_fn=tf.nn.relu,
        dnn_dropout=None,
        label_dimension=1,
        weight_column=None,
        config=None,
        warm_start_from=None,
        loss_reduction=head_utils.SUM_OVER_BATCH_SIZE,
        batch_norm=False,
        linear_sparse_combiner="sum",
    ):
        super().__init__(
            regression_head(label_dimension, weight_column, loss_reduction),
            model_dir=model_dir,
            linear_feature_columns=linear_feature_columns,
            linear_optimizer=linear_optimizer,
            dnn_feature_columns=dnn_feature_columns,
            dnn_optimizer=dnn_optimizer,
            dnn_hidden_units=dnn_hidden_units,
            dnn_activation_fn=dnn_activation_fn,
            dnn_dropout=dnn_dropout,
            config=config,
            batch_norm=batch_norm,
            linear_sparse_combiner=linear_sparse_combiner,
            warm_start_from=warm_start_from,
        )
