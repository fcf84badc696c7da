"""export_saved_model writes SavedModels that TF Serving and tf.saved_model.load serve."""

import glob
import os
import subprocess
import sys
import time

import numpy as np
import pytest
import tensorflow as tf
from helpers import dataset_input_fn
from helpers import linear_data
from helpers import run_command
from tensorflow.core.protobuf import saved_model_pb2

import tfestimator_compat as est
from tfestimator_compat import export

EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "examples")


def serving_model_fn(features, labels, mode):
    """Predicts, classifies and regresses, with one export output of each kind."""
    hidden = tf.keras.layers.Dense(8, activation="relu")(features["x"])
    logits = tf.keras.layers.Dense(2)(hidden)
    probabilities = tf.nn.softmax(logits)
    score = tf.reduce_sum(logits, axis=1)
    predictions = {"probabilities": probabilities, "score": score}
    if mode == est.ModeKeys.PREDICT:
        classes = tf.constant([["negative", "positive"]])
        return est.EstimatorSpec(
            mode,
            predictions=predictions,
            export_outputs={
                "serving_default": export.PredictOutput(predictions),
                "classification": export.ClassificationOutput(
                    scores=probabilities, classes=tf.tile(classes, [tf.shape(logits)[0], 1])
                ),
                "regression": export.RegressionOutput(value=score),
            },
        )
    loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
    train_op = tf.compat.v1.train.AdamOptimizer(0.05).minimize(
        loss, global_step=tf.compat.v1.train.get_global_step()
    )
    return est.EstimatorSpec(mode, loss=loss, train_op=train_op)


@pytest.fixture
def trained(model_dir):
    estimator = est.Estimator(serving_model_fn, model_dir=model_dir)
    estimator.train(dataset_input_fn(repeat=True), steps=5)
    return estimator


def meta_graphs(export_dir):
    saved_model = saved_model_pb2.SavedModel()
    with open(os.path.join(export_dir, "saved_model.pb"), "rb") as f:
        saved_model.ParseFromString(f.read())
    return {tuple(m.meta_info_def.tags): m for m in saved_model.meta_graphs}


def parsing_receiver():
    return export.build_parsing_serving_input_receiver_fn(
        {"x": tf.io.FixedLenFeature([3], tf.float32)}
    )


def serialized_examples(x):
    return [
        tf.train.Example(
            features=tf.train.Features(
                feature={"x": tf.train.Feature(float_list=tf.train.FloatList(value=row))}
            )
        ).SerializeToString()
        for row in x
    ]


def test_parsing_receiver_signatures_method_names_and_serving(trained, tmp_path):
    export_dir = trained.export_saved_model(str(tmp_path / "export"), parsing_receiver())
    assert isinstance(export_dir, bytes)
    export_dir = export_dir.decode()
    assert os.path.basename(export_dir).isdigit() and len(os.path.basename(export_dir)) == 10
    signatures = meta_graphs(export_dir)[("serve",)].signature_def
    assert {key: s.method_name for key, s in signatures.items()} == {
        "serving_default": "tensorflow/serving/predict",
        "classification": "tensorflow/serving/classify",
        "regression": "tensorflow/serving/regress",
    }
    assert set(signatures["classification"].inputs) == {"inputs"}
    assert set(signatures["classification"].outputs) == {"classes", "scores"}
    assert set(signatures["serving_default"].inputs) == {"examples"}
    shown = subprocess.run(
        [
            sys.executable,
            "-m",
            "tensorflow.python.tools.saved_model_cli",
            "show",
            "--dir",
            export_dir,
            "--all",
        ],
        capture_output=True,
        text=True,
    )
    assert shown.returncode == 0, shown.stderr[-2000:]
    assert "Method name is: tensorflow/serving/classify" in shown.stdout

    x, _ = linear_data(6, seed=3)
    expected = list(trained.predict(lambda: tf.data.Dataset.from_tensor_slices({"x": x}).batch(6)))
    expected_probabilities = np.stack([p["probabilities"] for p in expected])
    loaded = tf.saved_model.load(export_dir)
    examples = tf.constant(serialized_examples(x))
    served = loaded.signatures["serving_default"](examples=examples)
    np.testing.assert_allclose(served["probabilities"], expected_probabilities, atol=1e-5)
    classified = loaded.signatures["classification"](inputs=examples)
    np.testing.assert_allclose(classified["scores"], expected_probabilities, atol=1e-5)
    assert classified["classes"].numpy()[0].tolist() == [b"negative", b"positive"]
    regressed = loaded.signatures["regression"](inputs=examples)
    np.testing.assert_allclose(
        regressed["outputs"], np.stack([p["score"] for p in expected]), atol=1e-5
    )


def test_raw_receiver_excludes_classify_and_serves_features(trained, tmp_path):
    receiver_fn = export.build_raw_serving_input_receiver_fn({"x": tf.zeros([1, 3])})
    export_dir = trained.export_saved_model(str(tmp_path / "export"), receiver_fn).decode()
    signatures = meta_graphs(export_dir)[("serve",)].signature_def
    assert set(signatures) == {"serving_default"}, "classify/regress need one string input"
    assert signatures["serving_default"].inputs["x"].tensor_shape.dim[0].size == -1
    x, _ = linear_data(4)
    served = tf.saved_model.load(export_dir).signatures["serving_default"](x=tf.constant(x))
    predicted = list(trained.predict(lambda: tf.data.Dataset.from_tensor_slices({"x": x}).batch(4)))
    np.testing.assert_allclose(served["score"], [p["score"] for p in predicted], atol=1e-5)


def test_serving_inputs_of_the_wrong_shape_or_keys_fail_naming_the_key(trained, tmp_path):
    receiver_fn = export.build_raw_serving_input_receiver_fn({"x": tf.zeros([1, 3])})
    export_dir = trained.export_saved_model(str(tmp_path / "export"), receiver_fn).decode()
    serve = tf.saved_model.load(export_dir).signatures["serving_default"]
    for wrong in (tf.zeros([3]), tf.zeros([2, 4]), tf.zeros([2, 3, 1])):
        with pytest.raises(
            tf.errors.InvalidArgumentError,
            match=r"tensor x \[.*\] is not compatible with expected shape \[\?,3\]",
        ):
            serve(x=wrong)
    with pytest.raises(TypeError, match="'z'"):
        serve(x=tf.zeros([2, 3]), z=tf.zeros([2]))
    with pytest.raises(TypeError, match="'x'"):
        serve()
    assert serve(x=tf.zeros([5, 3]))["score"].shape == (5,)


def test_serving_input_receiver_forms_and_alternatives(trained, tmp_path):
    def single_tensor_receiver():
        placeholder = tf.compat.v1.placeholder(tf.float32, [None, 3])
        return export.ServingInputReceiver(
            {"x": placeholder * 1.0},
            placeholder,
            receiver_tensors_alternatives={"raw": {"direct": placeholder}},
        )

    export_dir = trained.export_saved_model(str(tmp_path / "a"), single_tensor_receiver).decode()
    signatures = meta_graphs(export_dir)[("serve",)].signature_def
    assert set(signatures["serving_default"].inputs) == {"input"}
    assert "raw:serving_default" in signatures
    loaded = tf.saved_model.load(export_dir)
    x = np.ones((2, 3), np.float32)
    a = loaded.signatures["serving_default"](input=tf.constant(x))["score"]
    b = loaded.signatures["raw:serving_default"](direct=tf.constant(x))["score"]
    np.testing.assert_allclose(a, b)

    def tensor_model_fn(features, labels, mode):
        w = tf.compat.v1.get_variable("w", [3, 1])
        return est.EstimatorSpec(mode, predictions=tf.matmul(features, w))

    tensor_estimator = est.Estimator(tensor_model_fn, model_dir=str(tmp_path / "tensor_model"))
    list(
        tensor_estimator.predict(lambda: tf.data.Dataset.from_tensors(np.ones((1, 3), np.float32)))
    )
    tensor_estimator._model_state.store.get("global_step")
    checkpoint = tf.compat.v1.train.Saver(
        var_list={
            "w": tensor_estimator._model_state.store.get("w"),
            "global_step": tensor_estimator._model_state.store.get("global_step"),
        }
    ).save(None, str(tmp_path / "tensor_model" / "model.ckpt"), global_step=0)

    def tensor_receiver():
        placeholder = tf.compat.v1.placeholder(tf.float32, [None, 3], name="features")
        return export.TensorServingInputReceiver(placeholder, {"features": placeholder})

    export_dir = tensor_estimator.export_saved_model(
        str(tmp_path / "b"), tensor_receiver, checkpoint_path=checkpoint
    ).decode()
    out = tf.saved_model.load(export_dir).signatures["serving_default"](features=tf.constant(x))
    assert out["output"].shape == (2, 1)


def test_receiver_validation():
    with pytest.raises(ValueError, match="features must be defined"):
        export.ServingInputReceiver(None, tf.constant([1.0]))
    with pytest.raises(ValueError, match="feature x must be a Tensor"):
        export.ServingInputReceiver({"x": 3}, tf.constant([1.0]))
    with pytest.raises(ValueError, match="receiver_tensor keys must be strings"):
        export.ServingInputReceiver({"x": tf.constant(1.0)}, {1: tf.constant(1.0)})
    with pytest.raises(ValueError, match="receiver_tensors_alternatives must be a dict"):
        export.ServingInputReceiver(tf.constant(1.0), tf.constant(1.0), [tf.constant(1.0)])
    with pytest.raises(ValueError, match="distinct keys"):
        export.build_raw_supervised_input_receiver_fn({"a": tf.zeros([1])}, {"a": tf.zeros([1])})


def test_layout_as_text_assets_extra_and_old_name(trained, tmp_path):
    extra = tmp_path / "vocab.txt"
    extra.write_text("a\nb\n")
    base = tmp_path / "export"
    export_dir = trained.export_savedmodel(
        str(base),
        parsing_receiver(),
        assets_extra={"data/vocab.txt": str(extra)},
        as_text=True,
        strip_default_attrs=True,
    ).decode()
    assert os.listdir(base) == [os.path.basename(export_dir)], "no temp-* directory is left"
    assert os.path.exists(os.path.join(export_dir, "saved_model.pbtxt"))
    assert not os.path.exists(os.path.join(export_dir, "saved_model.pb"))
    assert open(os.path.join(export_dir, "assets.extra", "data", "vocab.txt")).read() == "a\nb\n"
    assert "serving_default" in tf.saved_model.load(export_dir).signatures


def test_failed_export_leaves_nothing_that_looks_finished(trained, tmp_path):
    def broken_receiver():
        raise RuntimeError("receiver broke")

    base = tmp_path / "export"
    with pytest.raises(RuntimeError, match="receiver broke"):
        trained.export_saved_model(str(base), broken_receiver)
    assert not base.exists() or os.listdir(base) == []


def start_export_that_hangs_in_assets_extra(model_dir, base, fifo):
    """A real export in another process, blocked while copying a FIFO into assets.extra."""
    script = f"""
import tfestimator_compat as est
from test_export import parsing_receiver, serving_model_fn
estimator = est.Estimator(serving_model_fn, model_dir={model_dir!r})
estimator.export_saved_model({base!r}, parsing_receiver(), assets_extra={{"x": {fifo!r}}})
"""
    env = dict(os.environ, PYTHONPATH=os.path.dirname(__file__), TF_CPP_MIN_LOG_LEVEL="2")
    return subprocess.Popen([sys.executable, "-c", script], env=env, stderr=subprocess.PIPE)


def wait_for_temp_dir_with_saved_model(base, process, other_than=None, timeout=120):
    deadline = time.time() + timeout
    while time.time() < deadline:
        assert process.poll() is None, process.stderr.read().decode()
        found = glob.glob(os.path.join(base, "temp-*", "saved_model.pb"))
        found = [os.path.dirname(path) for path in found if os.path.dirname(path) != other_than]
        if found:
            return found[0]
        time.sleep(0.2)
    raise AssertionError("the export never reached its assets.extra copy")


def test_the_next_export_removes_what_a_killed_export_left(trained, tmp_path):
    base = str(tmp_path / "export")
    fifo = str(tmp_path / "never_written")
    os.mkfifo(fifo)
    killed = start_export_that_hangs_in_assets_extra(trained.model_dir, base, fifo)
    killed_temp_dir = wait_for_temp_dir_with_saved_model(base, killed)
    killed.kill()
    killed.wait()
    assert os.path.isdir(killed_temp_dir)
    still_running = start_export_that_hangs_in_assets_extra(trained.model_dir, base, fifo)
    try:
        running_temp_dir = wait_for_temp_dir_with_saved_model(
            base, still_running, other_than=killed_temp_dir
        )
        assert not os.path.exists(killed_temp_dir), "the next export removed the killed one's"
        foreign_temp_dir = os.path.join(base, "temp-1234567890")  # the original's, say
        os.makedirs(foreign_temp_dir)

        export_dir = trained.export_saved_model(base, parsing_receiver()).decode()

        assert os.path.isdir(running_temp_dir), "a live export's folder is left alone"
        assert os.path.isdir(foreign_temp_dir), "a folder that is not ours is left alone"
        assert sorted(os.listdir(export_dir)) == [
            "assets",
            "fingerprint.pb",
            "saved_model.pb",
            "variables",
        ]
    finally:
        still_running.kill()
        still_running.wait()


def test_export_needs_a_checkpoint(model_dir, tmp_path):
    estimator = est.Estimator(serving_model_fn, model_dir=model_dir)
    with pytest.raises(ValueError, match="Couldn't find trained model at"):
        estimator.export_saved_model(str(tmp_path / "e"), parsing_receiver())
    with pytest.raises(ValueError, match="An input_receiver_fn must be defined"):
        estimator.export_saved_model(str(tmp_path / "e"), None)


def test_export_all_saved_models_has_train_eval_and_serve(trained, tmp_path):
    supervised = export.build_raw_supervised_input_receiver_fn(
        {"x": tf.zeros([1, 3])}, tf.zeros([1], tf.int64)
    )
    export_dir = trained.experimental_export_all_saved_models(
        str(tmp_path / "all"),
        {
            est.ModeKeys.PREDICT: parsing_receiver(),
            est.ModeKeys.TRAIN: supervised,
            est.ModeKeys.EVAL: supervised,
        },
    ).decode()
    graphs = meta_graphs(export_dir)
    assert set(graphs) == {("serve",), ("train",), ("eval",)}
    assert graphs[("train",)].signature_def["train"].method_name == "tensorflow/supervised/training"
    assert graphs[("eval",)].signature_def["eval"].method_name == "tensorflow/supervised/eval"
    assert set(graphs[("eval",)].signature_def["eval"].inputs) == {"x", "label"}
    assert "train" not in graphs[("serve",)].signature_def, "each tag has its own signatures"
    loaded = tf.saved_model.load(export_dir, tags=["eval"])
    out = loaded.signatures["eval"](x=tf.ones([2, 3]), label=tf.constant([0, 1], tf.int64))
    assert "loss" in out
    assert "serving_default" in tf.saved_model.load(export_dir, tags=["serve"]).signatures


@pytest.mark.slow
def test_reference_workflow_prints_seed_ok(tmp_path):
    result = run_command("run", os.path.join(EXAMPLES, "seed_multitask.py"), tmp_path / "seed")
    assert result.returncode == 0, result.stderr[-3000:]
    assert "SEED_OK" in result.stdout


def test_vocabulary_files_become_assets_and_serve_without_the_original(tmp_path):
    vocabulary = tmp_path / "vocabulary.txt"
    vocabulary.write_text("a\nb\nc\n")
    column = tf.feature_column.indicator_column(
        tf.feature_column.categorical_column_with_vocabulary_file("k", str(vocabulary))
    )

    def model_fn(features, labels, mode):
        net = tf.compat.v1.feature_column.input_layer(features, [column])
        logits = tf.keras.layers.Dense(2)(net)
        if mode == est.ModeKeys.PREDICT:
            return est.EstimatorSpec(mode, predictions={"onehot": net, "logits": logits})
        loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
        train_op = tf.compat.v1.train.AdamOptimizer().minimize(
            loss, global_step=tf.compat.v1.train.get_global_step()
        )
        return est.EstimatorSpec(mode, loss=loss, train_op=train_op)

    keys = np.array([["a"], ["c"], ["b"], ["z"]])
    input_fn = lambda: tf.data.Dataset.from_tensor_slices(  # noqa: E731
        ({"k": keys}, np.array([0, 1, 0, 1]))
    ).batch(2)
    estimator = est.Estimator(model_fn, model_dir=str(tmp_path / "model"))
    estimator.train(input_fn, steps=2)
    predicted = list(estimator.predict(input_fn))
    np.testing.assert_array_equal(
        [p["onehot"] for p in predicted], [[1, 0, 0], [0, 0, 1], [0, 1, 0], [0, 0, 0]]
    )
    receiver = export.build_parsing_serving_input_receiver_fn(
        tf.feature_column.make_parse_example_spec([column])
    )
    export_dir = estimator.export_saved_model(str(tmp_path / "export"), receiver).decode()
    assert os.listdir(os.path.join(export_dir, "assets")) == ["vocabulary.txt"]
    vocabulary.unlink()
    examples = [
        tf.train.Example(
            features=tf.train.Features(
                feature={
                    "k": tf.train.Feature(bytes_list=tf.train.BytesList(value=[key[0].encode()]))
                }
            )
        ).SerializeToString()
        for key in keys
    ]
    served = tf.saved_model.load(export_dir).signatures["serving_default"](
        examples=tf.constant(examples)
    )
    np.testing.assert_allclose(served["logits"], [p["logits"] for p in predicted], atol=1e-5)
