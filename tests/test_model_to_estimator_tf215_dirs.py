"""model_dirs that `tf.keras.estimator.model_to_estimator` wrote with TF 2.15.

Recorded by fixtures/model_to_estimator_tf215/make_fixture.py with the original
(a Sequential and a functional model, each in `checkpoint_format='checkpoint'`,
object-based keys such as `layer_with_weights-0/kernel/.ATTRIBUTES/...`, and
`'saver'`, keys such as `hidden/kernel` and `training/Adam/hidden/kernel/m`).
Canned and custom model_dirs from 2.15 resume with identical numbers, and so
must these (issue #33, item D): this package keys optimizer state as
`optimizer/...`, so restores read the original's keys as aliases
(`keras_checkpoint_keys`), and the optimizer's step count from `global_step`.
"""

import json
import os
import shutil

import keras
import numpy as np
import pytest
import tensorflow as tf

import tfestimator_compat as est
from tfestimator_compat.keras_model_to_estimator import load_estimator_weights

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures", "model_to_estimator_tf215")
EXPECTED = json.load(open(os.path.join(FIXTURES, "expected.json")))
X = np.linspace(-1, 1, 24, dtype=np.float32).reshape(8, 3)
Y = (X.sum(axis=1, keepdims=True) > 0).astype(np.float32)


def make_model(kind):
    inputs = keras.Input((3,), name="x")
    hidden = keras.layers.Dense(4, activation="relu", name="hidden")
    out = keras.layers.Dense(1, activation="sigmoid", name="out")
    if kind == "sequential":
        model = keras.Sequential([inputs, hidden, out])
    else:
        model = keras.Model(inputs, out(hidden(inputs)))
    model.compile(keras.optimizers.Adam(0.01), "binary_crossentropy", metrics=["accuracy"])
    return model


def input_fn():
    return tf.data.Dataset.from_tensor_slices(({"x": X}, Y)).batch(4).repeat()


@pytest.mark.parametrize("kind", ["sequential", "functional"])
@pytest.mark.parametrize("checkpoint_format", ["checkpoint", "saver"])
def test_a_tf215_model_dir_resumes_with_the_originals_numbers(kind, checkpoint_format, tmp_path):
    name = f"{kind}_{checkpoint_format}"
    model_dir = str(tmp_path / name)
    shutil.copytree(os.path.join(FIXTURES, name), model_dir)
    estimator = est.model_to_estimator(
        keras_model=make_model(kind), model_dir=model_dir, checkpoint_format=checkpoint_format
    )
    expected = EXPECTED[name]
    result = estimator.evaluate(lambda: input_fn().take(2))
    assert result["global_step"] == 3
    np.testing.assert_allclose(result["loss"], expected["eval_at_3"]["loss"], rtol=1e-5)
    predictions = [
        p["out"].tolist()
        for p in estimator.predict(lambda: tf.data.Dataset.from_tensor_slices({"x": X}).batch(4))
    ]
    np.testing.assert_allclose(predictions, expected["predictions_at_3"], rtol=1e-5)
    estimator.train(input_fn, steps=2)
    result = estimator.evaluate(lambda: input_fn().take(2))
    assert result["global_step"] == 5
    np.testing.assert_allclose(result["loss"], expected["eval_at_5"]["loss"], rtol=1e-5)


@pytest.mark.parametrize("checkpoint_format", ["checkpoint", "saver"])
def test_load_estimator_weights_reads_a_tf215_model_dir(checkpoint_format):
    name = f"functional_{checkpoint_format}"
    model = load_estimator_weights(make_model("functional"), os.path.join(FIXTURES, name))
    np.testing.assert_allclose(
        model.predict(X, verbose=0), EXPECTED[name]["predictions_at_3"], rtol=1e-5
    )


def test_a_model_dir_of_other_layers_says_what_to_do_instead_of_warm_starting(tmp_path):
    model_dir = str(tmp_path / "saver")
    shutil.copytree(os.path.join(FIXTURES, "sequential_saver"), model_dir)
    model = keras.Sequential(
        [keras.Input((3,), name="x"), keras.layers.Dense(1, activation="sigmoid", name="other")]
    )
    model.compile("adam", "binary_crossentropy")
    estimator = est.model_to_estimator(keras_model=model, model_dir=model_dir)
    with pytest.raises(tf.errors.NotFoundError) as error:
        estimator.evaluate(lambda: input_fn().take(1))
    message = str(error.value)
    assert "other/kernel" in message
    assert "use warm_start_from" not in message
    assert "load_estimator_weights" in message and "new model_dir" in message


# Slot keys 2.15's model_to_estimator wrote for `Dense(1, name="out")`, listed
# with /work/ref215 (tf.train.list_variables after train(steps=1), both formats).
TF215_SLOTS = [
    (keras.optimizers.SGD(0.1, momentum=0.9), "SGD", ["momentum"]),
    (keras.optimizers.RMSprop(centered=True, momentum=0.5), "RMSprop", ["mg", "momentum", "rms"]),
    (keras.optimizers.Adam(amsgrad=True, name="myopt"), "myopt", ["m", "v", "vhat"]),
    (keras.optimizers.Adagrad(), "Adagrad", ["accumulator"]),
    (keras.optimizers.Adamax(), "Adamax", ["m", "v"]),
]


@pytest.mark.parametrize("optimizer, name, slots", TF215_SLOTS)
def test_each_optimizer_slot_is_read_from_the_keys_tf215_wrote(optimizer, name, slots):
    inputs = keras.Input((3,), name="x")
    model = keras.Model(inputs, keras.layers.Dense(1, name="out")(inputs))
    model.compile(optimizer, "mse")
    estimator = est.model_to_estimator(keras_model=model)
    aliases = {key for keys in estimator._model_state.key_aliases.aliases.values() for key in keys}
    object_slot = (
        "layer_with_weights-0/kernel/.OPTIMIZER_SLOT/optimizer/{}/.ATTRIBUTES/VARIABLE_VALUE"
    )
    for slot in slots:
        assert f"training/{name}/out/kernel/{slot}" in aliases
        assert object_slot.format(slot) in aliases
    assert f"training/{name}/learning_rate" in aliases


class MyAdam(keras.optimizers.Adam):
    """A user's subclass: 2.15 could not train with one, but the model_dir of the
    same model with Adam resumes with it, as Keras 2 named it `Adam` too."""


def test_a_subclass_of_a_keras_optimizer_reads_the_keys_of_its_base_class():
    inputs = keras.Input((3,), name="x")
    model = keras.Model(inputs, keras.layers.Dense(1, name="out")(inputs))
    model.compile(MyAdam(), "mse")
    estimator = est.model_to_estimator(keras_model=model)
    aliases = {key for keys in estimator._model_state.key_aliases.aliases.values() for key in keys}
    assert {"training/Adam/out/kernel/m", "training/Adam/out/bias/v"} <= aliases


def test_a_model_keras_calls_rather_than_rebuilds_reads_the_object_keys_tf215_wrote():
    """2.15 converted a Dense with `activation=tf.nn.softmax`, whose config Keras 3
    cannot deserialize: the Estimator calls that model, under the same keys."""
    inputs = keras.Input((3,), name="x")
    outputs = keras.layers.Dense(1, activation=tf.nn.softmax, name="out")(inputs)
    model = keras.Model(inputs, outputs)
    model.compile(keras.optimizers.Adam(), "mse")
    aliases = est.model_to_estimator(keras_model=model)._model_state.key_aliases.aliases
    assert aliases["out/kernel"] == ("layer_with_weights-0/kernel/.ATTRIBUTES/VARIABLE_VALUE",)
    assert aliases["optimizer/out_kernel_momentum"] == (
        "training/Adam/out/kernel/m",
        "layer_with_weights-0/kernel/.OPTIMIZER_SLOT/optimizer/m/.ATTRIBUTES/VARIABLE_VALUE",
    )
