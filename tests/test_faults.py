"""Killing a training job at any moment loses nothing (issue: reliability).

A real train_and_evaluate job with checkpoints every 2 steps, an evaluation
after each, and a LatestExporter keeping 2 exports is SIGKILLed at seeded
random moments, restarting on the same model_dir; after every kill every
checkpoint left must load, the state file must point at complete files, and
every directory under the export base that looks finished must load.
"""

import glob
import os
import random
import signal
import subprocess
import sys
import textwrap
import time

import pytest
import tensorflow as tf

import tfestimator_compat as est
from tfestimator_compat.engine.state import checkpoints

MAX_STEPS = 30
KEEP = 3
KILLS = 5

JOB = textwrap.dedent(
    """
    import sys
    sys.path.insert(0, {tests!r})
    import tensorflow as tf
    import tfestimator_compat as est
    from helpers import classifier_model_fn, dataset_input_fn

    config = est.RunConfig(
        model_dir={model_dir!r}, save_checkpoints_steps=2, keep_checkpoint_max={keep}
    )
    estimator = est.Estimator(classifier_model_fn, config=config, params={{}})
    receiver = est.export.build_raw_serving_input_receiver_fn({{"x": tf.zeros([1, 3])}})
    print("STARTED", flush=True)
    est.train_and_evaluate(
        estimator,
        est.TrainSpec(dataset_input_fn(repeat=True), max_steps={max_steps}),
        est.EvalSpec(
            dataset_input_fn(n=32), steps=None, throttle_secs=0,
            exporters=[est.LatestExporter("latest", receiver, exports_to_keep=2)],
        ),
    )
    print("FINISHED", flush=True)
    """
)


def check_model_dir(model_dir):
    """Every checkpoint and finished export in `model_dir` loads; the state file
    points at a complete checkpoint and lists at most `keep_checkpoint_max`."""
    state = tf.train.get_checkpoint_state(model_dir)
    if state is not None:
        newest = os.path.join(model_dir, os.path.basename(state.model_checkpoint_path))
        assert checkpoints.incomplete(newest) is None, "state file points at a partial checkpoint"
        assert len(state.all_model_checkpoint_paths) <= KEEP
    for index in glob.glob(os.path.join(model_dir, "model.ckpt-*.index")):
        prefix = index[: -len(".index")]
        assert checkpoints.incomplete(prefix) is None, prefix
        reader = tf.train.load_checkpoint(prefix)
        for name in reader.get_variable_to_shape_map():
            reader.get_tensor(name)  # every tensor reads back
    export_base = os.path.join(model_dir, "export", "latest")
    if os.path.isdir(export_base):
        for entry in os.listdir(export_base):
            if entry.isdigit():
                loaded = tf.saved_model.load(os.path.join(export_base, entry))
                assert "serving_default" in loaded.signatures


@pytest.mark.slow
def test_kills_at_random_moments_lose_nothing(tmp_path):
    """A few seeded kills, one model_dir for all: each kill leaves loadable
    checkpoints and exports, and a restart trains on to max_steps."""
    model_dir = str(tmp_path / "model")
    script = JOB.format(
        tests=os.path.dirname(__file__), model_dir=model_dir, max_steps=MAX_STEPS, keep=KEEP
    )
    rng = random.Random(20261130)
    steps_at_kills = []
    for _ in range(KILLS):
        process = subprocess.Popen(
            [sys.executable, "-c", script],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        assert process.stdout.readline().strip() == "STARTED"
        # A few steps past where the last kill left it (the job's speed varies
        # with the machine's load), then a random moment: mid-step, mid-save,
        # mid-evaluation or mid-export.
        start = steps_at_kills[-1] if steps_at_kills else 0
        _wait_for_step(model_dir, start + rng.choice([2, 4]), process)
        time.sleep(rng.uniform(0.0, 0.5))
        process.send_signal(signal.SIGKILL)
        process.wait()
        check_model_dir(model_dir)
        latest = checkpoints.latest_checkpoint(model_dir)
        steps_at_kills.append(checkpoints.global_step_of(latest) if latest else 0)
    print("steps at the kills:", steps_at_kills)
    assert 0 < steps_at_kills[-1] < MAX_STEPS, "the kills landed while the job trained"
    finished = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=600
    )
    assert "FINISHED" in finished.stdout, finished.stderr[-3000:]
    check_model_dir(model_dir)
    assert checkpoints.global_step_of(checkpoints.latest_checkpoint(model_dir)) == MAX_STEPS
    exports = [e for e in os.listdir(os.path.join(model_dir, "export", "latest")) if e.isdigit()]
    assert 1 <= len(exports) <= 2


def _wait_for_step(model_dir, step, process, timeout=120):
    """Waits until `model_dir` holds a checkpoint of at least `step` (the job
    still running), polling as a user watching the directory would."""
    deadline = time.time() + timeout
    while time.time() < deadline and process.poll() is None:
        latest = checkpoints.latest_checkpoint(model_dir)
        if latest and checkpoints.global_step_of(latest) >= step:
            return
        time.sleep(0.05)
    assert process.poll() is None, "the job ended before the kill"
    raise AssertionError(f"no checkpoint of step {step} within {timeout} s")


TRAINER = textwrap.dedent(
    """
    import sys
    sys.path.insert(0, {tests!r})
    import tfestimator_compat as est
    from helpers import classifier_model_fn, dataset_input_fn

    config = est.RunConfig(model_dir={model_dir!r}, save_checkpoints_steps=1, keep_checkpoint_max=2)
    estimator = est.Estimator(classifier_model_fn, config=config, params={{}})
    estimator.train(dataset_input_fn(repeat=True), steps=1)
    print("STARTED", flush=True)
    estimator.train(dataset_input_fn(repeat=True), steps=400)
    """
)


@pytest.mark.slow
def test_evaluating_while_another_process_trains_never_sees_a_partial_checkpoint(tmp_path):
    from helpers import classifier_model_fn
    from helpers import dataset_input_fn

    model_dir = str(tmp_path / "model")
    trainer = subprocess.Popen(
        [
            sys.executable,
            "-c",
            TRAINER.format(tests=os.path.dirname(__file__), model_dir=model_dir),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert trainer.stdout.readline().strip() == "STARTED"
        evaluator = est.Estimator(classifier_model_fn, model_dir=model_dir, params={})
        steps = []
        while trainer.poll() is None and len(steps) < 40:
            steps.append(int(evaluator.evaluate(dataset_input_fn(n=16), steps=1)["global_step"]))
    finally:
        trainer.kill()
        trainer.wait()
    assert len(steps) >= 5
    assert steps == sorted(steps), "each evaluation saw a complete, newer-or-equal checkpoint"
