"""The original's Keras 2 optimizers, rebuilt to run in a traced TF1 graph.

Canned estimators of tensorflow-estimator 2.x trained with Keras 2 (legacy)
optimizers whose `iterations` was the global step. Their update maths and
their variables (`training/Adagrad/<variable>/accumulator`,
`training/Adagrad/learning_rate`, ...) are in every checkpoint those
estimators wrote. Keras 3 optimizers cannot be run in a TF1 graph and name
their variables differently, so these classes reproduce the Keras 2 ones:
the same hyperparameters and defaults, the same fused training ops, and
slots and hyperparameters as variables under the same names, so original
checkpoints resume and train on with the same numbers. They are also
`tf.keras.optimizers.legacy.*` while the shim is active.

Each optimizer creates its variables under the name scope it is used in
plus its name (heads use the top-level scope `training`).
"""

from __future__ import annotations

import tensorflow as tf

from tfestimator_compat.engine import keras_flavours
from tfestimator_compat.legacy.keras2.optimizer_base import Optimizer


def _constant(value, dtype):
    return tf.convert_to_tensor(value, dtype)


class Adadelta(Optimizer):
    """Adadelta as Keras 2 had it: slots `accum_grad` and `accum_var`."""

    def __init__(self, learning_rate=0.001, rho=0.95, epsilon=1e-7, name="Adadelta", **kwargs):
        super().__init__(name, **kwargs)
        self._set_hyper("learning_rate", kwargs.get("lr", learning_rate))
        self._set_hyper("decay", self._initial_decay)
        self._set_hyper("rho", rho)
        self.epsilon = epsilon

    def _create_slots(self, var_list):
        for var in var_list:
            self.add_slot(var, "accum_grad")
        for var in var_list:
            self.add_slot(var, "accum_var")

    def _arguments(self, var, apply_state):
        coefficients = self._coefficients(var, apply_state)
        return dict(
            var=var.handle,
            accum=self.get_slot(var, "accum_grad").handle,
            accum_update=self.get_slot(var, "accum_var").handle,
            lr=coefficients["lr_t"],
            rho=self._get_hyper("rho", var.dtype.base_dtype),
            epsilon=_constant(self.epsilon, var.dtype.base_dtype),
            use_locking=self._use_locking,
        )

    def _resource_apply_dense(self, grad, var, apply_state=None):
        return tf.raw_ops.ResourceApplyAdadelta(grad=grad, **self._arguments(var, apply_state))

    def _resource_apply_sparse(self, grad, var, indices, apply_state=None):
        return tf.raw_ops.ResourceSparseApplyAdadelta(
            grad=grad, indices=indices, **self._arguments(var, apply_state)
        )

    def get_config(self):
        return {
            **super().get_config(),
            "learning_rate": self._serialize_hyperparameter("learning_rate"),
            "decay": self._initial_decay,
            "rho": self._serialize_hyperparameter("rho"),
            "epsilon": self.epsilon,
        }


class Adagrad(Optimizer):
    """Adagrad as Keras 2 had it: slot `accumulator`, `epsilon` added to the root."""

    def __init__(
        self,
        learning_rate=0.001,
        initial_accumulator_value=0.1,
        epsilon=1e-7,
        name="Adagrad",
        **kwargs,
    ):
        if initial_accumulator_value < 0.0:
            raise ValueError(
                f"initial_accumulator_value must be non-negative: {initial_accumulator_value}"
            )
        super().__init__(name, **kwargs)
        self._set_hyper("learning_rate", kwargs.get("lr", learning_rate))
        self._set_hyper("decay", self._initial_decay)
        self._initial_accumulator_value = initial_accumulator_value
        self.epsilon = epsilon

    def _create_slots(self, var_list):
        for var in var_list:
            self.add_slot(var, "accumulator", self._initial_accumulator_value)

    def _arguments(self, var, apply_state):
        return dict(
            var=var.handle,
            accum=self.get_slot(var, "accumulator").handle,
            lr=self._coefficients(var, apply_state)["lr_t"],
            epsilon=_constant(self.epsilon, var.dtype.base_dtype),
            use_locking=self._use_locking,
        )

    def _resource_apply_dense(self, grad, var, apply_state=None):
        return tf.raw_ops.ResourceApplyAdagradV2(grad=grad, **self._arguments(var, apply_state))

    def _resource_apply_sparse(self, grad, var, indices, apply_state=None):
        return tf.raw_ops.ResourceSparseApplyAdagradV2(
            grad=grad, indices=indices, **self._arguments(var, apply_state)
        )

    def get_config(self):
        return {
            **super().get_config(),
            "learning_rate": self._serialize_hyperparameter("learning_rate"),
            "decay": self._initial_decay,
            "initial_accumulator_value": self._initial_accumulator_value,
            "epsilon": self.epsilon,
        }


class _AdamFamily(Optimizer):
    """Adam and Adamax: `beta_1`, `beta_2` hyperparameters, slots `m` and `v`."""

    def __init__(self, learning_rate, beta_1, beta_2, epsilon, name, **kwargs):
        super().__init__(name, **kwargs)
        self._set_hyper("learning_rate", kwargs.get("lr", learning_rate))
        self._set_hyper("decay", self._initial_decay)
        self._set_hyper("beta_1", beta_1)
        self._set_hyper("beta_2", beta_2)
        self.epsilon = epsilon

    def _create_slots(self, var_list):
        for var in var_list:
            self.add_slot(var, "m")
        for var in var_list:
            self.add_slot(var, "v")

    def _prepare_local(self, var_device, var_dtype, apply_state):
        super()._prepare_local(var_device, var_dtype, apply_state)
        local_step = tf.cast(self.iterations + 1, var_dtype)
        beta_1_t = tf.identity(self._get_hyper("beta_1", var_dtype))
        beta_2_t = tf.identity(self._get_hyper("beta_2", var_dtype))
        apply_state[(var_device, var_dtype)].update(
            beta_1_t=beta_1_t,
            beta_2_t=beta_2_t,
            beta_1_power=tf.pow(beta_1_t, local_step),
            beta_2_power=tf.pow(beta_2_t, local_step),
            epsilon=_constant(self.epsilon, var_dtype),
        )

    def get_config(self):
        return {
            **super().get_config(),
            "learning_rate": self._serialize_hyperparameter("learning_rate"),
            "decay": self._initial_decay,
            "beta_1": self._serialize_hyperparameter("beta_1"),
            "beta_2": self._serialize_hyperparameter("beta_2"),
            "epsilon": self.epsilon,
        }


class Adam(_AdamFamily):
    """Adam as Keras 2 had it: slots `m`, `v` (and `vhat` with amsgrad)."""

    def __init__(
        self,
        learning_rate=0.001,
        beta_1=0.9,
        beta_2=0.999,
        epsilon=1e-7,
        amsgrad=False,
        name="Adam",
        **kwargs,
    ):
        super().__init__(learning_rate, beta_1, beta_2, epsilon, name, **kwargs)
        self.amsgrad = amsgrad

    def _create_slots(self, var_list):
        super()._create_slots(var_list)
        if self.amsgrad:
            for var in var_list:
                self.add_slot(var, "vhat")

    def _resource_apply_dense(self, grad, var, apply_state=None):
        coefficients = self._coefficients(var, apply_state)
        arguments = dict(
            var=var.handle,
            m=self.get_slot(var, "m").handle,
            v=self.get_slot(var, "v").handle,
            beta1_power=coefficients["beta_1_power"],
            beta2_power=coefficients["beta_2_power"],
            lr=coefficients["lr_t"],
            beta1=coefficients["beta_1_t"],
            beta2=coefficients["beta_2_t"],
            epsilon=coefficients["epsilon"],
            grad=grad,
            use_locking=self._use_locking,
        )
        if self.amsgrad:
            vhat = self.get_slot(var, "vhat").handle
            return tf.raw_ops.ResourceApplyAdamWithAmsgrad(vhat=vhat, **arguments)
        return tf.raw_ops.ResourceApplyAdam(**arguments)

    def _resource_apply_sparse(self, grad, var, indices, apply_state=None):
        c = self._coefficients(var, apply_state)
        lr = c["lr_t"] * tf.sqrt(1.0 - c["beta_2_power"]) / (1.0 - c["beta_1_power"])
        m, v = self.get_slot(var, "m"), self.get_slot(var, "v")
        with tf.control_dependencies([m.assign(m * c["beta_1_t"])]):
            m_t = self._resource_scatter_add(m, indices, grad * (1.0 - c["beta_1_t"]))
        with tf.control_dependencies([v.assign(v * c["beta_2_t"])]):
            v_t = self._resource_scatter_add(v, indices, grad * grad * (1.0 - c["beta_2_t"]))
        if self.amsgrad:
            v_t = self.get_slot(var, "vhat").assign(tf.maximum(self.get_slot(var, "vhat"), v_t))
        return var.assign_sub(lr * m_t / (tf.sqrt(v_t) + c["epsilon"]), read_value=False)

    def get_config(self):
        return {**super().get_config(), "amsgrad": self.amsgrad}


class Adamax(_AdamFamily):
    """Adamax as Keras 2 had it: slots `m` and `v` (the infinity norm)."""

    def __init__(
        self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7, name="Adamax", **kwargs
    ):
        super().__init__(learning_rate, beta_1, beta_2, epsilon, name, **kwargs)

    def _resource_apply_dense(self, grad, var, apply_state=None):
        c = self._coefficients(var, apply_state)
        return tf.raw_ops.ResourceApplyAdaMax(
            var=var.handle,
            m=self.get_slot(var, "m").handle,
            v=self.get_slot(var, "v").handle,
            beta1_power=c["beta_1_power"],
            lr=c["lr_t"],
            beta1=c["beta_1_t"],
            beta2=c["beta_2_t"],
            epsilon=c["epsilon"],
            grad=grad,
            use_locking=self._use_locking,
        )

    def _resource_apply_sparse(self, grad, var, indices, apply_state=None):
        c = self._coefficients(var, apply_state)
        m, v = self.get_slot(var, "m"), self.get_slot(var, "v")
        m_slice = tf.gather(m, indices) * c["beta_1_t"] + grad * (1.0 - c["beta_1_t"])
        v_slice = tf.maximum(tf.gather(v, indices) * c["beta_2_t"], tf.abs(grad))
        m_t = self._resource_scatter_update(m, indices, m_slice)
        v_t = self._resource_scatter_update(v, indices, v_slice)
        step = -c["lr_t"] / (1.0 - c["beta_1_power"]) * (m_slice / (v_slice + c["epsilon"]))
        return tf.group(self._resource_scatter_add(var, indices, step), m_t, v_t)


class Nadam(_AdamFamily):
    """Nadam as Keras 2 had it: slots `m`, `v` and the variable `momentum_cache`."""

    def __init__(
        self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7, name="Nadam", **kwargs
    ):
        # Keras 2's Nadam took its momentum schedule's decay as `decay`.
        kwargs["decay"] = kwargs.pop("schedule_decay", 0.004)
        learning_rate = kwargs.pop("lr", learning_rate)
        if keras_flavours.is_learning_rate_schedule(learning_rate):
            raise ValueError("Nadam does not take a LearningRateSchedule as its learning rate.")
        super().__init__(learning_rate, beta_1, beta_2, epsilon, name, **kwargs)

    def _create_slots(self, var_list):
        state = self._state()
        if "momentum_cache" not in state:
            state["momentum_cache"] = self.add_weight("momentum_cache", [], initializer="ones")
        super()._create_slots(var_list)

    def _prepare(self, var_list):
        self._m_cache_read = tf.identity(self._state()["momentum_cache"])
        return super()._prepare(var_list)

    def _prepare_local(self, var_device, var_dtype, apply_state):
        super()._prepare_local(var_device, var_dtype, apply_state)
        c = apply_state[(var_device, var_dtype)]
        c["lr_t"] = tf.identity(self._get_hyper("learning_rate", var_dtype))  # never decayed
        local_step = tf.cast(self.iterations + 1, var_dtype)
        next_step = tf.cast(self.iterations + 2, var_dtype)
        decay_base = tf.cast(0.96, var_dtype)
        m_t = c["beta_1_t"] * (1.0 - 0.5 * tf.pow(decay_base, self._initial_decay * local_step))
        m_t_1 = c["beta_1_t"] * (1.0 - 0.5 * tf.pow(decay_base, self._initial_decay * next_step))
        m_schedule_new = tf.cast(self._m_cache_read, var_dtype) * m_t
        cache = self._state()["momentum_cache"]
        if var_dtype == cache.dtype.base_dtype:
            m_schedule_new = tf.identity(cache.assign(m_schedule_new))
        c.update(
            m_t=m_t,
            m_t_1=m_t_1,
            m_schedule_new=m_schedule_new,
            m_schedule_next=m_schedule_new * m_t_1,
            v_t_prime_denominator=1.0 - tf.pow(c["beta_2_t"], local_step),
        )

    def _m_t_bar(self, c, grad, m_t):
        g_prime = grad / (1.0 - c["m_schedule_new"])
        m_t_prime = m_t / (1.0 - c["m_schedule_next"])
        return (1.0 - c["m_t"]) * g_prime + c["m_t_1"] * m_t_prime

    def _resource_apply_dense(self, grad, var, apply_state=None):
        c = self._coefficients(var, apply_state)
        m, v = self.get_slot(var, "m"), self.get_slot(var, "v")
        m_t = m.assign(c["beta_1_t"] * m + (1.0 - c["beta_1_t"]) * grad)
        v_t = v.assign(c["beta_2_t"] * v + (1.0 - c["beta_2_t"]) * tf.square(grad))
        v_t_prime = v_t / c["v_t_prime_denominator"]
        m_t_bar = self._m_t_bar(c, grad, m_t)
        step = c["lr_t"] * m_t_bar / (tf.sqrt(v_t_prime) + c["epsilon"])
        return var.assign_sub(step, read_value=False)

    def _resource_apply_sparse(self, grad, var, indices, apply_state=None):
        c = self._coefficients(var, apply_state)
        m, v = self.get_slot(var, "m"), self.get_slot(var, "v")
        with tf.control_dependencies([m.assign(m * c["beta_1_t"])]):
            m_t = self._resource_scatter_add(m, indices, grad * (1.0 - c["beta_1_t"]))
        m_t_bar = self._m_t_bar(c, grad, tf.gather(m_t, indices))
        with tf.control_dependencies([v.assign(v * c["beta_2_t"])]):
            v_t = self._resource_scatter_add(v, indices, grad * grad * (1.0 - c["beta_2_t"]))
        v_t_prime = tf.gather(v_t, indices) / c["v_t_prime_denominator"]
        step = -c["lr_t"] * m_t_bar / (tf.sqrt(v_t_prime) + c["epsilon"])
        return tf.group(self._resource_scatter_add(var, indices, step), m_t, v_t)


class Ftrl(Optimizer):
    """FTRL-Proximal as Keras 2 had it: slots `accumulator` and `linear`."""

    def __init__(
        self,
        learning_rate=0.001,
        learning_rate_power=-0.5,
        initial_accumulator_value=0.1,
        l1_regularization_strength=0.0,
        l2_regularization_strength=0.0,
        name="Ftrl",
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
        super().__init__(name, **kwargs)
        self._set_hyper("learning_rate", learning_rate)
        self._set_hyper("decay", self._initial_decay)
        self._set_hyper("learning_rate_power", learning_rate_power)
        self._set_hyper("l1_regularization_strength", l1_regularization_strength)
        self._set_hyper("l2_regularization_strength", l2_regularization_strength)
        self._set_hyper("beta", beta)
        self._initial_accumulator_value = initial_accumulator_value
        self._l2_shrinkage_regularization_strength = l2_shrinkage_regularization_strength

    def _create_slots(self, var_list):
        for var in var_list:
            self.add_slot(var, "accumulator", self._initial_accumulator_value)
            self.add_slot(var, "linear")

    def _arguments(self, var, apply_state):
        dtype = var.dtype.base_dtype
        lr_t = self._coefficients(var, apply_state)["lr_t"]
        l2 = self._get_hyper("l2_regularization_strength", dtype)
        l2 = l2 + self._get_hyper("beta", dtype) / (2.0 * lr_t)
        arguments = dict(
            var=var.handle,
            accum=self.get_slot(var, "accumulator").handle,
            linear=self.get_slot(var, "linear").handle,
            lr=lr_t,
            l1=self._get_hyper("l1_regularization_strength", dtype),
            l2=l2,
            lr_power=self._get_hyper("learning_rate_power", dtype),
            use_locking=self._use_locking,
        )
        if self._l2_shrinkage_regularization_strength > 0.0:
            arguments["l2_shrinkage"] = _constant(self._l2_shrinkage_regularization_strength, dtype)
        return arguments

    def _resource_apply_dense(self, grad, var, apply_state=None):
        arguments = self._arguments(var, apply_state)
        if "l2_shrinkage" in arguments:
            return tf.raw_ops.ResourceApplyFtrlV2(grad=grad, **arguments)
        return tf.raw_ops.ResourceApplyFtrl(grad=grad, **arguments)

    def _resource_apply_sparse(self, grad, var, indices, apply_state=None):
        arguments = self._arguments(var, apply_state)
        if "l2_shrinkage" in arguments:
            return tf.raw_ops.ResourceSparseApplyFtrlV2(grad=grad, indices=indices, **arguments)
        return tf.raw_ops.ResourceSparseApplyFtrl(grad=grad, indices=indices, **arguments)

    def get_config(self):
        config = {
            name: self._serialize_hyperparameter(name)
            for name in (
                "learning_rate",
                "learning_rate_power",
                "l1_regularization_strength",
                "l2_regularization_strength",
                "beta",
            )
        }
        return {
            **super().get_config(),
            **config,
            "decay": self._initial_decay,
            "initial_accumulator_value": self._initial_accumulator_value,
            "l2_shrinkage_regularization_strength": self._l2_shrinkage_regularization_strength,
        }


class RMSprop(Optimizer):
    """RMSprop as Keras 2 had it: slot `rms`, plus `momentum` and `mg` when used."""

    def __init__(
        self,
        learning_rate=0.001,
        rho=0.9,
        momentum=0.0,
        epsilon=1e-7,
        centered=False,
        name="RMSprop",
        **kwargs,
    ):
        super().__init__(name, **kwargs)
        self._set_hyper("learning_rate", kwargs.get("lr", learning_rate))
        self._set_hyper("decay", self._initial_decay)
        self._set_hyper("rho", rho)
        self._set_hyper("momentum", momentum)
        self._momentum = momentum > 0.0
        self.epsilon = epsilon
        self.centered = centered

    def _create_slots(self, var_list):
        for var in var_list:
            self.add_slot(var, "rms")
        if self._momentum:
            for var in var_list:
                self.add_slot(var, "momentum")
        if self.centered:
            for var in var_list:
                self.add_slot(var, "mg")

    def _prepare_local(self, var_device, var_dtype, apply_state):
        super()._prepare_local(var_device, var_dtype, apply_state)
        rho = tf.identity(self._get_hyper("rho", var_dtype))
        apply_state[(var_device, var_dtype)].update(
            rho=rho,
            momentum=tf.identity(self._get_hyper("momentum", var_dtype)),
            epsilon=_constant(self.epsilon, var_dtype),
        )

    def _momentum_arguments(self, var, c, grad):
        """What TF's fused RMSProp kernels take, dense or sparse."""
        return dict(
            var=var.handle,
            ms=self.get_slot(var, "rms").handle,
            mom=self.get_slot(var, "momentum").handle,
            lr=c["lr_t"],
            rho=c["rho"],
            momentum=c["momentum"],
            epsilon=c["epsilon"],
            grad=grad,
            use_locking=self._use_locking,
        )

    def _resource_apply_dense(self, grad, var, apply_state=None):
        c = self._coefficients(var, apply_state)
        if self._momentum:
            arguments = self._momentum_arguments(var, c, grad)
            if self.centered:
                mg = self.get_slot(var, "mg").handle
                return tf.raw_ops.ResourceApplyCenteredRMSProp(mg=mg, **arguments)
            return tf.raw_ops.ResourceApplyRMSProp(**arguments)
        rms = self.get_slot(var, "rms")
        denominator = rms.assign(c["rho"] * rms + (1.0 - c["rho"]) * tf.square(grad))
        if self.centered:
            mg = self.get_slot(var, "mg")
            mg_t = mg.assign(c["rho"] * mg + (1.0 - c["rho"]) * grad)
            denominator = denominator - tf.square(mg_t)
        step = c["lr_t"] * grad / (tf.sqrt(denominator) + c["epsilon"])
        return var.assign_sub(step, read_value=False)

    def _resource_apply_sparse(self, grad, var, indices, apply_state=None):
        c = self._coefficients(var, apply_state)
        if self._momentum:
            arguments = self._momentum_arguments(var, c, grad)
            if self.centered:
                mg = self.get_slot(var, "mg").handle
                return tf.raw_ops.ResourceSparseApplyCenteredRMSProp(
                    mg=mg, indices=indices, **arguments
                )
            return tf.raw_ops.ResourceSparseApplyRMSProp(indices=indices, **arguments)
        rms = self.get_slot(var, "rms")
        with tf.control_dependencies([rms.assign(rms * c["rho"])]):
            rms_t = self._resource_scatter_add(rms, indices, grad * grad * (1.0 - c["rho"]))
        denominator = tf.gather(rms_t, indices)
        if self.centered:
            mg = self.get_slot(var, "mg")
            with tf.control_dependencies([mg.assign(mg * c["rho"])]):
                mg_t = self._resource_scatter_add(mg, indices, grad * (1.0 - c["rho"]))
            denominator = denominator - tf.square(tf.gather(mg_t, indices))
        step = -c["lr_t"] * grad / (tf.sqrt(denominator) + c["epsilon"])
        return self._resource_scatter_add(var, indices, step)

    def get_config(self):
        return {
            **super().get_config(),
            "learning_rate": self._serialize_hyperparameter("learning_rate"),
            "decay": self._initial_decay,
            "rho": self._serialize_hyperparameter("rho"),
            "momentum": self._serialize_hyperparameter("momentum"),
            "epsilon": self.epsilon,
            "centered": self.centered,
        }


class SGD(Optimizer):
    """Gradient descent as Keras 2 had it, with optional (Nesterov) momentum."""

    def __init__(self, learning_rate=0.01, momentum=0.0, nesterov=False, name="SGD", **kwargs):
        if not 0.0 <= momentum <= 1.0:
            raise ValueError(f"`momentum` must be between [0, 1]. Received: {momentum}")
        super().__init__(name, **kwargs)
        self._set_hyper("learning_rate", kwargs.get("lr", learning_rate))
        self._set_hyper("decay", self._initial_decay)
        self._set_hyper("momentum", momentum)
        self._momentum = momentum > 0.0
        self.nesterov = nesterov

    def _create_slots(self, var_list):
        if self._momentum:
            for var in var_list:
                self.add_slot(var, "momentum")

    def _resource_apply_dense(self, grad, var, apply_state=None):
        lr_t = self._coefficients(var, apply_state)["lr_t"]
        if self._momentum:
            return tf.raw_ops.ResourceApplyKerasMomentum(
                var=var.handle,
                accum=self.get_slot(var, "momentum").handle,
                lr=lr_t,
                grad=grad,
                momentum=self._get_hyper("momentum", var.dtype.base_dtype),
                use_locking=self._use_locking,
                use_nesterov=self.nesterov,
            )
        return tf.raw_ops.ResourceApplyGradientDescent(
            var=var.handle, alpha=lr_t, delta=grad, use_locking=self._use_locking
        )

    def _resource_apply_sparse(self, grad, var, indices, apply_state=None):
        lr_t = self._coefficients(var, apply_state)["lr_t"]
        if self._momentum:
            return tf.raw_ops.ResourceSparseApplyKerasMomentum(
                var=var.handle,
                accum=self.get_slot(var, "momentum").handle,
                lr=lr_t,
                grad=grad,
                indices=indices,
                momentum=self._get_hyper("momentum", var.dtype.base_dtype),
                use_locking=self._use_locking,
                use_nesterov=self.nesterov,
            )
        return self._resource_scatter_add(var, indices, -grad * lr_t)

    def get_config(self):
        return {
            **super().get_config(),
            "learning_rate": self._serialize_hyperparameter("learning_rate"),
            "decay": self._initial_decay,
            "momentum": self._serialize_hyperparameter("momentum"),
            "nesterov": self.nesterov,
        }
