"""`tf.keras.optimizers.legacy.Optimizer`: Keras 2's optimizer protocol, for TF1 graphs.

Programs of the TF 2.11-2.15 era trained estimators with the legacy Keras 2
optimizers, and some subclassed them the Keras 2 way: `_set_hyper` /
`_get_hyper` for hyperparameters, `_create_slots` with `add_slot`,
`_prepare_local` for per-step coefficients, `_resource_apply_dense` /
`_resource_apply_sparse` for the maths, or `get_updates` for all of it.
Keras 3 dropped that protocol; this base class keeps it, so those subclasses
and the built-in optimizers (`keras2_optimizers`) run inside a `model_fn`.

Variables keep Keras 2's names: hyperparameters and slots live under the
optimizer's name scope (`training/Adam/learning_rate`,
`training/Adam/dnn/logits/kernel/m`), so checkpoints written by the original
resume. A traced `model_fn` graph gets its own variables (the variable store
hands back the same ones on every trace, and records them in that graph);
eagerly, they are made once.
"""

from __future__ import annotations

import re
import weakref

import keras
import numpy as np
import tensorflow as tf

from tfestimator_compat.engine import keras_flavours
from tfestimator_compat.engine.internals import keras_internals
from tfestimator_compat.engine.internals import tensorflow_internals as tf_internals

_REPLICA_SUFFIX = re.compile(r"/replica_\d+$")
_ALLOWED_KWARGS = frozenset({"clipnorm", "clipvalue", "lr", "decay", "global_clipnorm"})


class Optimizer:
    """Base class of the Keras 2 (legacy) optimizers.

    Subclasses set hyperparameters with `_set_hyper` in `__init__`, create
    slots with `add_slot` in `_create_slots`, and update one variable in
    `_resource_apply_dense` / `_resource_apply_sparse`, reading their
    coefficients from `apply_state` (filled by `_prepare_local`).

    Args:
        name: the name scope of the optimizer's variables.
        gradient_aggregator: `fn(grads_and_vars)` summing gradients across
            replicas; default: the strategy's all-reduce.
        gradient_transformers: functions applied to `grads_and_vars` after
            aggregation, before clipping.
        **kwargs: `clipnorm`, `clipvalue`, `global_clipnorm`, `decay`, `lr`.

    Set `iterations` to the global step to have each update advance it, as
    canned estimators do; otherwise the optimizer counts its own `iter`.
    """

    def __init__(self, name, gradient_aggregator=None, gradient_transformers=None, **kwargs):
        for key, value in kwargs.items():
            if key not in _ALLOWED_KWARGS:
                raise TypeError(
                    f"Unexpected keyword argument passed to optimizer: {key}. Allowed kwargs "
                    f"are {sorted(_ALLOWED_KWARGS)}."
                )
            if value is not None and not callable(value) and value < 0:
                raise ValueError(f"Expected {key} >= 0, received: {value}")
        self._name = name
        self._hyper = {}
        self._slot_names = []
        self._iterations = None
        self._graph = None
        self._use_locking = True
        self._initial_decay = kwargs.pop("decay", 0.0)
        self.gradient_aggregator = gradient_aggregator
        self.gradient_transformers = list(gradient_transformers or [])
        self.clipnorm = kwargs.pop("clipnorm", None)
        self.global_clipnorm = kwargs.pop("global_clipnorm", None)
        if self.clipnorm is not None and self.global_clipnorm is not None:
            raise ValueError("Cannot accept both `clipnorm` and `global_clipnorm`.")
        self.clipvalue = kwargs.pop("clipvalue", None)

    @property
    def name(self) -> str:
        return self._name

    def __str__(self) -> str:
        # Keras 3's `model.compile()` rejects any optimizer but its own with "Could not
        # interpret optimizer identifier: {optimizer}"; this text finishes that sentence
        # (and others naming the optimizer) with what to do, as Keras's own ImportError
        # said before the shim made these classes.
        cls = type(self)
        own = cls.__module__.startswith("tfestimator_compat.")
        name = f"tf.keras.optimizers.legacy.{cls.__name__}" if own else cls.__qualname__
        instead = f"keras.optimizers.{cls.__name__}" if own else "a keras.optimizers.Optimizer"
        return (
            f"{name} (a Keras 2 optimizer: it trains tf.estimator models, not Keras 3 "
            f"models; for a Keras 3 model.compile() use {instead}, or install tf_keras and "
            "set TF_USE_LEGACY_KERAS=1 to keep a Keras 2 model; see "
            "migration_guide/replacements.md#keras-2-legacy-optimizers)"
        )

    # Hyperparameters: `opt.learning_rate`, `opt.lr = 0.1`, as in Keras 2.

    def _set_hyper(self, name, value):
        self._hyper[name] = value
        variable = self._state()["hypers"].get(name)
        if variable is not None and tf.executing_eagerly() and not callable(value):
            variable.assign(value)

    def _get_hyper(self, name, dtype=None):
        """The hyperparameter: its variable in this graph once made, else its value."""
        value = self._state()["hypers"].get(name, self._hyper[name])
        if keras_flavours.is_learning_rate_schedule(value):
            return value
        if callable(value):
            value = value()
        return tf.cast(value, dtype) if dtype is not None else value

    def __getattr__(self, name):
        # Only reached when normal lookup fails.
        hyper = self.__dict__.get("_hyper", {})
        name = "learning_rate" if name == "lr" else name
        if name in hyper:
            return self._get_hyper(name)
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name, value):
        name = "learning_rate" if name == "lr" else name
        if name in self.__dict__.get("_hyper", {}):
            self._set_hyper(name, value)
        else:
            super().__setattr__(name, value)

    def _serialize_hyperparameter(self, name):
        value = self._hyper[name]
        if keras_flavours.is_learning_rate_schedule(value):
            return keras_flavours.serialize_schedule(value)
        if callable(value):
            return value()
        return value

    def get_config(self) -> dict:
        config = {"name": self._name}
        if self.clipnorm is not None:
            config["clipnorm"] = self.clipnorm
        if self.clipvalue is not None:
            config["clipvalue"] = self.clipvalue
        if self.global_clipnorm is not None:
            config["global_clipnorm"] = self.global_clipnorm
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        if isinstance(config.get("learning_rate"), dict):
            config["learning_rate"] = keras.optimizers.schedules.deserialize(
                config["learning_rate"], custom_objects=custom_objects
            )
        return cls(**config)

    # Variables, made once per graph.

    def _state(self) -> dict:
        """This graph's variables: hyperparameters, slots and the own step counter.

        Asked eagerly after a graph used it (`opt.iterations` once `train()` is
        done), the last graph's: in the original, the optimizer kept the
        variables of the graph that last built its update.
        """
        graph = tf.compat.v1.get_default_graph()
        if self._graph is not None and tf.executing_eagerly():
            return self._variables
        if self._graph is None or self._graph() is not graph:
            self._graph = weakref.ref(graph)
            self._variables = {"hypers": {}, "slots": {}, "weights": [], "iter": None}
        return self._variables

    @property
    def iterations(self):
        """The step counter: the variable it was given, else its own `iter`."""
        if self._iterations is not None:
            return self._iterations
        state = self._state()
        if state["iter"] is None:
            state["iter"] = self.add_weight("iter", [], tf.int64, initializer=0)
        return state["iter"]

    @iterations.setter
    def iterations(self, variable):
        self._iterations = variable

    def add_weight(self, name, shape, dtype=tf.float32, initializer="zeros", trainable=False):
        """A non-slot variable under the current name scope, as Keras 2 made them."""
        variable = tf.Variable(
            _initial_value(initializer, shape, dtype), name=name, trainable=trainable
        )
        self._state()["weights"].append(variable)
        return variable

    def add_slot(self, var, slot_name, initializer="zeros", shape=None):
        """The slot `slot_name` of `var`: `<optimizer scope>/<var name>/<slot_name>`."""
        if slot_name not in self._slot_names:
            self._slot_names.append(slot_name)
        slots = self._state()["slots"].setdefault(_var_key(var), {})
        if slot_name not in slots:
            shape = var.shape.as_list() if shape is None else shape
            dtype = var.dtype.base_dtype
            slots[slot_name] = tf.Variable(
                _initial_value(initializer, shape, dtype),
                name=f"{_op_name(var)}/{slot_name}",
                trainable=False,
            )
        return slots[slot_name]

    def get_slot(self, var, slot_name):
        slots = self._state()["slots"].get(_var_key(var), {})
        if slot_name not in slots:
            raise KeyError(
                f"Variable {_op_name(var)} has no slot {slot_name!r} in this graph; "
                "create it with `add_slot` in `_create_slots`."
            )
        return slots[slot_name]

    def get_slot_names(self) -> list:
        return list(self._slot_names)

    def variables(self) -> list:
        state = self._state()
        slots = [slot for by_name in state["slots"].values() for slot in by_name.values()]
        return list(state["hypers"].values()) + state["weights"] + slots

    @property
    def weights(self) -> list:
        return self.variables()

    def _create_hypers(self):
        hypers = self._state()["hypers"]
        for name, value in sorted(self._hyper.items()):
            if name in hypers or callable(value) or isinstance(value, (tf.Tensor, tf.Variable)):
                continue
            hypers[name] = tf.Variable(
                lambda value=value: tf.constant(value, tf.float32), name=name, trainable=False
            )

    def _create_slots(self, var_list):
        """Creates each variable's slots with `add_slot`; none by default."""

    def _create_all_weights(self, var_list):
        _ = self.iterations
        self._create_hypers()
        self._create_slots(var_list)

    # Gradients.

    def get_gradients(self, loss, params):
        """The clipped gradients of `loss` for `params` (a TF1 graph's `tf.gradients`)."""
        params = [_tf_variable(param) for param in params]
        grads = tf.gradients(loss, params)
        for grad, param in zip(grads, params):
            if grad is None:
                raise ValueError(
                    f"Variable {param.name} has `None` for gradient. Please make sure that "
                    "all of your ops have a gradient defined (i.e. are differentiable)."
                )
        return self._clipped(grads)

    def get_updates(self, loss, params):
        """`[train_op]`, as the canned estimators of 2.11-2.15 asked for it."""
        grads = self.get_gradients(loss, params)
        params = [_tf_variable(param) for param in params]
        return [self.apply_gradients(zip(grads, params))]

    def minimize(self, loss, var_list, grad_loss=None, name=None, tape=None):
        """The op that applies the gradients of `loss` (a tensor or a callable).

        In a TF1 graph (a `model_fn`) a loss tensor needs no tape; eagerly,
        pass a callable or the `tape` that recorded it.
        """
        grads_and_vars = self._compute_gradients(loss, var_list, grad_loss, tape)
        return self.apply_gradients(grads_and_vars, name=name)

    def _compute_gradients(self, loss, var_list, grad_loss, tape):
        if callable(loss):
            tape = tape if tape is not None else tf.GradientTape()
            with tape:
                loss = loss()
        if callable(var_list):
            var_list = var_list()
        var_list = [_tf_variable(var) for var in tf.nest.flatten(var_list)]
        if tape is not None:
            grads = tape.gradient(loss, var_list, grad_loss)
        elif tf.executing_eagerly():
            raise ValueError(
                "`tape` is required when a `Tensor` loss is passed eagerly: pass the "
                "`tf.GradientTape` that computed it, or the loss as a callable."
            )
        else:
            grads = tf.gradients(loss, var_list, grad_ys=grad_loss)
        return list(zip(grads, var_list))

    def _clipped(self, grads):
        if self.clipnorm is not None:
            grads = [tf.clip_by_norm(grad, self.clipnorm) for grad in grads]
        if self.global_clipnorm is not None:
            grads, _ = tf.clip_by_global_norm(grads, self.global_clipnorm)
        if self.clipvalue is not None:
            clip = self.clipvalue
            grads = [_map_values(lambda g: tf.clip_by_value(g, -clip, clip), g) for g in grads]
        return grads

    # Updates.

    def apply_gradients(self, grads_and_vars, name=None, experimental_aggregate_gradients=True):
        """Updates each variable, then advances `iterations` by one.

        In a replica of a `tf.distribute` strategy the gradients are first
        combined across replicas (unless `experimental_aggregate_gradients` is
        False), as Keras 2 did, then every copy of each variable is updated.
        """
        grads_and_vars = [
            (grad, _tf_variable(var)) for grad, var in grads_and_vars if grad is not None
        ]
        if not grads_and_vars:
            raise ValueError("No gradients provided for any variable.")
        replica = _replica_context()
        if replica is None:
            return self._apply(grads_and_vars, _update_in_place, name)
        grads = [grad for grad, _ in grads_and_vars]
        if experimental_aggregate_gradients:
            grads = self._aggregated(replica, grads_and_vars)
        variables = [var for _, var in grads_and_vars]

        def apply_in_cross_replica_context(strategy, grads):
            def update(var, fn, grad):
                return strategy.extended.update(var, fn, args=(grad,), group=True)

            return self._apply(list(zip(grads, variables)), update, name)

        return replica.merge_call(apply_in_cross_replica_context, args=(grads,))

    def _aggregated(self, replica, grads_and_vars):
        if self.gradient_aggregator is not None:
            return [grad for grad, _ in self.gradient_aggregator(grads_and_vars)]
        reduction = tf.compat.v1.distribute.get_loss_reduction()
        return replica.all_reduce(reduction, [grad for grad, _ in grads_and_vars])

    def _apply(self, grads_and_vars, update, name):
        for transform in self.gradient_transformers:
            grads_and_vars = transform(grads_and_vars)
        grads = self._clipped([grad for grad, _ in grads_and_vars])
        var_list = [var for _, var in grads_and_vars]
        with tf.name_scope(self._scope_name()):
            self._create_all_weights(var_list)
            apply_state = self._prepare(var_list)
            updates = []
            for grad, var in zip(grads, var_list):
                with tf.name_scope("update_" + _op_name(var)):
                    updates.append(update(var, self._update_fn(apply_state), grad))
            with tf.control_dependencies(updates):
                step = self.iterations.assign_add(1)
        return tf.group(step, name=name) if name else step

    def _scope_name(self) -> str:
        """Its name scope: its name, uniquified by the graph unless `reuse_name_scope`.

        A converted Keras 3 optimizer (`keras_optimizers_in_graph`) reuses its
        scope, so its variables keep one name however many scopes with a
        similar name the graph already has.
        """
        if not self.__dict__.get("reuse_name_scope"):
            return self._name
        current = tf.compat.v1.get_default_graph().get_name_scope()
        return f"{current}/{self._name}/" if current else f"{self._name}/"

    def _update_fn(self, apply_state):
        def apply(var, grad):
            if isinstance(grad, tf.IndexedSlices):
                return self._resource_apply_sparse_duplicate_indices(
                    grad.values, var, grad.indices, apply_state=apply_state
                )
            return self._resource_apply_dense(grad, var, apply_state=apply_state)

        return apply

    def _prepare(self, var_list) -> dict:
        apply_state = {}
        for var in var_list:
            key = (var.device, var.dtype.base_dtype)
            if key not in apply_state:
                apply_state[key] = {}
                self._prepare_local(key[0], key[1], apply_state)
        return apply_state

    def _prepare_local(self, var_device, var_dtype, apply_state):
        if "learning_rate" in self._hyper:
            lr_t = tf.identity(self._decayed_lr(var_dtype))
            apply_state[(var_device, var_dtype)]["lr_t"] = lr_t

    def _fallback_apply_state(self, var_device, var_dtype):
        apply_state = {(var_device, var_dtype): {}}
        self._prepare_local(var_device, var_dtype, apply_state)
        return apply_state[(var_device, var_dtype)]

    def _coefficients(self, var, apply_state):
        key = (var.device, var.dtype.base_dtype)
        return (apply_state or {}).get(key) or self._fallback_apply_state(*key)

    def _decayed_lr(self, var_dtype):
        lr_t = self._get_hyper("learning_rate", None)
        if keras_flavours.is_learning_rate_schedule(lr_t):
            lr_t = lr_t(tf.cast(self.iterations, tf.float32))
        lr_t = tf.cast(lr_t, var_dtype)
        if self._initial_decay > 0.0:
            local_step = tf.cast(self.iterations, var_dtype)
            lr_t = lr_t / (1.0 + tf.cast(self._initial_decay, var_dtype) * local_step)
        return lr_t

    def _resource_apply_dense(self, grad, handle, apply_state):
        raise NotImplementedError(
            f"{type(self).__name__} must implement `_resource_apply_dense(grad, var, "
            "apply_state)` (or override `get_updates`)."
        )

    def _resource_apply_sparse_duplicate_indices(self, grad, handle, indices, **kwargs):
        """Sums the rows of a sparse gradient that share an index, then applies it."""
        unique, positions = tf.unique(indices)
        summed = tf.math.unsorted_segment_sum(grad, positions, tf.shape(unique)[0])
        return self._resource_apply_sparse(summed, handle, unique, **kwargs)

    def _resource_apply_sparse(self, grad, handle, indices, apply_state):
        raise NotImplementedError(
            f"{type(self).__name__} must implement `_resource_apply_sparse(grad, var, "
            "indices, apply_state)` to train embeddings."
        )

    def _resource_scatter_add(self, x, indices, values):
        """Adds `values` to rows `indices` of `x`; returns `x` read after the update."""
        update = tf.raw_ops.ResourceScatterAdd(resource=x.handle, indices=indices, updates=values)
        with tf.control_dependencies([update]):
            return x.read_value()

    def _resource_scatter_update(self, x, indices, values):
        update = tf.raw_ops.ResourceScatterUpdate(
            resource=x.handle, indices=indices, updates=values
        )
        with tf.control_dependencies([update]):
            return x.read_value()


def _initial_value(initializer, shape, dtype):
    """A callable initial value, so the variable store can make it where it belongs."""
    dtype = tf.as_dtype(dtype)
    if isinstance(initializer, (int, float, np.number)):
        return lambda: tf.constant(np.full(shape, initializer, dtype.as_numpy_dtype))
    if isinstance(initializer, str):
        initializer = keras.initializers.get(initializer)
    return lambda: tf.convert_to_tensor(initializer(shape, dtype=dtype), dtype=dtype)


def _replica_context():
    """The replica context when running in a replica of a strategy, else None."""
    if not tf.distribute.has_strategy() or tf.distribute.in_cross_replica_context():
        return None
    return tf.distribute.get_replica_context()


def _update_in_place(var, fn, grad):
    return fn(var, grad)


def _tf_variable(variable):
    """The `tf.Variable` behind a Keras 3 variable, or the variable itself."""
    return keras_internals.backing_variable(variable) if hasattr(variable, "path") else variable


def _var_key(var):
    """One key for a variable and each of its per-replica copies, as Keras 2 had it."""
    container = tf_internals.distributed_container(var)
    if container is not None:
        var = container() or var
    if tf_internals.in_graph_mode(var) or not tf.executing_eagerly():
        # A strategy's per-device copy `dense/kernel/replica_1` shares `dense/kernel`'s slots.
        return _REPLICA_SUFFIX.sub("", _op_name(var))
    return tf_internals.unique_id(var)


def _op_name(variable) -> str:
    """`dnn/logits/kernel` for a variable named `dnn/logits/kernel:0`."""
    return variable.name.split(":")[0]


def _map_values(fn, grad):
    if isinstance(grad, tf.IndexedSlices):
        return tf.IndexedSlices(fn(grad.values), grad.indices, grad.dense_shape)
    return fn(grad)
