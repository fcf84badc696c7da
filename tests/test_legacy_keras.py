"""Legacy Keras mode: `tf.keras` is tf_keras (Keras 2), and estimator code keeps working.

With tf_keras installed and `TF_USE_LEGACY_KERAS=1`, `tf.keras.*` objects are
tf_keras classes. `fixtures/legacy_keras/program.py` uses them everywhere the
estimator API takes Keras objects and runs in a subprocess (the mode is chosen
when TensorFlow is imported); its report is compared with the same program's
under TF 2.15 and tensorflow-estimator.
"""

import importlib.util
import json
import os
import subprocess
import sys

import numpy as np
import pytest

HERE = os.path.join(os.path.dirname(__file__), "fixtures", "legacy_keras")

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("tf_keras") is None,
    reason="legacy Keras mode needs tf_keras (pip install tfestimator-compat[legacy-keras])",
)


@pytest.fixture(scope="module")
def report():
    env = dict(os.environ, TF_USE_LEGACY_KERAS="1")
    result = subprocess.run(
        [sys.executable, os.path.join(HERE, "program.py")],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    line = next(line for line in result.stdout.splitlines() if line.startswith("REPORT "))
    return json.loads(line[len("REPORT ") :])


@pytest.fixture(scope="module")
def original():
    with open(os.path.join(HERE, "tf215_report.json")) as f:
        return json.load(f)


def assert_checkpoints_equal(actual, expected):
    assert sorted(actual) == sorted(expected)
    for name, values in expected.items():
        assert actual[name] == pytest.approx(values, rel=1e-5, abs=1e-7), name


def test_tf_keras_is_what_tf_keras_gives_and_its_own_classes_stay(report):
    assert report["tf_keras"] == "tf_keras"
    # The package binds its own legacy optimizers and DenseFeatures only where Keras 3 lacks them.
    assert all(module.startswith("tf_keras.") for module in report["kept"])


def test_canned_estimators_train_with_tf_keras_legacy_optimizers_as_the_original(report, original):
    for name in ("legacy_adam_decay", "legacy_sgd_schedule"):
        assert_checkpoints_equal(report["canned"][name], original["canned"][name])


def test_canned_estimators_take_every_keras_adam_alike(report):
    canned = report["canned"]
    assert canned["adam"] == canned["keras3_adam"] == canned["legacy_adam"]
    assert canned["adam_made_in_model_fn"] == canned["adam"]
    assert "training/Adam/linear/linear_model/x/weights/m" in canned["adam"]


def test_model_fn_with_tf_keras_layers_optimizer_and_metric_as_the_original(report, original):
    assert_checkpoints_equal(report["model_fn"]["checkpoint"], original["model_fn"]["checkpoint"])
    assert report["model_fn"]["evaluate"] == pytest.approx(original["model_fn"]["evaluate"])


def test_tf_keras_callback_is_a_hook(report):
    assert report["model_fn"]["callback_batches"] == [0, 1, 2]


def test_model_to_estimator_of_a_tf_keras_model(report):
    results = report["model_to_estimator"]
    keras_loss, keras_accuracy = results["keras_evaluate"]
    assert results["before"]["loss"] == pytest.approx(keras_loss, rel=1e-5)
    assert results["before"]["accuracy"] == pytest.approx(keras_accuracy)
    assert results["after"]["global_step"] == 20
    assert results["after"]["loss"] < results["before"]["loss"]
    loss_after, accuracy_after = results["keras_evaluate_after"]
    assert loss_after == pytest.approx(results["after"]["loss"], rel=1e-5), "weights came back"
    assert accuracy_after == pytest.approx(results["after"]["accuracy"])


def test_model_to_estimator_of_a_tf_keras_model_with_a_tf1_initializer_and_adam(report):
    carried = report["carried_over"]
    np.testing.assert_allclose(
        carried["predictions"], carried["keras_predict"], rtol=1e-5, atol=1e-6
    )
    assert carried["global_step"] == 2


def test_model_to_estimator_refuses_what_keras_3_cannot_take_by_name(report):
    refused = report["refused"]
    assert "subclassed tf_keras model Subclassed" in refused["subclassed"]
    assert "SGD(decay=0.01) has no equivalent in Keras 3's SGD" in refused["decay"]
