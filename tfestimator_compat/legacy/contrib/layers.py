"""`tf.contrib.layers`: the layers, initializers and regularizers estimator programs used.

These are the contrib layer functions estimator programs kept using after
`tf.layers` took over the rest (BERT's `layer_norm`, `xavier_initializer`,
`l2_regularizer`). They compute exactly what contrib did, with its defaults:
initializers keep contrib's fan estimates and truncated-normal correction,
regularizers return `scale * l2_loss(w)` (half the squared norm).

The layers make their variables with `tf.compat.v1.get_variable` under
contrib's default scopes, so they are named `.../LayerNorm/beta`,
`.../LayerNorm/gamma`, `.../fully_connected/weights`, ...: the keys of
checkpoints the original wrote. In an Estimator's `model_fn` the shim's variable store names
them the same way. `flatten` and `stack` (`stack/stack_1/weights`, ...)
are contrib's too, and `optimize_loss` (its own module) builds a TF1 train op.

Example:

```python
with tf.variable_scope("output"):
    hidden = tf.contrib.layers.layer_norm(
        hidden, begin_norm_axis=-1, begin_params_axis=-1)  # output/LayerNorm/{beta,gamma}
weights = tf.get_variable(
    "w", [768, 2], initializer=tf.contrib.layers.xavier_initializer(),
    regularizer=tf.contrib.layers.l2_regularizer(1e-4))
```
"""

import functools
import math
import numbers
from typing import Callable
from typing import Optional

import tensorflow as tf

from tfestimator_compat.legacy.contrib.optimize_loss import OPTIMIZER_CLS_NAMES
from tfestimator_compat.legacy.contrib.optimize_loss import OPTIMIZER_SUMMARIES
from tfestimator_compat.legacy.contrib.optimize_loss import optimize_loss

_GraphKeys = tf.compat.v1.GraphKeys
_FAN_MODES = ("FAN_IN", "FAN_OUT", "FAN_AVG")


def layer_norm(
    inputs,
    center=True,
    scale=True,
    activation_fn=None,
    reuse=None,
    variables_collections=None,
    outputs_collections=None,
    trainable=True,
    begin_norm_axis=1,
    begin_params_axis=-1,
    scope=None,
) -> tf.Tensor:
    """Normalizes `inputs` over the axes from `begin_norm_axis` on, then scales and shifts.

    Args:
        inputs: a tensor of known rank.
        center: add the learned offset `beta`.
        scale: multiply by the learned `gamma`.
        activation_fn: applied to the result, if given.
        reuse: reuse the scope's existing variables (`scope` is then needed).
        variables_collections: collections for the variables, or a dict keyed
            by `beta`/`gamma`.
        outputs_collections: collections to add the result to.
        trainable: add the variables to `TRAINABLE_VARIABLES`.
        begin_norm_axis: first axis of the mean and variance; negative counts
            from the end.
        begin_params_axis: first axis of `beta`'s and `gamma`'s shape.
        scope: variable scope (default `LayerNorm`, uniquified).
    """
    with tf.compat.v1.variable_scope(scope, "LayerNorm", [inputs], reuse=reuse) as layer_scope:
        inputs = tf.convert_to_tensor(inputs)
        shape = inputs.shape
        rank = shape.rank
        if rank is None:
            raise ValueError(
                "layer_norm needs inputs of known rank; give the tensor a shape "
                "(tensor.set_shape) before normalizing it."
            )
        begin_norm_axis = begin_norm_axis + rank if begin_norm_axis < 0 else begin_norm_axis
        params_shape = _params_shape(shape, begin_norm_axis, begin_params_axis)
        dtype = inputs.dtype.base_dtype
        variable = functools.partial(
            _model_variable,
            shape=params_shape,
            dtype=dtype,
            variables_collections=variables_collections,
            trainable=trainable,
        )
        beta = variable("beta", tf.compat.v1.zeros_initializer()) if center else None
        gamma = variable("gamma", tf.compat.v1.ones_initializer()) if scale else None
        mean, variance = tf.nn.moments(inputs, list(range(begin_norm_axis, rank)), keepdims=True)
        # contrib's epsilon; float16 cannot represent 1e-12.
        epsilon = 1e-3 if dtype == tf.float16 else 1e-12
        outputs = tf.nn.batch_normalization(inputs, mean, variance, beta, gamma, epsilon)
        outputs.set_shape(shape)
        if activation_fn is not None:
            outputs = activation_fn(outputs)
        return _collect_output(outputs_collections, layer_scope.name, outputs)


def _params_shape(shape, begin_norm_axis, begin_params_axis):
    """The shape of `beta` and `gamma`, checked against the axes."""
    if begin_params_axis >= shape.rank or begin_norm_axis >= shape.rank:
        raise ValueError(
            f"begin_params_axis ({begin_params_axis}) and begin_norm_axis "
            f"({begin_norm_axis}) must be < rank(inputs) ({shape.rank})."
        )
    params_shape = shape[begin_params_axis:]
    if not params_shape.is_fully_defined():
        raise ValueError(
            f"layer_norm: shape(inputs)[{begin_params_axis}:] of inputs shaped {shape} "
            "is not fully defined; beta and gamma need a known shape."
        )
    return params_shape


def _model_variable(
    name, initializer, shape, dtype, variables_collections, trainable, regularizer=None
):
    """A contrib "model variable": also in `MODEL_VARIABLES`, as checkpoint tools expect.

    `variables_collections` is a list of collections, or a dict of them by variable name.
    """
    if isinstance(variables_collections, dict):
        variables_collections = variables_collections.get(name)
    collections = set(variables_collections or ())
    collections |= {_GraphKeys.GLOBAL_VARIABLES, _GraphKeys.MODEL_VARIABLES}
    return tf.compat.v1.get_variable(
        name,
        shape=shape,
        dtype=dtype,
        initializer=initializer,
        regularizer=regularizer,
        trainable=trainable,
        collections=sorted(collections),
    )


def _collect_output(collections, alias, outputs):
    if collections:
        outputs.aliases = [*getattr(outputs, "aliases", []), alias.rstrip("/")]
        tf.compat.v1.add_to_collections(collections, outputs)
    return outputs


def variance_scaling_initializer(
    factor=2.0, mode="FAN_IN", uniform=False, seed=None, dtype=tf.float32
) -> Callable:
    """An initializer with variance `factor / n`, `n` the fan-in, fan-out or their mean.

    With `uniform=False` it draws from a truncated normal whose standard
    deviation is `sqrt(1.3 * factor / n)`: contrib's correction for the
    truncation. The default is He initialization.

    Args:
        factor: the variance multiplier.
        mode: `FAN_IN`, `FAN_OUT` or `FAN_AVG`.
        uniform: draw from a uniform distribution instead.
        seed: the op seed.
        dtype: the default dtype, a floating-point type.
    """
    dtype = tf.as_dtype(dtype)
    if not dtype.is_floating:
        raise TypeError(f"Cannot create an initializer for non-floating point type {dtype.name}.")
    if mode not in _FAN_MODES:
        raise TypeError(f"Unknown mode {mode!r}; use one of {', '.join(_FAN_MODES)}.")

    def initializer(shape, dtype=dtype, partition_info=None):
        dtype = tf.as_dtype(dtype)
        if not dtype.is_floating:
            raise TypeError(f"Cannot initialize a variable of non-floating type {dtype.name}.")
        n = _fan(tf.TensorShape(shape).as_list(), mode)
        if uniform:
            limit = math.sqrt(3.0 * factor / n)
            return tf.random.uniform(shape, -limit, limit, dtype, seed=seed)
        stddev = math.sqrt(1.3 * factor / n)
        return tf.random.truncated_normal(shape, 0.0, stddev, dtype, seed=seed)

    return initializer


def _fan(shape, mode):
    """contrib's estimate: the last two axes are (in, out); the others multiply both."""
    if not shape:
        return 1.0
    receptive_field = float(math.prod(shape[:-2]))
    fan_in = (shape[-2] if len(shape) > 1 else shape[-1]) * receptive_field
    fan_out = shape[-1] * receptive_field
    return {"FAN_IN": fan_in, "FAN_OUT": fan_out, "FAN_AVG": (fan_in + fan_out) / 2.0}[mode]


def xavier_initializer(uniform=True, seed=None, dtype=tf.float32) -> Callable:
    """Glorot initialization: variance `2 / (fan_in + fan_out)`, uniform by default."""
    return variance_scaling_initializer(
        factor=1.0, mode="FAN_AVG", uniform=uniform, seed=seed, dtype=dtype
    )


xavier_initializer_conv2d = xavier_initializer
_GLOROT_UNIFORM = xavier_initializer()
_ZEROS = tf.compat.v1.zeros_initializer()


def fully_connected(
    inputs,
    num_outputs,
    activation_fn=tf.nn.relu,
    normalizer_fn=None,
    normalizer_params=None,
    weights_initializer=_GLOROT_UNIFORM,
    weights_regularizer=None,
    biases_initializer=_ZEROS,
    biases_regularizer=None,
    reuse=None,
    variables_collections=None,
    outputs_collections=None,
    trainable=True,
    scope=None,
) -> tf.Tensor:
    """A dense layer over the last axis, ReLU by default, with contrib's variable names.

    Its variables are `fully_connected/weights` and `fully_connected/biases`
    (`tf.layers.dense` says `dense/kernel`, `dense/bias`). With a
    `normalizer_fn` (e.g. `layer_norm`) there are no biases: the normalizer
    runs on the product, then `activation_fn`.

    Args:
        inputs: a tensor whose last dimension is known.
        num_outputs: the number of output units, an int.
        activation_fn: applied last; None for a linear layer.
        normalizer_fn: called as `normalizer_fn(outputs, **normalizer_params)`.
        normalizer_params: its keyword arguments.
        weights_initializer: initializer of `weights` (Glorot uniform).
        weights_regularizer: regularizer of `weights`, e.g. `l2_regularizer(1e-4)`.
        biases_initializer: initializer of `biases`; None for no biases.
        biases_regularizer: regularizer of `biases`.
        reuse: reuse the scope's existing variables (`scope` is then needed).
        variables_collections: collections for the variables, or a dict keyed
            by `weights`/`biases`.
        outputs_collections: collections to add the result to.
        trainable: add the variables to `TRAINABLE_VARIABLES`.
        scope: variable scope (default `fully_connected`, uniquified).
    """
    if not isinstance(num_outputs, int):
        raise ValueError(f"num_outputs must be an int; got {type(num_outputs).__name__}.")
    with tf.compat.v1.variable_scope(
        scope, "fully_connected", [inputs], reuse=reuse
    ) as layer_scope:
        inputs = tf.convert_to_tensor(inputs)
        shape = inputs.shape
        if shape.rank is None or shape.rank < 2 or shape[-1] is None:
            raise ValueError(
                f"fully_connected needs inputs of rank >= 2 with a known last dimension; "
                f"got shape {shape}."
            )
        variable = functools.partial(
            _model_variable,
            dtype=inputs.dtype.base_dtype,
            variables_collections=variables_collections,
            trainable=trainable,
        )
        weights = variable(
            "weights",
            weights_initializer,
            [shape[-1], num_outputs],
            regularizer=weights_regularizer,
        )
        if shape.rank == 2:
            outputs = tf.matmul(inputs, weights)
        else:
            outputs = tf.tensordot(inputs, weights, [[shape.rank - 1], [0]])
            outputs.set_shape(shape[:-1].concatenate([num_outputs]))
        if normalizer_fn is None and biases_initializer is not None:
            biases = variable(
                "biases", biases_initializer, [num_outputs], regularizer=biases_regularizer
            )
            outputs = tf.nn.bias_add(outputs, biases)
        if normalizer_fn is not None:
            outputs = normalizer_fn(outputs, **(normalizer_params or {}))
        if activation_fn is not None:
            outputs = activation_fn(outputs)
        return _collect_output(outputs_collections, layer_scope.name, outputs)


def flatten(inputs, outputs_collections=None, scope=None) -> tf.Tensor:
    """`inputs` as `[batch, k]`: the first axis kept, the others folded into one.

    Args:
        inputs: a tensor whose first axis is the batch; a rank-1 tensor
            becomes `[batch, 1]`.
        outputs_collections: collections to add the result to.
        scope: name scope (default `Flatten`).
    """
    with tf.compat.v1.name_scope(scope, "Flatten", [inputs]) as name:
        inputs = tf.convert_to_tensor(inputs)
        shape = inputs.shape
        if shape.rank is None:
            raise ValueError(f"flatten needs inputs of known rank; got {inputs}.")
        if shape.rank == 1:
            outputs = tf.expand_dims(inputs, 1)
        else:
            width = shape[1:].num_elements()
            outputs = tf.reshape(inputs, [tf.shape(inputs)[0], -1 if width is None else width])
            outputs.set_shape([shape[0], width])
        return _collect_output(outputs_collections, name, outputs)


def stack(inputs, layer, stack_args, **kwargs) -> tf.Tensor:
    """Applies `layer` once per entry of `stack_args`, each in a scope of its own.

    `stack(x, fully_connected, [32, 64], scope="fc")` is
    `fully_connected(fully_connected(x, 32, scope="fc/fc_1"), 64, scope="fc/fc_2")`.
    Without `scope`, the outer scope is `Stack` and the inner ones are named
    after the layer function (`fully_connected_1`, ...), or `stack_1`, ... when
    it has no name.

    Args:
        inputs: the first layer's input.
        layer: `layer(inputs, *args, scope=..., **kwargs)`.
        stack_args: one entry per layer: its positional argument, or a
            list/tuple of them.
        **kwargs: `scope`, and keyword arguments for every layer.
    """
    scope = kwargs.pop("scope", None)
    if not isinstance(stack_args, (list, tuple)):
        raise ValueError("stack_args need to be a list or tuple")
    with tf.compat.v1.variable_scope(scope, "Stack", [inputs]):
        outputs = tf.convert_to_tensor(inputs)
        prefix = scope or _layer_name(layer)
        for index, args in enumerate(stack_args, start=1):
            args = args if isinstance(args, (list, tuple)) else [args]
            outputs = layer(outputs, *args, scope=f"{prefix}_{index}", **kwargs)
        return outputs


def _layer_name(layer) -> str:
    """A layer function's name (a `functools.partial`'s function's), else `stack`."""
    for candidate in (layer, getattr(layer, "func", None)):
        name = getattr(candidate, "__name__", None)
        if name:
            return name
    return "stack"


def _disabled(scale) -> bool:
    """Checks a regularizer's scale; True when it is 0, which turns the regularizer off."""
    if isinstance(scale, numbers.Integral):
        raise ValueError(f"A regularizer's scale must be a float, not the integer {scale}.")
    if isinstance(scale, numbers.Real):
        if scale < 0.0:
            raise ValueError(f"A regularizer's scale must be >= 0; got {scale}.")
        return scale == 0.0
    return False


def _no_penalty(weights):
    return None


def l1_regularizer(scale, scope=None) -> Callable:
    """A regularizer `weights -> scale * sum(|weights|)`; a scale of 0.0 gives None."""
    return _regularizer(scale, scope, "l1_regularizer", lambda w: tf.reduce_sum(tf.abs(w)))


def l2_regularizer(scale, scope=None) -> Callable:
    """A regularizer `weights -> scale * sum(weights ** 2) / 2`; a scale of 0.0 gives None."""
    return _regularizer(scale, scope, "l2_regularizer", tf.nn.l2_loss)


def _regularizer(scale, scope, default_name, penalty):
    """`weights -> scale * penalty(weights)` in a name scope, as contrib named it."""
    if _disabled(scale):
        return _no_penalty

    def regularize(weights):
        with tf.compat.v1.name_scope(scope, default_name, [weights]) as name:
            factor = tf.convert_to_tensor(scale, dtype=weights.dtype.base_dtype, name="scale")
            return tf.multiply(factor, penalty(weights), name=name)

    return regularize


def l1_l2_regularizer(scale_l1=1.0, scale_l2=1.0, scope=None) -> Callable:
    """The sum of an `l1_regularizer` and an `l2_regularizer`."""
    disabled_l1, disabled_l2 = _disabled(scale_l1), _disabled(scale_l2)
    scope = scope or "l1_l2_regularizer"
    if disabled_l1 and disabled_l2:
        return _no_penalty
    if disabled_l1:
        return l2_regularizer(scale_l2, scope)
    if disabled_l2:
        return l1_regularizer(scale_l1, scope)
    return sum_regularizer([l1_regularizer(scale_l1), l2_regularizer(scale_l2)], scope=scope)


def sum_regularizer(regularizer_list, scope=None) -> Optional[Callable]:
    """A regularizer adding the penalties of `regularizer_list` (None when it is empty)."""
    regularizers = [regularizer for regularizer in regularizer_list if regularizer is not None]
    if not regularizers:
        return None

    def summed(weights):
        with tf.compat.v1.name_scope(scope, "sum_regularizer", [weights]) as name:
            penalties = [regularizer(weights) for regularizer in regularizers]
            penalties = [penalty for penalty in penalties if penalty is not None]
            return tf.add_n(penalties, name=name) if penalties else None

    return summed


def apply_regularization(regularizer, weights_list=None) -> tf.Tensor:
    """Adds `regularizer`'s penalty over `weights_list` to `REGULARIZATION_LOSSES`, returns it.

    Args:
        regularizer: a function `weights -> scalar tensor or None`.
        weights_list: the variables; default the `GraphKeys.WEIGHTS` collection.
    """
    if not weights_list:
        weights_list = tf.compat.v1.get_collection(_GraphKeys.WEIGHTS)
    if not weights_list:
        raise ValueError(
            "apply_regularization has no weights: pass weights_list, or add the "
            "variables to the tf.GraphKeys.WEIGHTS collection."
        )
    with tf.compat.v1.name_scope("get_regularization_penalty", values=weights_list) as scope:
        penalties = [regularizer(weights) for weights in weights_list]
        penalties = [tf.constant(0.0) if p is None else p for p in penalties]
        for penalty in penalties:
            if penalty.shape.rank != 0:
                raise ValueError(
                    f"A regularizer must return a scalar; it returned shape {penalty.shape}."
                )
        total = tf.add_n(penalties, name=scope)
        tf.compat.v1.add_to_collection(_GraphKeys.REGULARIZATION_LOSSES, total)
        return total


__all__ = [
    "OPTIMIZER_CLS_NAMES",
    "OPTIMIZER_SUMMARIES",
    "apply_regularization",
    "flatten",
    "fully_connected",
    "l1_l2_regularizer",
    "l1_regularizer",
    "l2_regularizer",
    "layer_norm",
    "optimize_loss",
    "stack",
    "sum_regularizer",
    "variance_scaling_initializer",
    "xavier_initializer",
    "xavier_initializer_conv2d",
]
