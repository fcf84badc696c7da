"""The original's Keras 2 optimizers, rebuilt to run in a traced TF1 graph.

Canned estimators of tensorflow-estimator 2.x trained with Keras 2 (legacy)
optimizers whose `iterations` was the global step. Their update maths and
their variables (`training/Adagrad/<variable>/accumulator`,
`training/Adagrad/learning_rate`, ...) are in every checkpoint those
estimators wrote. Keras 3 optimizers cannot be run in a TF1 graph and name
their variables differently, so these classes reproduce the Keras 2 ones:
the same hyperparameters and defaults, the same fused training ops, and
slots and hyperparameters as variables under the same names, so original
checkpoints resume and train on with the same numbers.

Each optimizer creates its variables under the name scope it is used in
plus its name (heads use the top-level scope `training`).
"""

from __future__ import annotations

import keras
import numpy as np
import tensorflow as tf


class Optimizer:
    """Base class: gradients, clipping, decay, sparse updates and variables.

    Args:
        learning_rate: float, a Keras `LearningRateSchedule` (called with the
            step), or a callable of no argument returning the rate.
        name: the name scope of the optimizer's variables; default the class name.
        decay: inverse-time decay of the learning rate per step.
        clipnorm: clip each gradient to this norm.
        clipvalue: clip each gradient element to `[-clipvalue, clipvalue]`.
        global_clipnorm: clip all gradients together to this global norm.

    Set `iterations` to the global step to have each update advance it, as
    the canned estimators do; otherwise the optimizer counts its own `iter`.
    """

    def __init__(
        self,
        learning_rate=0.001,
        name=None,
        decay=0.0,
        clipnorm=None,
        clipvalue=None,
        global_clipnorm=None,
    ):
        if decay < 0.0:
            raise ValueError(f"decay cannot be less than 0. Given: {decay}")
        if clipnorm is not None and global_clipnorm is not None:
            raise ValueError("Cannot accept both `clipnorm` and `global_clipnorm`.")
        self._name = name or type(self).__name__
        self._learning_rate = learning_rate
        self._initial_decay = decay
        self.clipnorm = clipnorm
        self.clipvalue = clipvalue
        self.global_clipnorm = global_clipnorm
        self.iterations = None
        self._hyper_values = {}
        self._step = None

    @property
    def name(self) -> str:
        return self._name

    def minimize(self, loss, var_list):
        """The train op that updates `var_list` to reduce `loss`."""
        return self.get_updates(loss, var_list)[0]

    def get_updates(self, loss, params):
        """`[train_op]`, as Keras 2's `get_updates` returned it."""
        params = [_tf_variable(param) for param in params]
        grads = tf.gradients(loss, params)
        for grad, param in zip(grads, params):
            if grad is None:
                raise ValueError(
                    f"Variable {param.name} has `None` for gradient. Please make sure that "
                    "all of your ops have a gradient defined (i.e. are differentiable)."
                )
        return [self.apply_gradients(zip(self._clipped(grads), params))]

    def _clipped(self, grads):
        if self.clipnorm is not None:
            grads = [tf.clip_by_norm(grad, self.clipnorm) for grad in grads]
        if self.global_clipnorm is not None:
            grads, _ = tf.clip_by_global_norm(grads, self.global_clipnorm)
        if self.clipvalue is not None:
            grads = [_clip_by_value(grad, self.clipvalue) for grad in grads]
        return grads

    def apply_gradients(self, grads_and_vars):
        """Updates each variable, then advances its step (`iterations` or its own `iter`).

        Called in a replica of a `tf.distribute` strategy, it first averages
        the gradients across replicas (summing them when the loss is a sum),
        as Keras 2 optimizers did, then updates every copy of each variable.
        """
        grads_and_vars = [(grad, _tf_variable(var)) for grad, var in grads_and_vars]
        replica = _replica_context()
        if replica is None:
            return self._apply(grads_and_vars, _update_in_place)
        reduction = tf.compat.v1.distribute.get_loss_reduction()
        grads = replica.all_reduce(reduction, [grad for grad, _ in grads_and_vars])
        variables = [var for _, var in grads_and_vars]

        def apply_in_cross_replica_context(strategy, grads):
            def update(var, fn, grad):
                return strategy.extended.update(var, fn, args=(grad,), group=True)

            return self._apply(list(zip(grads, variables)), update)

        return replica.merge_call(apply_in_cross_replica_context, args=(grads,))

    def _apply(self, grads_and_vars, update):
        with tf.name_scope(self._name):
            # Its own step counter is made in each graph, so each one saves it.
            self._step = self.iterations
            if self._step is None:
                self._step = self._variable("iter", np.int64(0))
            hypers = {
                name: self._variable(name, np.float32(value))
                for name, value in self._hyper_values.items()
            }
            hypers["decay"] = self._variable("decay", np.float32(self._initial_decay))
            learning_rate = self._decayed_learning_rate(hypers)
            updates = []
            for grad, var in grads_and_vars:
                slots = {name: self._slot(var, name, value) for name, value in self._slots(var)}
                with tf.name_scope("update_" + _op_name(var)):
                    updates.append(update(var, self._update_fn(slots, learning_rate, hypers), grad))
            with tf.control_dependencies(updates):
                return self._step.assign_add(1)

    def _update_fn(self, slots, learning_rate, hypers):
        """`fn(var, grad)`: the update of one variable (or one copy of it) by `grad`."""

        def apply(var, grad):
            if isinstance(grad, tf.IndexedSlices):
                values, indices = _deduplicated(grad)
                return self._apply_sparse(values, var, indices, slots, learning_rate, hypers)
            return self._apply_dense(grad, var, slots, learning_rate, hypers)

        return apply

    def _variable(self, name, value):
        # The variable store names it after the enclosing name scope.
        return tf.Variable(lambda: tf.constant(value), name=name, trainable=False)

    def _slot(self, var, slot_name, initial_value):
        shape = var.shape.as_list()
        dtype = var.dtype.base_dtype.as_numpy_dtype
        return tf.Variable(
            lambda: tf.constant(np.full(shape, initial_value, dtype)),
            name=f"{_op_name(var)}/{slot_name}",
            trainable=False,
        )

    def _decayed_learning_rate(self, hypers):
        local_step = tf.cast(self._step, tf.float32)
        learning_rate = self._learning_rate
        if isinstance(learning_rate, keras.optimizers.schedules.LearningRateSchedule):
            value = learning_rate(local_step)
        elif callable(learning_rate):
            value = learning_rate()
        else:
            value = self._variable("learning_rate", np.float32(learning_rate))
        value = tf.cast(value, tf.float32)
        if self._initial_decay > 0.0:
            value = value / (1.0 + hypers["decay"] * local_step)
        return tf.identity(value)

    def _slots(self, var):
        """`(slot_name, initial_value)` for each slot `var` needs."""
        return ()

    def _apply_dense(self, grad, var, slots, learning_rate, hypers):
        raise NotImplementedError

    def _apply_sparse(self, grad, var, indices, slots, learning_rate, hypers):
        raise NotImplementedError


class Adagrad(Optimizer):
    """Adagrad as Keras 2 had it: slot `accumulator`, `epsilon` added to the root."""

    def __init__(
        self, learning_rate=0.001, initial_accumulator_value=0.1, epsilon=1e-7, name=None, **kwargs
    ):
        if initial_accumulator_value < 0.0:
            raise ValueError(
                f"initial_accumulator_value must be non-negative: {initial_accumulator_value}"
            )
        super().__init__(learning_rate, name=name, **kwargs)
        self.initial_accumulator_value = initial_accumulator_value
        self.epsilon = epsilon

    def _slots(self, var):
        return (("accumulator", self.initial_accumulator_value),)

    def _apply_dense(self, grad, var, slots, learning_rate, hypers):
        return tf.raw_ops.ResourceApplyAdagradV2(
            var=var.handle,
            accum=slots["accumulator"].handle,
            lr=learning_rate,
            epsilon=tf.constant(self.epsilon, tf.float32),
            grad=grad,
        )

    def _apply_sparse(self, grad, var, indices, slots, learning_rate, hypers):
        return tf.raw_ops.ResourceSparseApplyAdagradV2(
            var=var.handle,
            accum=slots["accumulator"].handle,
            lr=learning_rate,
            epsilon=tf.constant(self.epsilon, tf.float32),
            grad=grad,
            indices=indices,
        )


class Adam(Optimizer):
    """Adam as Keras 2 had it: slots `m`, `v` (and `vhat` with amsgrad)."""

    def __init__(
        self,
        learning_rate=0.001,
        beta_1=0.9,
        beta_2=0.999,
        epsilon=1e-7,
        amsgrad=False,
        name=None,
        **kwargs,
    ):
        super().__init__(learning_rate, name=name, **kwargs)
        self._hyper_values = {"beta_1": beta_1, "beta_2": beta_2}
        self.epsilon = epsilon
        self.amsgrad = amsgrad

    def _slots(self, var):
        slots = (("m", 0.0), ("v", 0.0))
        return slots + (("vhat", 0.0),) if self.amsgrad else slots

    def _powers(self, hypers):
        local_step = tf.cast(self._step + 1, tf.float32)
        return tf.pow(hypers["beta_1"], local_step), tf.pow(hypers["beta_2"], local_step)

    def _apply_dense(self, grad, var, slots, learning_rate, hypers):
        beta_1_power, beta_2_power = self._powers(hypers)
        common = dict(
            var=var.handle,
            m=slots["m"].handle,
            v=slots["v"].handle,
            beta1_power=beta_1_power,
            beta2_power=beta_2_power,
            lr=learning_rate,
            beta1=hypers["beta_1"],
            beta2=hypers["beta_2"],
            epsilon=tf.constant(self.epsilon, tf.float32),
            grad=grad,
        )
        if self.amsgrad:
            return tf.raw_ops.ResourceApplyAdamWithAmsgrad(vhat=slots["vhat"].handle, **common)
        return tf.raw_ops.ResourceApplyAdam(**common)

    def _apply_sparse(self, grad, var, indices, slots, learning_rate, hypers):
        beta_1, beta_2 = hypers["beta_1"], hypers["beta_2"]
        beta_1_power, beta_2_power = self._powers(hypers)
        lr = learning_rate * tf.sqrt(1.0 - beta_2_power) / (1.0 - beta_1_power)
        m, v = slots["m"], slots["v"]
        m_t = m.assign(m * beta_1)
        with tf.control_dependencies([m_t]):
            m_t = m.scatter_add(tf.IndexedSlices(grad * (1.0 - beta_1), indices))
        v_t = v.assign(v * beta_2)
        with tf.control_dependencies([v_t]):
            v_t = v.scatter_add(tf.IndexedSlices(grad * grad * (1.0 - beta_2), indices))
        if self.amsgrad:
            v_t = slots["vhat"].assign(tf.maximum(slots["vhat"], v_t))
        return var.assign_sub(lr * m_t / (tf.sqrt(v_t) + self.epsilon)).op


class Ftrl(Optimizer):
    """FTRL-Proximal as Keras 2 had it: slots `accumulator` and `linear`."""

    def __init__(
        self,
        learning_rate=0.001,
        learning_rate_power=-0.5,
        initial_accumulator_value=0.1,
        l1_regularization_strength=0.0,
        l2_regularization_strength=0.0,
        name=None,
        l2_shrinkage_regularization_strength=0.0,
        beta=0.0,
        **kwargs,
    ):
        if initial_accumulator_value < 0.0:
            raise ValueError(
                "`initial_accumulator_value` needs to be positive or zero. Received: "
                f"{initial_accumulator_value}"
            )
        if learning_rate_power > 0.0:
            raise ValueError(
                "`learning_rate_power` needs to be negative or zero. Received: "
                f"{learning_rate_power}"
            )
        for name_, value in (
            ("l1_regularization_strength", l1_regularization_strength),
            ("l2_regularization_strength", l2_regularization_strength),
            ("l2_shrinkage_regularization_strength", l2_shrinkage_regularization_strength),
        ):
            if value < 0.0:
                raise ValueError(f"`{name_}` needs to be positive or zero. Received: {value}")
        super().__init__(learning_rate, name=name, **kwargs)
        self._hyper_values = {
            "learning_rate_power": learning_rate_power,
            "l1_regularization_strength": l1_regularization_strength,
            "l2_regularization_strength": l2_regularization_strength,
            "beta": beta,
        }
        self.initial_accumulator_value = initial_accumulator_value
        self.l2_shrinkage_regularization_strength = l2_shrinkage_regularization_strength

    def _slots(self, var):
        return (("accumulator", self.initial_accumulator_value), ("linear", 0.0))

    def _arguments(self, var, slots, learning_rate, hypers):
        l2 = hypers["l2_regularization_strength"] + hypers["beta"] / (2.0 * learning_rate)
        arguments = dict(
            var=var.handle,
            accum=slots["accumulator"].handle,
            linear=slots["linear"].handle,
            lr=learning_rate,
            l1=hypers["l1_regularization_strength"],
            l2=l2,
            lr_power=hypers["learning_rate_power"],
        )
        if self.l2_shrinkage_regularization_strength > 0.0:
            arguments["l2_shrinkage"] = tf.constant(
                self.l2_shrinkage_regularization_strength, tf.float32
            )
        return arguments

    def _apply_dense(self, grad, var, slots, learning_rate, hypers):
        arguments = self._arguments(var, slots, learning_rate, hypers)
        if "l2_shrinkage" in arguments:
            return tf.raw_ops.ResourceApplyFtrlV2(grad=grad, **arguments)
        return tf.raw_ops.ResourceApplyFtrl(grad=grad, **arguments)

    def _apply_sparse(self, grad, var, indices, slots, learning_rate, hypers):
        arguments = self._arguments(var, slots, learning_rate, hypers)
        if "l2_shrinkage" in arguments:
            return tf.raw_ops.ResourceSparseApplyFtrlV2(grad=grad, indices=indices, **arguments)
        return tf.raw_ops.ResourceSparseApplyFtrl(grad=grad, indices=indices, **arguments)


class RMSprop(Optimizer):
    """RMSprop as Keras 2 had it: slot `rms`, plus `momentum` and `mg` when used."""

    def __init__(
        self,
        learning_rate=0.001,
        rho=0.9,
        momentum=0.0,
        epsilon=1e-7,
        centered=False,
        name=None,
        **kwargs,
    ):
        super().__init__(learning_rate, name=name, **kwargs)
        self._hyper_values = {"rho": rho, "momentum": momentum}
        self._use_momentum = momentum > 0.0
        self.epsilon = epsilon
        self.centered = centered

    def _slots(self, var):
        slots = (("rms", 0.0),)
        if self._use_momentum:
            slots += (("momentum", 0.0),)
        if self.centered:
            slots += (("mg", 0.0),)
        return slots

    def _momentum_arguments(self, var, slots, learning_rate, hypers, epsilon, grad):
        """What TF's fused RMSProp kernels take, dense or sparse."""
        return dict(
            var=var.handle,
            ms=slots["rms"].handle,
            mom=slots["momentum"].handle,
            lr=learning_rate,
            rho=hypers["rho"],
            momentum=hypers["momentum"],
            epsilon=epsilon,
            grad=grad,
        )

    def _apply_dense(self, grad, var, slots, learning_rate, hypers):
        rho, epsilon = hypers["rho"], tf.constant(self.epsilon, tf.float32)
        rms = slots["rms"]
        if self._use_momentum:
            common = self._momentum_arguments(var, slots, learning_rate, hypers, epsilon, grad)
            if self.centered:
                return tf.raw_ops.ResourceApplyCenteredRMSProp(mg=slots["mg"].handle, **common)
            return tf.raw_ops.ResourceApplyRMSProp(**common)
        denominator = rms.assign(rho * rms + (1.0 - rho) * tf.square(grad))
        if self.centered:
            mg = slots["mg"].assign(rho * slots["mg"] + (1.0 - rho) * grad)
            denominator = denominator - tf.square(mg)
        return var.assign(var - learning_rate * grad / (tf.sqrt(denominator) + epsilon)).op

    def _apply_sparse(self, grad, var, indices, slots, learning_rate, hypers):
        rho, epsilon = hypers["rho"], tf.constant(self.epsilon, tf.float32)
        rms = slots["rms"]
        if self._use_momentum:
            common = self._momentum_arguments(var, slots, learning_rate, hypers, epsilon, grad)
            common["indices"] = indices
            if self.centered:
                return tf.raw_ops.ResourceSparseApplyCenteredRMSProp(
                    mg=slots["mg"].handle, **common
                )
            return tf.raw_ops.ResourceSparseApplyRMSProp(**common)
        decayed = rms.assign(rms * rho)
        with tf.control_dependencies([decayed]):
            rms_t = rms.scatter_add(tf.IndexedSlices(grad * grad * (1.0 - rho), indices))
        denominator = tf.gather(rms_t, indices)
        if self.centered:
            mg = slots["mg"]
            decayed = mg.assign(mg * rho)
            with tf.control_dependencies([decayed]):
                mg_t = mg.scatter_add(tf.IndexedSlices(grad * (1.0 - rho), indices))
            denominator = denominator - tf.square(tf.gather(mg_t, indices))
        step = -learning_rate * grad / (tf.sqrt(denominator) + epsilon)
        return var.scatter_add(tf.IndexedSlices(step, indices)).op


class SGD(Optimizer):
    """Gradient descent as Keras 2 had it, with optional (Nesterov) momentum."""

    def __init__(self, learning_rate=0.01, momentum=0.0, nesterov=False, name=None, **kwargs):
        if not 0.0 <= momentum <= 1.0:
            raise ValueError(f"`momentum` must be between [0, 1]. Received: {momentum}")
        super().__init__(learning_rate, name=name, **kwargs)
        self._hyper_values = {"momentum": momentum}
        self._use_momentum = momentum > 0.0
        self.nesterov = nesterov

    def _slots(self, var):
        return (("momentum", 0.0),) if self._use_momentum else ()

    def _apply_dense(self, grad, var, slots, learning_rate, hypers):
        if self._use_momentum:
            return tf.raw_ops.ResourceApplyKerasMomentum(
                var=var.handle,
                accum=slots["momentum"].handle,
                lr=learning_rate,
                grad=grad,
                momentum=hypers["momentum"],
                use_nesterov=self.nesterov,
            )
        return tf.raw_ops.ResourceApplyGradientDescent(
            var=var.handle, alpha=learning_rate, delta=grad
        )

    def _apply_sparse(self, grad, var, indices, slots, learning_rate, hypers):
        if self._use_momentum:
            return tf.raw_ops.ResourceSparseApplyKerasMomentum(
                var=var.handle,
                accum=slots["momentum"].handle,
                lr=learning_rate,
                grad=grad,
                indices=indices,
                momentum=hypers["momentum"],
                use_nesterov=self.nesterov,
            )
        return var.scatter_add(tf.IndexedSlices(-grad * learning_rate, indices)).op


def _replica_context():
    """The replica context when running in a replica of a strategy, else None."""
    if not tf.distribute.has_strategy() or tf.distribute.in_cross_replica_context():
        return None
    return tf.distribute.get_replica_context()


def _update_in_place(var, fn, grad):
    return fn(var, grad)


def _tf_variable(variable):
    """The `tf.Variable` behind a Keras 3 variable, or the variable itself."""
    return getattr(variable, "_value", variable) if hasattr(variable, "path") else variable


def _op_name(variable) -> str:
    """`dnn/logits/kernel` for a variable named `dnn/logits/kernel:0`."""
    return variable.name.split(":")[0]


def _deduplicated(grad):
    """Sums the rows of an `IndexedSlices` gradient that share an index."""
    unique, positions = tf.unique(grad.indices)
    values = tf.math.unsorted_segment_sum(grad.values, positions, tf.shape(unique)[0])
    return values, unique


def _clip_by_value(grad, clipvalue):
    if isinstance(grad, tf.IndexedSlices):
        return tf.IndexedSlices(
            tf.clip_by_value(grad.values, -clipvalue, clipvalue), grad.indices, grad.dense_shape
        )
    return tf.clip_by_value(grad, -clipvalue, clipvalue)
