"""A model_dir written by tensorflow-estimator 2.15 keeps its numbers here."""

import json
import os
import shutil

import numpy as np
import pytest
import tensorflow as tf
from helpers import module_from_file

import tfestimator_compat as est

SHARED = os.path.join(os.path.dirname(__file__), "..", "..", "shared")
FIXTURE = os.path.join(SHARED, "fixtures", "tf215_seed_multitask")
EXAMPLE = os.path.join(os.path.dirname(__file__), "..", "examples", "seed_multitask.py")

pytestmark = pytest.mark.skipif(
    not os.path.isdir(FIXTURE), reason="needs ../shared/fixtures/tf215_seed_multitask"
)


@pytest.fixture
def seed():
    return module_from_file(EXAMPLE, "seed_multitask")


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


REFERENCE_PYTHON = os.environ.get("TFESTIMATOR_REFERENCE_PYTHON")

_REFERENCE_EVAL = """
import importlib.util, json, sys
import tensorflow as tf
spec = importlib.util.spec_from_file_location("seed", sys.argv[1])
seed = importlib.util.module_from_spec(spec)
spec.loader.exec_module(seed)
config = tf.estimator.RunConfig(model_dir=sys.argv[2])
estimator = tf.estimator.Estimator(seed.my_model_fn, config=config, params={"learning_rate": 1e-2})
eval_x, eval_y = seed.make_data(128, 1)
metrics = estimator.evaluate(seed.input_fn(eval_x, eval_y, 32, False))
estimator.train(seed.input_fn(*seed.make_data(512, 0), 32, True), steps=3)
print(json.dumps({k: float(v) for k, v in metrics.items()}))
"""


@pytest.mark.slow
@pytest.mark.skipif(
    not REFERENCE_PYTHON,
    reason="set TFESTIMATOR_REFERENCE_PYTHON to a python with tensorflow-estimator 2.15",
)
def test_the_original_reads_and_resumes_our_checkpoints(fixture_estimator, seed, tmp_path):
    import subprocess

    model_dir = str(tmp_path / "ours")
    config = est.RunConfig(model_dir=model_dir, save_checkpoints_steps=100)
    ours = est.Estimator(seed.my_model_fn, config=config, params={"learning_rate": 1e-2})
    train_x, train_y = seed.make_data(512, 0)
    ours.train(seed.input_fn(train_x, train_y, 32, True), steps=20)
    eval_x, eval_y = seed.make_data(128, 1)
    our_metrics = ours.evaluate(seed.input_fn(eval_x, eval_y, 32, False))
    result = subprocess.run(
        [REFERENCE_PYTHON, "-c", _REFERENCE_EVAL, EXAMPLE, model_dir],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    theirs = json.loads(result.stdout.strip().splitlines()[-1])
    for key, value in theirs.items():
        assert float(our_metrics[key]) == pytest.approx(value, abs=1e-5), key
    assert ours.latest_checkpoint().endswith("model.ckpt-23")
