"""Parameter-server clusters: real `tf.distribute.Server`s on free localhost ports.

Two jobs run at once and most tests read their results (tests/fixtures/ps_cluster/):

- `custom`: a chief, 2 workers, 1 ps and an evaluator, each running the same
  program (a custom model_fn through `train_and_evaluate`, no strategy);
- `in_process`: a chief with its worker and 2 ps servers in one process: a V1
  `DNNClassifier` with a partitioned embedding resumes a model_dir that the
  original's ps job wrote (the chief named `master`, TF1's name), then the
  custom model_fn resumes a one-process model_dir with the TF2 and then the
  TF1 `ParameterServerStrategy` as `train_distribute`.

Without a strategy (or with TF1's) the chief trains beside the workers, as in
the original; with the TF2 strategy it only schedules, so with one worker the
steps run one after another and must give exactly a one-process job's numbers,
as must steps that a hook makes one at a time on batches that are all the
same. A third cluster has its chief and a worker killed and restarted.
"""

import contextlib
import json
import os
import queue
import re
import shutil
import socket
import subprocess
import sys
import threading
import time

import numpy as np
import pytest
import tensorflow as tf
from helpers import module_from_file

import tfestimator_compat as est

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures", "ps_cluster")
model = module_from_file(f"{FIXTURES}/model.py", "ps_cluster_model")
# A model_dir the original's ps job wrote, and what the original did with it (make_fixture.py).
ORIGINAL = os.path.join(FIXTURES, "original")
with open(os.path.join(FIXTURES, "expected.json")) as f:
    EXPECTED = json.load(f)


def free_port():
    with socket.socket() as s:
        s.bind(("localhost", 0))
        return s.getsockname()[1]


def start(script, args, tf_config=None):
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2", PYTHONPATH=os.pathsep.join(sys.path))
    env.pop("TF_CONFIG", None)
    if tf_config is not None:
        env["TF_CONFIG"] = json.dumps(tf_config)
    return subprocess.Popen(
        [sys.executable, os.path.join(FIXTURES, script), *map(str, args)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


def start_cluster(jobs, model_dir, max_steps):
    spec = {job: [f"localhost:{free_port()}" for _ in range(count)] for job, count in jobs.items()}
    return {
        (job, index): start(
            "job.py",
            [model_dir, max_steps],
            {"cluster": spec, "task": {"type": job, "index": index}},
        )
        for job, count in jobs.items()
        for index in range(count)
    }


def result_of(process, timeout=240):
    stdout, stderr = process.communicate(timeout=timeout)
    lines = [line for line in stdout.splitlines() if line.startswith("RESULT ")]
    assert process.returncode == 0 and lines, f"failed ({process.returncode}):\n{stderr[-4000:]}"
    return json.loads(lines[-1][len("RESULT ") :])


def one_process(program, model_dir, max_steps):
    estimator = model.estimator(program, model.run_config(str(model_dir)))
    estimator.train(model.train_input_fn(program == "canned"), max_steps=max_steps)
    return estimator


@pytest.fixture(scope="module")
def jobs(tmp_path_factory):
    root = tmp_path_factory.mktemp("ps")
    custom = start_cluster({"chief": 1, "worker": 2, "ps": 1, "evaluator": 1}, root / "custom", 40)
    # The in-process job resumes a one-process model_dir at 10 to 20 and 30, as here.
    one_process("custom", root / "custom_alone", 10)
    shutil.copytree(root / "custom_alone", root / "in_process" / "custom")
    shutil.copytree(ORIGINAL, root / "in_process" / "original")
    in_process = start("in_process.py", [root / "in_process"])
    one_process("custom", root / "custom_alone", 20)
    one_process("custom", root / "custom_alone", 30)
    results = {task: result_of(process) for task, process in custom.items()}
    return {"custom": results, "in_process": result_of(in_process), "root": root}


def checkpoint_steps(model_dir):
    state = tf.train.get_checkpoint_state(str(model_dir))
    return sorted(int(path.rsplit("-", 1)[1]) for path in state.all_model_checkpoint_paths)


def assert_same_variables(actual, expected):
    assert sorted(actual) == sorted(expected)
    for name, value in expected.items():
        if value is not None:
            np.testing.assert_allclose(actual[name], value, rtol=1e-5, atol=1e-7, err_msg=name)


@pytest.mark.slow
def test_every_task_of_the_custom_job_ends_and_the_evaluator_reports_max_steps(jobs):
    results = jobs["custom"]
    assert set(results) == {
        ("chief", 0),
        ("worker", 0),
        ("worker", 1),
        ("ps", 0),
        ("evaluator", 0),
    }
    evaluation = results["evaluator", 0]["evaluation"]
    assert evaluation["global_step"] == 40
    assert results["chief", 0]["evaluation"] == {}, "in a cluster the chief only trains"
    model_dir = jobs["root"] / "custom"
    assert checkpoint_steps(model_dir) == [0, 10, 20, 30, 40]
    assert tf.train.load_variable(str(model_dir), "global_step") == 40
    exports = results["evaluator", 0]["exports"]
    assert exports and os.path.dirname(exports[-1]) == str(model_dir / "export" / "latest")
    served = tf.saved_model.load(exports[-1]).signatures["serving_default"]
    assert served(x=tf.ones([2, 3]), word=tf.constant(["a", "b"]))["y"].shape == (2, 1)


@pytest.mark.slow
def test_the_chief_writes_graph_and_summaries_and_each_input_fn_gets_its_tasks_config(jobs):
    model_dir = jobs["root"] / "custom"
    assert (model_dir / "graph.pbtxt").exists()
    events = [name for name in os.listdir(model_dir) if name.startswith("events.out")]
    assert len(events) == 1, "only the chief writes summaries"
    steps = {}
    for event in tf.compat.v1.train.summary_iterator(str(model_dir / events[0])):
        for value in event.summary.value:
            steps.setdefault(value.tag, []).append(event.step)
    assert steps["prediction_mean"] == [1, 11, 21, 31]
    assert steps["global_step/sec"] == [11, 21, 31]
    # The input_fn ran for each training task's pipeline, the workers' and the
    # chief's own, with that task's RunConfig; without a strategy the original
    # gave no input_context, so each reads its whole input (a single pipeline's).
    assert sorted(jobs["custom"]["chief", 0]["contexts"]) == [
        [1, 0, "chief", 0],
        [1, 0, "worker", 0],
        [1, 0, "worker", 1],
    ]
    placements = jobs["custom"]["chief", 0]["placements"]
    assert placements and all(p.startswith("/job:ps/") for p in placements.values())


@pytest.mark.slow
def test_a_one_process_estimator_reads_the_ps_jobs_checkpoint_with_its_numbers(jobs):
    model_dir = str(jobs["root"] / "custom")
    estimator = est.Estimator(model.model_fn, model_dir=model_dir)
    evaluation = estimator.evaluate(model.eval_input_fn())
    for key, value in jobs["custom"]["evaluator", 0]["evaluation"].items():
        np.testing.assert_allclose(evaluation[key], value, rtol=1e-6, err_msg=key)
    alone = model.variables(str(jobs["root"] / "custom_alone"))
    assert sorted(model.variables(model_dir)) == sorted(alone), "the same checkpoint keys"


@pytest.mark.slow
def test_a_canned_job_resumes_the_original_ps_jobs_model_dir_with_one_process_numbers(
    jobs, tmp_path
):
    # The chief, named `master`, trained beside the worker, each on its own pipeline.
    report = jobs["in_process"]["master"]
    assert sorted(report["contexts"]) == [[1, 0, "master", 0], [1, 0, "worker", 0]]
    shutil.copytree(ORIGINAL, tmp_path / "alone")
    alone = model.estimator("canned", model.run_config(str(tmp_path / "alone")))
    alone.train(model.same_batch_input_fn(canned=True), max_steps=20)
    assert_same_variables(report["variables"], model.variables(str(tmp_path / "alone")))
    assert report["hook_steps"] == list(range(10, 20)), "a hook sees every step's fetches"
    # The partitioned embedding and its slots live on both parameter servers.
    placements = report["placements"]
    embedding = {
        name: device for name, device in placements.items() if "embedding_weights/part_" in name
    }
    assert {device for device in embedding.values()} == {
        "/job:ps/replica:0/task:0/device:CPU:0",
        "/job:ps/replica:0/task:1/device:CPU:0",
    }
    for name, device in embedding.items():
        if "Adagrad" in name:
            assert device == placements[name.split("/t_")[0] + ":0"], "a slot lives by its part"


@pytest.mark.slow
def test_the_tf2_and_tf1_strategies_resume_a_one_process_model_dir_with_its_numbers(jobs):
    report = jobs["in_process"]
    alone = jobs["root"] / "custom_alone"
    assert_same_variables(report["tf2"]["variables"], model.variables(f"{alone}/model.ckpt-20"))
    # TF1's strategy: the chief trains beside the worker, both at once, as in the
    # original, so the numbers are not one process's; the keys and steps are.
    v1 = report["v1"]["variables"]
    assert sorted(v1) == sorted(model.variables(str(alone)))
    assert v1["global_step"] == [30]
    assert all(np.all(np.isfinite(value)) for value in v1.values() if value is not None)
    # TF1's strategy gave the tasks their pipelines: the chief 0, the worker 1.
    assert sorted(report["v1"]["contexts"]) == [[2, 0, "chief", 0], [2, 1, "worker", 0]]
    tf2 = report["tf2"]["contexts"]
    assert tf2 == [[1, 0, "worker", 0]], "the TF2 strategy's coordinator only schedules"
    placements = report["tf2"]["placements"]
    assert placements["w/part_0:0"] != placements["w/part_1:0"], "parts on different ps tasks"


def newest_step(model_dir):
    state = tf.train.get_checkpoint_state(str(model_dir))
    return int(state.model_checkpoint_path.rsplit("-", 1)[1]) if state else -1


def wait_for_step(model_dir, step, processes, not_below=-1, timeout=180):
    deadline = time.time() + timeout
    while newest_step(model_dir) < step:
        assert newest_step(model_dir) >= not_below, "training started over"
        for task, process in processes.items():
            assert process.poll() is None, f"{task} ended early: {process.communicate()[1][-3000:]}"
        assert time.time() < deadline, f"no checkpoint at step {step} in {timeout} s"
        time.sleep(0.1)
    return newest_step(model_dir)


@pytest.mark.slow
def test_a_killed_worker_and_a_killed_chief_do_not_end_the_job_and_rejoin_restarted(tmp_path):
    model_dir, max_steps = tmp_path / "model", 400
    spec = {"chief": 1, "worker": 2, "ps": 1}
    ports = {job: [f"localhost:{free_port()}" for _ in range(n)] for job, n in spec.items()}

    def start_task(job, index=0):
        tf_config = {"cluster": ports, "task": {"type": job, "index": index}}
        return start("job.py", [model_dir, max_steps], tf_config)

    processes = {(job, i): start_task(job, i) for job, n in spec.items() for i in range(n)}
    wait_for_step(model_dir, 20, processes)
    processes["worker", 1].kill()
    processes["worker", 1].wait()
    lost_at = newest_step(model_dir)
    survivors = {task: p for task, p in processes.items() if task != ("worker", 1)}
    # One worker is enough to go on: the lost worker's steps are scheduled on the other.
    wait_for_step(model_dir, lost_at + 30, survivors)
    processes["chief", 0].kill()
    processes["chief", 0].wait()
    killed_at = newest_step(model_dir)
    time.sleep(2)  # longer than a serving task waits before it believes the chief is gone
    assert processes["worker", 0].poll() is None and processes["ps", 0].poll() is None
    # The restarted chief resumes from the newest checkpoint with the task that kept
    # serving and the restarted worker.
    processes["worker", 1] = start_task("worker", 1)
    processes["chief", 0] = start_task("chief")
    wait_for_step(model_dir, killed_at + 10, processes, not_below=killed_at)
    results = {task: result_of(process) for task, process in processes.items()}
    assert set(results) == set(processes), "every task ended with exit status 0"
    assert newest_step(model_dir) >= max_steps
    assert tf.train.load_variable(str(model_dir), "global_step") >= max_steps


@pytest.mark.slow
def test_a_tf1_optimizers_slots_live_on_their_variables_ps_task(jobs):
    report = jobs["in_process"]["adam"]
    assert report["variables"]["global_step"] == [5]
    placements = report["placements"]
    ps_task = {
        name: re.search(r"/job:ps/replica:0/task:(\d)", device)
        for name, device in placements.items()
    }
    for name in ("w", "b", "scale"):
        for slot in ("Adam", "Adam_1"):
            assert placements[f"{name}/{slot}:0"] == placements[f"{name}:0"], (name, slot)
    assert placements["beta1_power:0"] == placements["b:0"]  # Adam: with the first by name
    # Round robin over two tasks used both.
    assert {match.group(1) for match in ps_task.values() if match} == {"0", "1"}


@pytest.mark.slow
def test_an_input_fn_read_through_queues_is_refused_saying_what_to_return(jobs):
    error = jobs["in_process"]["queues"]["error"]
    assert "through a Session" in error and "tf.data.Dataset" in error


@pytest.mark.slow
def test_training_ends_at_the_end_of_the_input_before_max_steps(jobs):
    # 64 examples in batches of 8, read whole by the chief's and by the worker's
    # pipeline (the input_fn takes no input_context), as the original's chief and
    # worker each read theirs: 16 steps, then the input ends.
    assert jobs["in_process"]["finite"]["global_step"] == 16


def test_a_one_process_estimator_evaluates_the_original_ps_jobs_model_dir_with_its_numbers(
    tmp_path,
):
    # The original's ps job saved one shard per ps task; the keys are those a ps job here saves.
    shutil.copytree(ORIGINAL, tmp_path / "model")
    estimator = model.estimator("canned", model.run_config(str(tmp_path / "model")))
    evaluation = estimator.evaluate(model.eval_input_fn(canned=True))
    assert set(evaluation) == set(EXPECTED["evaluation"])
    for key, value in EXPECTED["evaluation"].items():
        np.testing.assert_allclose(evaluation[key], value, rtol=1e-5, err_msg=key)


def test_a_one_process_estimator_resumes_the_original_ps_jobs_model_dir_with_its_numbers(
    tmp_path,
):
    # As the original resumed it in one process (make_fixture.py), on the whole input.
    shutil.copytree(ORIGINAL, tmp_path / "model")
    estimator = model.estimator("canned", model.run_config(str(tmp_path / "model")))

    def input_fn():  # make_fixture.py's: the whole input, no input_context
        features = {"x": model.X, "word": model.WORDS}
        ds = tf.data.Dataset.from_tensor_slices((features, model.CLASSES))
        return ds.repeat().batch(model.BATCH)

    estimator.train(input_fn, max_steps=EXPECTED["trained_to"] + 10)
    assert_same_variables(model.variables(str(tmp_path / "model")), EXPECTED["resumed"])


_WAITING_CHIEF = """
import tensorflow as tf
import tfestimator_compat as est

tf.compat.v1.logging.set_verbosity(tf.compat.v1.logging.INFO)


def model_fn(features, labels, mode):
    loss = tf.reduce_sum(features["x"] * tf.compat.v1.get_variable("w", [1]))
    optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.1)
    train_op = optimizer.minimize(loss, tf.compat.v1.train.get_global_step())
    return est.EstimatorSpec(mode, loss=loss, train_op=train_op)


est.Estimator(model_fn, config=est.RunConfig(model_dir={model_dir!r})).train(
    lambda: tf.data.Dataset.from_tensors(({{"x": [1.0]}}, [0])).repeat(), steps=1
)
"""


def test_a_chief_waiting_for_tasks_that_never_start_says_which(tmp_path):
    """Before, it waited up to session_creation_timeout_secs (two hours) in silence."""
    ps, worker = f"localhost:{free_port()}", f"localhost:{free_port()}"
    tf_config = {
        "cluster": {"chief": [f"localhost:{free_port()}"], "ps": [ps], "worker": [worker]},
        "task": {"type": "chief", "index": 0},
    }
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2", PYTHONPATH=os.pathsep.join(sys.path))
    env["TF_CONFIG"] = json.dumps(tf_config)
    script = _WAITING_CHIEF.format(model_dir=str(tmp_path))
    chief = subprocess.Popen(
        [sys.executable, "-c", script],
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
        env=env,
    )
    lines = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in chief.stderr], daemon=True).start()
    deadline, said = time.time() + 40, None
    try:
        while said is None and time.time() < deadline:
            with contextlib.suppress(queue.Empty):
                line = lines.get(timeout=1)
                if "still waiting" in line:
                    said = line
    finally:
        chief.kill()
        chief.wait()
    assert said is not None, "the chief said nothing of the tasks it waits for"
    assert f"/job:ps/task:0 ({ps})" in said and f"/job:worker/task:0 ({worker})" in said
    assert "INFO" in said and "session_creation_timeout_secs" in said


SERVING_TASK = """
import tensorflow as tf
import tfestimator_compat as est

def model_fn(features, labels, mode):
    raise AssertionError("a worker never calls the model_fn")

estimator = est.Estimator(model_fn, model_dir={model_dir!r})
estimator.train(lambda: tf.data.Dataset.range(1), max_steps=None)
print("SERVED", flush=True)
"""


def test_a_serving_tasks_marker_follows_no_planted_symlink(tmp_path):
    """A worker makes its chief-done marker in model_dir, exclusively and
    without following links: a symlink planted where a marker goes (in /tmp,
    where markers used to be, or in model_dir) leaves its target untouched."""
    chief, worker, ps = free_port(), free_port(), free_port()
    model_dir = tmp_path / "model"
    model_dir.mkdir()
    target = tmp_path / "precious"
    target.write_text("keep me")
    planted = [
        f"/tmp/tfestimator_compat-worker-0-{worker}.chief_done",
        str(model_dir / f".tfestimator_compat-worker-0-{worker}.chief_done"),
    ]
    for path in planted:
        os.symlink(target, path)
    try:
        cluster = {
            "chief": [f"localhost:{chief}"],
            "worker": [f"localhost:{worker}"],
            "ps": [f"localhost:{ps}"],
        }
        env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2", PYTHONPATH=os.pathsep.join(sys.path))
        env["TF_CONFIG"] = json.dumps({"cluster": cluster, "task": {"type": "worker", "index": 0}})
        script = SERVING_TASK.format(model_dir=str(model_dir))
        done = subprocess.run(
            [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120
        )
        assert "SERVED" in done.stdout, done.stderr[-3000:]
        assert target.read_text() == "keep me"
        assert os.path.islink(planted[0]), "nothing is made in /tmp"
    finally:
        for path in planted:
            if os.path.islink(path):
                os.remove(path)
