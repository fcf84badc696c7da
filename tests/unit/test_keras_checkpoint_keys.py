"""The keys model_to_estimator 2.15 wrote, as aliases of this package's
(engine/state/keras_checkpoint_keys.py).

For each weight: its object path in the Keras 2 model; for each optimizer
variable: the TF1 `training/<Optimizer>/...` name and the object path of its
slot; the optimizer's step count is read from `global_step`.
"""

import keras
import pytest

from tfestimator_compat.engine.state import keras_checkpoint_keys

GLOBAL_STEP = keras_checkpoint_keys.OBJECT_GLOBAL_STEP
VALUE = "/.ATTRIBUTES/VARIABLE_VALUE"


def _model():
    return keras.Sequential(
        [
            keras.Input((3,)),
            keras.layers.Dense(4, name="hidden"),
            keras.layers.Dropout(0.1),
            keras.layers.Dense(1, name="out"),
        ],
        name="net",  # so that slot names are net_<layer>_<weight>_<slot>
    )


def _keys(model):
    """This package's key of each weight: its TF1 name."""
    return [weight.path.split("/", 1)[1] for weight in model.weights]


def _aliases(optimizer, optimizer_name=None):
    model = _model()
    optimizer.build(model.trainable_variables)
    optimizer_keys = [f"opt/{variable.name}" for variable in optimizer.variables]
    return keras_checkpoint_keys.tf215_aliases(
        model, _keys(model), optimizer, optimizer_keys, optimizer_name
    )


def test_weights_are_aliased_to_their_keras_2_object_paths():
    model = _model()
    aliases = keras_checkpoint_keys.tf215_aliases(model, _keys(model))
    assert aliases == {
        "global_step": (GLOBAL_STEP,),
        "hidden/kernel": ("layer_with_weights-0/kernel" + VALUE,),
        "hidden/bias": ("layer_with_weights-0/bias" + VALUE,),
        # The Dropout layer holds no weights and takes no index.
        "out/kernel": ("layer_with_weights-1/kernel" + VALUE,),
        "out/bias": ("layer_with_weights-1/bias" + VALUE,),
    }


def test_a_nested_models_weights_are_under_its_own_index():
    inner = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2, name="a")], name="inner")
    inputs = keras.Input((3,))
    model = keras.Model(inputs, inner(keras.layers.Dense(3, name="first")(inputs)))
    aliases = keras_checkpoint_keys.tf215_aliases(model, ["k0", "b0", "k1", "b1"])
    assert aliases["k0"] == ("layer_with_weights-0/kernel" + VALUE,)
    assert aliases["b1"] == ("layer_with_weights-1/layer_with_weights-0/bias" + VALUE,)


def test_non_trainable_weights_have_object_paths_too():
    model = keras.Sequential([keras.Input((3,)), keras.layers.BatchNormalization(name="bn")])
    aliases = keras_checkpoint_keys.tf215_aliases(model, _keys(model))
    assert aliases["bn/moving_mean"] == ("layer_with_weights-0/moving_mean" + VALUE,)


def test_the_optimizers_step_count_is_read_from_the_global_step():
    aliases = _aliases(keras.optimizers.Adam())
    assert aliases["opt/iteration"] == ("global_step", GLOBAL_STEP)


def test_adams_slots_are_m_and_v_under_both_layouts():
    aliases = _aliases(keras.optimizers.Adam())
    assert aliases["opt/learning_rate"] == (
        "training/Adam/learning_rate",
        "optimizer/learning_rate" + VALUE,
    )
    assert aliases["opt/net_hidden_kernel_momentum"] == (
        "training/Adam/hidden/kernel/m",
        "layer_with_weights-0/kernel/.OPTIMIZER_SLOT/optimizer/m" + VALUE,
    )
    assert aliases["opt/net_out_bias_velocity"] == (
        "training/Adam/out/bias/v",
        "layer_with_weights-1/bias/.OPTIMIZER_SLOT/optimizer/v" + VALUE,
    )


def test_every_optimizer_variable_has_an_alias():
    optimizer = keras.optimizers.Adam()
    aliases = _aliases(optimizer)
    assert {f"opt/{variable.name}" for variable in optimizer.variables} <= set(aliases)


@pytest.mark.parametrize(
    "optimizer, slot, expected",
    [
        (keras.optimizers.RMSprop, "velocity", "rms"),
        (keras.optimizers.Adagrad, "accumulator", "accumulator"),
        (keras.optimizers.Ftrl, "linear", "linear"),
        (keras.optimizers.Adamax, "norm", "v"),
    ],
)
def test_slots_take_their_keras_2_names(optimizer, slot, expected):
    built = optimizer()
    model = _model()
    built.build(model.trainable_variables)
    keys = [f"opt/{index}" for index in range(len(built.variables))]
    aliases = keras_checkpoint_keys.tf215_aliases(model, _keys(model), built, keys)
    # Keras 3.7 named Adagrad's slot `accumulator`, 3.15 `net_hidden_kernel_accumulator`.
    key = next(k for k, v in zip(keys, built.variables) if v.name.endswith(slot))
    assert aliases[key][0] == f"training/{optimizer.__name__}/hidden/kernel/{expected}"


def test_sgds_momentum_slot():
    aliases = _aliases(keras.optimizers.SGD(momentum=0.9))
    assert aliases["opt/net_hidden_bias_momentum"][0] == "training/SGD/hidden/bias/momentum"


class SuffixNamedAdagrad(keras.optimizers.Adagrad):
    """Names its slots as Keras 3.7's Adagrad did: `accumulator`, one per
    weight in the weights' order, without the weight's path."""

    def build(self, variables):
        if self.built:
            return
        keras.optimizers.Optimizer.build(self, variables)
        self._accumulators = [
            self.add_variable(shape=v.shape, dtype=v.dtype, name="accumulator") for v in variables
        ]


def test_slots_named_without_their_weight_belong_to_the_weights_in_order():
    model = _model()
    optimizer = SuffixNamedAdagrad()
    optimizer.build(model.trainable_variables)
    keys = [f"opt/{index}" for index in range(len(optimizer.variables))]
    aliases = keras_checkpoint_keys.tf215_aliases(model, _keys(model), optimizer, keys)
    slots = [
        aliases[key][0] for key, v in zip(keys, optimizer.variables) if v.name == "accumulator"
    ]
    assert slots == [
        f"training/Adagrad/{weight}/accumulator"
        for weight in ("hidden/kernel", "hidden/bias", "out/kernel", "out/bias")
    ]


def test_a_subclass_takes_the_slots_and_name_of_its_keras_optimizer():
    class MyRMSprop(keras.optimizers.RMSprop):
        pass

    aliases = _aliases(MyRMSprop(), optimizer_name="my_rm_sprop")
    assert aliases["opt/net_hidden_kernel_velocity"][0] == "training/RMSprop/hidden/kernel/rms"


@pytest.mark.parametrize(
    "configured, expected",
    [
        (None, "RMSprop"),
        ("rm_sprop", "RMSprop"),  # Keras 3's auto-name
        ("rmsprop_3", "RMSprop"),  # uniquified
        ("RMSprop", "RMSprop"),
        ("my_optimizer", "my_optimizer"),  # a name the user gave it
    ],
)
def test_the_tf1_names_use_the_keras_2_optimizers_name(configured, expected):
    aliases = _aliases(keras.optimizers.RMSprop(), optimizer_name=configured)
    assert aliases["opt/learning_rate"][0] == f"training/{expected}/learning_rate"


def test_the_advice_names_the_way_out():
    assert "load_estimator_weights" in keras_checkpoint_keys.ADVICE
    assert "to_native_keras.md" in keras_checkpoint_keys.ADVICE
