"""`LinearClassifier`, `LinearRegressor`, `LinearEstimator`: linear models on feature columns.

Logits are a weighted sum of the columns plus a bias, with the original's
variables (`linear/linear_model/<column>/weights`,
`linear/linear_model/bias_weights`) and, by default, the FTRL optimizer.
"""

from __future__ import annotations

import math

import tensorflow as tf

from tfestimator_compat.canned import feature_layers
from tfestimator_compat.canned import keras2_optimizers
from tfestimator_compat.canned import linear_sdca
from tfestimator_compat.canned import optimizers
from tfestimator_compat.canned.heads import classification_head
from tfestimator_compat.canned.heads import regression_head
from tfestimator_compat.canned.summaries import add_linear_summaries
from tfestimator_compat.engine.variables import partitioned_variables
from tfestimator_compat.estimator import Estimator
from tfestimator_compat.head import head_utils
from tfestimator_compat.head import v1_heads
from tfestimator_compat.mode_keys import ModeKeys

LEARNING_RATE = 0.2


def default_linear_optimizer(feature_columns, max_learning_rate=LEARNING_RATE):
    """FTRL at `min(max_learning_rate, 1 / sqrt(number of columns))`."""
    return keras2_optimizers.Ftrl(
        learning_rate=min(max_learning_rate, 1.0 / math.sqrt(len(feature_columns)))
    )


def linear_logits(
    features,
    feature_columns,
    units,
    sparse_combiner="sum",
    training=False,
    partitioner=None,
    cols_to_vars=None,
):
    """Builds the linear model under the variable scope `linear`, its variables
    partitioned by `partitioner` when one is given (and listed by column in
    `cols_to_vars` when given a dict).

    Returns:
        `(logits, trainable_variables)`.
    """
    with tf.compat.v1.variable_scope("linear", partitioner=partitioner) as scope:
        logits = feature_layers.linear_logits(
            features, feature_columns, units, sparse_combiner, cols_to_vars
        )
    variables = tf.compat.v1.get_collection(
        tf.compat.v1.GraphKeys.TRAINABLE_VARIABLES, scope=scope.name + "/"
    )
    if training:
        summarize_linear_model(variables, units)
    return logits, variables


def summarize_linear_model(variables, units):
    """The bias and `fraction_of_zero_weights` summaries of the linear model's `variables`."""
    bias = [v for v in variables if _saved_name(v).endswith("/bias_weights")]
    weights = [v for v in variables if not any(v is b for b in bias)]
    # A partitioned bias is its parts, in order.
    add_linear_summaries(weights, tf.concat(bias, axis=0) if bias else None, units)


def _saved_name(variable):
    """`linear/linear_model/bias_weights`, also for its part `.../bias_weights/part_0`."""
    return partitioned_variables.checkpoint_name(variable.name.split(":")[0], variable)


def linear_model_fn(
    features,
    labels,
    mode,
    head,
    feature_columns,
    optimizer="Ftrl",
    sparse_combiner="sum",
    partitioner=None,
    tf1=False,
):
    """The `model_fn` of the linear estimators: `head` on the linear logits.

    With a `LinearSDCA` optimizer the model is trained by SDCA (`linear_sdca`);
    `tf1` says a `tf.compat.v1.estimator` class called, whose SDCA variables
    had other names.
    """
    feature_layers.validate_features(features)
    training = mode == ModeKeys.TRAIN
    if isinstance(optimizer, linear_sdca.LinearSDCA):
        loss_type = linear_sdca.check_model_fn(head, feature_columns, sparse_combiner)
        cols_to_vars = {}
        with linear_sdca.model_scope(head, tf1):
            logits, _ = linear_logits(
                features, feature_columns, 1, "sum", training, partitioner, cols_to_vars
            )
        return linear_sdca.estimator_spec(
            features,
            labels,
            mode,
            head,
            logits,
            cols_to_vars,
            feature_columns,
            optimizer,
            loss_type,
            tf1,
        )
    logits, variables = linear_logits(
        features, feature_columns, head.logits_dimension, sparse_combiner, training, partitioner
    )
    if training:
        optimizer = optimizers.get_optimizer(
            optimizer or default_linear_optimizer(feature_columns), learning_rate=LEARNING_RATE
        )
    else:
        optimizer = None
    with v1_heads.model_name_scope("linear" if tf1 else None):
        return head.create_estimator_spec(
            features,
            mode,
            logits,
            labels=labels,
            optimizer=optimizer,
            trainable_variables=variables,
        )


class LinearEstimator(Estimator):
    """A linear model on feature columns, with any head.

    Args:
        head: a `Head` defining loss, metrics and predictions.
        feature_columns: the model's inputs, v2 (or v1) feature columns.
        model_dir: where checkpoints and summaries go.
        optimizer: 'Ftrl' (default), 'Adagrad', 'Adam', 'RMSProp' or 'SGD' at
            learning rate 0.2, a Keras optimizer, a `tf.compat.v1.train`
            optimizer, or a callable returning one. None: FTRL at
            `min(0.2, 1 / sqrt(len(feature_columns)))`. A
            `tf.estimator.experimental.LinearSDCA` trains by SDCA (binary
            and regression heads).
        config: a `RunConfig`.
        sparse_combiner: how multivalent categorical columns are combined:
            'sum' (default), 'mean' or 'sqrtn'.
        warm_start_from: checkpoint or `WarmStartSettings` to start from.
    """

    def __init__(
        self,
        head,
        feature_columns,
        model_dir=None,
        optimizer="Ftrl",
        config=None,
        sparse_combiner="sum",
        warm_start_from=None,
    ):
        feature_columns = feature_layers.validate_feature_columns(feature_columns)

        def _model_fn(features, labels, mode):
            feature_layers.require_v2_columns(feature_columns)
            return linear_model_fn(
                features,
                labels,
                mode,
                head,
                feature_columns,
                optimizer=optimizer,
                sparse_combiner=sparse_combiner,
            )

        super().__init__(
            model_fn=_model_fn, model_dir=model_dir, config=config, warm_start_from=warm_start_from
        )


class LinearClassifier(LinearEstimator):
    """A linear classifier (logistic regression) on feature columns.

    Args:
        feature_columns: the model's inputs.
        model_dir: where checkpoints and summaries go.
        n_classes: number of classes (2: binary, with a single logit).
        weight_column: name or `numeric_column` of the example weights.
        label_vocabulary: class names, when labels are strings.
        optimizer: see `LinearEstimator`.
        config: a `RunConfig`.
        warm_start_from: checkpoint or `WarmStartSettings` to start from.
        loss_reduction: `tf.losses.Reduction` `SUM_OVER_BATCH_SIZE` or `SUM`.
        sparse_combiner: 'sum' (default), 'mean' or 'sqrtn'.

    Example:

    ```python
    color = tf.feature_column.categorical_column_with_vocabulary_list(
        "color", ["red", "green", "blue"])
    classifier = tf.estimator.LinearClassifier(
        feature_columns=[color, tf.feature_column.numeric_column("age")])
    classifier.train(train_input_fn, steps=1000)
    ```
    """

    def __init__(
        self,
        feature_columns,
        model_dir=None,
        n_classes=2,
        weight_column=None,
        label_vocabulary=None,
        optimizer="Ftrl",
        config=None,
        warm_start_from=None,
        loss_reduction=head_utils.SUM_OVER_BATCH_SIZE,
        sparse_combiner="sum",
    ):
        linear_sdca.check_classifier(feature_columns, n_classes, optimizer, sparse_combiner)
        super().__init__(
            classification_head(n_classes, weight_column, label_vocabulary, loss_reduction),
            feature_columns,
            model_dir=model_dir,
            optimizer=optimizer,
            config=config,
            sparse_combiner=sparse_combiner,
            warm_start_from=warm_start_from,
        )


class LinearRegressor(LinearEstimator):
    """A linear regressor on feature columns.

    Args:
        feature_columns: the model's inputs.
        model_dir: where checkpoints and summaries go.
        label_dimension: number of regression targets per example.
        weight_column: name or `numeric_column` of the example weights.
        optimizer: see `LinearEstimator`.
        config: a `RunConfig`.
        warm_start_from: checkpoint or `WarmStartSettings` to start from.
        loss_reduction: `tf.losses.Reduction` `SUM_OVER_BATCH_SIZE` or `SUM`.
        sparse_combiner: 'sum' (default), 'mean' or 'sqrtn'.
    """

    def __init__(
        self,
        feature_columns,
        model_dir=None,
        label_dimension=1,
        weight_column=None,
        optimizer="Ftrl",
        config=None,
        warm_start_from=None,
        loss_reduction=head_utils.SUM_OVER_BATCH_SIZE,
        sparse_combiner="sum",
    ):
        linear_sdca.check_regressor(feature_columns, label_dimension, optimizer, sparse_combiner)
        super().__init__(
            regression_head(label_dimension, weight_column, loss_reduction),
            feature_columns,
            model_dir=model_dir,
            optimizer=optimizer,
            config=config,
            sparse_combiner=sparse_combiner,
            warm_start_from=warm_start_from,
        )
