"""The `tf.compat.v1.estimator` canned estimators: TF1's defaults on the same models.

`tf.compat.v1.estimator.DNNClassifier` and the other V1 classes build the same
networks and variables as their `tf.estimator` (V2) namesakes, but train and
report as TF 1.x did:
- the loss is reduced with `tf.compat.v1.losses.Reduction.SUM` by default, so
  `loss` is per batch and `average_loss` per example;
- they train with `tf.compat.v1.train` optimizers, and a name gets TF1's
  learning rate: DNN Adagrad at 0.05, linear FTRL at 0.2 (at
  `min(0.2, 1 / sqrt(number of columns))` when `optimizer=None`), baseline
  FTRL at 0.3, and in the combined models FTRL at
  `min(0.005, 1 / sqrt(number of linear columns))` and Adagrad at 0.001;
- optimizer slots are saved under TF1's names (`dnn/logits/kernel/t_0/Adagrad`,
  `linear/linear_model/x/weights/part_0/Ftrl`), see `v1_variables`.
They are what `tf.compat.v1.estimator.*` holds, and `tf.estimator.*` for a
program run with `tfestimator-compat run --tf1`.
"""

from __future__ import annotations

import functools
import math

import tensorflow as tf

from tfestimator_compat.canned import feature_layers
from tfestimator_compat.canned import optimizers
from tfestimator_compat.canned import summaries
from tfestimator_compat.canned import v1_partitioners
from tfestimator_compat.canned import v1_variables
from tfestimator_compat.canned.baseline import LEARNING_RATE as _BASELINE_LEARNING_RATE
from tfestimator_compat.canned.baseline import baseline_model_fn
from tfestimator_compat.canned.dnn import dnn_model_fn
from tfestimator_compat.canned.dnn_linear_combined import DNN_LEARNING_RATE as _COMBINED_DNN_RATE
from tfestimator_compat.canned.dnn_linear_combined import dnn_linear_combined_model_fn
from tfestimator_compat.canned.dnn_linear_combined import linear_learning_rate
from tfestimator_compat.canned.linear import LEARNING_RATE as _LINEAR_LEARNING_RATE
from tfestimator_compat.canned.linear import linear_model_fn
from tfestimator_compat.canned.linear_sdca import LinearSDCA
from tfestimator_compat.canned.linear_sdca import check_classifier
from tfestimator_compat.canned.linear_sdca import check_regressor
from tfestimator_compat.estimator import Estimator
from tfestimator_compat.head import v1_heads
from tfestimator_compat.mode_keys import ModeKeys

_DNN_LEARNING_RATE = 0.05
SUM = v1_heads.SUM

__all__ = [
    "BaselineClassifier",
    "BaselineEstimator",
    "BaselineRegressor",
    "DNNClassifier",
    "DNNEstimator",
    "DNNLinearCombinedClassifier",
    "DNNLinearCombinedEstimator",
    "DNNLinearCombinedRegressor",
    "DNNRegressor",
    "LinearClassifier",
    "LinearEstimator",
    "LinearRegressor",
]


def _tf1_optimizer(optimizer, learning_rate):
    """Resolved when the model_fn trains, as TF1 resolved it, into a TF1 optimizer."""
    return functools.partial(optimizers.get_v1_optimizer, optimizer, learning_rate)


def _v1_model_fn(model_fn, head_scope, slot_part=None, partitioners=None):
    """`model_fn` whose optimizer variables and summaries get the original V1 names.

    `partitioners(num_ps_replicas)` gives the partitioner arguments of
    `model_fn` for the Estimator's `RunConfig`.
    """

    def v1_model_fn(features, labels, mode, config):
        kwargs = partitioners(v1_partitioners.num_ps_replicas(config)) if partitioners else {}
        if mode != ModeKeys.TRAIN:
            return model_fn(features, labels, mode, **kwargs)
        with v1_variables.tf1_optimizer_names(head_scope, slot_part), summaries.tf1_tags():
            return model_fn(features, labels, mode, **kwargs)

    return v1_model_fn


class DNNEstimator(Estimator):
    """A feed-forward network with any head, trained as `tf.compat.v1.estimator` did.

    Args are those of `tf.estimator.DNNEstimator`, except:
        optimizer: 'Adagrad' (default, at 0.05), 'Adam', 'Ftrl', 'RMSProp' or
            'SGD' at learning rate 0.05, a `tf.compat.v1.train.Optimizer`, or a
            callable returning one.
        input_layer_partitioner: partitions the feature columns' variables
            (e.g. `tf.compat.v1.fixed_size_partitioner(4)`); they are saved
            whole, in slices, as the original saved them. As in the original,
            with ps tasks in `TF_CONFIG` the model's variables are split over
            them by default (`v1_partitioners`).
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
        input_layer_partitioner=None,
        config=None,
        warm_start_from=None,
        batch_norm=False,
    ):
        feature_columns = feature_layers.validate_feature_columns(feature_columns)
        model_fn = functools.partial(
            dnn_model_fn,
            head=head,
            hidden_units=hidden_units,
            feature_columns=feature_columns,
            optimizer=_tf1_optimizer(optimizer, _DNN_LEARNING_RATE),
            activation_fn=activation_fn,
            dropout=dropout,
            batch_norm=batch_norm,
            head_name_scope="dnn",
        )
        super().__init__(
            model_fn=_v1_model_fn(
                model_fn,
                "dnn/head",
                v1_variables.KERAS_LAYER_PART,
                v1_partitioners.dnn(input_layer_partitioner),
            ),
            model_dir=model_dir,
            config=config,
            warm_start_from=warm_start_from,
        )


class DNNClassifier(DNNEstimator):
    """A feed-forward network classifier, as `tf.compat.v1.estimator.DNNClassifier`.

    Args are those of `tf.estimator.DNNClassifier`, with `optimizer` and
    `input_layer_partitioner` as in `DNNEstimator` (V1) and `loss_reduction`
    a `tf.compat.v1.losses.Reduction`, by default `SUM`.

    Example:

    ```python
    classifier = tf.compat.v1.estimator.DNNClassifier(
        hidden_units=[10, 10],
        feature_columns=[tf.feature_column.numeric_column("x", shape=(4,))],
        n_classes=3)
    classifier.train(train_input_fn, steps=2000)  # Adagrad at 0.05
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
        input_layer_partitioner=None,
        config=None,
        warm_start_from=None,
        loss_reduction=SUM,
        batch_norm=False,
    ):
        super().__init__(
            v1_heads.classification_head(
                n_classes, weight_column, label_vocabulary, loss_reduction
            ),
            hidden_units,
            feature_columns,
            model_dir=model_dir,
            optimizer=optimizer,
            activation_fn=activation_fn,
            dropout=dropout,
            input_layer_partitioner=input_layer_partitioner,
            config=config,
            warm_start_from=warm_start_from,
            batch_norm=batch_norm,
        )


class DNNRegressor(DNNEstimator):
    """A feed-forward network regressor, as `tf.compat.v1.estimator.DNNRegressor`.

    Args are those of `tf.estimator.DNNRegressor`, with `optimizer` and
    `input_layer_partitioner` as in `DNNEstimator` (V1) and `loss_reduction`
    a `tf.compat.v1.losses.Reduction`, by default `SUM`.
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
        input_layer_partitioner=None,
        config=None,
        warm_start_from=None,
        loss_reduction=SUM,
        batch_norm=False,
    ):
        super().__init__(
            v1_heads.regression_head(label_dimension, weight_column, loss_reduction),
            hidden_units,
            feature_columns,
            model_dir=model_dir,
            optimizer=optimizer,
            activation_fn=activation_fn,
            dropout=dropout,
            input_layer_partitioner=input_layer_partitioner,
            config=config,
            warm_start_from=warm_start_from,
            batch_norm=batch_norm,
        )


class LinearEstimator(Estimator):
    """A linear model with any head, trained as `tf.compat.v1.estimator` did.

    Args are those of `tf.estimator.LinearEstimator`, except:
        optimizer: 'Ftrl' (default), 'Adagrad', 'Adam', 'RMSProp' or 'SGD' at
            learning rate 0.2, a `tf.compat.v1.train.Optimizer`, or a callable
            returning one. None: FTRL at `min(0.2, 1 / sqrt(len(feature_columns)))`.
            A `tf.estimator.experimental.LinearSDCA` trains by SDCA.
        partitioner: partitions the model's variables (e.g.
            `tf.compat.v1.fixed_size_partitioner(4)`); they are saved whole,
            in slices, as the original saved them. As in the original, with
            ps tasks in `TF_CONFIG` the model's variables are split over them
            by default (`v1_partitioners`).
    """

    def __init__(
        self,
        head,
        feature_columns,
        model_dir=None,
        optimizer="Ftrl",
        config=None,
        partitioner=None,
        sparse_combiner="sum",
        warm_start_from=None,
    ):
        feature_columns = feature_layers.validate_feature_columns(feature_columns)
        if isinstance(optimizer, LinearSDCA):
            resolved = optimizer
        elif optimizer:
            resolved = _tf1_optimizer(optimizer, _LINEAR_LEARNING_RATE)
        else:
            learning_rate = min(_LINEAR_LEARNING_RATE, 1.0 / math.sqrt(len(feature_columns)))
            resolved = _tf1_optimizer("Ftrl", learning_rate)
        model_fn = functools.partial(
            linear_model_fn,
            head=head,
            feature_columns=feature_columns,
            optimizer=resolved,
            sparse_combiner=sparse_combiner,
            tf1=True,
        )
        super().__init__(
            model_fn=_v1_model_fn(
                model_fn,
                "linear/head",
                v1_variables.VARIABLE_SCOPE_PART,
                v1_partitioners.linear(partitioner),
            ),
            model_dir=model_dir,
            config=config,
            warm_start_from=warm_start_from,
        )


class LinearClassifier(LinearEstimator):
    """A linear classifier, as `tf.compat.v1.estimator.LinearClassifier`.

    Args are those of `tf.estimator.LinearClassifier`, with `optimizer` and
    `partitioner` as in `LinearEstimator` (V1) and `loss_reduction` a
    `tf.compat.v1.losses.Reduction`, by default `SUM`.
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
        partitioner=None,
        warm_start_from=None,
        loss_reduction=SUM,
        sparse_combiner="sum",
    ):
        check_classifier(feature_columns, n_classes, optimizer, sparse_combiner)
        super().__init__(
            v1_heads.classification_head(
                n_classes, weight_column, label_vocabulary, loss_reduction
            ),
            feature_columns,
            model_dir=model_dir,
            optimizer=optimizer,
            config=config,
            partitioner=partitioner,
            sparse_combiner=sparse_combiner,
            warm_start_from=warm_start_from,
        )


class LinearRegressor(LinearEstimator):
    """A linear regressor, as `tf.compat.v1.estimator.LinearRegressor`.

    Args are those of `tf.estimator.LinearRegressor`, with `optimizer` and
    `partitioner` as in `LinearEstimator` (V1) and `loss_reduction` a
    `tf.compat.v1.losses.Reduction`, by default `SUM`.
    """

    def __init__(
        self,
        feature_columns,
        model_dir=None,
        label_dimension=1,
        weight_column=None,
        optimizer="Ftrl",
        config=None,
        partitioner=None,
        warm_start_from=None,
        loss_reduction=SUM,
        sparse_combiner="sum",
    ):
        check_regressor(feature_columns, label_dimension, optimizer, sparse_combiner)
        super().__init__(
            v1_heads.regression_head(label_dimension, weight_column, loss_reduction),
            feature_columns,
            model_dir=model_dir,
            optimizer=optimizer,
            config=config,
            partitioner=partitioner,
            sparse_combiner=sparse_combiner,
            warm_start_from=warm_start_from,
        )


class DNNLinearCombinedEstimator(Estimator):
    """Wide & deep with any head, trained as `tf.compat.v1.estimator` did.

    Args are those of `tf.estimator.DNNLinearCombinedEstimator`, except that
    the optimizers are TF1's: names get FTRL's learning rate
    `min(0.005, 1 / sqrt(len(linear_feature_columns)))` and the DNN's 0.001,
    and `input_layer_partitioner` partitions the variables of the feature
    columns in both parts, saved whole, in slices, as the original saved them;
    with ps tasks in `TF_CONFIG` the variables are split over them by default,
    as in the original (`v1_partitioners`).
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
        input_layer_partitioner=None,
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
        linear_rate = linear_learning_rate(max(1, len(linear_feature_columns)))
        model_fn = functools.partial(
            dnn_linear_combined_model_fn,
            head=head,
            linear_feature_columns=linear_feature_columns,
            linear_optimizer=_tf1_optimizer(linear_optimizer, linear_rate),
            dnn_feature_columns=dnn_feature_columns,
            dnn_optimizer=_tf1_optimizer(dnn_optimizer, _COMBINED_DNN_RATE),
            dnn_hidden_units=dnn_hidden_units,
            dnn_activation_fn=dnn_activation_fn,
            dnn_dropout=dnn_dropout,
            batch_norm=batch_norm,
            linear_sparse_combiner=linear_sparse_combiner,
        )
        super().__init__(
            model_fn=_v1_model_fn(
                model_fn, "head", partitioners=v1_partitioners.combined(input_layer_partitioner)
            ),
            model_dir=model_dir,
            config=config,
            warm_start_from=warm_start_from,
        )


class DNNLinearCombinedClassifier(DNNLinearCombinedEstimator):
    """Wide & deep classifier, as `tf.compat.v1.estimator.DNNLinearCombinedClassifier`.

    Args are those of `tf.estimator.DNNLinearCombinedClassifier`, with the
    optimizers of `DNNLinearCombinedEstimator` (V1) and `loss_reduction` a
    `tf.compat.v1.losses.Reduction`, by default `SUM`.
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
        input_layer_partitioner=None,
        config=None,
        warm_start_from=None,
        loss_reduction=SUM,
        batch_norm=False,
        linear_sparse_combiner="sum",
    ):
        super().__init__(
            v1_heads.classification_head(
                n_classes, weight_column, label_vocabulary, loss_reduction
            ),
            model_dir=model_dir,
            linear_feature_columns=linear_feature_columns,
            linear_optimizer=linear_optimizer,
            dnn_feature_columns=dnn_feature_columns,
            dnn_optimizer=dnn_optimizer,
            dnn_hidden_units=dnn_hidden_units,
            dnn_activation_fn=dnn_activation_fn,
            dnn_dropout=dnn_dropout,
            input_layer_partitioner=input_layer_partitioner,
            config=config,
            batch_norm=batch_norm,
            linear_sparse_combiner=linear_sparse_combiner,
            warm_start_from=warm_start_from,
        )


class DNNLinearCombinedRegressor(DNNLinearCombinedEstimator):
    """Wide & deep regressor, as `tf.compat.v1.estimator.DNNLinearCombinedRegressor`.

    Args are those of `tf.estimator.DNNLinearCombinedRegressor`, with the
    optimizers of `DNNLinearCombinedEstimator` (V1) and `loss_reduction` a
    `tf.compat.v1.losses.Reduction`, by default `SUM`.
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
        input_layer_partitioner=None,
        config=None,
        warm_start_from=None,
        loss_reduction=SUM,
        batch_norm=False,
        linear_sparse_combiner="sum",
    ):
        super().__init__(
            v1_heads.regression_head(label_dimension, weight_column, loss_reduction),
            model_dir=model_dir,
            linear_feature_columns=linear_feature_columns,
            linear_optimizer=linear_optimizer,
            dnn_feature_columns=dnn_feature_columns,
            dnn_optimizer=dnn_optimizer,
            dnn_hidden_units=dnn_hidden_units,
            dnn_activation_fn=dnn_activation_fn,
            dnn_dropout=dnn_dropout,
            input_layer_partitioner=input_layer_partitioner,
            config=config,
            batch_norm=batch_norm,
            linear_sparse_combiner=linear_sparse_combiner,
            warm_start_from=warm_start_from,
        )


class BaselineEstimator(Estimator):
    """A baseline with any head, trained as `tf.compat.v1.estimator` did.

    Args are those of `tf.estimator.BaselineEstimator`; `optimizer` is
    'Ftrl' (default), 'Adagrad', 'Adam', 'RMSProp' or 'SGD' at learning rate
    0.3, a `tf.compat.v1.train.Optimizer`, or a callable returning one.
    """

    def __init__(self, head, model_dir=None, optimizer="Ftrl", config=None):
        self._init_baseline(head, model_dir, optimizer, config, weight_column=None)

    def _init_baseline(self, head, model_dir, optimizer, config, weight_column):
        """`weight_column` names the example weights, which the batch size is not read from."""
        model_fn = functools.partial(
            baseline_model_fn,
            head=head,
            optimizer=_tf1_optimizer(optimizer, _BASELINE_LEARNING_RATE),
            weight_column=weight_column,
        )
        Estimator.__init__(
            self, model_fn=_v1_model_fn(model_fn, "head"), model_dir=model_dir, config=config
        )


class BaselineClassifier(BaselineEstimator):
    """The class prior, as `tf.compat.v1.estimator.BaselineClassifier`.

    Args are those of `tf.estimator.BaselineClassifier`, with `optimizer` as
    in `BaselineEstimator` (V1) and `loss_reduction` a
    `tf.compat.v1.losses.Reduction`, by default `SUM`.
    """

    def __init__(
        self,
        model_dir=None,
        n_classes=2,
        weight_column=None,
        label_vocabulary=None,
        optimizer="Ftrl",
        config=None,
        loss_reduction=SUM,
    ):
        self._init_baseline(
            v1_heads.classification_head(
                n_classes, weight_column, label_vocabulary, loss_reduction
            ),
            model_dir,
            optimizer,
            config,
            weight_column,
        )


class BaselineRegressor(BaselineEstimator):
    """The mean label, as `tf.compat.v1.estimator.BaselineRegressor`.

    Args are those of `tf.estimator.BaselineRegressor`, with `optimizer` as
    in `BaselineEstimator` (V1) and `loss_reduction` a
    `tf.compat.v1.losses.Reduction`, by default `SUM`.
    """

    def __init__(
        self,
        model_dir=None,
        label_dimension=1,
        weight_column=None,
        optimizer="Ftrl",
        config=None,
        loss_reduction=SUM,
    ):
        self._init_baseline(
            v1_heads.regression_head(label_dimension, weight_column, loss_reduction),
            model_dir,
            optimizer,
            config,
            weight_column,
        )
