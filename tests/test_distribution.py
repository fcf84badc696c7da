"""train_distribute / TF_CONFIG: the same job on one device, two logical devices and a cluster.

The jobs run in subprocesses (tests/fixtures/distribution/job.py): logical
devices and multi-worker strategies must be set up before TensorFlow starts.
"""

import json
import os
import signal
import socket
import subprocess
import sys
import time

import numpy as np
import pytest
import tensorflow as tf
from helpers import classifier_model_fn
from helpers import dataset_input_fn

import tfestimator_compat as est

JOB = os.path.join(os.path.dirname(__file__), "fixtures", "distribution", "job.py")


def run_job(model_dir, mode, *args, env=None, timeout=300):
    out = subprocess.run(
        [sys.executable, JOB, str(model_dir), mode, *map(str, args)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2", **(env or {})),
    )
    return parse_result(out.stdout, out.stderr, out.returncode)


def parse_result(stdout, stderr, returncode):
    lines = [line for line in stdout.splitlines() if line.startswith("RESULT ")]
    assert returncode == 0 and lines, f"job failed ({returncode}):\n{stderr[-4000:]}"
    return json.loads(lines[-1][len("RESULT ") :])


def assert_same_run(a, b, rtol=1e-5):
    assert a["evaluation"].keys() == b["evaluation"].keys()
    for key, value in a["evaluation"].items():
        np.testing.assert_allclose(b["evaluation"][key], value, rtol=rtol, err_msg=key)
    np.testing.assert_allclose(b["predictions"], a["predictions"], rtol=rtol, atol=1e-6)
    assert a["variables"].keys() == b["variables"].keys()
    for name, value in a["variables"].items():
        np.testing.assert_allclose(b["variables"][name], value, rtol=rtol, atol=1e-6, err_msg=name)


def test_mirrored_on_two_logical_devices_matches_one_device_with_twice_the_batch(tmp_path):
    """The same program: each replica reads a batch of 4 (input_context), gradients are
    averaged across the two, and train_and_evaluate evaluates and exports as on one device."""
    single = run_job(tmp_path / "single", "single")
    mirrored = run_job(tmp_path / "mirrored", "mirrored")
    assert mirrored["evaluation"]["global_step"] == 20
    assert_same_run(single, mirrored)
    names = tf.train.load_checkpoint(str(tmp_path / "mirrored")).get_variable_to_shape_map()
    assert not any("replica" in name for name in names), "one copy saved, under its TF1 name"
    assert set(names) == set(single["variables"])
    assert len(mirrored["exports"]) == 1
    np.testing.assert_allclose(
        serve(mirrored["exports"][0]), serve(single["exports"][0]), rtol=1e-5, atol=1e-6
    )


def serve(export_dir):
    signature = tf.saved_model.load(export_dir).signatures["serving_default"]
    return signature(x=tf.constant([[0.1, 0.2, 0.3], [1.0, -1.0, 0.5]]))["y"].numpy()


@pytest.mark.slow
def test_canned_dnn_with_a_keras_optimizer_mirrored_matches_one_device(tmp_path):
    start = tmp_path / "start"
    run_job(start, "canned_single", 1)
    single = run_job(tmp_path / "single", "canned_single", 20, start)
    mirrored = run_job(tmp_path / "mirrored", "canned_mirrored", 20, start)
    assert_same_run(single, mirrored)
    assert (
        mirrored["evaluation"]["average_loss"]
        < 0.9 * run_job(tmp_path / "again", "canned_single", 1, start)["evaluation"]["average_loss"]
    )


def free_port():
    with socket.socket() as s:
        s.bind(("localhost", 0))
        return s.getsockname()[1]


def cluster():
    return {
        "chief": [f"localhost:{free_port()}"],
        "worker": [f"localhost:{free_port()}"],
        "evaluator": [f"localhost:{free_port()}"],
    }


def start_task(spec, task_type, model_dir, max_steps, mode="cluster"):
    tf_config = {"cluster": spec, "task": {"type": task_type, "index": 0}}
    return subprocess.Popen(
        [sys.executable, JOB, str(model_dir), mode, str(max_steps)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=dict(os.environ, TF_CONFIG=json.dumps(tf_config), TF_CPP_MIN_LOG_LEVEL="2"),
    )


def finish(processes, timeout=300):
    results = {}
    for task_type, process in processes.items():
        stdout, stderr = process.communicate(timeout=timeout)
        results[task_type] = parse_result(stdout, stderr, process.returncode)
    return results


def checkpoint_steps(model_dir):
    state = tf.train.get_checkpoint_state(str(model_dir))
    return sorted(int(path.rsplit("-", 1)[1]) for path in state.all_model_checkpoint_paths)


@pytest.mark.slow
def test_chief_worker_and_evaluator_processes_train_evaluate_and_export_in_any_mode(tmp_path):
    model_dir = tmp_path / "model"
    spec = cluster()
    # The chief's program turned eager execution off (a TF1-era program) and the
    # worker's also uses the TF1 strategy class: all train together as one job.
    modes = {"chief": "graph_cluster", "worker": "graph_cluster_v1", "evaluator": "cluster"}
    processes = {task: start_task(spec, task, model_dir, 20, modes[task]) for task in spec}
    results = finish(processes)
    assert results["chief"]["evaluation"] == {} and results["worker"]["evaluation"] == {}
    evaluation = results["evaluator"]["evaluation"]
    assert evaluation["global_step"] == 20
    # Chief and worker each read half of a global batch of 8 (input_context sharding):
    # the same numbers as one device reading all 8.
    single = run_job(tmp_path / "single", "single")
    for key, value in single["evaluation"].items():
        np.testing.assert_allclose(evaluation[key], value, rtol=1e-5, err_msg=key)
    assert checkpoint_steps(model_dir) == [0, 5, 10, 15, 20]
    events = [name for name in os.listdir(model_dir) if name.startswith("events.out")]
    assert len(events) == 1, "only the chief writes summaries to model_dir"
    exports = results["evaluator"]["exports"]
    assert exports and os.path.dirname(exports[-1]) == str(model_dir / "export" / "latest")
    served = tf.saved_model.load(exports[-1]).signatures["serving_default"](x=tf.ones([2, 3]))
    assert served["y"].shape == (2, 1)
    assert os.path.isdir(model_dir / "eval")


@pytest.mark.slow
def test_a_killed_worker_and_restarted_cluster_resume_from_the_last_checkpoint(tmp_path):
    model_dir = tmp_path / "model"
    spec = cluster()
    max_steps = 1000
    training = {task: start_task(spec, task, model_dir, max_steps) for task in ("chief", "worker")}
    deadline = time.time() + 240
    while not (model_dir / "checkpoint").exists() or checkpoint_steps(model_dir)[-1] < 100:
        assert time.time() < deadline, "training did not reach step 100"
        time.sleep(0.2)
    training["worker"].send_signal(signal.SIGKILL)
    training["worker"].wait()
    # The chief's all-reduce loses its peer: it fails by itself (an orchestrator restarts it).
    assert training["chief"].wait(timeout=60) != 0
    reached = checkpoint_steps(model_dir)[-1]
    assert 100 <= reached < max_steps
    restored = est.Estimator(lambda features, labels, mode: None, model_dir=str(model_dir))
    assert restored.get_variable_value("global_step") == reached, "the newest checkpoint loads"

    processes = {task: start_task(spec, task, model_dir, max_steps) for task in spec}
    results = finish(processes)
    assert results["evaluator"]["evaluation"]["global_step"] == max_steps
    steps = checkpoint_steps(model_dir)
    assert steps[-1] == max_steps and len(steps) == 5
    assert steps[0] > reached, "training continued from the checkpoint, not from scratch"


def test_a_parameter_server_cluster_without_workers_fails_before_training_saying_why(
    tmp_path, monkeypatch
):
    # tests/test_ps_cluster.py runs the clusters that train; TensorFlow's
    # ParameterServerStrategy, which runs the steps, needs a worker.
    tf_config = {
        "cluster": {"chief": ["localhost:1"], "ps": ["localhost:3"]},
        "task": {"type": "chief", "index": 0},
    }
    monkeypatch.setenv("TF_CONFIG", json.dumps(tf_config))
    config = est.RunConfig(model_dir=str(tmp_path / "model"))
    estimator = est.Estimator(lambda features, labels, mode: None, config=config)
    with pytest.raises(ValueError, match="no 'worker' task.*cluster.md#parameter-servers"):
        estimator.train(lambda: tf.data.Dataset.from_tensors(({"x": [1.0]}, [1.0])), steps=1)
    assert not (tmp_path / "model").exists()


def test_a_parameter_server_strategy_without_a_cluster_fails_saying_what_to_set(tmp_path):
    strategy = tf.compat.v1.distribute.experimental.ParameterServerStrategy()
    config = est.RunConfig(model_dir=str(tmp_path / "model"), train_distribute=strategy)
    assert config.train_distribute is strategy
    estimator = est.Estimator(lambda features, labels, mode: None, config=config)
    with pytest.raises(ValueError, match="needs a TF_CONFIG cluster with 'ps' tasks"):
        estimator.train(lambda: tf.data.Dataset.from_tensors(({"x": [1.0]}, [1.0])), steps=1)


def test_several_training_tasks_without_a_multi_worker_strategy_fail_clearly(tmp_path, monkeypatch):
    tf_config = {
        "cluster": {"chief": ["localhost:1"], "worker": ["localhost:2"]},
        "task": {"type": "worker", "index": 0},
    }
    monkeypatch.setenv("TF_CONFIG", json.dumps(tf_config))
    config = est.RunConfig(model_dir=str(tmp_path / "model"))
    estimator = est.Estimator(lambda features, labels, mode: None, config=config)
    with pytest.raises(ValueError, match="MultiWorkerMirroredStrategy"):
        estimator.train(lambda: tf.data.Dataset.from_tensors(({"x": [1.0]}, [1.0])), steps=1)


def test_different_train_and_eval_strategies_are_refused(tmp_path):
    config = est.RunConfig(
        model_dir=str(tmp_path),
        train_distribute=tf.distribute.MirroredStrategy(["/cpu:0"]),
        eval_distribute=tf.distribute.MirroredStrategy(["/cpu:0"]),
    )
    with pytest.raises(ValueError, match="same object"):
        est.Estimator(lambda features, labels, mode: None, config=config)


@pytest.mark.parametrize(
    "make_strategy",
    [
        lambda: tf.compat.v1.distribute.MirroredStrategy(["/cpu:0"]),
        lambda: tf.compat.v1.distribute.OneDeviceStrategy("/cpu:0"),
        lambda: tf.compat.v1.distribute.experimental.MultiWorkerMirroredStrategy(),
    ],
    ids=["mirrored_v1", "one_device_v1", "multi_worker_mirrored_v1"],
)
def test_tf1_strategies_train_evaluate_and_predict(tmp_path, make_strategy):
    strategy = make_strategy()
    config = est.RunConfig(
        model_dir=str(tmp_path), train_distribute=strategy, eval_distribute=strategy
    )
    assert isinstance(config.train_distribute, tf.distribute.Strategy), "run as TF2's class"
    estimator = est.Estimator(classifier_model_fn, config=config, params={"learning_rate": 0.1})
    estimator.train(dataset_input_fn(repeat=True), steps=4)
    results = estimator.evaluate(dataset_input_fn())
    assert results["global_step"] == 4
    assert np.isfinite(results["loss"])
    assert len(list(estimator.predict(dataset_input_fn()))) == 64


def test_a_program_that_disabled_eager_execution_trains_on_two_devices(tmp_path):
    # tf.compat.v1.disable_eager_execution() first, then the same job (metrics are made
    # in every mode, eval_distribute is left None): the numbers of one device.
    mirrored = run_job(tmp_path / "mirrored", "graph_mirrored", 10)
    single = run_job(tmp_path / "single", "single", 10)
    for key, value in single["evaluation"].items():
        np.testing.assert_allclose(mirrored["evaluation"][key], value, rtol=1e-5, err_msg=key)


@pytest.mark.parametrize(
    "make_strategy",
    [
        lambda: tf.distribute.MultiWorkerMirroredStrategy(),
        lambda: tf.compat.v1.distribute.experimental.MultiWorkerMirroredStrategy(),
    ],
    ids=["tf2", "tf1"],
)
def test_a_multi_worker_strategy_made_in_graph_mode_trains_on_one_worker(tmp_path, make_strategy):
    # Made while eager execution is off, its all-reduce lacks what functions need.
    with tf.Graph().as_default():
        strategy = make_strategy()
        config = est.RunConfig(model_dir=str(tmp_path), train_distribute=strategy)
    estimator = est.Estimator(classifier_model_fn, config=config, params={"learning_rate": 0.1})
    estimator.train(dataset_input_fn(repeat=True), steps=4)
    assert estimator.evaluate(dataset_input_fn())["global_step"] == 4


def test_a_model_dir_trained_with_a_strategy_resumes_without_one_and_back(tmp_path):
    # migration_guide/cluster.md: checkpoints hold one copy of each variable, under its TF1 name.
    def estimator(strategy=None):
        config = est.RunConfig(
            model_dir=str(tmp_path), train_distribute=strategy, eval_distribute=strategy
        )
        return est.Estimator(classifier_model_fn, config=config, params={"learning_rate": 0.1})

    mirrored = estimator(tf.distribute.MirroredStrategy(["/cpu:0"]))
    mirrored.train(dataset_input_fn(repeat=True), steps=3)
    plain = estimator()
    np.testing.assert_allclose(
        plain.evaluate(dataset_input_fn())["loss"],
        mirrored.evaluate(dataset_input_fn())["loss"],
        rtol=1e-6,
    )
    plain.train(dataset_input_fn(repeat=True), steps=2)
    assert plain.get_variable_value("global_step") == 5, "resumed at step 3"
    estimator(tf.distribute.MirroredStrategy(["/cpu:0"])).train(
        dataset_input_fn(repeat=True), steps=2
    )
    assert plain.get_variable_value("global_step") == 7, "and back, resumed at step 5"


_LEFTOVER_BATCH = """
import json, os, sys
import tensorflow as tf
cpu = tf.config.list_physical_devices("CPU")[0]
tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
import tfestimator_compat as est

def model_fn(features, labels, mode):
    w = tf.compat.v1.get_variable("w", [1, 1])
    loss = tf.reduce_mean((tf.matmul(features["x"], w) - labels) ** 2)
    # Built in every mode, as many model_fns do: in an evaluate() without
    # eval_distribute it updates the mirrored variables outside the strategy.
    step = tf.compat.v1.train.get_global_step()
    train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(loss, step)
    if mode == est.ModeKeys.EVAL:
        ones = tf.ones_like(labels, tf.bool)
        examples = tf.compat.v1.metrics.true_positives(ones, ones)
        return est.EstimatorSpec(
            mode, loss=loss, train_op=train_op, eval_metric_ops={"examples": examples}
        )
    return est.EstimatorSpec(mode, loss=loss, train_op=train_op)

def input_fn():  # three batches of 8
    x = tf.ones([24, 1])
    return tf.data.Dataset.from_tensor_slices(({"x": x}, x)).batch(8)

seen = {}
two = ["/cpu:0", "/cpu:1"]
for name, devices, evaluate_on_them in (
    ("single", None, False), ("mirrored", two, True), ("trained_mirrored", two, False)
):
    strategy = devices and tf.distribute.MirroredStrategy(devices)
    config = est.RunConfig(os.path.join(sys.argv[1], name), train_distribute=strategy,
                           eval_distribute=strategy if evaluate_on_them else None)
    estimator = est.Estimator(model_fn, config=config)
    estimator.train(input_fn, steps=1)
    seen[name] = int(estimator.evaluate(input_fn)["examples"])
print("RESULT " + json.dumps(seen))
"""


def test_a_batch_left_over_for_fewer_replicas_than_the_strategy_has_is_not_used(tmp_path):
    # migration_guide/cluster.md: a step needs one batch per replica.
    out = subprocess.run(
        [sys.executable, "-c", _LEFTOVER_BATCH, str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=300,
        env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2"),
    )
    # Evaluated on one device after mirrored training, every batch is used.
    expected = {"single": 24, "mirrored": 16, "trained_mirrored": 24}
    assert parse_result(out.stdout, out.stderr, out.returncode) == expected
