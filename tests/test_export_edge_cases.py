"""Export cases the original handled: metrics built before the mode branch, assets,
warm-started models, BestExporter by hand, receivers, checkpoint mismatches."""

import os

import numpy as np
import pytest
import tensorflow as tf
from tensorflow.core.protobuf import saved_model_pb2

import tfestimator_compat as est
from tfestimator_compat import export

X = np.arange(16, dtype=np.float32).reshape(8, 2) / 10
Y = (X[:, :1] > 0.7).astype(np.float32)


def input_fn():
    return tf.data.Dataset.from_tensor_slices(({"x": X}, Y)).batch(4)


def serving():
    x = tf.compat.v1.placeholder(tf.float32, [None, 2], name="x")
    return export.ServingInputReceiver({"x": x}, {"x": x})


def metrics_before_the_branch(features, labels, mode):
    w = tf.compat.v1.get_variable("w", [2, 1], initializer=tf.compat.v1.ones_initializer())
    logits = tf.matmul(features["x"], w)
    mean = tf.compat.v1.metrics.mean(logits)  # made in every mode, PREDICT included
    vocab = tf.constant(os.path.join(os.path.dirname(__file__), "fixtures", "export_vocab.txt"))
    tf.compat.v1.add_to_collection(tf.compat.v1.GraphKeys.ASSET_FILEPATHS, vocab)
    if mode == est.ModeKeys.PREDICT:
        return est.EstimatorSpec(mode, predictions={"logits": logits})
    loss = tf.reduce_mean(tf.square(logits - labels))
    optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.1)
    train_op = optimizer.minimize(loss, tf.compat.v1.train.get_global_step())
    return est.EstimatorSpec(mode, loss=loss, train_op=train_op, eval_metric_ops={"mean": mean})


@pytest.fixture
def trained(tmp_path):
    estimator = est.Estimator(metrics_before_the_branch, str(tmp_path / "model"))
    estimator.train(lambda: input_fn().repeat(), steps=2)
    return estimator


def serve(export_dir, x):
    signature = tf.saved_model.load(export_dir).signatures["serving_default"]
    return signature(x=tf.constant(x))["logits"].numpy()


def test_metrics_made_before_the_mode_branch_export_in_every_mode(trained, tmp_path):
    w = trained.get_variable_value("w")
    export_dir = trained.export_saved_model(str(tmp_path / "serve"), serving).decode()
    np.testing.assert_allclose(serve(export_dir, X[:2]), X[:2] @ w, rtol=1e-6)
    supervised = export.build_raw_supervised_input_receiver_fn(
        {"x": tf.zeros([1, 2])}, tf.zeros([1, 1])
    )
    receivers = {est.ModeKeys.PREDICT: serving, est.ModeKeys.EVAL: supervised}
    all_modes = trained.experimental_export_all_saved_models(str(tmp_path / "all"), receivers)
    assert os.path.exists(os.path.join(all_modes.decode(), "saved_model.pb"))


def test_asset_filepaths_are_copied_to_assets(trained, tmp_path):
    export_dir = trained.export_saved_model(str(tmp_path / "serve"), serving).decode()
    copied = os.path.join(export_dir, "assets", "export_vocab.txt")
    assert open(copied).read() == "alpha\nbeta\n"


def test_asset_filepaths_are_listed_in_the_saved_model(trained, tmp_path):
    """The original's builder listed them in the MetaGraph's asset_file_def (TF Serving
    and the TF1 loader find them there), and the loaded model reaches the copy."""
    export_dir = trained.export_saved_model(str(tmp_path / "serve"), serving).decode()
    saved = saved_model_pb2.SavedModel()
    with open(os.path.join(export_dir, "saved_model.pb"), "rb") as f:
        saved.ParseFromString(f.read())
    listed = [asset.filename for asset in saved.meta_graphs[0].asset_file_def]
    assert listed == ["export_vocab.txt"]
    paths = [asset.asset_path.numpy().decode() for asset in tf.saved_model.load(export_dir).assets]
    assert paths == [os.path.join(export_dir, "assets", "export_vocab.txt")]


def test_a_warm_started_model_without_a_checkpoint_exports_the_warm_start_weights(
    trained, tmp_path
):
    warm = est.Estimator(
        metrics_before_the_branch, str(tmp_path / "warm"), warm_start_from=trained.model_dir
    )
    export_dir = warm.export_saved_model(str(tmp_path / "serve"), serving).decode()
    np.testing.assert_allclose(
        serve(export_dir, X[:2]), X[:2] @ trained.get_variable_value("w"), rtol=1e-6
    )


def test_best_exporter_called_without_an_eval_result_exports(trained, tmp_path):
    exporter = est.BestExporter(serving_input_receiver_fn=serving)
    base = str(tmp_path / "best")
    path = exporter.export(trained, base, trained.latest_checkpoint(), None, False)
    assert os.path.exists(os.path.join(path.decode(), "saved_model.pb"))


class Labeled:
    """Not a tensor, but with a registered conversion to one."""

    def __init__(self, tensor):
        self.tensor = tensor


tf.register_tensor_conversion_function(Labeled, lambda value, *args, **kwargs: value.tensor)


def test_receivers_take_convertible_features_and_refuse_the_rest(trained, tmp_path):
    def receiver():
        x = tf.compat.v1.placeholder(tf.float32, [None, 2])
        return export.ServingInputReceiver({"x": Labeled(x)}, {"x": x})

    export_dir = trained.export_saved_model(str(tmp_path / "serve"), receiver).decode()
    assert serve(export_dir, X[:1]).shape == (1, 1)
    with pytest.raises(ValueError, match="feature x must be a Tensor"):
        export.ServingInputReceiver({"x": np.zeros([1, 2])}, {"x": tf.zeros([1, 2])})
    # 2.15: ValueError, not a KeyError, for a dict given as the single feature.
    with pytest.raises(ValueError, match="feature must be a Tensor"):
        export.TensorServingInputReceiver({"x": tf.zeros([1])}, tf.zeros([1]))


def test_a_checkpoint_that_does_not_match_raises_the_originals_error_types(trained, tmp_path):
    def wider(features, labels, mode):
        w = tf.compat.v1.get_variable("w", [2, 3])
        return est.EstimatorSpec(mode, predictions={"logits": tf.matmul(features["x"], w)})

    def extra(features, labels, mode):
        w = tf.compat.v1.get_variable("w", [2, 1])
        bias = tf.compat.v1.get_variable("extra", [1])
        return est.EstimatorSpec(mode, predictions={"logits": tf.matmul(features["x"], w) + bias})

    with pytest.raises(
        tf.errors.InvalidArgumentError, match=r"w: shape \[2, 1\] in the checkpoint"
    ):
        est.Estimator(wider, trained.model_dir).export_saved_model(str(tmp_path / "a"), serving)
    with pytest.raises(tf.errors.NotFoundError, match=r"\['extra'\] not found"):
        est.Estimator(extra, trained.model_dir).export_saved_model(str(tmp_path / "b"), serving)


def test_signature_tensors_keep_the_models_names(tmp_path):
    # The original's serving_default: inputs {"x": "x_in:0"}, outputs
    # {"logits": "my_logits:0", "probabilities": "probs:0"} (recorded with 2.15).
    def model_fn(features, labels, mode):
        w = tf.compat.v1.get_variable("w", [2, 1], initializer=tf.compat.v1.ones_initializer())
        logits = tf.matmul(features["x"], w, name="my_logits")
        predictions = {"logits": logits, "probabilities": tf.nn.sigmoid(logits, name="probs")}
        step = tf.compat.v1.train.get_global_step().assign_add(1)
        loss = tf.reduce_sum(logits)
        return est.EstimatorSpec(mode, predictions=predictions, loss=loss, train_op=step)

    def receiver():
        x = tf.compat.v1.placeholder(tf.float32, [None, 2], name="x_in")
        return export.ServingInputReceiver({"x": x}, {"x": x})

    estimator = est.Estimator(model_fn, str(tmp_path / "model"))
    estimator.train(lambda: input_fn().repeat(), steps=1)
    export_dir = estimator.export_saved_model(str(tmp_path / "export"), receiver).decode()
    expected = X[:2] @ np.ones([2, 1], np.float32)
    with tf.Graph().as_default(), tf.compat.v1.Session() as session:
        meta_graph = tf.compat.v1.saved_model.loader.load(session, ["serve"], export_dir)
        signature = meta_graph.signature_def["serving_default"]
        assert {key: info.name for key, info in signature.inputs.items()} == {"x": "x_in:0"}
        names = {key: info.name for key, info in signature.outputs.items()}
        assert names == {"logits": "my_logits:0", "probabilities": "probs:0"}
        logits = session.run("my_logits:0", {"x_in:0": X[:2]})
    np.testing.assert_allclose(logits, expected, rtol=1e-6)
    np.testing.assert_allclose(serve(export_dir, X[:2]), expected, rtol=1e-6)


def test_a_mutable_table_made_in_the_model_fn_is_checkpointed_and_exported(tmp_path):
    """As in the original, the table lives across steps and modes, is saved as
    `<name>-keys` / `<name>-values`, and the export serves its trained contents
    (it crashed in TF's saver, and predicted the default value, before)."""

    def model_fn(features, labels, mode):
        table = tf.lookup.experimental.MutableHashTable(
            tf.string, tf.float32, default_value=-1.0, name="scores"
        )
        step = tf.compat.v1.assign_add(tf.compat.v1.train.get_global_step(), 1)
        with tf.control_dependencies([step]):
            train_op = table.insert(tf.constant(["k1"]), tf.constant([30.0]))
        prediction = table.lookup(tf.constant(["k1"])) + tf.reduce_sum(features["x"]) * 0
        return est.EstimatorSpec(
            mode, predictions=prediction, loss=tf.constant(1.0), train_op=train_op
        )

    estimator = est.Estimator(model_fn, str(tmp_path / "model"))
    estimator.train(input_fn, steps=1)
    assert {"scores-keys", "scores-values"} <= set(estimator.get_variable_names())
    fresh = est.Estimator(model_fn, str(tmp_path / "model"))
    assert [float(p[0]) for p in fresh.predict(input_fn, yield_single_examples=False)][0] == 30.0
    export_dir = fresh.export_saved_model(str(tmp_path / "serve"), serving)
    served = tf.saved_model.load(export_dir).signatures["serving_default"]
    outputs = served(x=tf.constant(X[:1]))
    assert float(next(iter(outputs.values())).numpy().ravel()[0]) == 30.0
