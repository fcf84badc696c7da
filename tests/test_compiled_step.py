"""The opt-in compiled step (engine/loop/compiled_step.py): XLA auto-clustering
of the step functions, asked for with `TFESTIMATOR_COMPAT_XLA=1` or a
`session_config` whose `global_jit_level` is ON_1, off by default."""

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import tensorflow as tf

import tfestimator_compat as est
from tfestimator_compat.engine.loop import compiled_step


def _jit_config():
    config = tf.compat.v1.ConfigProto()
    config.graph_options.optimizer_options.global_jit_level = tf.compat.v1.OptimizerOptions.ON_1
    return config


def _recording_model_fn(seen):
    """A model_fn whose step records the jit setting it runs under (a py_function,
    which XLA leaves out of its clusters)."""

    def record():
        seen.append(tf.config.optimizer.get_jit())
        return np.float32(0.0)

    def model_fn(features, labels, mode):
        w = tf.compat.v1.get_variable("w", [3, 1], initializer=tf.compat.v1.zeros_initializer())
        predictions = tf.matmul(features["x"], w) + 0.0 * tf.py_function(record, [], tf.float32)
        if mode == est.ModeKeys.PREDICT:
            return est.EstimatorSpec(mode, predictions={"y": predictions})
        loss = tf.reduce_mean(tf.square(predictions - tf.cast(labels, tf.float32)))
        train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(
            loss, global_step=tf.compat.v1.train.get_global_step()
        )
        return est.EstimatorSpec(mode, loss=loss, train_op=train_op)

    return model_fn


def _input_fn():
    x = np.arange(24, dtype=np.float32).reshape(8, 3) / 24
    return tf.data.Dataset.from_tensor_slices(({"x": x}, x.sum(1, keepdims=True))).batch(4)


@pytest.fixture
def no_switch(monkeypatch):
    """No XLA switch from the environment; TF_XLA_FLAGS restored afterwards."""
    monkeypatch.delenv(compiled_step.ENVIRONMENT_VARIABLE, raising=False)
    monkeypatch.setenv("TF_XLA_FLAGS", os.environ.get("TF_XLA_FLAGS", ""))


def test_steps_run_uncompiled_by_default(tmp_path, no_switch):
    seen = []
    flags = os.environ["TF_XLA_FLAGS"]
    estimator = est.Estimator(_recording_model_fn(seen), str(tmp_path))
    estimator.train(_input_fn, steps=2)
    assert [model.compiled_step for model in estimator._model_state.models()] == [False]
    assert seen and set(seen) == {""}
    assert os.environ["TF_XLA_FLAGS"] == flags


def test_global_jit_level_clusters_the_steps_only(tmp_path, no_switch):
    seen = []
    config = est.RunConfig(model_dir=str(tmp_path), session_config=_jit_config())
    estimator = est.Estimator(_recording_model_fn(seen), config=config)
    estimator.train(_input_fn, steps=2)
    estimator.evaluate(_input_fn, steps=1)
    assert len(list(estimator.predict(lambda: _input_fn().map(lambda x, y: x)))) == 8
    models = estimator._model_state.models()
    assert [model.compiled_step for model in models] == [True, True, True]
    assert len(seen) == 2 + 1 + 2 and set(seen) == {"autoclustering"}
    # The program's own functions, run outside the steps, are left alone.
    assert tf.config.optimizer.get_jit() == ""
    # As the original's ON_1, it clusters on CPUs only where the program asked XLA to.
    assert compiled_step.CPU_FLAG not in os.environ["TF_XLA_FLAGS"].split()


def test_environment_variable_lets_cpus_cluster_too(no_switch, monkeypatch):
    monkeypatch.setenv(compiled_step.ENVIRONMENT_VARIABLE, "1")
    monkeypatch.setenv("TF_XLA_FLAGS", "--tf_xla_auto_jit=0")
    assert compiled_step.prepare(None)
    assert os.environ["TF_XLA_FLAGS"] == f"--tf_xla_auto_jit=0 {compiled_step.CPU_FLAG}"
    assert compiled_step.prepare(None)  # added once
    assert os.environ["TF_XLA_FLAGS"].split().count(compiled_step.CPU_FLAG) == 1


def test_environment_variable_overrides_session_config(monkeypatch):
    variable = compiled_step.ENVIRONMENT_VARIABLE
    monkeypatch.setenv(variable, "1")
    assert compiled_step.requested(None)
    monkeypatch.setenv(variable, "0")
    assert not compiled_step.requested(_jit_config())
    monkeypatch.delenv(variable)
    assert compiled_step.requested(_jit_config())
    assert not compiled_step.requested(tf.compat.v1.ConfigProto())
    monkeypatch.setenv(variable, "xla")
    with pytest.raises(ValueError, match="TFESTIMATOR_COMPAT_XLA='xla'.*concepts.md"):
        compiled_step.requested(None)


# Trains each model uncompiled, then compiled (session_config ON_1), in a fresh
# process whose TF_XLA_FLAGS lets XLA cluster on CPUs. Prints a marker between the
# two, so the test sees XLA's "Compiled cluster" log line came from the
# compiled run, and the variables of both as JSON.
_SCRIPT = textwrap.dedent(
    """
    import json, sys
    import numpy as np
    import tensorflow as tf
    import tfestimator_compat as est

    def dense_model_fn(features, labels, mode):
        glorot = tf.compat.v1.glorot_uniform_initializer
        zeros = tf.compat.v1.zeros_initializer()
        net = features["x"]
        for index, units in enumerate((16, 1)):
            shape = [net.shape[1], units]
            w = tf.compat.v1.get_variable(f"w{index}", shape, initializer=glorot(seed=index))
            b = tf.compat.v1.get_variable(f"b{index}", [units], initializer=zeros)
            net = tf.matmul(net, w) + b
            net = tf.nn.relu(net) if index == 0 else net
        loss = tf.reduce_mean(tf.square(net - labels))
        tf.compat.v1.summary.scalar("loss_again", loss)
        train_op = tf.compat.v1.train.AdamOptimizer(0.01).minimize(
            loss, global_step=tf.compat.v1.train.get_global_step())
        return est.EstimatorSpec(mode, loss=loss, train_op=train_op)

    def dense_input_fn():
        rng = np.random.RandomState(0)
        x = rng.rand(256, 8).astype(np.float32)
        y = x @ rng.rand(8, 1).astype(np.float32)
        return tf.data.Dataset.from_tensor_slices(({"x": x}, y)).repeat().batch(32)

    def hashed_model_fn(features, labels, mode):
        fc = tf.feature_column
        columns = [
            fc.embedding_column(fc.categorical_column_with_hash_bucket("word", 50), 4),
            fc.indicator_column(fc.categorical_column_with_vocabulary_list("kind", ["a", "b"])),
        ]
        net = tf.compat.v1.feature_column.input_layer(features, columns)
        logits = tf.compat.v1.layers.dense(net, 1)
        loss = tf.compat.v1.losses.sigmoid_cross_entropy(labels, logits)
        loss += 0.0 * tf.compat.v1.py_func(lambda value: value, [loss], tf.float32)
        train_op = tf.compat.v1.train.AdagradOptimizer(0.1).minimize(
            loss, global_step=tf.compat.v1.train.get_global_step())
        return est.EstimatorSpec(mode, loss=loss, train_op=train_op)

    def hashed_input_fn():
        words = np.array([f"w{i % 7}" for i in range(64)])
        kinds = np.array(["a", "b"] * 32)
        labels = (np.arange(64) % 3 == 0).astype(np.float32).reshape(-1, 1)
        features = {"word": words.reshape(-1, 1), "kind": kinds.reshape(-1, 1)}
        return tf.data.Dataset.from_tensor_slices((features, labels)).repeat().batch(16)

    jit = tf.compat.v1.ConfigProto()
    jit.graph_options.optimizer_options.global_jit_level = tf.compat.v1.OptimizerOptions.ON_1
    runs = {}
    for name, model_fn in (("dense", dense_model_fn), ("hashed", hashed_model_fn)):
        for compiled in (True, False):
            config = est.RunConfig(
                model_dir=f"{sys.argv[1]}/{name}-{compiled}",
                tf_random_seed=1,
                session_config=jit if compiled else None,
            )
            runs[name, compiled] = est.Estimator(model_fn, config=config)
    inputs = {"dense": dense_input_fn, "hashed": hashed_input_fn}
    result = {}
    for compiled in (False, True):
        print("TRAINING compiled=%s" % compiled, file=sys.stderr, flush=True)
        for name in ("dense", "hashed"):
            estimator = runs[name, compiled]
            estimator.train(inputs[name], steps=20)
            loss = estimator.evaluate(inputs[name], steps=2)["loss"]
            values = {v: estimator.get_variable_value(v).tolist()
                      for v in estimator.get_variable_names()}
            result[f"{name}-{compiled}"] = {"loss": float(loss), "variables": values}
    print(json.dumps(result))
    """
)


@pytest.fixture(scope="module")
def trained_both_ways(tmp_path_factory):
    """(stderr, results) of `_SCRIPT` run in a fresh process."""
    env = {
        key: value for key, value in os.environ.items() if key != compiled_step.ENVIRONMENT_VARIABLE
    }
    env["TF_XLA_FLAGS"] = compiled_step.CPU_FLAG
    env["TF_CPP_MIN_LOG_LEVEL"] = "0"
    directory = tmp_path_factory.mktemp("compiled")
    done = subprocess.run(
        [sys.executable, "-c", _SCRIPT, str(directory)],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stderr, json.loads(done.stdout.strip().splitlines()[-1])


def test_compiled_step_runs_xla_clusters(trained_both_ways):
    stderr, _ = trained_both_ways
    uncompiled, compiled = stderr.split("TRAINING compiled=True")
    assert "Compiled cluster using XLA" not in uncompiled
    assert "Compiled cluster using XLA" in compiled


@pytest.mark.parametrize("model", ["dense", "hashed"])
def test_compiled_step_trains_to_the_same_numbers(trained_both_ways, model):
    """Adam on dense layers, and a model with hashed and vocabulary feature
    columns, a py_func and a summary (ops XLA leaves out): 20 steps compiled
    match 20 steps uncompiled within float tolerance."""
    _, results = trained_both_ways
    plain, compiled = results[f"{model}-False"], results[f"{model}-True"]
    assert sorted(compiled["variables"]) == sorted(plain["variables"])
    assert compiled["variables"]["global_step"] == 20
    np.testing.assert_allclose(compiled["loss"], plain["loss"], rtol=1e-5)
    for name, value in plain["variables"].items():
        np.testing.assert_allclose(
            compiled["variables"][name], value, rtol=1e-5, atol=1e-6, err_msg=name
        )
