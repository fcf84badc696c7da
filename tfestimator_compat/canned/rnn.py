"""`RNNClassifier`, `RNNEstimator`: recurrent networks on sequence feature columns.

`tf.estimator.experimental`'s RNN estimators, with the original's model: the
sequence columns' values side by side (and the context columns' repeated at
every step), a recurrent layer (`units` and `cell_type`, or the cells of
`rnn_cell_fn`) masked past each example's length, and a `logits` dense layer
on its last output (or on every step with `return_sequences`). Variables
keep the original's names (`sequence_features/<column>/embedding_weights`,
`rnn_model/rnn/lstm_cell/kernel`, `rnn_model/logits/kernel`, their
optimizer slots under `training/<optimizer>/`), so a `model_dir` written by
tensorflow-estimator 2.15 evaluates, predicts and trains on here.

By default they train with Keras 2's Adagrad at a learning rate of 0.05,
each gradient clipped to a norm of 5, as the original's did when given an
optimizer name.
"""

from __future__ import annotations

import tensorflow as tf

from tfestimator_compat.canned import feature_layers
from tfestimator_compat.canned import optimizers
from tfestimator_compat.canned import rnn_cells
from tfestimator_compat.canned import sequence_features
from tfestimator_compat.canned.heads import classification_head
from tfestimator_compat.estimator import Estimator
from tfestimator_compat.head import head_utils
from tfestimator_compat.head.sequential_head import SequentialHeadWrapper
from tfestimator_compat.head.sequential_head import _SequentialHead
from tfestimator_compat.mode_keys import ModeKeys

_DEFAULT_LEARNING_RATE = 0.05
_DEFAULT_CLIP_NORM = 5.0
MODEL_SCOPE = "rnn_model"


class _UseDefault:
    """The `cell_type` nobody passed (`'simple_rnn'` then, with `units`)."""

    def __repr__(self):
        return "USE_DEFAULT"


USE_DEFAULT = _UseDefault()


def _verify_rnn_cell_input(rnn_cell_fn, units, cell_type):
    if rnn_cell_fn and (units or cell_type is not USE_DEFAULT):
        raise ValueError("units and cell_type must not be specified when using rnn_cell_fn")


def _rnn_layer(rnn_cell_fn, units, cell_type, return_sequences) -> rnn_cells.RNNLayer:
    if rnn_cell_fn:
        return rnn_cells.layer_from_cell_fn(rnn_cell_fn, return_sequences)
    if cell_type is USE_DEFAULT:
        if isinstance(units, int):
            raise TypeError(
                "units must be an iterable of ints when cell_type is not given (as in the "
                f"original, which iterated over it). Given: {units!r}"
            )
        cell_type = rnn_cells.SIMPLE_RNN
    if units is None:
        raise TypeError("units must be given (an int with a cell_type name, or a list of ints).")
    return rnn_cells.default_layer(units, cell_type, return_sequences)


def rnn_logits(features, mode, layer, units, sequence_feature_columns, context_feature_columns):
    """`(logits, sequence_mask)` of the network: the columns, `layer` and the `logits` layer.

    `logits` is `[batch, units]`, or `[batch, T, units]` with the layer's
    `return_sequences`; `sequence_mask` is `[batch, T]`, true at real steps.
    """
    if not isinstance(units, int):
        raise ValueError(f"units must be an int.  Given type: {type(units)}")
    training = mode == ModeKeys.TRAIN
    inputs, sequence_length = sequence_features.sequence_input(
        features, sequence_feature_columns, context_feature_columns
    )
    with tf.compat.v1.variable_scope(MODEL_SCOPE):
        with tf.name_scope("sequence_input_layer"):
            if training:
                tf.compat.v1.summary.histogram("sequence_length", sequence_length)
        outputs = rnn_cells.run(layer, inputs, sequence_length, training)
        with tf.compat.v1.variable_scope("logits"):
            kernel = tf.compat.v1.get_variable(
                "kernel",
                [layer.output_size, units],
                initializer=tf.compat.v1.glorot_uniform_initializer(),
            )
            bias = tf.compat.v1.get_variable(
                "bias", [units], initializer=tf.compat.v1.zeros_initializer()
            )
            logits = tf.nn.bias_add(tf.tensordot(outputs, kernel, 1), bias)
    mask = tf.sequence_mask(sequence_length, maxlen=tf.shape(inputs)[1])
    return logits, mask


def _optimizer(optimizer):
    if isinstance(optimizer, str):
        optimizer = optimizers.get_optimizer(optimizer, learning_rate=_DEFAULT_LEARNING_RATE)
        optimizer.clipnorm = _DEFAULT_CLIP_NORM
        return optimizer
    return optimizers.get_optimizer(optimizer)


def rnn_model_fn(
    features,
    labels,
    mode,
    head,
    rnn_cell_fn,
    units,
    cell_type,
    sequence_feature_columns,
    context_feature_columns,
    return_sequences,
    optimizer,
):
    """The `model_fn` of the RNN estimators: `head` on the network's logits."""
    feature_layers.validate_features(features)
    # Checked here, when training starts, as the original's Keras layers did.
    sequence_feature_columns = sequence_features.sequence_columns(sequence_feature_columns)
    if context_feature_columns:
        context_feature_columns = sequence_features.context_columns(context_feature_columns)
    layer = _rnn_layer(rnn_cell_fn, units, cell_type, return_sequences)
    graph = tf.compat.v1.get_default_graph()
    before = graph.get_collection(tf.compat.v1.GraphKeys.TRAINABLE_VARIABLES)
    logits, mask = rnn_logits(
        features,
        mode,
        layer,
        head.logits_dimension,
        sequence_feature_columns,
        context_feature_columns,
    )
    known = {id(variable) for variable in before}
    variables = [
        variable
        for variable in graph.get_collection(tf.compat.v1.GraphKeys.TRAINABLE_VARIABLES)
        if id(variable) not in known
    ]
    if return_sequences and head.input_sequence_mask_key not in features:
        features[head.input_sequence_mask_key] = mask
    return head.create_estimator_spec(
        features,
        mode,
        logits,
        labels=labels,
        optimizer=_optimizer(optimizer) if mode == ModeKeys.TRAIN else None,
        trainable_variables=variables,
        update_ops=[],
    )


class RNNEstimator(Estimator):
    """A recurrent network on sequence feature columns, with any head.

    Args:
        head: a `Head`; with `return_sequences`, a sequential head
            (`SequentialHeadWrapper`).
        sequence_feature_columns: the sequence inputs: `sequence_numeric_column`,
            or an `embedding_column` / `indicator_column` of a
            `sequence_categorical_column_with_*`.
        context_feature_columns: dense columns (`numeric_column`, ...) whose
            values are repeated at every step.
        units: units of each recurrent layer: a list (`[32, 16]`), or an int
            with a `cell_type` name for one Keras 2 `LSTM` / `GRU` /
            `SimpleRNN` layer.
        cell_type: 'simple_rnn' (default), 'lstm', 'gru', or a Keras cell class.
        rnn_cell_fn: instead of `units` and `cell_type`, a function of no
            argument returning a Keras `SimpleRNNCell`, `LSTMCell` or
            `GRUCell`, a list of them, or a `StackedRNNCells` of them.
        return_sequences: predict at every step rather than after the last.
        model_dir: where checkpoints and summaries go.
        optimizer: 'Adagrad' (default), 'Adam', 'Ftrl', 'RMSProp' or 'SGD' at a
            learning rate of 0.05 with gradients clipped to norm 5, or a Keras
            optimizer (or callable returning one) used as it is.
        config: a `RunConfig`.

    Example:

    ```python
    tokens = tf.feature_column.embedding_column(
        tf.feature_column.sequence_categorical_column_with_identity("tokens", 1000), 16)
    estimator = tf.estimator.experimental.RNNEstimator(
        head=tf.estimator.RegressionHead(),
        sequence_feature_columns=[tokens],
        units=[32, 16], cell_type="lstm")
    ```
    """

    def __init__(
        self,
        head,
        sequence_feature_columns,
        context_feature_columns=None,
        units=None,
        cell_type=USE_DEFAULT,
        rnn_cell_fn=None,
        return_sequences=False,
        model_dir=None,
        optimizer="Adagrad",
        config=None,
    ):
        if return_sequences and not isinstance(head, _SequentialHead):
            raise ValueError(
                "Provided head must be a `_SequentialHead` object when `return_sequences` is "
                "set to True."
            )
        _verify_rnn_cell_input(rnn_cell_fn, units, cell_type)

        def _model_fn(features, labels, mode, config):
            del config
            return rnn_model_fn(
                features,
                labels,
                mode,
                head,
                rnn_cell_fn,
                units,
                cell_type,
                sequence_feature_columns,
                context_feature_columns,
                return_sequences,
                optimizer,
            )

        super().__init__(model_fn=_model_fn, model_dir=model_dir, config=config)


class RNNClassifier(RNNEstimator):
    """A recurrent network classifier on sequence feature columns.

    Args:
        sequence_feature_columns: see `RNNEstimator`.
        context_feature_columns: see `RNNEstimator`.
        units: see `RNNEstimator`.
        cell_type: see `RNNEstimator`.
        rnn_cell_fn: see `RNNEstimator`.
        return_sequences: classify every step (labels `[batch, T]`); the
            predictions then carry the sequence mask under `sequence_mask`'s
            name, and `weight_column` must be a feature name or None.
        model_dir: where checkpoints and summaries go.
        n_classes: number of classes (2: binary, with a single logit).
        weight_column: name or `numeric_column` of the example weights.
        label_vocabulary: class names, when labels are strings.
        optimizer: see `RNNEstimator`.
        loss_reduction: `tf.losses.Reduction` `SUM_OVER_BATCH_SIZE` or `SUM`.
        sequence_mask: name of the `[batch, T]` mask feature; computed from
            the sequence lengths when the features do not have it.
        config: a `RunConfig`.

    Example:

    ```python
    tokens = tf.feature_column.embedding_column(
        tf.feature_column.sequence_categorical_column_with_identity("tokens", 1000), 16)
    classifier = tf.estimator.experimental.RNNClassifier(
        sequence_feature_columns=[tokens], units=[32], cell_type="lstm")
    classifier.train(train_input_fn, steps=1000)
    classifier.evaluate(eval_input_fn)  # accuracy, auc, loss, ...
    ```
    """

    def __init__(
        self,
        sequence_feature_columns,
        context_feature_columns=None,
        units=None,
        cell_type=USE_DEFAULT,
        rnn_cell_fn=None,
        return_sequences=False,
        model_dir=None,
        n_classes=2,
        weight_column=None,
        label_vocabulary=None,
        optimizer="Adagrad",
        loss_reduction=head_utils.SUM_OVER_BATCH_SIZE,
        sequence_mask="sequence_mask",
        config=None,
    ):
        head = classification_head(n_classes, weight_column, label_vocabulary, loss_reduction)
        if return_sequences:
            tf.compat.v1.logging.info(
                "Converting head to sequential head with `SequentialHeadWrapper` to allow "
                "sequential predictions."
            )
            head = SequentialHeadWrapper(
                head, sequence_length_mask=sequence_mask, feature_columns=weight_column
            )
        super().__init__(
            head=head,
            sequence_feature_columns=sequence_feature_columns,
            context_feature_columns=context_feature_columns,
            units=units,
            cell_type=cell_type,
            rnn_cell_fn=rnn_cell_fn,
            return_sequences=return_sequences,
            model_dir=model_dir,
            optimizer=optimizer,
            config=config,
        )
