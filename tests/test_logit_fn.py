"""The logit-fn builders and `call_logit_fn` build the original's variables.

`fixtures/logit_fns/` holds a model_dir written by tensorflow-estimator 2.15
from a model_fn that adds a `dnn_logit_fn_builder` and a
`linear_logit_fn_builder` logit_fn (`fixtures/logit_fns/make_fixture.py`);
the same model_fn runs here on the package's functions.
"""

import importlib
import json
import os
import shutil

import numpy as np
import pytest
import tensorflow as tf
from helpers import fixture_generator

from tfestimator_compat.canned import logit_fn

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures", "logit_fns")
fixture = fixture_generator("logit_fns")
with open(os.path.join(FIXTURES, "expected.json")) as f:
    EXPECTED = json.load(f)


def test_the_functions_are_at_the_originals_paths():
    v1 = tf.compat.v1.estimator.experimental
    assert tf.estimator.experimental.call_logit_fn is logit_fn.call_logit_fn
    assert v1.call_logit_fn is logit_fn.call_logit_fn
    assert v1.dnn_logit_fn_builder is logit_fn.dnn_logit_fn_builder
    assert v1.linear_logit_fn_builder is logit_fn.linear_logit_fn_builder
    assert not hasattr(tf.estimator.experimental, "dnn_logit_fn_builder")
    assert not hasattr(tf.estimator.experimental, "linear_logit_fn_builder")


@pytest.mark.parametrize(
    "module, name",
    [
        ("model_fn", "call_logit_fn"),
        ("canned.dnn", "dnn_logit_fn_builder"),
        ("canned.linear", "linear_logit_fn_builder"),
    ],
)
def test_the_functions_import_from_the_originals_modules(module, name):
    for prefix in ("tensorflow_estimator.python.estimator", "tensorflow.python.estimator"):
        imported = importlib.import_module(f"{prefix}.{module}")
        assert getattr(imported, name) is getattr(logit_fn, name)


@pytest.fixture
def original(tmp_path):
    model_dir = str(tmp_path / "model_dir")
    shutil.copytree(fixture.MODEL_DIR, model_dir)
    return fixture.make_estimator(tf.estimator.Estimator, model_dir)


def test_a_model_dir_of_the_original_predicts_with_its_numbers(original):
    predictions = [float(p["logits"][0]) for p in original.predict(fixture.predict_input_fn)]
    np.testing.assert_allclose(predictions, EXPECTED["predictions"], rtol=1e-5)


def test_training_resumes_with_the_originals_names_and_numbers(original):
    original.train(fixture.train_input_fn, steps=fixture.RESUME_STEPS)
    found = fixture.variables(original.model_dir)
    expected = EXPECTED["variables_after_resume"]
    assert sorted(found) == sorted(expected)
    for name, value in expected.items():
        np.testing.assert_allclose(found[name], value, rtol=1e-5, atol=1e-6, err_msg=name)


def test_training_from_scratch_gives_the_originals_variables(model_dir):
    estimator = fixture.make_estimator(tf.estimator.Estimator, model_dir)
    estimator.train(fixture.train_input_fn, steps=fixture.TRAIN_STEPS)
    found = fixture.variables(model_dir)
    assert sorted(found) == sorted(EXPECTED["variables"])
    for name, value in EXPECTED["variables"].items():
        np.testing.assert_allclose(found[name], value, rtol=1e-5, atol=1e-6, err_msg=name)


def test_call_logit_fn_passes_only_the_arguments_the_logit_fn_names():
    seen = {}

    def with_params(features, params):
        seen["params"] = params
        return features["x"]

    x = tf.constant([[1.0]])
    assert logit_fn.call_logit_fn(with_params, {"x": x}, "train", {"a": 1}, None) is x
    assert seen == {"params": {"a": 1}}
    both = logit_fn.call_logit_fn(lambda features: {"a": x}, {}, "eval", None, None)
    assert both == {"a": x}


@pytest.mark.parametrize("returned", [[1.0], {"a": [1.0]}, {1: tf.constant(1.0)}])
def test_call_logit_fn_rejects_what_is_not_logits(returned):
    """In the original's words, which programs matched."""
    with pytest.raises(
        ValueError, match="logit_fn should return a Tensor or a dictionary mapping strings"
    ):
        logit_fn.call_logit_fn(lambda features: returned, {}, "train", None, None)


def test_dnn_logit_fn_builder_wants_integer_units():
    with pytest.raises(ValueError, match="units must be an int"):
        logit_fn.dnn_logit_fn_builder(1.0, [2], [], tf.nn.relu, None, None, False)
