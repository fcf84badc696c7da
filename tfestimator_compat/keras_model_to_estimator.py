"""`model_to_estimator`: an `Estimator` that trains, evaluates and serves a Keras 3 model.

As in the original, the `model_fn` rebuilds the Keras model from its config in
every mode (a TF1-style graph per call, whose variables the Estimator owns),
trains it with a fresh copy of the compiled optimizer, reports the compiled
loss and metrics, and predicts a dict keyed by output name. The Keras model
you pass is never changed: its weights seed the Estimator through a first
checkpoint, `model_dir/keras/keras_model.ckpt`, warm-started when `model_dir`
has no checkpoint of its own.

Keras 3 cannot rebuild every model it can call: a subclassed model, a custom
layer it cannot deserialize, an activation such as `tf.nn.softmax`. Such a
model is not rebuilt: the `model_fn` calls the model itself, statelessly, on
the Estimator's own copy of its weights (`_CallsModel`), under the same
`<layer name>/<weight name>` keys. Its weights seed the Estimator too, where
the original started a built subclassed model from fresh weights (and could
not train it).

Checkpoint names. Checkpoints are name-based, as every other Estimator of this
package, and a weight's key is `<layer name>/<weight name>` (`hidden/kernel`,
`dense/kernel` inside a Sequential too), the original's
`checkpoint_format='saver'` naming. Optimizer state is kept under the optimizer's own
paths under a fixed name (`optimizer/iteration`,
`optimizer/hidden_kernel_momentum`), next to `global_step`.
The original's default `'checkpoint'` format wrote object-based keys so that
Keras `load_weights` could read estimator checkpoints; Keras 3's `load_weights`
reads only `.weights.h5` and `.keras` files, so that no longer buys anything,
and name-based keys keep `get_variable_value`, `WarmStartSettings` and
`tf.train.load_variable` working. Both formats are accepted and write the same
files; `load_estimator_weights` puts trained weights back into a Keras model.

Model_dirs the original wrote, in either format, resume here: restores read
its keys (`training/Adam/hidden/kernel/m`, `layer_with_weights-0/kernel/...`)
as aliases of ours, and the optimizer's step count from `global_step`, which
its optimizer counted with (`keras_checkpoint_keys`). The way back is
narrower: TF 2.15 evaluates and predicts from a model_dir written here with
`checkpoint_format='saver'`, but cannot train on from it (no
`training/Adam/...` slots) nor read it with `'checkpoint'` (no object keys).
Writing the original's keys would give up `tf.train.load_variable(model_dir,
"hidden/kernel")` for the default format, and the model_dirs this package
already wrote.
"""

import contextlib
import copy
import os
import re
from typing import Dict
from typing import Optional

import keras
import numpy as np
import tensorflow as tf

from tfestimator_compat.engine import keras_flavours
from tfestimator_compat.engine.internals import keras_internals
from tfestimator_compat.engine.state import checkpoints
from tfestimator_compat.engine.state import keras_checkpoint_keys
from tfestimator_compat.engine.variables.variable_store import VariableStore
from tfestimator_compat.estimator import Estimator
from tfestimator_compat.export import PredictOutput
from tfestimator_compat.mode_keys import ModeKeys
from tfestimator_compat.run_config import RunConfig
from tfestimator_compat.spec import EstimatorSpec
from tfestimator_compat.warm_starting import WarmStartSettings

_CHECKPOINT_FORMATS = ("checkpoint", "saver")
_SAMPLE_WEIGHT_KEYS = {"features", "sample_weights"}
_SERVING_KEY = tf.saved_model.DEFAULT_SERVING_SIGNATURE_DEF_KEY
_OPTIMIZER_NAME = "optimizer"
_NUMERIC = ("float", "int", "uint", "bfloat")


def model_to_estimator(
    keras_model: Optional[keras.Model] = None,
    keras_model_path: Optional[str] = None,
    custom_objects: Optional[dict] = None,
    model_dir: Optional[str] = None,
    config: Optional[RunConfig] = None,
    checkpoint_format: Optional[str] = "checkpoint",
    metric_names_map: Optional[Dict[str, str]] = None,
    export_outputs: Optional[dict] = None,
) -> Estimator:
    """An `Estimator` that trains, evaluates, predicts and exports a compiled Keras model.

    Features are a dict keyed by the model's input names (a single tensor or
    a list also do, for one or several inputs); labels a dict keyed by output
    names, or a tensor. `{"features": ..., "sample_weights": ...}` as features
    weighs the loss and the weighted metrics, as `fit(sample_weight=...)`.

    Args:
        keras_model: a compiled Keras model; exclusive with `keras_model_path`.
        keras_model_path: a compiled model saved with `model.save()` (`.keras`,
            or a legacy `.h5` that Keras 3 can load).
        custom_objects: custom layers, losses and metrics, by name, needed to
            rebuild the model from its config.
        model_dir: where checkpoints go (a temporary directory when neither
            this nor `config.model_dir` is set).
        config: a `RunConfig`.
        checkpoint_format: `'checkpoint'` or `'saver'`; both write name-based
            checkpoints keyed by Keras variable paths, and both read what the
            original wrote in either format (see the module docstring).
        metric_names_map: compiled metric name -> name in `evaluate()` results;
            it must name every compiled metric.
        export_outputs: output name -> `ExportOutput` class, for serving
            signatures besides the default `PredictOutput` of all outputs.

    Returns:
        An `Estimator` whose variables start from the Keras model's weights.

    Example:

    ```python
    model.compile(optimizer="adam", loss="mse", metrics=["mae"])
    estimator = tf.keras.estimator.model_to_estimator(model, model_dir="/tmp/m")
    estimator.train(input_fn, steps=1000)
    ```
    """
    if keras_model is None and not keras_model_path:
        raise ValueError("Either `keras_model` or `keras_model_path` needs to be provided.")
    if keras_model is not None and keras_model_path:
        raise ValueError("Please specify either `keras_model` or `keras_model_path`, but not both.")
    if checkpoint_format is not None and checkpoint_format not in _CHECKPOINT_FORMATS:
        raise ValueError(
            f'Checkpoint format must be one of "checkpoint" or "saver". Got {checkpoint_format}'
        )
    if keras_model is None:
        tf.compat.v1.logging.info("Loading models from %s", keras_model_path)
        keras_model = keras.models.load_model(keras_model_path, custom_objects=custom_objects)
    keras_model = keras_flavours.as_keras3_model(keras_model, custom_objects)
    if not getattr(keras_model, "optimizer", None):
        raise ValueError(
            "The given keras model has not been compiled yet. Please compile the "
            "model with `model.compile()` before calling `model_to_estimator()`."
        )
    model_fn = _KerasModelFn(keras_model, custom_objects, metric_names_map, export_outputs)
    # The Estimator settles model_dir (argument, config or a temporary directory).
    config = Estimator(model_fn, model_dir=model_dir, config=config).config
    names, aliases = _checkpoint_keys(model_fn)
    warm_start = None
    if keras_model.built and names and config.is_chief:
        warm_start = _save_first_checkpoint(keras_model, names, config.model_dir)
    estimator = Estimator(model_fn, config=config, warm_start_from=warm_start)
    estimator._model_state.key_aliases = aliases  # noqa: SLF001 - the Estimator's restores read them
    return estimator


def load_estimator_weights(
    keras_model: keras.Model, checkpoint: str, custom_objects: Optional[dict] = None
) -> keras.Model:
    """Loads the weights an Estimator from `model_to_estimator` trained into `keras_model`.

    The way back to native Keras: build the same model (compiled or not),
    load the estimator's newest checkpoint, or a given one, into it, and go on
    with `fit`, `evaluate` or `model.save`.

    Args:
        keras_model: a built model of the architecture the Estimator was made
            from, with the same layer names (checkpoint keys are `layer/weight`);
            a tf_keras model too, in legacy Keras mode.
        checkpoint: a model_dir or a checkpoint path prefix.
        custom_objects: as given to `model_to_estimator`.

    Returns:
        `keras_model`, holding the checkpoint's weights.

    Example:

    ```python
    model = build_model()  # as passed to model_to_estimator
    load_estimator_weights(model, estimator.model_dir)
    model.save("model.keras")
    ```
    """
    if tf.io.gfile.isdir(checkpoint):
        directory, checkpoint = checkpoint, tf.train.latest_checkpoint(checkpoint)
        if checkpoint is None:
            raise ValueError(f"There is no checkpoint in {directory}. Train the Estimator first.")
    reader = checkpoints.reader(checkpoint)
    keras3_model = keras_flavours.as_keras3_model(keras_model, custom_objects, compile=False)
    names, aliases = _checkpoint_keys(_KerasModelFn(keras3_model, custom_objects))
    names = list(aliases.resolve(checkpoint, dict.fromkeys(names)))
    missing = [name for name in names if not reader.has_tensor(name)]
    if missing or len(names) != len(keras3_model.weights):
        raise ValueError(
            f"Checkpoint {checkpoint} does not hold this model's weights (missing "
            f"{missing}). Its layers must be named as in the model given to "
            "model_to_estimator: name them explicitly, or reload that model's .keras file."
        )
    for weight, name in zip(keras3_model.weights, names):
        weight.assign(reader.get_tensor(name))
    keras_flavours.copy_weights_back(keras3_model, keras_model)
    return keras_model


def _rebuildable_config(keras_model, custom_objects):
    """The model's config, when Keras rebuilds the same model from it; else None.

    Keras 3 cannot rebuild every model it can call: a subclassed model has no
    config to speak of, a custom layer may lack `get_config` or registration,
    and some activations (`tf.nn.softmax`, a lambda) do not deserialize. Those
    are called as they are (`_CallsModel`). A subclassed model that was never
    built has no weights to carry over; it is rebuilt in every mode, as the
    original did, and so needs a config.
    """
    graph_network = isinstance(keras_model, (keras.Sequential, keras_internals.Functional))
    if keras_model.built and not graph_network:
        return None
    try:
        config = keras_model.get_config()
        with keras.saving.custom_object_scope(custom_objects or {}):
            rebuilt = _from_config(type(keras_model), copy.deepcopy(config))
    except Exception as error:  # whatever Keras raises, a built model can be called
        if keras_model.built:
            return None
        if graph_network:
            raise
        raise ValueError(
            "Subclassed `Model`s passed to `model_to_estimator` must implement "
            "`Model.get_config` and `Model.from_config`, or be built (call the model "
            "on a batch once) so that the Estimator can call it as it is."
        ) from error
    if keras_model.built and not _computes_the_same(rebuilt, keras_model):
        return None
    return config


def _computes_the_same(rebuilt, model):
    """Whether `rebuilt`, given `model`'s weights, maps a sample batch as `model` does.

    A config can give back the same weights and still another model: a custom
    layer whose `get_config` leaves a setting out comes back with its default.
    """
    if _layout(rebuilt) != _layout(model):
        return False
    specs = getattr(model, "inputs", None) or []
    if not specs or not all(str(spec.dtype).startswith(_NUMERIC) for spec in specs):
        return True
    random = np.random.RandomState(0)
    sample = [random.uniform(0, 2, [d or 2 for d in s.shape]).astype(s.dtype) for s in specs]
    sample = sample[0] if len(sample) == 1 else sample
    rebuilt.set_weights(model.get_weights())
    try:
        expected = tf.nest.flatten(model(sample, training=False))
        actual = tf.nest.flatten(rebuilt(sample, training=False))
    except Exception:  # a model that takes its inputs otherwise: its config is trusted
        return True
    return all(np.allclose(a, e, rtol=1e-4, atol=1e-5) for a, e in zip(actual, expected))


def _layout(model):
    return [(weight.name, tuple(weight.shape), weight.dtype) for weight in model.weights]


def _checkpoint_keys(model_fn):
    """The checkpoint key of each weight of the model, in `model.weights` order, and
    the `KeyAliases` under which 2.15's model_to_estimator kept the model's variables.

    The model and its optimizer are built as the model_fn builds them, in a
    graph of their own, so the keys are those the Estimator's variables get.
    """
    store = VariableStore()
    found = []

    def build():
        with store.scope(), model_fn.custom_object_scope():
            model = model_fn.rebuild(features=None)
            optimizer = None
            if model_fn.optimizer_name is not None:
                optimizer = model_fn.compile(model, ModeKeys.TRAIN)
                optimizer.build(model.trainable_variables)
            names = store.names_of(model.weights)
            aliases = keras_checkpoint_keys.tf215_aliases(
                model,
                names,
                optimizer,
                store.names_of(optimizer.variables) if optimizer is not None else (),
                model_fn.optimizer_name,
                layout=model.user_model if isinstance(model, _CallsModel) else None,
            )
            found.extend([names, aliases])

    tf.compat.v1.wrap_function(build, signature=[])
    names, aliases = found
    return names, checkpoints.KeyAliases(aliases, keras_checkpoint_keys.ADVICE)


def _save_first_checkpoint(keras_model, names, model_dir):
    """Writes the Keras model's weights as `keras/keras_model.ckpt`; warm-start settings for it."""
    directory = os.path.join(model_dir, "keras")
    path = os.path.join(directory, "keras_model.ckpt")
    if tf.train.latest_checkpoint(directory) is None:
        with tf.init_scope():
            variables = {
                name: tf.Variable(weight.numpy(), name=name)
                for name, weight in zip(names, keras_model.weights)
            }
        tf.io.gfile.makedirs(directory)
        checkpoints.name_based_saver(variables).save(None, path, write_meta_graph=False)
    return WarmStartSettings(path, vars_to_warm_start=[re.escape(n) + "$" for n in names])


def _from_config(model_class, config):
    """`model_class.from_config(config)`, a Sequential's weights named `hidden/kernel`.

    Keras 3.16 deserializes a Sequential's layers under the model's name scope,
    so their weights' paths, and with them our checkpoint keys and the
    optimizer's slot names, start with the model's auto-name
    (`sequential_1/hidden/kernel`, `optimizer/sequential_1_hidden_kernel_momentum`).
    The original and Keras <= 3.15 named them `hidden/kernel`, whatever the
    model was called: here the layers are deserialized, and so built, outside
    the model, as Keras 3.15's `Sequential.from_config` did.
    """
    if (
        not issubclass(model_class, keras.Sequential)
        or model_class.from_config.__func__ is not keras.Sequential.from_config.__func__
        or any("module" not in layer for layer in config.get("layers", ()))
    ):
        return model_class.from_config(config)
    model = model_class(name=config["name"])
    for layer in config["layers"]:
        model.add(keras.saving.deserialize_keras_object(layer))
    shape = config.get("build_input_shape")
    if not model.built and shape and isinstance(shape, (tuple, list)):
        model.build(shape)
    return model


class _KerasModelFn:
    """The model_fn: rebuilds the Keras model in the traced graph and runs it for a mode."""

    def __init__(
        self, keras_model, custom_objects=None, metric_names_map=None, export_outputs=None
    ):
        # Configs are read now, eagerly: optimizers read variables to serialize.
        self._model = keras_model
        self._model_class = type(keras_model)
        self._model_config = _rebuildable_config(keras_model, custom_objects)
        self._weight_keys = [_weight_key(keras_model, weight) for weight in keras_model.weights]
        self._compile_config = keras_model.get_compile_config()
        self._optimizer = getattr(keras_model, "optimizer", None)
        self._optimizer_config = self._optimizer.get_config() if self._optimizer else None
        self._custom_objects = dict(custom_objects or {})
        self._metric_names_map = metric_names_map
        self._export_outputs = export_outputs
        self._input_names = [t.name for t in getattr(keras_model, "inputs", None) or []]
        self._output_names = _output_names(keras_model)
        self.optimizer_name = (self._optimizer_config or {}).get("name")

    def custom_object_scope(self):
        return keras.saving.custom_object_scope(self._custom_objects)

    def rebuild(self, features):
        """A new model from the config; a subclassed one is built by a call on `features`.

        A model without a usable config is not rebuilt: a `_CallsModel` owns
        this Estimator's copy of its weights and calls it.
        """
        if self._model_config is None:
            return _CallsModel(self._model, self._weight_keys)
        # from_config consumes its argument.
        model = _from_config(self._model_class, copy.deepcopy(self._model_config))
        if not model.built and features is not None:
            model(features)
        return model

    def __call__(self, features, labels, mode):
        with self.custom_object_scope():
            features, sample_weight = _split_sample_weights(features)
            inputs = self._model_inputs(features)
            model = self.rebuild(inputs)
            if mode == ModeKeys.PREDICT:
                return self._spec(mode, model(inputs, training=False))
            optimizer = self.compile(model, mode)
            labels = self._model_targets(labels)
            training = mode == ModeKeys.TRAIN
            outputs, loss, update = _forward(model, inputs, labels, sample_weight, training)
            if training:
                train_op = _minimize(model, optimizer, loss, update)
                _loss_summary(loss)
                return self._spec(mode, outputs, loss=loss, train_op=train_op)
            metrics = self._metrics(model, labels, outputs, sample_weight)
            return self._spec(mode, outputs, loss=loss, eval_metric_ops=metrics)

    def compile(self, model, mode):
        """Compiles `model` as the original was; returns a fresh optimizer when training.

        Keras's loss and metric trackers are evaluation state, not weights.
        """
        config = copy.deepcopy(self._compile_config)
        config.pop("optimizer")
        optimizer = None
        if mode == ModeKeys.TRAIN:
            # Its own class, which need not be registered (a `MyAdam(Adam)`), and a
            # fixed name: auto-names (adam_3) would change the checkpoint keys.
            optimizer_config = dict(copy.deepcopy(self._optimizer_config), name=_OPTIMIZER_NAME)
            optimizer = type(self._optimizer).from_config(optimizer_config)
        with _evaluation_state():
            model.compile(optimizer=optimizer, **keras.saving.deserialize_keras_object(config))
        return optimizer

    def _model_inputs(self, features):
        """Features as the model takes them: by input name, as the original matched them."""
        if not isinstance(features, dict):
            return features
        names = self._input_names
        if not names:  # a subclassed model takes the dict, as the original gave it
            return features
        if len(names) == 1 and len(features) == 1:
            return next(iter(features.values()))
        missing = set(names) - set(features)
        if not names or missing:
            raise KeyError(
                "The dictionary passed into features does not cover requested inputs "
                f"keys defined in the keras model. Expected keys: {sorted(names)}; "
                f"features keys: {sorted(features)}; missing: {sorted(missing)}. "
                "Key the features by the names of the model's keras.Input layers."
            )
        return {name: features[name] for name in names}

    def _model_targets(self, labels):
        if not isinstance(labels, dict) or len(self._output_names) < 2:
            return next(iter(labels.values())) if isinstance(labels, dict) else labels
        missing = set(self._output_names) - set(labels)
        if missing:
            raise KeyError(
                "The dictionary passed into labels does not cover requested outputs "
                f"keys defined in the keras model. Expected keys: {self._output_names}; "
                f"labels keys: {sorted(labels)}; missing: {sorted(missing)}. "
                "Key the labels by the names of the model's output layers."
            )
        return [labels[name] for name in self._output_names]

    def _metrics(self, model, labels, outputs, sample_weight):
        """Compiled metric name (or its `metric_names_map` name) -> Keras metric."""
        compiled = keras_internals.compiled_metrics(model)
        if compiled is None:
            return {}
        with _evaluation_state():
            compiled.update_state(labels, outputs, sample_weight)
        metrics = dict(zip(compiled.result(), compiled.metrics))
        return _renamed(metrics, self._metric_names_map)

    def _spec(self, mode, outputs, **kwargs):
        flat = tf.nest.flatten(outputs)
        predictions = (
            dict(outputs) if isinstance(outputs, dict) else dict(zip(self._output_names, flat))
        )
        return EstimatorSpec(
            mode,
            predictions=predictions,
            export_outputs=self._serving_outputs(predictions),
            **kwargs,
        )

    def _serving_outputs(self, predictions):
        outputs = {_SERVING_KEY: PredictOutput(predictions)}
        unknown = set(self._export_outputs or ()) - set(predictions)
        if unknown:
            raise KeyError(
                f"export_outputs names {sorted(unknown)}, which are not outputs of the "
                f"keras model; its outputs are {sorted(predictions)}."
            )
        for key, output_class in (self._export_outputs or {}).items():
            outputs[key] = output_class(predictions[key])
        return outputs


class _CallsModel(keras.Model):
    """Owns the Estimator's copy of each weight of `model`, and calls `model` on them.

    For a model Keras cannot rebuild from its config. Each call runs `model`
    in a `keras.StatelessScope` that maps its weights to this copy's values,
    so the model the user passed is neither read from nor written to: the
    gradients reach this copy, whose variables the Estimator's store created
    and checkpoints under `<layer>/<weight>` keys, and new values of
    non-trainable weights (batch-norm statistics) come back as this copy's.
    Its `weights` are in the order of the model's, which seed them.

    Args:
        model: a built Keras 3 model.
        keys: the checkpoint key of each of `model.weights`.
    """

    def __init__(self, model, keys):
        super().__init__(name="keras_model")
        weights = {id(weight) for weight in model.weights}
        # Random-seed state (a Dropout's): copied too, so each step draws anew.
        state = [v for v in model.non_trainable_variables if id(v) not in weights]
        self._user = _Untracked(model, model.weights + state)
        self._copies = [_variable_like(weight, key) for weight, key in zip(model.weights, keys)]
        with tf.init_scope():
            initial_values = [v.numpy() for v in state]
        self._state_copies = [
            _variable_like(v, _weight_key(model, v), value)
            for v, value in zip(state, initial_values)
        ]

    @property
    def user_model(self):
        """The model this one calls."""
        return self._user.model

    @property
    def weights(self):
        return list(self._copies)

    def call(self, inputs, training=None):
        copies = self._copies + self._state_copies
        # `.value` is the outer stateless scope's value when there is one (training).
        mapping = [(v, copy_.value) for v, copy_ in zip(self._user.variables, copies)]
        with keras.StatelessScope(state_mapping=mapping, collect_losses=True) as scope:
            outputs = self.user_model(inputs, training=training)
            losses = self.user_model.losses
        for (variable, value), copy_ in zip(mapping, copies):
            new_value = scope.get_current_value(variable)
            if not variable.trainable and new_value is not None and new_value is not value:
                copy_.assign(new_value)
        for loss in losses:
            self.add_loss(loss)
        return outputs


class _Untracked:
    """Holds a Keras model and its variables out of Keras's tracking: they are the
    user's, not the Estimator's."""

    def __init__(self, model, variables):
        self.model = model
        self.variables = variables


def _variable_like(variable, key, initial_value=None):
    """A Keras variable shaped as `variable`, whose path (and store name) is `key`."""
    *scopes, name = key.split("/")
    with contextlib.ExitStack() as stack:
        for scope in scopes:
            stack.enter_context(keras.name_scope(scope))
        new = keras.Variable(
            initializer=keras.initializers.Zeros() if initial_value is None else initial_value,
            shape=variable.shape,
            dtype=variable.dtype,
            trainable=variable.trainable,
            name=name,
        )
    new.constraint = variable.constraint
    return new


def _weight_key(keras_model, weight):
    """`<layer>/<weight>`: the weight's path, without the model's own name."""
    prefix = keras_model.name + "/"
    return weight.path[len(prefix) :] if weight.path.startswith(prefix) else weight.path


def _output_names(keras_model):
    """Prediction keys: the output layers' names, as the original used."""
    names = getattr(keras_model, "output_names", None)
    if names:
        return list(names)
    if isinstance(keras_model, keras.Sequential) and keras_model.layers:
        return [keras_model.layers[-1].name]
    outputs = getattr(keras_model, "outputs", None) or [None]
    return [f"output_{index}" for index in range(1, len(outputs) + 1)]


def _split_sample_weights(features):
    if isinstance(features, dict) and set(features) == _SAMPLE_WEIGHT_KEYS:
        return features["features"], features["sample_weights"]
    return features, None


@contextlib.contextmanager
def _evaluation_state():
    """Variables created here are local: reset per evaluation, never checkpointed."""

    def creator(next_creator, **kwargs):
        collections = list(kwargs.get("collections") or [])
        collections.append(tf.compat.v1.GraphKeys.LOCAL_VARIABLES)
        return next_creator(**dict(kwargs, collections=collections))

    with tf.variable_creator_scope(creator):
        yield


def _forward(model, inputs, labels, sample_weight, training):
    """Outputs and compiled loss, computed from one read of every variable.

    Runs in a `keras.StatelessScope`: the reads are what the gradients are
    taken with respect to, and the new values of non-trainable variables
    (batch-norm statistics) come back as tensors for the train op to assign,
    as Keras's own stateless training step does.
    """
    trainable = [tf.convert_to_tensor(v) for v in model.trainable_variables]
    non_trainable = [tf.convert_to_tensor(v) for v in model.non_trainable_variables]
    mapping = list(zip(model.trainable_variables, trainable))
    mapping += list(zip(model.non_trainable_variables, non_trainable))
    with _evaluation_state():
        with keras.StatelessScope(state_mapping=mapping, collect_losses=True) as scope:
            outputs = model(inputs, training=training)
            loss = model.compute_loss(inputs, labels, outputs, sample_weight, training=training)
    new_values = [scope.get_current_value(v) for v in model.non_trainable_variables]
    update = _Update(trainable, non_trainable, new_values)
    return outputs, tf.cast(loss, tf.float32), update


class _Update:
    """The variable reads of a forward pass and the non-trainable values it produced."""

    def __init__(self, trainable, non_trainable, new_non_trainable):
        self.trainable = trainable
        self.reads = trainable + non_trainable
        self.new_non_trainable = new_non_trainable


def _loss_summary(loss):
    """The training loss under the TensorBoard tag `loss`.

    The Estimator's own summary would be named after a free op name; Keras's
    loss computation has taken `loss` and `loss_1` (2.15 wrote `loss_1`).
    """
    summary = tf.raw_ops.ScalarSummary(tags="loss", values=loss)
    tf.compat.v1.add_to_collection(tf.compat.v1.GraphKeys.SUMMARIES, summary)


def _minimize(model, optimizer, loss, update):
    """The train op: the optimizer's step, the non-trainable updates, then the global step.

    Keras optimizers update slots and weights in several ops that must run in
    order; a TF1-style graph has no automatic ordering, so the step runs in a
    `tf.function` (which has it). Its inputs make it wait for the whole
    forward and backward pass, so no read sees a half-updated model.
    """
    variables = model.trainable_variables
    optimizer.build(variables)
    gradients = tf.gradients(loss, update.trainable)

    @tf.function(autograph=False)
    def apply(gradients, new_non_trainable):
        optimizer.apply(gradients, variables)
        for variable, value in zip(model.non_trainable_variables, new_non_trainable):
            variable.assign(value)
        return tf.constant(True)

    with tf.control_dependencies([loss] + update.reads):
        applied = apply(gradients, update.new_non_trainable)
    with tf.control_dependencies([applied]):
        return tf.compat.v1.train.get_global_step().assign_add(1, read_value=False)


def _renamed(metrics, metric_names_map):
    if not metric_names_map:
        return metrics
    unknown = set(metrics) - set(metric_names_map)
    if unknown:
        raise ValueError(
            "Invalid `metric_names_map`. The following keras model metric names:"
            f'"{sorted(unknown)}" do not exist in the `metric_names_map` dictionary'
        )
    extra = set(metric_names_map) - set(metrics)
    if extra:
        raise ValueError(
            "Invalid `metric_names_map`. There are unexpected keys in the "
            f"`metric_names_map` dictionary. Expected keys: {sorted(metrics)}, "
            f"Received: {sorted(extra)}"
        )
    return {metric_names_map[name]: metric for name, metric in metrics.items()}
