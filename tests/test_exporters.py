"""Latest, Best and Final exporters in train_and_evaluate."""

import os
import socket
import subprocess
import sys

import pytest
import tensorflow as tf
from helpers import classifier_model_fn
from helpers import dataset_input_fn

import tfestimator_compat as est
from tfestimator_compat import export


def receiver():
    return export.build_raw_serving_input_receiver_fn({"x": tf.zeros([1, 3])})


def run(model_dir, exporter, max_steps, learning_rate=0.05):
    config = est.RunConfig(model_dir=model_dir, save_checkpoints_steps=2)
    estimator = est.Estimator(
        classifier_model_fn, config=config, params={"learning_rate": learning_rate}
    )
    return est.train_and_evaluate(
        estimator,
        est.TrainSpec(dataset_input_fn(repeat=True), max_steps=max_steps),
        est.EvalSpec(dataset_input_fn(), exporters=[exporter], throttle_secs=0),
    )


def exports(model_dir, name):
    base = os.path.join(model_dir, "export", name)
    return sorted(os.listdir(base)) if os.path.isdir(base) else []


def test_latest_exporter_keeps_the_newest(model_dir, monkeypatch):
    clock = iter(range(1_700_000_000, 1_800_000_000, 7))
    monkeypatch.setattr("time.time", lambda: next(clock))
    _, results = run(model_dir, est.LatestExporter("latest", receiver(), exports_to_keep=2), 8)
    kept = exports(model_dir, "latest")
    assert len(kept) == 2
    assert results[0].decode().endswith(kept[-1])
    for version in kept:
        assert (
            "serving_default"
            in tf.saved_model.load(os.path.join(model_dir, "export", "latest", version)).signatures
        )


def test_final_exporter_exports_once(model_dir):
    run(model_dir, est.FinalExporter("final", receiver()), 6)
    assert len(exports(model_dir, "final")) == 1


def test_best_exporter_exports_only_improvements_and_survives_a_restart(model_dir, monkeypatch):
    clock = iter(range(1_700_000_000, 1_800_000_000, 7))
    monkeypatch.setattr("time.time", lambda: next(clock))

    def lower_loss(best_eval_result, current_eval_result):
        return current_eval_result["loss"] < best_eval_result["loss"]

    exporter = est.BestExporter("best", receiver(), compare_fn=lower_loss)
    run(model_dir, exporter, 6)
    first_round = exports(model_dir, "best")
    assert 1 <= len(first_round) <= 3

    # A restarted job reads the best loss back from the eval events.
    restarted = est.BestExporter(
        "best", receiver(), compare_fn=lambda best_eval_result, current_eval_result: False
    )
    run(model_dir, restarted, 10)
    assert exports(model_dir, "best") == first_round, "nothing beats the recovered best"


def test_exporter_argument_errors():
    with pytest.raises(ValueError, match="exports_to_keep"):
        est.LatestExporter("x", receiver(), exports_to_keep=0)
    with pytest.raises(ValueError, match="must include best_eval_result"):
        est.BestExporter("x", receiver(), compare_fn=lambda a, current_eval_result: True)


def test_an_old_export_is_removed_through_a_temp_folder(model_dir, monkeypatch):
    """A kill while old files are deleted never leaves a `<ts>` folder that cannot load."""
    base = os.path.join(model_dir, "export", "latest")
    script = "import os; print(os.getpid())"
    dead = subprocess.run([sys.executable, "-c", script], capture_output=True)
    half_removed = os.path.join(base, "temp-1699999999-removed")
    os.makedirs(os.path.join(half_removed, "variables"))
    with open(os.path.join(half_removed, "tfestimator_compat.owner"), "w") as owner:
        owner.write(f"{socket.gethostname()} {int(dead.stdout)}\n")
    deleted = []
    real_rmtree = tf.io.gfile.rmtree

    def recording_rmtree(path):
        deleted.append(os.path.basename(path))
        real_rmtree(path)

    monkeypatch.setattr(tf.io.gfile, "rmtree", recording_rmtree)
    clock = iter(range(1_700_000_000, 1_800_000_000, 7))
    monkeypatch.setattr("time.time", lambda: next(clock))

    run(model_dir, est.LatestExporter("latest", receiver(), exports_to_keep=1), 6)

    assert len(exports(model_dir, "latest")) == 1, "only the newest export, no temp-* folder"
    assert "temp-1699999999-removed" in deleted, "the killed removal was finished"
    assert deleted and all(name.startswith("temp-") for name in deleted), deleted
