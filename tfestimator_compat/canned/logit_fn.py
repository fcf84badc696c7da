"""Logit functions: the canned networks as pieces of a custom `model_fn`.

`dnn_logit_fn_builder` and `linear_logit_fn_builder` (the original's V1
`tf.compat.v1.estimator.experimental` names) return a `logit_fn` that builds
the DNN or linear model of the canned estimators in the caller's variable
scope, with their variable names (`hiddenlayer_0/kernel`, `logits/bias`,
`linear_model/x/weights`), so a model_fn that combined them in 2.15 restores
its checkpoints. `call_logit_fn` calls a `logit_fn` with the arguments it
names, as the Estimator calls a `model_fn`.
"""

from __future__ import annotations

import tensorflow as tf

from tfestimator_compat.canned import feature_layers
from tfestimator_compat.canned.dnn import dnn_network
from tfestimator_compat.canned.linear import summarize_linear_model
from tfestimator_compat.engine.tracing.fn_args import fn_args

__all__ = ["call_logit_fn", "dnn_logit_fn_builder", "linear_logit_fn_builder"]


def call_logit_fn(logit_fn, features, mode, params, config):
    """Calls `logit_fn(features, ...)` with those of `mode`, `params` and `config` it takes.

    Returns:
        The logits: a Tensor, or a dict of string to Tensor.

    Raises:
        ValueError: when `logit_fn` returns anything else.
    """
    names = fn_args(logit_fn)
    given = {"mode": mode, "params": params, "config": config}
    logits = logit_fn(features=features, **{k: v for k, v in given.items() if k in names})
    if isinstance(logits, tf.Tensor):
        return logits
    if isinstance(logits, dict) and all(
        isinstance(key, str) and isinstance(value, tf.Tensor) for key, value in logits.items()
    ):
        return logits
    raise ValueError(
        "logit_fn should return a Tensor or a dictionary mapping strings to Tensors; "
        f"it returned: {logits!r}"
    )


def dnn_logit_fn_builder(
    units,
    hidden_units,
    feature_columns,
    activation_fn,
    dropout,
    input_layer_partitioner,
    batch_norm,
):
    """A `logit_fn(features, mode)` of the DNN estimators' network.

    `input_layer_partitioner` split the input layer's variables over parameter
    servers; on one machine there is one part, which is what is built.
    Batch normalization's moving-average updates go to the `UPDATE_OPS`
    collection, for the model_fn to run with its train op.

    Raises:
        ValueError: when `units` is not an int.
    """
    if not isinstance(units, int):
        raise ValueError(f"units must be an int. Given type: {type(units)}")
    if input_layer_partitioner is not None and not callable(input_layer_partitioner):
        raise ValueError(
            f"input_layer_partitioner must be a partitioner (a callable). Given: "
            f"{input_layer_partitioner}"
        )

    def dnn_logit_fn(features, mode):
        logits, update_ops = dnn_network(
            features, mode, units, hidden_units, feature_columns, activation_fn, dropout, batch_norm
        )
        for update in update_ops:
            tf.compat.v1.add_to_collection(tf.compat.v1.GraphKeys.UPDATE_OPS, update)
        return logits

    return dnn_logit_fn


def linear_logit_fn_builder(units, feature_columns, sparse_combiner="sum"):
    """A `logit_fn(features)` of the linear estimators' model (`linear_model/...`)."""

    def linear_logit_fn(features):
        scope = tf.compat.v1.get_variable_scope().name
        logits = feature_layers.linear_logits(features, feature_columns, units, sparse_combiner)
        variables = tf.compat.v1.get_collection(
            tf.compat.v1.GraphKeys.TRAINABLE_VARIABLES,
            scope=f"{scope}/linear_model/" if scope else "linear_model/",
        )
        # The original's logit_fn knew no mode and summarized in every one.
        summarize_linear_model(variables, units)
        return logits

    return linear_logit_fn
