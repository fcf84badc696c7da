"""`tf.estimator.experimental.LinearSDCA`: the linear estimators trained by SDCA.

Passed as the `optimizer` of `LinearClassifier` (binary) or `LinearRegressor`
(one label), V2 or V1, or of a `LinearEstimator` with a binary or regression
head, it trains the linear model by stochastic dual coordinate ascent
(`sdca_solver`) instead of gradient steps: logistic loss for a classifier,
squared loss for a regressor, whatever the head's loss reduction. Evaluation,
prediction and export are those of the linear model.

Example:

```python
sdca = tf.estimator.experimental.LinearSDCA(
    example_id_column="example_id", symmetric_l2_regularization=2.0)
classifier = tf.estimator.LinearClassifier(
    feature_columns=[age, tf.feature_column.categorical_column_with_hash_bucket("city", 100)],
    optimizer=sdca)
classifier.train(input_fn, steps=50)  # features hold a string "example_id" per example
```
"""

from __future__ import annotations

import contextlib
import re

import tensorflow as tf

from tfestimator_compat.canned import sdca_solver
from tfestimator_compat.engine.internals import tensorflow_internals as tf_internals
from tfestimator_compat.engine.variables import variable_store
from tfestimator_compat.head import BinaryClassHead
from tfestimator_compat.head import RegressionHead
from tfestimator_compat.head import v1_heads
from tfestimator_compat.mode_keys import ModeKeys

GUIDE = "migration_guide/replacements.md#experimental-estimators"
_V1_HEADS = (v1_heads.BinaryClassHeadV1, v1_heads.MultiClassHeadV1, v1_heads.RegressionHeadV1)
_PART = re.compile(r"/part_\d+$")


class LinearSDCA:
    """Stochastic Dual Coordinate Ascent for `LinearClassifier` and `LinearRegressor`.

    Not an optimizer object: give it as the estimator's `optimizer`. It
    needs v2 feature columns, `sparse_combiner="sum"`, binary labels for a
    classifier and one label for a regressor, and a string id per example
    (`example_id_column`), under which the state of each example seen is
    kept and checkpointed.

    Args:
        example_id_column: the feature holding each example's id, a string
            `Tensor` of shape `[batch_size]`.
        num_loss_partitions: how many workers train concurrently (SDCA's
            sigma'); 1 on one machine.
        num_table_shards: shards of the example-state table (None: one),
            typically the number of parameter servers.
        symmetric_l1_regularization: L1 strength, >= 0.
        symmetric_l2_regularization: L2 strength, > 0 and typically > 1.
        adaptive: whether to sample examples adaptively.
    """

    def __init__(
        self,
        example_id_column,
        num_loss_partitions=1,
        num_table_shards=None,
        symmetric_l1_regularization=0.0,
        symmetric_l2_regularization=1.0,
        adaptive=False,
    ):
        self._example_id_column = example_id_column
        self._num_loss_partitions = num_loss_partitions
        self._num_table_shards = num_table_shards
        self._symmetric_l1_regularization = symmetric_l1_regularization
        self._symmetric_l2_regularization = symmetric_l2_regularization
        self._adaptive = adaptive

    def options(self, loss_type):
        return sdca_solver.Options(
            loss_type=loss_type,
            symmetric_l1_regularization=self._symmetric_l1_regularization,
            symmetric_l2_regularization=self._symmetric_l2_regularization,
            num_loss_partitions=self._num_loss_partitions,
            num_table_shards=self._num_table_shards,
            adaptive=self._adaptive,
        )

    @property
    def example_id_column(self):
        return self._example_id_column


def _check_common(feature_columns, optimizer, sparse_combiner):
    if sparse_combiner != "sum":
        raise ValueError('sparse_combiner must be "sum" when optimizer is a LinearSDCA object.')
    if not tf_internals.is_feature_column_v2(feature_columns):
        raise ValueError("V2 feature columns required when optimizer is a LinearSDCA object.")


def check_classifier(feature_columns, n_classes, optimizer, sparse_combiner):
    """What a `LinearClassifier` given a `LinearSDCA` refused when made."""
    if isinstance(optimizer, LinearSDCA):
        _check_common(feature_columns, optimizer, sparse_combiner)
        if n_classes > 2:
            raise ValueError("LinearSDCA cannot be used in a multi-class setting.")


def check_regressor(feature_columns, label_dimension, optimizer, sparse_combiner):
    """What a `LinearRegressor` given a `LinearSDCA` refused when made."""
    if isinstance(optimizer, LinearSDCA):
        _check_common(feature_columns, optimizer, sparse_combiner)
        if label_dimension > 1:
            raise ValueError("LinearSDCA can only be used with one-dimensional label.")


def _loss_type(head):
    # Regression heads with another loss (Poisson, logistic) train on the
    # squared loss, as in the original.
    if isinstance(head, BinaryClassHead):
        return "logistic_loss"
    if isinstance(head, RegressionHead):
        if head.logits_dimension != 1:
            raise AssertionError(
                f"LinearSDCA trains one regression target; the head has {head.logits_dimension}."
            )
        return "squared_loss"
    raise ValueError(f"Unsupported head type: {head}")


def check_model_fn(head, feature_columns, sparse_combiner):
    """What the linear model_fn refused, in any mode, before building the model.

    Returns:
        the loss SDCA minimizes for `head`.
    """
    if sparse_combiner != "sum":
        raise AssertionError('LinearSDCA needs sparse_combiner="sum".')
    if not tf_internals.is_feature_column_v2(feature_columns):
        raise AssertionError("LinearSDCA needs v2 feature columns.")
    loss_type = _loss_type(head)
    if tf.distribute.has_strategy():
        raise ValueError(
            "LinearSDCA does not train under a distribution strategy here (RunConfig "
            f"train_distribute / eval_distribute); remove it. See {GUIDE}."
        )
    return loss_type


def model_scope(head, tf1):
    """The variable scope, within `linear`, of the model: `linear` again for a
    V2 head in a `tf.compat.v1.estimator` class, as the original named its
    model `linear/linear_model` there (`linear_model` for its own V1 heads)."""
    if tf1 and not isinstance(head, _V1_HEADS):
        return tf.compat.v1.variable_scope("linear")
    return contextlib.nullcontext()


def estimator_spec(
    features, labels, mode, head, logits, cols_to_vars, feature_columns, optimizer, loss_type, tf1
):
    """The spec of the linear model (`logits`, its variables in `cols_to_vars`)
    trained by SDCA: its train op takes one SDCA step, then sets the weights
    from the step's results.

    The original set the weights in a hook its chief ran with the train op;
    here no strategy runs SDCA (`check_model_fn`), so the one process is the
    chief, and doing it in the train op lets the traced step be reused and
    run many steps per call.

    `tf1`: a `tf.compat.v1.estimator` class, whose model lived in the variable
    scope `linear`, so the unshrunk copies are named under `linear/` and after
    the weights' parts.
    """
    head_scope = v1_heads.model_name_scope("linear" if tf1 else None)
    if mode != ModeKeys.TRAIN:
        with head_scope:
            return head.create_estimator_spec(features, mode, logits, labels=labels)
    # The bias and fraction_of_zero_weights summaries read the weights too.
    weight_summaries = tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.SUMMARIES)
    step = _sdca_step(
        features,
        labels,
        head,
        feature_columns,
        optimizer.options(loss_type),
        cols_to_vars,
        optimizer.example_id_column,
        tf1,
    )
    minimize = step.minimize(tf.compat.v1.train.get_or_create_global_step())
    train_op = step.update_weights(minimize, reads=[logits, *weight_summaries])
    with head_scope:
        return head.create_estimator_spec(
            features, mode, logits, labels=labels, train_op_fn=lambda _: train_op
        )


class _ColumnState:
    """The state manager columns ask for their variables and tables while SDCA
    reads their values: the linear model's variables, by column and name."""

    def __init__(self, cols_to_vars):
        self._cols_to_vars = cols_to_vars
        self._resources = {}

    def get_variable(self, column, name):
        return _named(self._cols_to_vars[column], name)

    def has_resource(self, column, name):
        return (column, name) in self._resources

    def add_resource(self, column, name, resource):
        self._resources[(column, name)] = resource

    def get_resource(self, column, name):
        return self._resources[(column, name)]


def _store_name(variable):
    return variable_store.tf1_name(variable) or variable.name.split(":")[0].rstrip("/")


def _named(parts, name):
    """The variable (or its parts) among `parts` whose TF1 name ends in `name`."""
    found = [v for v in parts if _PART.sub("", _store_name(v)).rsplit("/", 1)[-1] == name]
    return found[0] if len(found) == 1 else found


def _parts(variable):
    return list(variable) if isinstance(variable, list) else [variable]


def _slot_names(parts_lists, tf1):
    """`<part's TF1 op name>_unshrunk` for every part, under `linear/` for V1,
    where a whole variable stands for the original's single part `part_0`."""
    names = {}
    for parts in parts_lists:
        for part in parts:
            name = _store_name(part)
            if tf1:
                if not _PART.search(name):
                    name += "/part_0"
                name = "linear/" + name
            names[id(part)] = name + "_unshrunk"
    return names


def _sdca_step(features, labels, head, feature_columns, options, cols_to_vars, id_column, tf1):
    batch_size = tf.shape(labels)[0]
    cache = tf_internals.FeatureTransformationCache(features)
    state = _ColumnState(cols_to_vars)
    sparse, sparse_weights, dense, dense_weights = [], [], [], []
    for column in sorted(feature_columns, key=lambda c: c.name):
        if isinstance(column, tf_internals.CategoricalColumn):
            sparse.append(_unique_ids(column.get_sparse_tensors(cache, state)))
            sparse_weights.append(_parts(state.get_variable(column, "weights")))
        elif isinstance(column, tf_internals.DenseColumn):
            if column.variable_shape.ndims != 1:
                raise ValueError(
                    f"Column {type(column).__name__} has rank {column.variable_shape.ndims}, "
                    "larger than 1."
                )
            dense.append(column.get_dense_tensor(cache, state))
            dense_weights.append(_parts(state.get_variable(column, "weights")))
        else:
            raise ValueError(f"LinearSDCA does not support column type {type(column).__name__}.")
    dense.append(tf.ones([batch_size, 1]))
    dense_weights.append(_parts(cols_to_vars["bias"]))
    weight_column = head._weight_column
    if weight_column:
        example_weights = tf.reshape(features[weight_column], [-1])
    else:
        example_weights = tf.ones([batch_size])
    return sdca_solver.SDCAStep(
        sparse_features=sparse,
        sparse_weights=sparse_weights,
        dense_features=dense,
        dense_weights=dense_weights,
        labels=tf.cast(tf.reshape(labels, [-1]), tf.float32),
        example_weights=example_weights,
        example_ids=features[id_column],
        options=options,
        slot_names=_slot_names(sparse_weights + dense_weights, tf1),
    )


def _unique_ids(id_weight_pair):
    """A categorical column's ids per example, without negative (out of
    vocabulary) ids and with each id once per example, its weights summed."""
    ids = id_weight_pair.id_tensor
    if id_weight_pair.weight_tensor is not None:
        weights = id_weight_pair.weight_tensor.values
    else:
        weights = tf.ones([tf.shape(ids.indices)[0]], tf.float32)
    examples = tf.reshape(ids.indices[:, 0], [-1])
    flat_ids = tf.cast(tf.reshape(ids.values, [-1]), tf.int64)
    valid = flat_ids >= 0
    flat_ids = tf.boolean_mask(flat_ids, valid)
    examples = tf.boolean_mask(examples, valid)
    weights = tf.boolean_mask(weights, valid)
    width = tf.reduce_max(flat_ids) + 1
    # One key per (example, id) pair.
    unique, position = tf.unique(width * examples + flat_ids)
    count = tf.shape(unique)[0]
    example_of = tf.math.unsorted_segment_min(examples, position, count)
    return sdca_solver.SparseFeature(
        example_indices=example_of,
        feature_indices=unique - width * example_of,
        feature_values=tf.reshape(tf.math.unsorted_segment_sum(weights, position, count), [-1]),
    )
