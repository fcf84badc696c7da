"""`tf.contrib.layers.optimize_loss`: a loss to a train op, with clipping, noise and summaries.

TF 1.x model_fns written for `tf.contrib.learn` and early `tf.estimator`
ended with `train_op = tf.contrib.layers.optimize_loss(loss, global_step,
learning_rate=0.01, optimizer="Adam")`. It builds a `tf.compat.v1.train`
optimizer, applies it to every trainable variable and advances the global
step; this is contrib's function again on the TF1 optimizers TensorFlow 2
still has. Its variables keep contrib's names: a float learning rate is the
non-trainable variable `OptimizeLoss/learning_rate`, in checkpoints too.
"""

from typing import Callable
from typing import Union

import tensorflow as tf

_train = tf.compat.v1.train
_GraphKeys = tf.compat.v1.GraphKeys


def _momentum(learning_rate):
    return _train.MomentumOptimizer(learning_rate, momentum=0.9)


OPTIMIZER_CLS_NAMES = {
    "Adagrad": _train.AdagradOptimizer,
    "Adam": _train.AdamOptimizer,
    "Ftrl": _train.FtrlOptimizer,
    "Momentum": _momentum,
    "RMSProp": _train.RMSPropOptimizer,
    "SGD": _train.GradientDescentOptimizer,
}
"""The optimizers `optimize_loss` knows by name (`Momentum` has momentum 0.9)."""

OPTIMIZER_SUMMARIES = [
    "learning_rate",
    "loss",
    "gradients",
    "gradient_norm",
    "global_gradient_norm",
]
"""The summaries `optimize_loss(summaries=...)` can write."""

_DEFAULT_SUMMARIES = ["loss", "learning_rate", "global_gradient_norm"]


def optimize_loss(
    loss,
    global_step,
    learning_rate,
    optimizer: Union[str, type, Callable, _train.Optimizer],
    gradient_noise_scale=None,
    gradient_multipliers=None,
    clip_gradients=None,
    learning_rate_decay_fn=None,
    update_ops=None,
    variables=None,
    name=None,
    summaries=None,
    colocate_gradients_with_ops=False,
    increment_global_step=True,
) -> tf.Tensor:
    """The training op of `loss`: `loss`, once the gradients are applied.

    Args:
        loss: a scalar tensor.
        global_step: the step variable, advanced by each update; None for the
            graph's global step (no step at all if there is none).
        learning_rate: a float (kept in the variable `learning_rate`), a
            scalar tensor, or None when `optimizer` is a function of no arguments.
        optimizer: a name in `OPTIMIZER_CLS_NAMES`, a `tf.compat.v1.train.Optimizer`
            subclass or instance, or a function of the learning rate returning one.
        gradient_noise_scale: add truncated-normal noise of this scale to the gradients.
        gradient_multipliers: `{variable or variable name: factor}` for gradients.
        clip_gradients: a float (clip by global norm) or a function of
            `grads_and_vars` returning new ones.
        learning_rate_decay_fn: `fn(learning_rate, global_step)` -> the rate to use.
        update_ops: ops to run before the loss; default the `UPDATE_OPS` collection.
        variables: the variables to train; default all trainable ones.
        name: the variable scope (default `OptimizeLoss`).
        summaries: the summaries to write, from `OPTIMIZER_SUMMARIES`; default
            loss, learning rate (when it decays) and global gradient norm.
        colocate_gradients_with_ops: passed to `compute_gradients`.
        increment_global_step: advance `global_step` (False when the model
            calls `optimize_loss` several times a step).

    Raises:
        ValueError: for a non-scalar loss, a learning rate or optimizer of the
            wrong kind, an unknown summary, a decaying rate without a global
            step, or no gradients.
    """
    loss = tf.convert_to_tensor(loss)
    if loss.shape.rank != 0:
        name_of_loss = getattr(loss, "name", "loss")
        raise ValueError(f"Expected scalar shape for {name_of_loss}, saw shape: {loss.shape}.")
    if global_step is None:
        global_step = _train.get_global_step()
    else:
        _train.assert_global_step(global_step)
    with tf.compat.v1.variable_scope(name, "OptimizeLoss", [loss, global_step]):
        if update_ops is None:
            update_ops = set(tf.compat.v1.get_collection(_GraphKeys.UPDATE_OPS))
        if update_ops:
            loss = _after(list(update_ops), loss)
        summaries = _checked_summaries(summaries)
        rate = _learning_rate(learning_rate)
        if learning_rate is not None and learning_rate_decay_fn is not None:
            if global_step is None:
                raise ValueError("global_step is required for learning_rate_decay_fn.")
            rate = learning_rate_decay_fn(rate, global_step)
            if "learning_rate" in summaries:
                tf.compat.v1.summary.scalar("learning_rate", rate)
        opt = _optimizer(optimizer, rate, learning_rate)
        if variables is None:
            variables = tf.compat.v1.trainable_variables()
        gradients = opt.compute_gradients(
            loss, variables, colocate_gradients_with_ops=colocate_gradients_with_ops
        )
        if gradient_noise_scale is not None:
            gradients = _with_noise(gradients, gradient_noise_scale)
        if gradient_multipliers is not None:
            gradients = _multiplied(gradients, gradient_multipliers)
            if not gradients:
                raise ValueError(
                    "Empty list of (gradient, var) pairs encountered. This is most likely to "
                    "be caused by an improper value of gradient_multipliers."
                )
        norms = "global_gradient_norm" in summaries or "gradient_norm" in summaries
        if norms:
            tf.compat.v1.summary.scalar("global_norm/gradient_norm", _global_norm(gradients))
        gradients = _clipped(gradients, clip_gradients)
        if "loss" in summaries:
            tf.compat.v1.summary.scalar("loss", loss)
        _variable_summaries(gradients, summaries)
        if clip_gradients is not None and norms:
            tf.compat.v1.summary.scalar(
                "global_norm/clipped_gradient_norm", _global_norm(gradients)
            )
        update = opt.apply_gradients(
            gradients, global_step=global_step if increment_global_step else None, name="train"
        )
        return _after([update], loss)


def _after(ops, tensor):
    """`tensor`, computed once `ops` have run."""
    with tf.compat.v1.name_scope(None, "control_dependency", [*ops, tensor]) as scope:
        with tf.control_dependencies(ops):
            return tf.identity(tensor, name=scope)


def _checked_summaries(summaries):
    if summaries is None:
        return list(_DEFAULT_SUMMARIES)
    for summary in summaries:
        if summary not in OPTIMIZER_SUMMARIES:
            raise ValueError(
                f"Summaries should be one of [{', '.join(OPTIMIZER_SUMMARIES)}], you "
                f"provided {summary}."
            )
    return summaries


def _learning_rate(learning_rate):
    """A scalar tensor as it is; a float as the variable `learning_rate`; None as None."""
    if learning_rate is None:
        return None
    if tf.is_tensor(learning_rate) and learning_rate.shape.rank == 0:
        return learning_rate
    if isinstance(learning_rate, float):
        if learning_rate < 0.0:
            raise ValueError(f"Invalid learning_rate {learning_rate}.")
        return tf.compat.v1.get_variable(
            "learning_rate",
            [],
            trainable=False,
            initializer=tf.compat.v1.constant_initializer(learning_rate),
        )
    raise ValueError(
        f"Learning rate should be 0d Tensor or float. Got {learning_rate} of type "
        f"{type(learning_rate)}"
    )


def _optimizer(optimizer, rate, learning_rate):
    """The `tf.compat.v1.train.Optimizer` that `optimizer` names, is, or makes."""
    if isinstance(optimizer, str):
        if rate is None:
            raise ValueError(
                "Learning rate is None, but should be specified if optimizer is string "
                f"({optimizer})."
            )
        if optimizer not in OPTIMIZER_CLS_NAMES:
            raise ValueError(
                f"Optimizer name should be one of [{', '.join(OPTIMIZER_CLS_NAMES)}], you "
                f"provided {optimizer}."
            )
        return OPTIMIZER_CLS_NAMES[optimizer](learning_rate=rate)
    if isinstance(optimizer, type) and issubclass(optimizer, _train.Optimizer):
        if rate is None:
            raise ValueError(
                "Learning rate is None, but should be specified if optimizer is class "
                f"({optimizer})."
            )
        return optimizer(learning_rate=rate)
    if isinstance(optimizer, _train.Optimizer):
        return optimizer
    if callable(optimizer):
        made = optimizer(rate) if learning_rate is not None else optimizer()
        if not isinstance(made, _train.Optimizer):
            raise ValueError(
                f"Unrecognized optimizer: function should return subclass of Optimizer. Got {made}."
            )
        return made
    raise ValueError(
        "Unrecognized optimizer: should be string, subclass of Optimizer, instance of "
        f"subclass of Optimizer or function with one argument. Got {optimizer}."
    )


def _global_norm(gradients):
    return tf.linalg.global_norm([gradient for gradient, _ in gradients])


def _with_noise(gradients, scale):
    """Each gradient plus truncated-normal noise times `scale`."""
    noisy = []
    for gradient, variable in gradients:
        if gradient is not None:
            shape = (
                gradient.dense_shape if isinstance(gradient, tf.IndexedSlices) else gradient.shape
            )
            gradient = gradient + tf.random.truncated_normal(shape) * scale
        noisy.append((gradient, variable))
    return noisy


def _multiplied(gradients, multipliers):
    """Gradients times their variable's factor; keys are variables or their names."""
    result = []
    for gradient, variable in gradients:
        factor = _factor(variable, multipliers)
        if gradient is not None and factor is not None:
            if isinstance(gradient, tf.IndexedSlices):
                gradient = tf.IndexedSlices(
                    gradient.values * factor, gradient.indices, gradient.dense_shape
                )
            else:
                gradient = gradient * tf.cast(factor, gradient.dtype)
        result.append((gradient, variable))
    return result


def _factor(variable, multipliers):
    # By identity: TF2 variables cannot be dict keys compared with `in`.
    for key, factor in multipliers.items():
        if key is variable:
            return factor
    for key, factor in multipliers.items():
        if isinstance(key, str) and key == variable.name:
            return factor
    return None


def _clipped(gradients, clip_gradients):
    if isinstance(clip_gradients, float):
        values, variables = zip(*gradients)
        clipped, _ = tf.clip_by_global_norm(values, clip_gradients)
        return list(zip(clipped, variables))
    if callable(clip_gradients):
        return clip_gradients(gradients)
    if clip_gradients is not None:
        raise ValueError(f"Unknown type {type(clip_gradients)} for clip_gradients")
    return gradients


def _variable_summaries(gradients, summaries):
    """Per-variable gradient histograms and norms, when asked for."""
    for gradient, variable in gradients:
        values = gradient.values if isinstance(gradient, tf.IndexedSlices) else gradient
        if values is None:
            continue
        name = variable.name.replace(":", "_")
        if "gradients" in summaries:
            tf.compat.v1.summary.histogram(f"gradients/{name}", values)
        if "gradient_norm" in summaries:
            tf.compat.v1.summary.scalar(f"gradient_norm/{name}", tf.linalg.global_norm([values]))
