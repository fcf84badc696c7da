"""Resolves the `optimizer` argument of canned estimators and heads.

The original accepted a name ('Adagrad', 'Adam', 'Ftrl', 'RMSProp', 'SGD'),
a Keras optimizer instance, or a callable returning one, and trained with
Keras 2 optimizers (converting newer Keras optimizers to them). Here a name
becomes the matching `keras2_optimizers` class, a Keras optimizer (Keras 3's,
or tf_keras's current or legacy one in legacy Keras mode) is converted to it
with the same hyperparameters, and a `tf.compat.v1.train.Optimizer` (what
`tf.compat.v1.estimator` canned estimators took) is used as it is.
"""

from __future__ import annotations

import re

import tensorflow as tf

from tfestimator_compat.canned import keras2_optimizers
from tfestimator_compat.engine import keras_flavours
from tfestimator_compat.engine.internals import keras_internals

_BY_NAME = {
    "Adagrad": keras2_optimizers.Adagrad,
    "Adam": keras2_optimizers.Adam,
    "Ftrl": keras2_optimizers.Ftrl,
    "RMSProp": keras2_optimizers.RMSprop,
    "SGD": keras2_optimizers.SGD,
}
# Keras optimizer class name -> (Keras 2 class, the constructor arguments they share).
_EQUIVALENTS = {
    "Adagrad": (
        keras2_optimizers.Adagrad,
        ("initial_accumulator_value", "epsilon"),
    ),
    "Adam": (keras2_optimizers.Adam, ("beta_1", "beta_2", "epsilon", "amsgrad")),
    "Ftrl": (
        keras2_optimizers.Ftrl,
        (
            "learning_rate_power",
            "initial_accumulator_value",
            "l1_regularization_strength",
            "l2_regularization_strength",
            "l2_shrinkage_regularization_strength",
            "beta",
        ),
    ),
    "RMSprop": (
        keras2_optimizers.RMSprop,
        ("rho", "momentum", "epsilon", "centered"),
    ),
    "SGD": (keras2_optimizers.SGD, ("momentum", "nesterov")),
    "Adadelta": (keras2_optimizers.Adadelta, ("rho", "epsilon")),
    "Adamax": (keras2_optimizers.Adamax, ("beta_1", "beta_2", "epsilon")),
}
_V1_BY_NAME = {
    "Adagrad": tf.compat.v1.train.AdagradOptimizer,
    "Adam": tf.compat.v1.train.AdamOptimizer,
    "Ftrl": tf.compat.v1.train.FtrlOptimizer,
    "RMSProp": tf.compat.v1.train.RMSPropOptimizer,
    "SGD": tf.compat.v1.train.GradientDescentOptimizer,
}
_KERAS3_ONLY = ("weight_decay", "loss_scale_factor", "gradient_accumulation_steps")


def get_optimizer(optimizer, learning_rate=None):
    """The optimizer to train with, from what a canned estimator was given.

    Args:
        optimizer: a name, a Keras optimizer (Keras 3's or tf_keras's), a
            Keras 2-style optimizer, a `tf.compat.v1.train.Optimizer`, or a
            callable returning one.
        learning_rate: the learning rate for a name; the optimizer's own
            default (Keras 2's) when None.
    """
    if isinstance(optimizer, str):
        if optimizer not in _BY_NAME:
            raise ValueError(
                f"Unsupported optimizer name: {optimizer}. Supported names are: "
                f"{tuple(sorted(_BY_NAME))}"
            )
        cls = _BY_NAME[optimizer]
        return cls(learning_rate=learning_rate) if learning_rate else cls()
    if callable(optimizer) and not _is_optimizer(optimizer):
        optimizer = optimizer()
    if keras_flavours.is_optimizer(optimizer):
        return from_keras(optimizer)
    if not _is_optimizer(optimizer):
        raise ValueError(
            f"The given object is not a tf.keras.optimizers.Optimizer instance. Given: {optimizer}"
        )
    return optimizer


def get_v1_optimizer(optimizer, learning_rate=None):
    """The `tf.compat.v1.train.Optimizer` a `tf.compat.v1.estimator` canned estimator trains with.

    As in TF1, a name gets the estimator's default `learning_rate`, a class or
    other callable is called, and anything but a TF1 optimizer is refused:
    Keras optimizers belong to the `tf.estimator` (V2) classes. The original's
    `canned.optimizers.get_optimizer_instance`, which libraries imported.

    Args:
        optimizer: 'Adagrad', 'Adam', 'Ftrl', 'RMSProp' or 'SGD', a
            `tf.compat.v1.train.Optimizer`, or a callable returning one.
        learning_rate: the learning rate for a name, which needs one.
    """
    if isinstance(optimizer, str):
        if optimizer not in _V1_BY_NAME:
            raise ValueError(
                f"Unsupported optimizer name: {optimizer}. Supported names are: "
                f"{tuple(sorted(_V1_BY_NAME))}"
            )
        if not learning_rate:
            raise ValueError("learning_rate must be specified when opt is string.")
        return _V1_BY_NAME[optimizer](learning_rate=learning_rate)
    if callable(optimizer):
        optimizer = optimizer()
    if not isinstance(optimizer, tf.compat.v1.train.Optimizer):
        raise ValueError(
            "The given object is not a tf.compat.v1.train.Optimizer instance. Given: "
            f"{optimizer}. The tf.compat.v1.estimator canned estimators train with TF1 "
            "optimizers; use the tf.estimator class for a Keras optimizer."
        )
    return optimizer


def _is_optimizer(optimizer):
    return keras_flavours.is_optimizer(optimizer) or isinstance(
        optimizer, (keras2_optimizers.Optimizer, tf.compat.v1.train.Optimizer)
    )


def from_keras(optimizer):
    """The Keras 2-style equivalent of a Keras optimizer, for a TF1 graph.

    Takes Keras 3's optimizers and, in legacy Keras mode, tf_keras's (its
    current ones, which the original converted to legacy ones, and its legacy
    Keras 2 ones, which run as this package's copies of them). Keeps the
    learning rate (or schedule), `decay`, the class's hyperparameters and
    clipping. The name becomes Keras 2's (`Adam` rather than `adam` or
    `adam_1`, as Keras 3 numbers the instances of a class) unless the
    optimizer was given its own, so checkpoint keys match the original's.
    """
    cls = type(optimizer)
    class_name = keras_flavours.builtin_optimizer_name(optimizer)
    if class_name not in _EQUIVALENTS:
        supported = ", ".join(sorted(_EQUIVALENTS))
        raise ValueError(
            f"The canned estimators run Keras optimizers {supported} in the TF1 graph of "
            f"a model_fn; {cls.__name__} is not one of them. Pass one of those, or a "
            "tf.compat.v1.train optimizer."
        )
    with tf.init_scope():
        config = optimizer.get_config()
    _leave_out_of_checkpoints(_variables_of(optimizer))
    for name in _KERAS3_ONLY:
        if config.get(name) is not None:
            raise ValueError(
                f"{cls.__name__}({name}=...) has no equivalent in the original's Keras 2 "
                f"optimizers; remove {name}."
            )
    if config.get("use_ema"):
        raise ValueError(f"{cls.__name__}(use_ema=True) is not supported by canned estimators.")
    target, arguments = _EQUIVALENTS[class_name]
    learning_rate = config["learning_rate"]
    if isinstance(learning_rate, dict):
        learning_rate = keras_flavours.deserialize_schedule(learning_rate, optimizer)
    kwargs = {argument: config[argument] for argument in arguments}
    if config.get("decay"):  # Keras 2's (legacy) optimizers only
        kwargs["decay"] = config["decay"]
    # Keras names an unnamed optimizer `adam`, `adam_1`, ... (one counter per process).
    auto_name = re.fullmatch(
        rf"{keras_internals.to_snake_case(cls.__name__)}(_\d+)?", config.get("name") or ""
    )
    if config.get("name") and not auto_name:
        kwargs["name"] = config["name"]
    for clip in ("clipnorm", "clipvalue", "global_clipnorm"):
        kwargs[clip] = config.get(clip)
    tf.compat.v1.logging.info(
        "Training with %s as the original's Keras 2 %s.", cls.__name__, target.__name__
    )
    return target(learning_rate=learning_rate, **kwargs)


def _variables_of(optimizer):
    """An optimizer's variables, its learning rate's included.

    `variables` is a method of Keras 2's legacy optimizers and a property of
    the others; tf_keras's optimizers leave their learning-rate variable out.
    """
    variables = optimizer.variables
    variables = list(variables() if callable(variables) else variables)
    learning_rate = keras_internals.learning_rate_variable(optimizer)
    if isinstance(learning_rate, tf.Variable):
        variables.append(learning_rate)
    return variables


def _leave_out_of_checkpoints(variables):
    """Drops a Keras 3 optimizer's own variables from the traced graph's collections.

    A Keras 3 (or tf_keras) optimizer built inside a `model_fn` creates its
    `iteration` and `learning_rate` variables there; its converted equivalent never uses them,
    and checkpoints written by the original do not have them.
    """
    if tf.executing_eagerly():
        return
    graph = tf.compat.v1.get_default_graph()
    unused = {id(keras_internals.backing_variable(variable)) for variable in variables}
    for key in (
        tf.compat.v1.GraphKeys.GLOBAL_VARIABLES,
        tf.compat.v1.GraphKeys.TRAINABLE_VARIABLES,
    ):
        collection = graph.get_collection_ref(key)
        collection[:] = [variable for variable in collection if id(variable) not in unused]


def minimize(optimizer, loss, variables, advance_global_step=True):
    """The train op minimizing `loss` over `variables`.

    With `advance_global_step`, each run also adds one to the global step: a
    Keras 2-style optimizer takes the global step as its `iterations` (as the
    original canned estimators set it), a `tf.compat.v1.train` optimizer gets
    it as `global_step`. A Keras 3 optimizer, whose `iterations` cannot be
    set, is converted first.
    """
    global_step = tf.compat.v1.train.get_or_create_global_step()
    if isinstance(optimizer, tf.compat.v1.train.Optimizer):
        # At the top-level name scope, its slots get their TF1 names
        # (`dnn/logits/kernel/Adagrad`) from the variable store.
        with tf.name_scope(""):
            return optimizer.minimize(
                loss, global_step=global_step if advance_global_step else None, var_list=variables
            )
    if keras_flavours.is_optimizer(optimizer):
        optimizer = from_keras(optimizer)
    if not isinstance(optimizer, keras2_optimizers.Optimizer):
        raise ValueError(
            "The given optimizer is not a tf.keras.optimizers.Optimizer instance. "
            f"Received optimizer of type {type(optimizer)}"
        )
    if advance_global_step:
        # Every trace, so a reused optimizer object counts this graph's global step.
        optimizer.iterations = global_step
    return optimizer.get_updates(loss, variables)[0]
