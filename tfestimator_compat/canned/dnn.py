"""`DNNClassifier`, `DNNRegressor`, `DNNEstimator`: feed-forward networks on feature columns.

The network and its variables are the original's: the feature columns' input
layer, `hiddenlayer_<i>` dense layers (Glorot-uniform kernels, zero biases),
optional dropout and batch normalization, and a `logits` layer, all under
`dnn/`, so a `model_dir` written by tensorflow-estimator's DNN estimators
restores, evaluates, predicts and trains on here.
"""

from __future__ import annotations

import keras
import tensorflow as tf

from tfestimator_compat.canned import feature_layers
from tfestimator_compat.canned import optimizers
from tfestimator_compat.canned.heads import classification_head
from tfestimator_compat.canned.heads import regression_head
from tfestimator_compat.canned.summaries import add_layer_summary
from tfestimator_compat.estimator import Estimator
from tfestimator_compat.head import head_utils
from tfestimator_compat.head import v1_heads
from tfestimator_compat.mode_keys import ModeKeys

_BATCH_NORM_MOMENTUM = 0.999
_BATCH_NORM_EPSILON = 1e-3


def dnn_logits(
    features,
    mode,
    units,
    hidden_units,
    feature_columns,
    activation_fn=tf.nn.relu,
    dropout=None,
    batch_norm=False,
    input_layer_partitioner=None,
    partitioner=None,
):
    """Builds the network under the variable scope `dnn`.

    `partitioner` partitions the network's variables and
    `input_layer_partitioner` the feature columns' (the V1 classes' defaults
    on parameter servers, see `canned.v1`).

    Returns:
        `(logits, trainable_variables, update_ops)`: the update ops keep the
        batch normalization statistics when training.
    """
    with tf.compat.v1.variable_scope("dnn", partitioner=partitioner) as scope:
        logits, update_ops = dnn_network(
            features,
            mode,
            units,
            hidden_units,
            feature_columns,
            activation_fn,
            dropout,
            batch_norm,
            input_layer_partitioner,
        )
    variables = tf.compat.v1.get_collection(
        tf.compat.v1.GraphKeys.TRAINABLE_VARIABLES, scope=scope.name + "/"
    )
    return logits, variables, update_ops


def dnn_network(
    features,
    mode,
    units,
    hidden_units,
    feature_columns,
    activation_fn,
    dropout,
    batch_norm,
    input_layer_partitioner=None,
):
    """The network of `dnn_logits`, built in the current variable scope.

    Returns:
        `(logits, update_ops)`.
    """
    if not isinstance(units, int):
        raise ValueError(f"units must be an int. Given type: {type(units)}")
    training = mode == ModeKeys.TRAIN
    activation = keras.activations.get(activation_fn)
    update_ops = []
    net = feature_layers.dense_input(features, feature_columns, partitioner=input_layer_partitioner)
    for index, width in enumerate(hidden_units):
        layer_name = f"hiddenlayer_{index}"
        with tf.compat.v1.variable_scope(layer_name):
            net = _dense(net, width, activation)
            if dropout is not None and training:
                net = tf.nn.dropout(net, rate=dropout)
            if batch_norm:
                net = _batch_normalization(net, f"batchnorm_{index}", training, update_ops)
        if training:
            add_layer_summary(net, layer_name, "dnn")
    with tf.compat.v1.variable_scope("logits"):
        logits = _dense(net, units, None)
    if training:
        add_layer_summary(logits, "logits", "dnn")
    return logits, update_ops


def _dense(inputs, units, activation):
    kernel = tf.compat.v1.get_variable(
        "kernel",
        [inputs.shape[-1], units],
        initializer=tf.compat.v1.glorot_uniform_initializer(),
    )
    bias = tf.compat.v1.get_variable("bias", [units], initializer=tf.compat.v1.zeros_initializer())
    outputs = tf.nn.bias_add(tf.matmul(inputs, kernel), bias)
    return activation(outputs) if activation is not None else outputs


def _batch_normalization(inputs, name, training, update_ops):
    """Keras 2's `BatchNormalization(momentum=0.999)` on `[batch, units]` inputs."""
    units = inputs.shape[-1]
    with tf.compat.v1.variable_scope(name):
        gamma = tf.compat.v1.get_variable(
            "gamma", [units], initializer=tf.compat.v1.ones_initializer()
        )
        beta = tf.compat.v1.get_variable(
            "beta", [units], initializer=tf.compat.v1.zeros_initializer()
        )
        moving_mean = tf.compat.v1.get_variable(
            "moving_mean", [units], initializer=tf.compat.v1.zeros_initializer(), trainable=False
        )
        moving_variance = tf.compat.v1.get_variable(
            "moving_variance", [units], initializer=tf.compat.v1.ones_initializer(), trainable=False
        )
        if training:
            mean, variance = tf.nn.moments(inputs, axes=[0])
            decay = 1.0 - _BATCH_NORM_MOMENTUM
            update_ops.append(moving_mean.assign_sub((moving_mean - mean) * decay).op)
            update_ops.append(moving_variance.assign_sub((moving_variance - variance) * decay).op)
        else:
            mean, variance = moving_mean, moving_variance
        return tf.nn.batch_normalization(inputs, mean, variance, beta, gamma, _BATCH_NORM_EPSILON)


def dnn_model_fn(
    features,
    labels,
    mode,
    head,
    hidden_units,
    feature_columns,
    optimizer="Adagrad",
    activation_fn=tf.nn.relu,
    dropout=None,
    batch_norm=False,
    input_layer_partitioner=None,
    partitioner=None,
    head_name_scope=None,
):
    """The `model_fn` of the DNN estimators: `head` on the network's logits.

    `head_name_scope`: the name scope the head builds in (`dnn` in the
    `tf.compat.v1.estimator` classes, see `v1_heads.model_name_scope`).
    """
    feature_layers.validate_features(features)
    logits, variables, update_ops = dnn_logits(
        features,
        mode,
        head.logits_dimension,
        hidden_units,
        feature_columns,
        activation_fn=activation_fn,
        dropout=dropout,
        batch_norm=batch_norm,
        input_layer_partitioner=input_layer_partitioner,
        partitioner=partitioner,
    )
    if mode == ModeKeys.TRAIN:
        optimizer = optimizers.get_optimizer(optimizer)
    else:
        optimizer = None
    with v1_heads.model_name_scope(head_name_scope):
        return head.create_estimator_spec(
            features,
            mode,
            logits,
            labels=labels,
            optimizer=optimizer,
            trainable_variables=variables,
            update_ops=update_ops,
        )


class DNNEstimator(Estimator):
    """A feed-forward network on feature columns, with any head.

    Args:
        head: a `Head` (e.g. `MultiLabelHead`) defining loss, metrics and predictions.
        hidden_units: widths of the hidden layers, e.g. `[64, 32]`.
        feature_columns: the model's inputs, v2 (or v1) feature columns.
        model_dir: where checkpoints and summaries go.
        optimizer: 'Adagrad' (default), 'Adam', 'Ftrl', 'RMSProp' or 'SGD' with
            Keras 2's default learning rate, a Keras optimizer, a
            `tf.compat.v1.train` optimizer, or a callable returning one.
        activation_fn: activation of the hidden layers.
        dropout: probability of dropping a hidden unit while training.
        config: a `RunConfig`.
        warm_start_from: checkpoint or `WarmStartSettings` to start from.
        batch_norm: batch-normalize each hidden layer.
    """

    def __init__(
        self,
        head,
        hidden_units,
        feature_columns,
        model_dir=None,
        optimizer="Adagrad",
        activation_fn=tf.nn.relu,
        dropout=None,
        config=None,
        warm_start_from=None,
        batch_norm=False,
    ):
        feature_columns = feature_layers.validate_feature_columns(feature_columns)

        def _model_fn(features, labels, mode):
            feature_layers.require_v2_columns(feature_columns)
            return dnn_model_fn(
                features,
                labels,
                mode,
                head,
                hidden_units,
                feature_columns,
                optimizer=optimizer,
                activation_fn=activation_fn,
                dropout=dropout,
                batch_norm=batch_norm,
            )

        super().__init__(
            model_fn=_model_fn, model_dir=model_dir, config=config, warm_start_from=warm_start_from
        )


class DNNClassifier(DNNEstimator):
    """A feed-forward network classifier on feature columns.

    Args:
        hidden_units: widths of the hidden layers, e.g. `[64, 32]`.
        feature_columns: the model's inputs.
        model_dir: where checkpoints and summaries go.
        n_classes: number of classes (2: binary, with a single logit).
        weight_column: name or `numeric_column` of the example weights.
        label_vocabulary: class names, when labels are strings.
        optimizer: see `DNNEstimator`.
        activation_fn: activation of the hidden layers.
        dropout: probability of dropping a hidden unit while training.
        config: a `RunConfig`.
        warm_start_from: checkpoint or `WarmStartSettings` to start from.
        loss_reduction: `tf.losses.Reduction` `SUM_OVER_BATCH_SIZE` or `SUM`.
        batch_norm: batch-normalize each hidden layer.

    Example:

    ```python
    classifier = tf.estimator.DNNClassifier(
        hidden_units=[32, 16],
        feature_columns=[tf.feature_column.numeric_column("x", shape=(4,))],
        n_classes=3)
    classifier.train(train_input_fn, steps=1000)
    metrics = classifier.evaluate(eval_input_fn)  # accuracy, average_loss, loss
    ```
    """

    def __init__(
        self,
        hidden_units,
        feature_columns,
        model_dir=None,
        n_classes=2,
        weight_column=None,
        label_vocabulary=None,
        optimizer="Adagrad",
        activation_fn=tf.nn.relu,
        dropout=None,
        config=None,
        warm_start_from=None,
        loss_reduction=head_utils.SUM_OVER_BATCH_SIZE,
        batch_norm=False,
    ):
        super().__init__(
            classification_head(n_classes, weight_column, label_vocabulary, loss_reduction),
            hidden_units,
            feature_columns,
            model_dir=model_dir,
            optimizer=optimizer,
            activation_fn=activation_fn,
            dropout=dropout,
            config=config,
            warm_start_from=warm_start_from,
            batch_norm=batch_norm,
        )


class DNNRegressor(DNNEstimator):
    """A feed-forward network regressor on feature columns.

    Args:
        hidden_units: widths of the hidden layers.
        feature_columns: the model's inputs.
        model_dir: where checkpoints and summaries go.
        label_dimension: number of regression targets per example.
        weight_column: name or `numeric_column` of the example weights.
        optimizer: see `DNNEstimator`.
        activation_fn: activation of the hidden layers.
        dropout: probability of dropping a hidden unit while training.
        config: a `RunConfig`.
        warm_start_from: checkpoint or `WarmStartSettings` to start from.
        loss_reduction: `tf.losses.Reduction` `SUM_OVER_BATCH_SIZE` or `SUM`.
        batch_norm: batch-normalize each hidden layer.
    """

    def __init__(
        self,
        hidden_units,
        feature_columns,
        model_dir=None,
        label_dimension=1,
        weight_column=None,
        optimizer="Adagrad",
        activation_fn=tf.nn.relu,
        dropout=None,
        config=None,
        warm_start_from=None,
        loss_reduction=head_utils.SUM_OVER_BATCH_SIZE,
        batch_norm=False,
    ):
        super().__init__(
            regression_head(label_dimension, weight_column, loss_reduction),
            hidden_units,
            feature_columns,
            model_dir=model_dir,
            optimizer=optimizer,
            activation_fn=activation_fn,
            dropout=dropout,
            config=config,
            warm_start_from=warm_start_from,
            batch_norm=batch_norm,
        )
