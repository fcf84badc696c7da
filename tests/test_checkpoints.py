"""model_dir holds name-based checkpoints in the original's layout, safely written."""

import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest
import tensorflow as tf
from google.protobuf import text_format
from helpers import classifier_model_fn
from helpers import dataset_input_fn

import tfestimator_compat as est


def make_estimator(model_dir, **config):
    return est.Estimator(
        classifier_model_fn, config=est.RunConfig(model_dir=model_dir, **config), params={}
    )


def test_layout_and_state_file_with_relative_paths(model_dir):
    make_estimator(model_dir, save_checkpoints_steps=4).train(
        dataset_input_fn(repeat=True), steps=10
    )
    files = set(os.listdir(model_dir))
    for step in (0, 4, 8, 10):
        assert f"model.ckpt-{step}.index" in files
        assert f"model.ckpt-{step}.data-00000-of-00001" in files
    assert {"checkpoint", "graph.pbtxt"} <= files
    graph_text = open(os.path.join(model_dir, "graph.pbtxt")).read()
    graph_def = text_format.Parse(graph_text, tf.compat.v1.GraphDef())
    assert any(node.name.startswith("Adam/") for node in graph_def.node), "the train op's graph"
    assert any(name.startswith("events.out.tfevents") for name in files)
    state = open(os.path.join(model_dir, "checkpoint")).read()
    assert 'model_checkpoint_path: "model.ckpt-10"' in state
    assert model_dir not in state


def test_keep_checkpoint_max_prunes_across_calls(model_dir):
    make_estimator(model_dir, save_checkpoints_steps=1, keep_checkpoint_max=2).train(
        dataset_input_fn(repeat=True), steps=3
    )
    make_estimator(model_dir, save_checkpoints_steps=1, keep_checkpoint_max=2).train(
        dataset_input_fn(repeat=True), steps=2
    )
    indexes = sorted(f for f in os.listdir(model_dir) if f.endswith(".index"))
    assert indexes == ["model.ckpt-4.index", "model.ckpt-5.index"]


def test_start_and_end_of_train_are_saved_with_secs_schedule(model_dir):
    make_estimator(model_dir).train(dataset_input_fn(repeat=True), steps=3)
    indexes = sorted(f for f in os.listdir(model_dir) if f.endswith(".index"))
    assert indexes == ["model.ckpt-0.index", "model.ckpt-3.index"]


def test_checkpoint_values_readable_by_load_variable(model_dir):
    estimator = make_estimator(model_dir)
    estimator.train(dataset_input_fn(repeat=True), steps=2)
    kernel = tf.train.load_variable(model_dir, "dense/kernel")
    assert kernel.shape == (3, 8)
    np.testing.assert_array_equal(kernel, estimator.get_variable_value("dense/kernel"))
    names = dict(tf.train.list_variables(model_dir))
    assert "dense/kernel/Adam" in names and "beta1_power" in names
    assert not any("seed_generator" in name or "accuracy" in name for name in names)


def test_shape_mismatch_names_the_variable_and_both_shapes(model_dir):
    make_estimator(model_dir).train(dataset_input_fn(repeat=True), steps=1)
    before = {f: os.path.getmtime(os.path.join(model_dir, f)) for f in os.listdir(model_dir)}

    def wider_model_fn(features, labels, mode):
        hidden = tf.keras.layers.Dense(16)(features["x"])
        logits = tf.keras.layers.Dense(2)(hidden)
        loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
        train_op = tf.compat.v1.train.AdamOptimizer().minimize(
            loss, global_step=tf.compat.v1.train.get_global_step()
        )
        return est.EstimatorSpec(mode, loss=loss, train_op=train_op)

    estimator = est.Estimator(wider_model_fn, model_dir=model_dir)
    # The original's Saver raised InvalidArgumentError starting with this sentence (its
    # test_wrong_shape_throws_reasonable_error matches it); ours then says which variable.
    with pytest.raises(
        tf.errors.InvalidArgumentError,
        match=r"dense/kernel: shape \[3, 8\] in the checkpoint, \[3, 16\]",
    ) as raised:
        estimator.train(dataset_input_fn(repeat=True), steps=1)
    assert isinstance(raised.value, ValueError)
    assert raised.value.message.startswith(
        "Restoring from checkpoint failed. This is most likely due to a mismatch between "
        "the current graph and the graph from the checkpoint."
    )
    after = {f: os.path.getmtime(os.path.join(model_dir, f)) for f in os.listdir(model_dir)}
    assert after == before, "a failed train() must not touch model_dir"


def test_missing_variable_names_it(model_dir):
    make_estimator(model_dir).train(dataset_input_fn(repeat=True), steps=1)

    def extra_model_fn(features, labels, mode):
        extra = tf.compat.v1.get_variable("extra", [1])
        hidden = tf.keras.layers.Dense(8)(features["x"])
        logits = tf.keras.layers.Dense(2)(hidden) + extra
        loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
        return est.EstimatorSpec(mode, loss=loss)

    with pytest.raises(tf.errors.NotFoundError, match=r"\['extra'\] not found in checkpoint"):
        est.Estimator(extra_model_fn, model_dir=model_dir).evaluate(dataset_input_fn())


_TRAINER = textwrap.dedent(
    """
    import sys
    sys.path.insert(0, {tests!r})
    import tfestimator_compat as est
    from helpers import classifier_model_fn, dataset_input_fn
    config = est.RunConfig(model_dir={model_dir!r}, save_checkpoints_steps=1, keep_checkpoint_max=3)
    est.Estimator(classifier_model_fn, config=config, params={{}}).train(
        dataset_input_fn(repeat=True), steps=100000)
    """
)


@pytest.mark.slow
def test_kill_during_training_leaves_a_usable_checkpoint(model_dir):
    """SIGKILL at varied moments (mostly mid-save, as every step saves)."""
    script = _TRAINER.format(tests=os.path.dirname(__file__), model_dir=model_dir)
    for delay in (0.0, 0.37, 0.81):
        process = subprocess.Popen([sys.executable, "-c", script])
        state_file = os.path.join(model_dir, "checkpoint")
        started = os.path.getmtime(state_file) if os.path.exists(state_file) else 0
        deadline = time.time() + 120
        while time.time() < deadline and (
            not os.path.exists(state_file) or os.path.getmtime(state_file) == started
        ):
            time.sleep(0.02)
        time.sleep(delay)
        process.send_signal(signal.SIGKILL)
        process.wait()
        latest = tf.train.latest_checkpoint(model_dir)
        assert latest is not None
        reader = tf.train.load_checkpoint(latest)
        assert reader.has_tensor("dense/kernel")
        step = int(reader.get_tensor("global_step"))
        estimator = make_estimator(model_dir)
        assert estimator.evaluate(dataset_input_fn(), steps=1)["global_step"] == step
    estimator = make_estimator(model_dir)
    start = estimator.get_variable_value("global_step")
    estimator.train(dataset_input_fn(repeat=True), steps=2)
    assert estimator.get_variable_value("global_step") == start + 2


@pytest.mark.parametrize("relative_dir", ["model", "./model/", "~/model"])
def test_relative_model_dir_reads_the_checkpoint_the_state_file_names(
    tmp_path, monkeypatch, relative_dir
):
    # The original keeps model_dir as given ("~" included: tf.io.gfile does not
    # expand it) and follows the state file, even to an older checkpoint.
    monkeypatch.chdir(tmp_path)
    estimator = make_estimator(relative_dir, save_checkpoints_steps=4)
    estimator.train(dataset_input_fn(repeat=True), steps=8)
    assert estimator.model_dir == relative_dir
    assert estimator.latest_checkpoint() == os.path.join(relative_dir, "model.ckpt-8")
    with open(os.path.join(relative_dir, "checkpoint"), "w") as state:
        state.write(
            'model_checkpoint_path: "model.ckpt-4"\nall_model_checkpoint_paths: "model.ckpt-4"\n'
        )
    assert estimator.latest_checkpoint() == os.path.join(relative_dir, "model.ckpt-4")
    assert estimator.evaluate(dataset_input_fn(), steps=1)["global_step"] == 4


def test_absolute_state_file_entries_are_used_as_written(model_dir):
    estimator = make_estimator(model_dir, save_checkpoints_steps=4)
    estimator.train(dataset_input_fn(repeat=True), steps=8)
    older = os.path.join(os.path.abspath(model_dir), "model.ckpt-4")
    with open(os.path.join(model_dir, "checkpoint"), "w") as state:
        state.write(f'model_checkpoint_path: "{older}"\nall_model_checkpoint_paths: "{older}"\n')
    assert estimator.latest_checkpoint() == older
    assert estimator.evaluate(dataset_input_fn(), steps=1)["global_step"] == 4


def test_a_model_dir_on_another_filesystem_follows_its_state_file():
    # ram:// is a TensorFlow filesystem reached only through tf.io.gfile, as
    # gs:// and hdfs:// are: nothing may go through os.path or open().
    model_dir = f"ram://model-{os.getpid()}-{time.time_ns()}"
    estimator = make_estimator(model_dir, save_checkpoints_steps=4)
    estimator.train(dataset_input_fn(repeat=True), steps=8)
    files = set(tf.io.gfile.listdir(model_dir))
    assert {"checkpoint", "graph.pbtxt", "model.ckpt-8.index"} <= files
    assert estimator.latest_checkpoint() == model_dir + "/model.ckpt-8"
    with tf.io.gfile.GFile(model_dir + "/checkpoint", "w") as state:
        state.write(
            'model_checkpoint_path: "model.ckpt-4"\nall_model_checkpoint_paths: "model.ckpt-4"\n'
        )
    assert estimator.evaluate(dataset_input_fn(), steps=1)["global_step"] == 4
    estimator.train(dataset_input_fn(repeat=True), steps=2)
    assert estimator.get_variable_value("global_step") == 6
