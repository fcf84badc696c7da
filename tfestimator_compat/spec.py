"""`EstimatorSpec`: what a `model_fn` returns, validated as the original did.

The checks run when the spec is built, inside the graph the adapter traces the
`model_fn` in, so a mistake is reported with the field that caused it before
any step runs.
"""

import collections

import tensorflow as tf

from tfestimator_compat.engine import keras_flavours
from tfestimator_compat.engine.internals import tensorflow_internals as tf_internals
from tfestimator_compat.engine.variables import variable_writes
from tfestimator_compat.hooks import check_hooks
from tfestimator_compat.mode_keys import ModeKeys

_FIELDS = (
    "mode",
    "predictions",
    "loss",
    "train_op",
    "eval_metric_ops",
    "export_outputs",
    "training_chief_hooks",
    "training_hooks",
    "scaffold",
    "evaluation_hooks",
    "prediction_hooks",
)

_OTHER_GRAPH = (
    "{field} must be from the default graph. Possible causes: the value was "
    "created outside the model_fn, or in an earlier call of it. Given: {value}"
)


class EstimatorSpec(collections.namedtuple("EstimatorSpec", _FIELDS)):
    """Ops and objects a `model_fn` returns; they fully define the Estimator.

    In TRAIN mode `loss` and `train_op` are required, in EVAL mode `loss`, and
    in PREDICT mode `predictions`. `eval_metric_ops` maps names to
    `(value, update_op)` pairs, as `tf.compat.v1.metrics.*` return them, or to
    Keras `Metric` objects whose `update_state` the `model_fn` called.

    Example:

    ```python
    def model_fn(features, labels, mode):
        logits = tf.keras.layers.Dense(2)(features["x"])
        if mode == ModeKeys.PREDICT:
            return EstimatorSpec(mode, predictions={"logits": logits})
        loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
        train_op = tf.compat.v1.train.AdamOptimizer().minimize(
            loss, global_step=tf.compat.v1.train.get_global_step())
        return EstimatorSpec(mode, loss=loss, train_op=train_op)
    ```
    """

    def __new__(
        cls,
        mode,
        predictions=None,
        loss=None,
        train_op=None,
        eval_metric_ops=None,
        export_outputs=None,
        training_chief_hooks=None,
        training_hooks=None,
        scaffold=None,
        evaluation_hooks=None,
        prediction_hooks=None,
    ):
        predictions = _validate_predictions(predictions, mode)
        return super().__new__(
            cls,
            mode=mode,
            predictions=predictions,
            loss=_validate_loss(loss, mode),
            train_op=_validate_train_op(train_op, mode),
            eval_metric_ops=_validate_eval_metric_ops(eval_metric_ops),
            export_outputs=(
                tf_internals.get_export_outputs(export_outputs, predictions)
                if mode == ModeKeys.PREDICT
                else export_outputs
            ),
            training_chief_hooks=check_hooks(training_chief_hooks),
            training_hooks=check_hooks(training_hooks),
            scaffold=_validate_scaffold(scaffold),
            evaluation_hooks=check_hooks(evaluation_hooks),
            prediction_hooks=check_hooks(prediction_hooks),
        )

    def _replace(self, **kwargs):
        if "mode" in kwargs and kwargs["mode"] != self.mode:
            raise ValueError("mode of EstimatorSpec cannot be changed.")
        fields = self._asdict()
        fields.update(kwargs)
        return EstimatorSpec(**fields)


def _in_default_graph(value, field):
    if tf.executing_eagerly():
        return
    if value.graph is not tf.compat.v1.get_default_graph():
        raise ValueError(_OTHER_GRAPH.format(field=field, value=value.name))


def _require_tensor(value, field):
    """`value` as a tensor; a variable is read, as a TF1 graph read it where a tensor was due."""
    if isinstance(value, tf.Variable):
        return tf.convert_to_tensor(value)
    if not isinstance(value, tf.Tensor):
        raise TypeError(f"{field} must be Tensor, given: {value}")
    return value


def _update_op(train_op):
    """`v.assign_add(1)` returns a variable in TF2; its op is the update."""
    return train_op.op if isinstance(train_op, tf.Variable) else train_op


def _validate_train_op(train_op, mode):
    if train_op is None:
        if mode == ModeKeys.TRAIN:
            raise ValueError("Missing train_op.")
        return None
    if isinstance(train_op, tf.types.experimental.distributed.Mirrored):
        # Updates of a strategy's variables made outside it (a model_fn that
        # builds its train_op in every mode, in evaluate() after training with
        # train_distribute): one per device; the original's variables were plain.
        train_op = tf.group(*[_update_op(value) for value in train_op.values])
    train_op = _update_op(train_op)
    if not isinstance(train_op, (tf.Tensor, tf.Operation)):
        raise TypeError(f"train_op must be Operation or Tensor, given: {train_op}")
    _in_default_graph(train_op, "train_op")
    return train_op


def _validate_loss(loss, mode):
    if loss is None:
        if mode in (ModeKeys.TRAIN, ModeKeys.EVAL):
            raise ValueError("Missing loss.")
        return None
    loss = _require_tensor(loss, "loss")
    if loss.shape.num_elements() not in (None, 1):
        raise ValueError(f"Loss must be scalar, given: {loss}")
    _in_default_graph(loss, "loss")
    if not loss.shape.is_compatible_with(tf.TensorShape([])):
        loss = tf.reshape(loss, [])
    return loss


def _validate_predictions(predictions, mode):
    if predictions is None:
        if mode == ModeKeys.PREDICT:
            raise ValueError("Missing predictions.")
        return {}
    if isinstance(predictions, dict):
        tensors = {}
        for key, value in predictions.items():
            _predictable(value, mode)
            tensors[key] = _require_tensor(value, f"predictions[{key}]")
            _in_default_graph(tensors[key], f"prediction values ({key})")
        return tensors
    _predictable(predictions, mode)
    predictions = _require_tensor(predictions, "predictions")
    _in_default_graph(predictions, "prediction values")
    return predictions


def _predictable(value, mode):
    """The original's PREDICT specs turned predictions into a `PredictOutput`, which
    refused variables; training and evaluation read them."""
    if mode == ModeKeys.PREDICT and isinstance(value, tf.Variable):
        raise ValueError(
            f"Prediction output value must be a Tensor; got {value}. Return "
            "`tf.identity(variable)` (or `variable.read_value()`) as the prediction."
        )


def _validate_scaffold(scaffold):
    scaffold = scaffold or tf.compat.v1.train.Scaffold()
    if not isinstance(scaffold, tf.compat.v1.train.Scaffold):
        raise TypeError(f"scaffold must be tf.train.Scaffold. Given: {scaffold}")
    return scaffold


class MetricPartTypeError(TypeError, AttributeError):
    """An `eval_metric_ops` value holding something that is no Tensor or Operation.

    A `TypeError`, and an `AttributeError` as the original raised (it asked
    the value for its graph).
    """


def _validate_eval_metric_ops(eval_metric_ops):
    """Checks each entry is a `(value, update_op)` pair or a Keras `Metric`
    that the `model_fn` updated in this graph, whose variables then join the
    graph's local and metric variables, as the original's did."""
    if eval_metric_ops is None:
        return {}
    if not isinstance(eval_metric_ops, dict):
        raise TypeError(f"eval_metric_ops must be a dict, given: {eval_metric_ops}")
    for key, value in eval_metric_ops.items():
        if keras_flavours.is_metric(value):
            _check_updated_here(key, value)
            continue
        if not isinstance(value, tuple) or len(value) != 2:
            raise TypeError(
                "Values of eval_metric_ops must be (metric_value, update_op) "
                f"tuples, given: {value} for key: {key}"
            )
        for part in tf.nest.flatten(value):
            if not isinstance(part, (tf.Tensor, tf.Operation, tf.Variable)):
                raise MetricPartTypeError(
                    f"eval_metric_ops[{key!r}] must hold Tensors or Operations, given: {part}"
                )
            if not isinstance(part, tf.Variable):
                _in_default_graph(part, f"eval_metric_ops ({key})")
    _add_to_metric_collections(
        v
        for value in eval_metric_ops.values()
        if keras_flavours.is_metric(value)
        for v in value.variables
    )
    return dict(eval_metric_ops)


def _check_updated_here(key, metric):
    """A Keras metric must be updated in the graph the spec is built in: the
    ops that assign to its variables there are its updates."""
    if tf.executing_eagerly() or variable_writes.ops_writing(metric.variables):
        return
    graph = tf.compat.v1.get_default_graph()
    for other in variable_writes.graphs_of(metric.variables):
        if other is not graph and variable_writes.ops_writing(metric.variables, other):
            raise ValueError(
                _OTHER_GRAPH.format(field="eval_metric_ops", value=f"{key}: {metric.name}")
            )
    raise ValueError(
        f'Please call update_state(...) on the "{metric.name}" metric: eval_metric_ops'
        f"[{key!r}] is a Keras metric that the model_fn never updated."
    )


def _add_to_metric_collections(variables):
    """Local variables are initialized per evaluation; the metric collection
    is where TFMA and export look for evaluation state."""
    if tf.executing_eagerly():
        return
    graph = tf.compat.v1.get_default_graph()
    keys = (tf.compat.v1.GraphKeys.LOCAL_VARIABLES, tf.compat.v1.GraphKeys.METRIC_VARIABLES)
    for variable in variables:
        variable = variable.value if hasattr(variable, "path") else variable
        for key in keys:
            if not any(existing is variable for existing in graph.get_collection(key)):
                graph.add_to_collection(key, variable)
