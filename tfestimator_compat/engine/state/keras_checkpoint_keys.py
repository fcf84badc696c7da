"""The keys `model_to_estimator` 2.15 wrote, so its model_dirs resume here.

The original kept a Keras model's state under other keys than this package:
- `checkpoint_format='saver'` (TF1 names): weights as `hidden/kernel`, as
  here; optimizer slots as `training/Adam/hidden/kernel/m`, the learning rate
  as `training/Adam/learning_rate`.
- `checkpoint_format='checkpoint'` (object paths of the Keras 2 model): weights
  as `layer_with_weights-0/kernel/.ATTRIBUTES/VARIABLE_VALUE`, slots under
  `.../kernel/.OPTIMIZER_SLOT/optimizer/m/...`, the learning rate under
  `optimizer/learning_rate/...` and the step as `estimator_global_step/...`.
Neither held the optimizer's step count: its Keras 2 optimizer counted with
`global_step`, so the Keras 3 optimizer's `iteration` is read from there.

Both layouts are derived from the rebuilt model (which layer holds which
weight) and the built optimizer (which slot belongs to which weight), and
applied when restoring, as aliases of this package's keys.
"""

import re

from tfestimator_compat.engine.state import checkpoints

_VALUE = "/.ATTRIBUTES/VARIABLE_VALUE"
OBJECT_GLOBAL_STEP = checkpoints.OBJECT_GLOBAL_STEP

# Keras 3 slot suffix -> the Keras 2 optimizer's slot name, by Keras optimizer class.
_SLOTS = {
    "Adam": {"momentum": "m", "velocity": "v", "velocity_hat": "vhat"},
    "AdamW": {"momentum": "m", "velocity": "v", "velocity_hat": "vhat"},
    "Adamax": {"momentum": "m", "norm": "v"},
    "Nadam": {"momentum": "m", "velocity": "v"},
    "SGD": {"momentum": "momentum"},
    "RMSprop": {"velocity": "rms", "momentum": "momentum", "average_gradient": "mg"},
    "Adagrad": {"accumulator": "accumulator"},
    "Adadelta": {"accumulated_grad": "accum_grad", "accumulated_delta_var": "accum_var"},
    "Ftrl": {"accumulator": "accumulator", "linear": "linear"},
}

ADVICE = (
    "model_to_estimator resumes model_dirs it wrote and those that "
    "tf.keras.estimator.model_to_estimator wrote with TF 2.15 (either "
    "checkpoint_format) for the same model, with the same layer names; "
    "warm_start_from is not one of its arguments. Give the Keras model the layers "
    "(and names) it had, or start from a new model_dir: load the old weights into "
    "the model first (tfestimator_compat.keras_model_to_estimator."
    "load_estimator_weights, see migration_guide/to_native_keras.md)."
)


def tf215_aliases(
    model, weight_keys, optimizer=None, optimizer_keys=(), optimizer_name=None, layout=None
):
    """Key here -> the keys 2.15 wrote the same variable under (saver's, then object's).

    Args:
        model: the Keras model as the model_fn rebuilds it.
        weight_keys: the checkpoint key of each of `model.weights`.
        optimizer: its optimizer, built on its trainable variables, or None.
        optimizer_keys: the checkpoint key of each of `optimizer.variables`.
        optimizer_name: the name the user's compiled optimizer had.
        layout: the model whose layers hold `model.weights` (in their order),
            when `model` calls it rather than being a copy of it.
    """
    paths = dict(_object_paths(model))
    if layout is not None:
        found = dict(_object_paths(layout))
        paths = {
            id(weight): found[id(original)]
            for weight, original in zip(model.weights, layout.weights)
            if id(original) in found
        }
    aliases = {"global_step": (OBJECT_GLOBAL_STEP,)}
    for weight, key in zip(model.weights, weight_keys):
        if id(weight) in paths:
            aliases[key] = (paths[id(weight)] + _VALUE,)
    if optimizer is not None:
        aliases.update(
            _optimizer_aliases(model, weight_keys, paths, optimizer, optimizer_keys, optimizer_name)
        )
    return aliases


def _object_paths(model, prefix=""):
    """(id of weight, object path) as Keras 2 tracked a Sequential or functional model."""
    layers = [layer for layer in model.layers if layer.weights]
    for index, layer in enumerate(layers):
        path = f"{prefix}layer_with_weights-{index}"
        if hasattr(layer, "layers"):
            yield from _object_paths(layer, path + "/")
            continue
        for weight in layer.weights:
            yield id(weight), f"{path}/{weight.name}"


def _optimizer_aliases(model, weight_keys, paths, optimizer, optimizer_keys, configured_name):
    keras_class = _keras_class(optimizer)
    slots = _SLOTS.get(keras_class, {})
    name = _legacy_name(optimizer, keras_class, configured_name)
    keys = {id(weight): key for weight, key in zip(model.weights, weight_keys)}
    owners = _slot_owners(model.trainable_variables, optimizer.variables)
    aliases = {}
    for variable, key in zip(optimizer.variables, optimizer_keys):
        if variable.name == "iteration":
            aliases[key] = ("global_step", OBJECT_GLOBAL_STEP)
        elif variable.name == "learning_rate":
            aliases[key] = (f"training/{name}/learning_rate", "optimizer/learning_rate" + _VALUE)
        elif id(variable) in owners:
            weight, suffix = owners[id(variable)]
            slot, path = slots.get(suffix), paths.get(id(weight))
            if slot and id(weight) in keys:
                aliases[key] = (f"training/{name}/{keys[id(weight)]}/{slot}",) + (
                    (f"{path}/.OPTIMIZER_SLOT/optimizer/{slot}" + _VALUE,) if path else ()
                )
    return aliases


def _keras_class(optimizer):
    """The name of the Keras optimizer class `optimizer` is or extends: a
    `class MyAdam(keras.optimizers.Adam)` keeps Adam's slots and Keras 2 name."""
    for cls in type(optimizer).__mro__:
        if cls.__module__.split(".")[0] == "keras" and cls.__name__ in _SLOTS:
            return cls.__name__
    return type(optimizer).__name__


def _slot_owners(trainable_variables, optimizer_variables):
    """id of a slot variable -> (the weight it belongs to, its slot suffix).

    Keras 3 names a slot `<weight path with _>_<suffix>` (`out_kernel_momentum`);
    Keras <= 3.7 named some only by their suffix (Adagrad's and Ftrl's
    `accumulator`), one per weight, made in the order of the weights.
    """
    prefixes = sorted(
        ((weight.path.replace("/", "_") + "_", weight) for weight in trainable_variables),
        key=lambda prefix: -len(prefix[0]),
    )
    owners, unprefixed = {}, {}
    for variable in optimizer_variables:
        for prefix, weight in prefixes:
            if variable.name.startswith(prefix):
                owners[id(variable)] = (weight, variable.name[len(prefix) :])
                break
        else:
            unprefixed.setdefault(variable.name, []).append(variable)
    for suffix, variables in unprefixed.items():
        if len(variables) == len(trainable_variables):
            for variable, weight in zip(variables, trainable_variables):
                owners[id(variable)] = (weight, suffix)
    return owners


def _legacy_name(optimizer, class_name, configured):
    """The Keras 2 optimizer's name: its Keras class's name, unless the user named it.

    Keras 3 auto-names optimizers in snake case after their own class,
    uniquified (`adam_1`, `rm_sprop`, `my_adam`); Keras 2 named them by the
    Keras class (`Adam`, `RMSprop`), the default of its `name` argument.
    """
    configured = configured or class_name
    base = re.sub(r"_\d+$", "", configured).replace("_", "").lower()
    auto_names = {class_name.lower(), type(optimizer).__name__.lower()}
    return class_name if base in auto_names else configured
