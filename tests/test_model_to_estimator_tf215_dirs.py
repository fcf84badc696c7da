"""model_dirs that `tf.keras.estimator.model_to_estimator` wrote with TF 2.15.

Recorded by fixtures/model_to_estimator_tf215/make_fixture.py with the original
(a Sequential and a functional model, each in `checkpoint_format='checkpoint'`,
object-based keys such as `layer_with_weights-0/kernel/.ATTRIBUTES/...`, and
`'saver'`, keys such as `hidden/kernel` and `training/Adam/hidden/kernel/m`).
Canned and custom model_dirs from 2.15 resume with identical numbers; these do
not yet: this package keys optimizer state as `optimizer/...` and does not read
object-based keys, so restoring raises NotFoundError (issue #33, item D).
"""

import json
import os
import shutil

import keras
import numpy as np
import pytest
import tensorflow as tf

import tfestimator_compat as est

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


@pytest.mark.xfail(strict=True, raises=tf.errors.NotFoundError, reason="issue #33 item D")
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
