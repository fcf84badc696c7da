"""A model_dir written by tensorflow-estimator 2.15 keeps its numbers here."""

import importlib.util
import json
import os
import shutil

import numpy as np
import pytest
import tensorflow as tf

import tfestimator_compat as est

SHARED = os.path.join(os.path.dirname(__file__), "..", "..", "shared")
FIXTURE = os.path.join(SHARED, "fixtures", "tf215_seed_multitask")
EXAMPLE = os.path.join(os.path.dirname(__file__), "..", "examples", "seed_multitask.py")

pytestmark = pytest.mark.skipif(
    not os.path.isdir(FIXTURE), reason="needs ../shared/fixtures/tf215_seed_multitask"
)


@pytest.fixture
def seed():
    spec = importlib.util.spec_from_file_location("seed_multitask", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def fixture_estimator(tmp_path, seed):
    model_dir = str(tmp_path / "fixture")
    shutil.copytree(FIXTURE, model_dir)
    config = est.RunConfig(model_dir=model_dir, save_checkpoints_steps=100, tf_random_seed=7)
    return est.Estimator(seed.my_model_fn, config=config, params={"learning_rate": 1e-2})


def expected():
    with open(os.path.join(FIXTURE, "expected.json")) as f:
        return json.load(f)


def test_evaluate_reproduces_the_original(fixture_estimator, seed):
    eval_x, eval_y = seed.make_data(128, 1)
    metrics = fixture_estimator.evaluate(seed.input_fn(eval_x, eval_y, 32, False))
    for key, value in expected()["evaluate"].items():
        assert metrics[key] == pytest.approx(value, abs=1e-4), key


def test_predict_reproduces_the_original(fixture_estimator, seed):
    eval_x, eval_y = seed.make_data(128, 1)
    predictions = list(fixture_estimator.predict(seed.input_fn(eval_x, eval_y, 32, False)))[:5]
    for key, values in expected()["predict_first5"].items():
        got = np.stack([p[key] for p in predictions])
        np.testing.assert_allclose(got, np.array(values), atol=1e-4, err_msg=key)


def test_training_resumes_from_step_300(fixture_estimator, seed):
    train_x, train_y = seed.make_data(512, 0)
    fixture_estimator.train(seed.input_fn(train_x, train_y, 32, True), steps=20)
    assert fixture_estimator.latest_checkpoint().endswith("model.ckpt-320")
    reader = tf.train.load_checkpoint(fixture_estimator.latest_checkpoint())
    assert set(reader.get_variable_to_shape_map()) == set(dict(tf.train.list_variables(FIXTURE)))
    assert fixture_estimator.get_variable_value("beta1_power") == pytest.approx(0.9**321, rel=1e-4)
