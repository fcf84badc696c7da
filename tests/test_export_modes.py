"""TRAIN and EVAL exports load with the TF1 loader and run by the model's op names.

Users load these graphs with `tf.compat.v1.saved_model.loader.load` to resume
training or evaluate in a Session, as the original's export allowed; what the
original's graph held (checked with tensorflow-estimator 2.15 on the same
model_fns): the `multiplied` and `mean/update_op` ops, a train op in the
`saved_model_train_op` collection that advances `global_step`, the asset files,
and the Scaffold's saver and local_init_op.
"""

import os

import numpy as np
import pytest
import tensorflow as tf

import tfestimator_compat as est
from tfestimator_compat import export

X = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
Y = np.array([[1.0], [0.0]], np.float32)
VOCAB = "emerson\nlake\npalmer\n"


class CountingSaver(tf.compat.v1.train.Saver):
    """A real Saver that counts the calls the export makes on it."""

    calls = {"save": 0, "export_meta_graph": 0, "restore": 0}

    def save(self, *args, **kwargs):
        CountingSaver.calls["save"] += 1
        return super().save(*args, **kwargs)

    def export_meta_graph(self, *args, **kwargs):
        CountingSaver.calls["export_meta_graph"] += 1
        return super().export_meta_graph(*args, **kwargs)

    def restore(self, *args, **kwargs):
        CountingSaver.calls["restore"] += 1
        return super().restore(*args, **kwargs)


def model_fn(features, labels, mode, params):
    w = tf.compat.v1.get_variable("w", [2, 1], initializer=tf.compat.v1.ones_initializer())
    logits = tf.matmul(features["x"], w)
    multiplied = tf.multiply(logits, 2.0, name="multiplied")
    tf.compat.v1.add_to_collection(
        tf.compat.v1.GraphKeys.ASSET_FILEPATHS, tf.constant(params["vocab"], name="vocab_path")
    )
    if mode == est.ModeKeys.PREDICT:
        return est.EstimatorSpec(mode, predictions={"logits": logits})
    loss = tf.reduce_mean(tf.square(logits - labels))
    train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(
        loss, tf.compat.v1.train.get_global_step()
    )
    mean = tf.compat.v1.metrics.mean(logits, name="avg")
    local = tf.Variable(0.0, name="my_local", collections=[tf.compat.v1.GraphKeys.LOCAL_VARIABLES])
    with tf.control_dependencies([tf.compat.v1.local_variables_initializer()]):
        local_init_op = tf.group(local.assign(12345.0))
    scaffold = tf.compat.v1.train.Scaffold(
        saver=CountingSaver(sharded=True), local_init_op=local_init_op
    )
    return est.EstimatorSpec(
        mode,
        predictions=multiplied,
        loss=loss,
        train_op=train_op,
        eval_metric_ops={"avg": mean},
        scaffold=scaffold,
    )


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("modes")
    vocab = str(tmp / "my_vocab")
    with open(vocab, "w") as f:
        f.write(VOCAB)
    estimator = est.Estimator(model_fn, str(tmp / "model"), params={"vocab": vocab})
    estimator.train(lambda: tf.data.Dataset.from_tensors(({"x": X}, Y)).repeat(), steps=2)
    CountingSaver.calls.update(save=0, export_meta_graph=0, restore=0)
    supervised = export.build_raw_supervised_input_receiver_fn(
        {"x": tf.zeros([2, 2])}, tf.zeros([2, 1])
    )
    export_dir = estimator.experimental_export_all_saved_models(
        str(tmp / "export"), {est.ModeKeys.TRAIN: supervised, est.ModeKeys.EVAL: supervised}
    ).decode()
    return estimator, export_dir, vocab, dict(CountingSaver.calls)


def load(export_dir, tags):
    graph = tf.Graph()
    session = tf.compat.v1.Session(graph=graph)
    with graph.as_default():
        meta_graph = tf.compat.v1.saved_model.loader.load(session, tags, export_dir)
    return graph, session, meta_graph


def feeds(meta_graph, key):
    inputs = meta_graph.signature_def[key].inputs
    return {inputs["x"].name: X, inputs["label"].name: Y}


def test_train_graph_runs_its_train_op_from_the_checkpoint(exported):
    estimator, export_dir, _, _ = exported
    graph, session, meta_graph = load(export_dir, ["train"])
    names = {op.name for op in graph.get_operations()}
    assert {"multiplied", "global_step/Assign", "w"} <= names
    with graph.as_default():
        step = tf.compat.v1.train.get_global_step()
        (train_op,) = tf.compat.v1.get_collection("saved_model_train_op")
        w = [v for v in tf.compat.v1.global_variables() if v.op.name == "w"][0]
        np.testing.assert_allclose(session.run(w), estimator.get_variable_value("w"))
        assert session.run(step) == 2
        session.run(train_op, feeds(meta_graph, "train"))
        assert session.run(step) == 3
        out = session.run("multiplied:0", feeds(meta_graph, "train"))
        np.testing.assert_allclose(out, X @ session.run(w) * 2, rtol=1e-6)


def test_eval_graph_runs_metric_update_and_value_ops_by_name(exported):
    estimator, export_dir, _, _ = exported
    graph, session, meta_graph = load(export_dir, ["eval"])
    outputs = meta_graph.signature_def["eval"].outputs
    assert outputs["metrics/avg/update_op"].name == "avg/update_op:0"
    session.run("avg/update_op:0", feeds(meta_graph, "eval"))
    session.run("avg/update_op:0", feeds(meta_graph, "eval"))
    expected = np.mean(X @ estimator.get_variable_value("w"))
    np.testing.assert_allclose(session.run("avg/value:0"), expected, rtol=1e-6)


def test_asset_files_are_copied_and_listed(exported):
    _, export_dir, vocab, _ = exported
    with open(os.path.join(export_dir, "assets", "my_vocab")) as f:
        assert f.read() == VOCAB
    # As in the original, the loaded collection names the file the model_fn named.
    graph, session, _ = load(export_dir, ["train"])
    assets = graph.get_collection(tf.compat.v1.GraphKeys.ASSET_FILEPATHS)
    assert [os.fsdecode(session.run(asset)) for asset in assets] == [vocab]


def test_scaffold_saver_and_local_init_op_are_used(exported):
    _, export_dir, _, calls = exported
    # TRAIN saves the variables; each mode restores and writes its MetaGraph.
    assert calls == {"save": 1, "export_meta_graph": 2, "restore": 2}
    graph, session, _ = load(export_dir, ["eval"])
    with graph.as_default():
        (local,) = [v for v in tf.compat.v1.local_variables() if v.op.name == "my_local"]
    assert session.run(local) == 12345.0


def keras_model_fn(features, labels, mode):
    hidden = tf.keras.layers.Dense(3)(features["x"])
    logits = tf.keras.layers.Dense(1, name="out")(hidden)
    loss = tf.reduce_mean(tf.square(logits - labels))
    train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(
        loss, tf.compat.v1.train.get_global_step()
    )
    return est.EstimatorSpec(mode, loss=loss, train_op=train_op, predictions=logits)


def test_keras_layers_in_the_train_graph_restore_their_checkpoint_values(tmp_path):
    estimator = est.Estimator(keras_model_fn, str(tmp_path / "model"))
    estimator.train(lambda: tf.data.Dataset.from_tensors(({"x": X}, Y)).repeat(), steps=1)
    supervised = export.build_raw_supervised_input_receiver_fn(
        {"x": tf.zeros([2, 2])}, tf.zeros([2, 1])
    )
    export_dir = estimator.export_saved_model(
        str(tmp_path / "export"), supervised, experimental_mode=est.ModeKeys.TRAIN
    ).decode()
    graph, session, _ = load(export_dir, ["train"])
    with graph.as_default():
        values = {v.op.name: session.run(v) for v in tf.compat.v1.global_variables()}
    for name in ("dense/kernel", "out/kernel", "out/bias"):
        np.testing.assert_allclose(values[name], estimator.get_variable_value(name))
