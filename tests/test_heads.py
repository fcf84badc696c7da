"""Heads compute what the original tf.estimator heads computed, key for key.

The expectations were written by tensorflow-estimator 2.15 running
`fixtures/canned/make_head_expectations.py`; the same cases run here through
`tfestimator_compat`'s heads, with a Keras 3 optimizer where the original had
a Keras 2 one.
"""

import json
import os

import keras
import numpy as np
import pytest
import tensorflow as tf
from helpers import FetchByName
from helpers import module_from_file

import tfestimator_compat as est
from tfestimator_compat import head as head_lib
from tfestimator_compat.head import head_utils

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures", "canned")


cases = module_from_file(
    os.path.join(FIXTURES, "make_head_expectations.py"), "make_head_expectations"
)
with open(os.path.join(FIXTURES, "head_expectations.json")) as f:
    EXPECTED = json.load(f)


def _sgd():
    return keras.optimizers.SGD(cases.LEARNING_RATE)


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    """Each case evaluated, predicted and trained once, as in the original."""
    computed = {}
    for case in sorted(cases.CASES):
        captured = {}
        head = cases.make_head(head_lib, case)
        model_dir = str(tmp_path_factory.mktemp(case))
        estimator = est.Estimator(cases.model_fn(head, case, _sgd, captured), model_dir=model_dir)
        metrics = estimator.evaluate(cases.input_fn(case))
        predictions = list(estimator.predict(cases.input_fn(case)))[:3]
        estimator.train(cases.input_fn(case, repeat=True), steps=cases.TRAIN_STEPS)
        computed[case] = {
            "evaluate": metrics,
            "predictions": predictions,
            "export_outputs": captured["export_outputs"],
            "bias": estimator.get_variable_value("bias"),
            "variables": sorted(estimator.get_variable_names()),
        }
    return computed


@pytest.mark.parametrize("case", sorted(cases.CASES))
def test_evaluate_keys_and_values_match_the_original(results, case):
    metrics = results[case]["evaluate"]
    expected = EXPECTED[case]["evaluate"]
    assert sorted(metrics) == sorted(expected)
    for key, value in expected.items():
        assert float(metrics[key]) == pytest.approx(value, rel=1e-5, abs=1e-6), key


@pytest.mark.parametrize("case", sorted(cases.CASES))
def test_predictions_match_the_original(results, case):
    predictions = results[case]["predictions"]
    expected = EXPECTED[case]["predict_first3"]
    assert sorted(cases.prediction_key(k) for k in predictions[0]) == sorted(expected)
    for key in predictions[0]:
        got = [cases.jsonable(p[key]) for p in predictions]
        want = expected[cases.prediction_key(key)]
        if isinstance(want[0][0], str):
            assert got == want, key
        else:
            np.testing.assert_allclose(np.array(got, float), want, rtol=1e-5, err_msg=str(key))
        dtypes = {np.asarray(p[key]).dtype.kind for p in predictions}
        assert dtypes <= {"f", "i", "O", "S"}, key


@pytest.mark.parametrize("case", sorted(cases.CASES))
def test_export_signatures_match_the_original(results, case):
    assert results[case]["export_outputs"] == EXPECTED[case]["export_outputs"]


@pytest.mark.parametrize("case", sorted(cases.CASES))
def test_training_through_the_head_matches_the_original(results, case):
    np.testing.assert_allclose(
        results[case]["bias"], EXPECTED[case]["bias_after_training"], rtol=1e-5, atol=1e-7
    )
    # The Keras 3 optimizer made in the model_fn leaves no variables of its own.
    assert results[case]["variables"] == EXPECTED[case]["variables"]


def test_prediction_dtypes_are_the_originals(results):
    first = results["binary"]["predictions"][0]
    assert first["class_ids"].dtype == np.int64
    assert first["all_class_ids"].dtype == np.int32
    assert first["logistic"].dtype == np.float32
    assert first["classes"].dtype == object


def test_train_op_fn_with_a_v1_optimizer(model_dir):
    head = head_lib.BinaryClassHead()

    def model_fn(features, labels, mode):
        w = tf.compat.v1.get_variable("w", [3, 1])
        return head.create_estimator_spec(
            features,
            mode,
            tf.matmul(features["x"], w),
            labels,
            train_op_fn=lambda loss: tf.compat.v1.train.AdagradOptimizer(0.1).minimize(
                loss, global_step=tf.compat.v1.train.get_global_step()
            ),
        )

    x = np.random.RandomState(0).rand(8, 3).astype(np.float32)
    y = (x[:, :1] > 0.5).astype(np.int64)
    estimator = est.Estimator(model_fn, model_dir=model_dir)
    estimator.train(lambda: tf.data.Dataset.from_tensor_slices(({"x": x}, y)).batch(4), steps=2)
    assert estimator.get_variable_value("global_step") == 2
    assert estimator.get_variable_names() == ["global_step", "w", "w/Adagrad"]


def test_v1_optimizer_given_to_the_head_keeps_tf1_slot_names(model_dir):
    head = head_lib.RegressionHead()

    def model_fn(features, labels, mode):
        w = tf.compat.v1.get_variable("w", [3, 1])
        return head.create_estimator_spec(
            features,
            mode,
            tf.matmul(features["x"], w),
            labels,
            optimizer=tf.compat.v1.train.AdamOptimizer(0.1),
            trainable_variables=[w],
        )

    x = np.random.RandomState(0).rand(8, 3).astype(np.float32)
    estimator = est.Estimator(model_fn, model_dir=model_dir)
    estimator.train(
        lambda: tf.data.Dataset.from_tensor_slices(({"x": x}, x[:, :1])).batch(4), steps=2
    )
    assert {"w/Adam", "w/Adam_1", "beta1_power", "global_step"} <= set(
        estimator.get_variable_names()
    )
    assert estimator.get_variable_value("global_step") == 2


def test_argument_validation():
    with pytest.raises(ValueError, match="n_classes must be > 2"):
        head_lib.MultiClassHead(n_classes=2)
    with pytest.raises(ValueError, match="thresholds not in"):
        head_lib.BinaryClassHead(thresholds=[1.5])
    with pytest.raises(ValueError, match="Invalid loss_reduction"):
        head_lib.RegressionHead(loss_reduction="none")
    with pytest.raises(ValueError, match="loss_fn must contain argument: logits"):
        head_lib.BinaryClassHead(loss_fn=lambda labels: labels)
    with pytest.raises(ValueError, match="label_vocabulary"):
        head_lib.MultiClassHead(n_classes=3, label_vocabulary=["a", "b"])
    with pytest.raises(ValueError, match="must have name"):
        head_lib.MultiHead([head_lib.BinaryClassHead(), head_lib.RegressionHead(name="r")])
    assert tf.losses.Reduction.SUM_OVER_BATCH_SIZE == head_utils.SUM_OVER_BATCH_SIZE


def test_heads_work_eagerly():
    head = head_lib.MultiClassHead(n_classes=3, weight_column="w")
    logits = tf.constant([[1.0, 2.0, 0.5], [0.1, 0.2, 3.0]])
    labels = tf.constant([[1], [2]], tf.int64)
    features = {"w": tf.constant([[1.0], [3.0]])}
    loss = head.loss(labels, logits, features=features)
    per_example = tf.nn.sparse_softmax_cross_entropy_with_logits(labels[:, 0], logits)
    assert float(loss) == pytest.approx(float(tf.reduce_sum(per_example * [1.0, 3.0]) / 2))
    predictions = head.predictions(logits, keys=["class_ids"])
    assert list(predictions) == ["class_ids"]
    np.testing.assert_array_equal(predictions["class_ids"], [[1], [2]])
    with pytest.raises(ValueError, match="Mismatched label shape"):
        head.loss(tf.constant([[1, 2]], tf.int64), logits[:1], features={"w": [[1.0]]})
    with pytest.raises(ValueError, match="Labels dtype should be integer"):
        head.loss(tf.constant([[1.0], [2.0]]), logits, features=features)


def test_custom_loss_fn_and_metrics_api(model_dir):
    def loss_fn(labels, logits, features):
        return tf.abs(logits - tf.cast(labels, tf.float32)) * features["scale"]

    head = head_lib.RegressionHead(loss_fn=loss_fn)
    eval_metrics = head.metrics()
    assert sorted(eval_metrics) == ["average_loss", "label/mean", "prediction/mean"]
    features = {"scale": tf.constant([[2.0], [2.0]])}
    updated = head.update_metrics(
        eval_metrics, features, tf.constant([[1.0], [3.0]]), tf.constant([[0.0], [1.0]])
    )
    assert float(updated["average_loss"].result()) == pytest.approx(3.0)
    assert float(updated["prediction/mean"].result()) == pytest.approx(2.0)


def test_multi_label_head_takes_sparse_labels(tmp_path):
    head = head_lib.MultiLabelHead(n_classes=3, label_vocabulary=["x", "y", "z"])
    logits = np.array([[1.0, -1.0, 0.5], [0.2, 0.3, -2.0]], np.float32)
    sparse = tf.SparseTensor([[0, 0], [0, 1], [1, 0]], ["x", "z", "y"], [2, 2])
    dense = np.array([[1, 0, 1], [0, 1, 0]], np.int64)

    def model_fn(features, labels, mode):
        tf.compat.v1.train.get_or_create_global_step()
        return head.create_estimator_spec(features, mode, features["logits"], labels)

    def evaluate(labels, name):
        estimator = est.Estimator(model_fn, model_dir=str(tmp_path / name))
        return estimator.evaluate(
            lambda: tf.data.Dataset.from_tensors(({"logits": logits}, labels))
        )

    from_sparse, from_dense = evaluate(sparse, "sparse"), evaluate(dense, "dense")
    assert from_sparse["average_loss"] == pytest.approx(from_dense["average_loss"])
    assert from_sparse["auc"] == pytest.approx(from_dense["auc"])


_UNKNOWN_RANK_CASES = {
    "binary": (lambda: head_lib.BinaryClassHead(weight_column="w"), [[1], [0], [1]], 1),
    "multi_class": (lambda: head_lib.MultiClassHead(3, weight_column="w"), [[2], [0], [1]], 3),
    "regression": (
        lambda: head_lib.RegressionHead(label_dimension=2, weight_column="w"),
        [[0.5, 1.0], [2.0, -1.0], [0.0, 3.0]],
        2,
    ),
    "multi_label": (
        lambda: head_lib.MultiLabelHead(3, weight_column="w"),
        [[1, 0, 1], [0, 1, 0], [1, 1, 0]],
        3,
    ),
}


@pytest.mark.parametrize("case", sorted(_UNKNOWN_RANK_CASES))
def test_labels_and_weights_of_unknown_rank(case):
    """Labels parsed from tf.train.Examples and dequeued have no static rank
    (`parse_example` behind a FIFOQueue, as the original's integration tests
    feed every canned estimator); the heads' metrics and loss take them."""
    make_head, labels, logits_dimension = _UNKNOWN_RANK_CASES[case]
    labels = np.array(labels)
    logits = np.linspace(-1.0, 1.0, 3 * logits_dimension, dtype=np.float32).reshape(3, -1)
    weights = np.array([[1.0], [2.0], [0.5]], np.float32)

    def evaluate(label_spec, weight_spec):
        head = make_head()
        eval_metrics = head.metrics()

        @tf.function(input_signature=[label_spec, weight_spec])
        def update(labels, weights):
            features = {"w": weights}
            head.update_metrics(eval_metrics, features, logits, labels)
            return head.loss(labels, logits, features=features)

        loss = update(labels, weights)
        return float(loss), {key: float(m.result()) for key, m in eval_metrics.items()}

    unknown = evaluate(tf.TensorSpec(None, labels.dtype), tf.TensorSpec(None, tf.float32))
    known = evaluate(
        tf.TensorSpec(labels.shape, labels.dtype), tf.TensorSpec(weights.shape, tf.float32)
    )
    assert unknown[0] == pytest.approx(known[0])
    assert unknown[1] == pytest.approx(known[1])


def test_v2_head_tensors_have_the_originals_names(model_dir):
    """A hook fetches the loss and predictions of `tf.estimator.DNNClassifier` by
    the names tensorflow-estimator 2.15's graph gave them (listed from its
    graph): `head/losses/weighted_loss/value`, `head/predictions/...`."""
    x = np.linspace(0.0, 1.0, 16, dtype=np.float32).reshape(8, 2)
    y = np.array([[0], [1]] * 4, np.int64)

    def input_fn():
        return tf.data.Dataset.from_tensors(({"x": x}, y))

    estimator = tf.estimator.DNNClassifier(
        [3], [tf.feature_column.numeric_column("x", shape=(2,))], model_dir=model_dir
    )
    names = ["head/losses/weighted_loss/value", "head/losses/labels"]
    names += [f"head/predictions/{key}" for key in ("two_class_logits", "class_ids", "logistic")]
    fetched = FetchByName(names)
    scores = estimator.evaluate(input_fn, hooks=[fetched])
    values = fetched.values[0]
    assert values["head/losses/weighted_loss/value"] == pytest.approx(scores["loss"], rel=1e-6)
    np.testing.assert_array_equal(values["head/losses/labels"], y)
    logistic = values["head/predictions/logistic"]
    np.testing.assert_array_equal(values["head/predictions/class_ids"], (logistic[:, 0] > 0.5))
    assert values["head/predictions/two_class_logits"].shape == (8, 2)
