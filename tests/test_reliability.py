"""Damaged model_dirs give clear errors or fall back; nothing starts over silently."""

import os
import pickle
import re

import pytest
import tensorflow as tf
from helpers import classifier_model_fn
from helpers import dataset_input_fn

import tfestimator_compat as est


def trained(model_dir, steps=4):
    config = est.RunConfig(model_dir=model_dir, save_checkpoints_steps=2)
    estimator = est.Estimator(classifier_model_fn, config=config, params={})
    estimator.train(dataset_input_fn(repeat=True), steps=steps)
    return estimator


def test_state_file_naming_a_deleted_checkpoint_falls_back_with_a_warning(model_dir, caplog):
    estimator = trained(model_dir)
    for suffix in (".index", ".data-00000-of-00001"):
        os.remove(os.path.join(model_dir, "model.ckpt-4" + suffix))
    with caplog.at_level("WARNING", logger="tensorflow"):
        assert estimator.latest_checkpoint().endswith("model.ckpt-2")
    assert any("model.ckpt-4.index is missing" in r.getMessage() for r in caplog.records)
    estimator.train(dataset_input_fn(repeat=True), steps=1)
    assert estimator.get_variable_value("global_step") == 3


def test_truncated_data_file_falls_back(model_dir):
    estimator = trained(model_dir)
    data = os.path.join(model_dir, "model.ckpt-4.data-00000-of-00001")
    with open(data, "r+b") as f:
        f.truncate(os.path.getsize(data) // 2)
    assert estimator.latest_checkpoint().endswith("model.ckpt-2")
    assert estimator.evaluate(dataset_input_fn())["global_step"] == 2


def test_no_complete_checkpoint_is_an_error_naming_the_files(model_dir):
    estimator = trained(model_dir, steps=2)
    for name in os.listdir(model_dir):
        if name.endswith(".index"):
            os.remove(os.path.join(model_dir, name))
    with pytest.raises(ValueError, match=r"model\.ckpt-2\.index is missing"):
        estimator.train(dataset_input_fn(repeat=True), steps=1)
    assert not any(name.endswith(".index") for name in os.listdir(model_dir)), "nothing written"


def test_missing_index_of_the_only_checkpoint_with_a_state_file(model_dir):
    estimator = trained(model_dir, steps=2)
    os.remove(os.path.join(model_dir, "model.ckpt-2.index"))
    os.remove(os.path.join(model_dir, "model.ckpt-0.index"))
    with pytest.raises(ValueError, match="none is complete"):
        estimator.evaluate(dataset_input_fn())


def test_a_state_file_that_is_not_utf8_is_an_error_naming_it(model_dir):
    """The original raised a UnicodeDecodeError naming no file (train, evaluate,
    latest_checkpoint; TF 2.15); the type stays, the message names the file."""
    estimator = trained(model_dir, steps=2)
    state = os.path.join(model_dir, "checkpoint")
    with open(state, "wb") as f:
        f.write(b'model_checkpoint_path: "model.ckpt-2\xff"\n')
    before = sorted(os.listdir(model_dir))
    for call in (
        estimator.latest_checkpoint,
        lambda: estimator.train(dataset_input_fn(repeat=True), steps=1),
        lambda: estimator.evaluate(dataset_input_fn(), steps=1),
    ):
        with pytest.raises(UnicodeDecodeError, match=f"state file {re.escape(state)}"):
            call()
    assert sorted(os.listdir(model_dir)) == before


def test_stale_event_files_without_checkpoints_start_fresh(model_dir):
    os.makedirs(model_dir)
    with tf.summary.create_file_writer(model_dir).as_default():
        tf.summary.scalar("old", 1.0, step=7)
    estimator = est.Estimator(classifier_model_fn, model_dir=model_dir, params={})
    estimator.train(dataset_input_fn(repeat=True), steps=1)
    assert estimator.get_variable_value("global_step") == 1


def test_input_fn_errors_propagate_unchanged_and_lose_nothing(model_dir):
    estimator = trained(model_dir, steps=2)
    before = sorted(os.listdir(model_dir))

    def failing_input_fn():
        raise KeyError("no such column: 'age'")

    with pytest.raises(KeyError, match="no such column"):
        estimator.train(failing_input_fn, steps=1)
    assert sorted(os.listdir(model_dir)) == before


def test_only_unfinished_checkpoint_writes_are_removed(model_dir):
    """Temporary files of a killed write go; files the state file does not list
    stay, as the original left them (they may be the user's)."""
    estimator = trained(model_dir)
    for suffix in (".index", ".data-00000-of-00001"):
        with open(os.path.join(model_dir, "model.ckpt-1" + suffix), "wb") as f:
            f.write(b"not listed")
    with open(os.path.join(model_dir, "model.ckpt-5.data-00000-of-00001.tempstate123"), "wb"):
        pass
    estimator.train(dataset_input_fn(repeat=True), steps=1)
    names = os.listdir(model_dir)
    assert "model.ckpt-1.index" in names and "model.ckpt-1.data-00000-of-00001" in names
    assert not any("tempstate" in name for name in names)
    assert "model.ckpt-4.index" in names and "model.ckpt-5.index" in names


def test_loading_a_model_dir_or_export_never_runs_what_is_stored_there(model_dir, tmp_path):
    """Pickles and Python files planted in model_dir and an export are never executed."""
    estimator = trained(model_dir, steps=2)
    marker = tmp_path / "executed"
    payload = f"open({str(marker)!r}, 'w').write('ran')\n"

    class Planted:
        def __reduce__(self):
            return (exec, (payload,))

    receiver = est.export.build_raw_serving_input_receiver_fn({"x": tf.zeros([1, 3])})
    export_dir = estimator.export_saved_model(str(tmp_path / "export"), receiver).decode()
    for directory in (model_dir, export_dir, os.path.join(export_dir, "variables")):
        with open(os.path.join(directory, "state.pkl"), "wb") as f:
            pickle.dump(Planted(), f)
        with open(os.path.join(directory, "__init__.py"), "w") as f:
            f.write(payload)
    reloaded = est.Estimator(classifier_model_fn, model_dir=model_dir, params={})
    reloaded.evaluate(dataset_input_fn(), steps=1)
    list(reloaded.predict(dataset_input_fn(n=4)))
    reloaded.train(dataset_input_fn(repeat=True), steps=1)
    tf.saved_model.load(export_dir)
    est.Estimator(
        classifier_model_fn, model_dir=str(tmp_path / "warm"), params={}, warm_start_from=export_dir
    ).evaluate(dataset_input_fn(), steps=1)
    assert not marker.exists()
