"""DNNClassifier, DNNRegressor and DNNEstimator behave as the original's.

`fixtures/canned/dnn_classifier` was written by tensorflow-estimator 2.15
(`fixtures/canned/make_fixture.py`); these tests evaluate, predict and train
on from it, and check names and arguments against what the original did.
"""

import keras
import numpy as np
import pytest
import tensorflow as tf
from helpers import assert_metrics_match
from helpers import assert_predictions_match
from helpers import assert_variables_match
from helpers import canned_estimators
from helpers import copy_of_fixture
from helpers import fixture_expected
from helpers import fixture_generator

import tfestimator_compat as est
from tfestimator_compat import canned
from tfestimator_compat import head as head_lib
from tfestimator_compat.inputs import numpy_input_fn

fixture = fixture_generator("canned")
EXPECTED = fixture_expected("canned")
ESTIMATORS = canned_estimators()


def _x_y(n=32, seed=0):
    rng = np.random.RandomState(seed)
    x = rng.rand(n, 3).astype(np.float32)
    y = (x @ np.array([1.0, -2.0, 0.5], np.float32) > -0.3).astype(np.int64)
    return x, y


def _input_fn(n=32, batch=8, repeat=False, labels=None):
    x, y = _x_y(n)
    y = y if labels is None else labels(x, y)

    def fn():
        dataset = tf.data.Dataset.from_tensor_slices(({"x": x}, y))
        return (dataset.repeat() if repeat else dataset).batch(batch)

    return fn


X_COLUMN = [tf.feature_column.numeric_column("x", shape=(3,))]


@pytest.fixture
def original(tmp_path):
    model_dir = copy_of_fixture("canned", "dnn_classifier", tmp_path)
    return fixture.make_estimator(ESTIMATORS, "dnn_classifier", model_dir)


def test_evaluate_reproduces_the_original(original):
    metrics = original.evaluate(fixture.eval_input_fn("dnn_classifier", original=False))
    assert_metrics_match(metrics, EXPECTED["dnn_classifier"]["evaluate"])


def test_predict_reproduces_the_original(original):
    input_fn = fixture.eval_input_fn("dnn_classifier", original=False)
    predictions = list(original.predict(input_fn))[:5]
    expected = EXPECTED["dnn_classifier"]["predict_first5"]
    assert_predictions_match(predictions, expected, fixture.jsonable)


def test_training_resumes_with_the_originals_numbers(original):
    original.train(fixture.train_input_fn("dnn_classifier"), steps=fixture.RESUME_STEPS)
    assert_variables_match(original, EXPECTED["dnn_classifier"]["resumed"])
    assert original.get_variable_value("global_step") == 40


def test_fresh_model_has_the_original_variables(model_dir):
    color = tf.feature_column.categorical_column_with_vocabulary_list("c", ["r", "g", "b"])
    columns = [
        tf.feature_column.numeric_column("x", shape=(3,)),
        tf.feature_column.embedding_column(color, 2),
        tf.feature_column.indicator_column(color),
    ]
    x, y = _x_y()
    features = {"x": x, "c": np.array(["r", "g", "b", "k"] * 8)}
    classifier = canned.DNNClassifier([5, 4], columns, model_dir=model_dir, n_classes=3)
    classifier.train(
        lambda: tf.data.Dataset.from_tensor_slices(
            (features, y + x[:, 0].round().astype(int))
        ).batch(8),
        steps=2,
    )
    shapes = dict(tf.train.list_variables(model_dir))
    embedding = "dnn/input_from_feature_columns/input_layer/c_embedding/embedding_weights"
    assert shapes == {
        "dnn/hiddenlayer_0/kernel": [8, 5],
        "dnn/hiddenlayer_0/bias": [5],
        "dnn/hiddenlayer_1/kernel": [5, 4],
        "dnn/hiddenlayer_1/bias": [4],
        "dnn/logits/kernel": [4, 3],
        "dnn/logits/bias": [3],
        embedding: [3, 2],
        "global_step": [],
        "training/Adagrad/decay": [],
        "training/Adagrad/learning_rate": [],
        **{
            f"training/Adagrad/{name}/accumulator": shape
            for name, shape in [
                ("dnn/hiddenlayer_0/kernel", [8, 5]),
                ("dnn/hiddenlayer_0/bias", [5]),
                ("dnn/hiddenlayer_1/kernel", [5, 4]),
                ("dnn/hiddenlayer_1/bias", [4]),
                ("dnn/logits/kernel", [4, 3]),
                ("dnn/logits/bias", [3]),
                (embedding, [3, 2]),
            ]
        },
    }
    assert classifier.get_variable_value("training/Adagrad/learning_rate") == pytest.approx(0.001)
    assert classifier.get_variable_value("global_step") == 2


@pytest.mark.parametrize(
    "optimizer, names, learning_rate",
    [
        ("Adam", ("m", "v", "beta_1", "beta_2", "decay"), 0.001),
        ("Ftrl", ("accumulator", "linear", "beta", "learning_rate_power"), 0.001),
        ("RMSProp", ("rms", "rho", "momentum", "decay"), 0.001),
        ("SGD", ("momentum", "decay"), 0.01),
    ],
)
def test_optimizer_names_get_the_originals_defaults(model_dir, optimizer, names, learning_rate):
    regressor = canned.DNNRegressor([2], X_COLUMN, model_dir=model_dir, optimizer=optimizer)
    regressor.train(_input_fn(labels=lambda x, y: x.sum(1)), steps=2)
    scope = "training/RMSprop" if optimizer == "RMSProp" else f"training/{optimizer}"
    variables = regressor.get_variable_names()
    slot_names = {n.rsplit("/", 1)[-1] for n in variables if n.startswith(scope + "/dnn/")}
    hyper_names = {n[len(scope) + 1 :] for n in variables if n.count("/") == 2 and scope in n}
    assert set(names) <= slot_names | hyper_names, variables
    assert regressor.get_variable_value(scope + "/learning_rate") == pytest.approx(learning_rate)
    assert regressor.get_variable_value("global_step") == 2


def test_keras_optimizer_instances_train_with_the_original_names(tmp_path):
    def train(optimizer, name):
        regressor = canned.DNNRegressor(
            [2], X_COLUMN, model_dir=str(tmp_path / name), optimizer=optimizer
        )
        regressor.train(_input_fn(labels=lambda x, y: x.sum(1)), steps=3)
        return regressor

    keras.optimizers.Adam()  # The next one is Keras 3's `adam_<n>`; Keras 2 named it `Adam`.
    adam = train(keras.optimizers.Adam(0.05, beta_1=0.8), "keras")
    assert adam.get_variable_value("training/Adam/learning_rate") == pytest.approx(0.05)
    assert adam.get_variable_value("training/Adam/beta_1") == pytest.approx(0.8)
    assert adam.get_variable_value("global_step") == 3
    assert not [n for n in adam.get_variable_names() if n.startswith("adam/")]

    by_callable = train(lambda: keras.optimizers.Adam(0.05, beta_1=0.8), "callable")
    assert by_callable.get_variable_value("training/Adam/beta_1") == pytest.approx(0.8)

    named = train(keras.optimizers.SGD(0.1, momentum=0.5, name="my_sgd"), "named")
    assert "training/my_sgd/dnn/logits/kernel/momentum" in named.get_variable_names()

    v1 = train(tf.compat.v1.train.AdagradOptimizer(0.1), "v1")
    assert "dnn/logits/kernel/Adagrad" in v1.get_variable_names()
    assert v1.get_variable_value("global_step") == 3


def test_unsupported_optimizers_are_reported():
    with pytest.raises(ValueError, match="Unsupported optimizer name"):
        canned.optimizers.get_optimizer("Adadelta")
    with pytest.raises(ValueError, match="Nadam is not one of them"):
        canned.optimizers.get_optimizer(keras.optimizers.Nadam())
    with pytest.raises(ValueError, match="weight_decay"):
        canned.optimizers.get_optimizer(keras.optimizers.Adam(weight_decay=0.1))
    with pytest.raises(ValueError, match="not a tf.keras.optimizers.Optimizer"):
        canned.optimizers.get_optimizer(object())


def test_regressor_with_label_dimension_and_weights(model_dir):
    x, _ = _x_y()
    labels = np.stack([x.sum(1), x[:, 0] - x[:, 1]], axis=1)
    weights = np.linspace(0.5, 1.5, len(x)).astype(np.float32)

    def input_fn():
        return tf.data.Dataset.from_tensor_slices(({"x": x, "w": weights}, labels)).batch(32)

    # 400 steps: with 150 an unlucky initialization (seen in legacy Keras mode)
    # stopped short of halving the loss.
    regressor = canned.DNNRegressor(
        [8], X_COLUMN, model_dir=model_dir, label_dimension=2, weight_column="w", optimizer="Adam"
    )
    before = regressor.train(input_fn, steps=1).evaluate(input_fn)
    after = regressor.train(lambda: input_fn().repeat(), steps=400).evaluate(input_fn)
    assert sorted(after) == ["average_loss", "global_step", "label/mean", "loss", "prediction/mean"]
    assert after["average_loss"] < before["average_loss"] / 2
    prediction = next(regressor.predict(input_fn))
    assert prediction["predictions"].shape == (2,)


def test_estimator_with_a_multi_label_head(model_dir):
    x, y = _x_y()
    labels = np.stack([y, 1 - y, (x[:, 2] > 0.5).astype(np.int64)], axis=1)

    def input_fn():
        return tf.data.Dataset.from_tensor_slices(({"x": x}, labels)).batch(32)

    estimator = canned.DNNEstimator(
        head_lib.MultiLabelHead(n_classes=3), [4], X_COLUMN, model_dir=model_dir
    )
    metrics = estimator.train(input_fn, steps=2).evaluate(input_fn)
    assert {"auc", "auc_precision_recall", "average_loss", "loss"} <= set(metrics)
    assert next(estimator.predict(input_fn))["probabilities"].shape == (3,)


def test_numpy_input_fn_dropout_and_sum_reduction(model_dir):
    x, y = _x_y()
    classifier = canned.DNNClassifier(
        [6], X_COLUMN, model_dir=model_dir, dropout=0.3, loss_reduction=tf.losses.Reduction.SUM
    )
    classifier.train(
        numpy_input_fn({"x": x}, y, batch_size=8, num_epochs=None, shuffle=True), steps=3
    )
    metrics = classifier.evaluate(numpy_input_fn({"x": x}, y, batch_size=32, shuffle=False))
    # SUM adds up the 32 per-example losses; average_loss is their mean.
    assert metrics["loss"] == pytest.approx(32 * metrics["average_loss"], rel=1e-5)


def test_sparse_multivalent_input_and_string_labels(model_dir):
    words = tf.SparseTensor(
        indices=[[0, 0], [0, 1], [1, 0], [2, 0], [2, 1], [2, 2], [3, 0]],
        values=["good", "fun", "bad", "good", "good", "fun", "meh"],
        dense_shape=[4, 3],
    )
    labels = np.array([["yes"], ["no"], ["yes"], ["no"]])
    column = tf.feature_column.categorical_column_with_vocabulary_list("words", ["good", "bad"])

    def input_fn():
        return tf.data.Dataset.from_tensor_slices(({"words": words}, labels)).repeat(4).batch(4)

    # 16 hidden units: with 3, all could start dead (ReLU), leaving every logit at a
    # bias that balanced labels never move, and the inputs indistinguishable.
    classifier = canned.DNNClassifier(
        [16],
        [tf.feature_column.embedding_column(column, 2, combiner="mean")],
        model_dir=model_dir,
        label_vocabulary=["no", "yes"],
        optimizer="Adam",
    )
    classifier.train(input_fn, steps=4)
    predictions = list(classifier.predict(input_fn))[:4]
    assert {p["classes"][0] for p in predictions} <= {b"no", b"yes"}
    assert predictions[0]["all_classes"].tolist() == [b"no", b"yes"]
    # "fun" and "meh" are out of vocabulary; under "mean" the rows ["good", "fun"]
    # and ["good", "good", "fun"] are the same input.
    np.testing.assert_allclose(predictions[0]["logits"], predictions[2]["logits"], rtol=1e-6)
    assert not np.allclose(predictions[0]["logits"], predictions[1]["logits"])
    assert classifier.get_variable_value("global_step") == 4


def test_exported_model_serves_what_predict_returns(model_dir, tmp_path):
    classifier = canned.DNNClassifier([4], X_COLUMN, model_dir=model_dir)
    classifier.train(_input_fn(), steps=2)
    receiver = est.export.build_parsing_serving_input_receiver_fn(
        tf.feature_column.make_parse_example_spec(X_COLUMN)
    )
    export_dir = classifier.export_saved_model(str(tmp_path / "export"), receiver)
    loaded = tf.saved_model.load(export_dir)
    assert {"serving_default", "classification", "regression", "predict"} <= set(loaded.signatures)
    x, _ = _x_y(4)
    examples = [
        tf.train.Example(
            features=tf.train.Features(
                feature={"x": tf.train.Feature(float_list=tf.train.FloatList(value=row))}
            )
        ).SerializeToString()
        for row in x
    ]
    served = loaded.signatures["predict"](examples=tf.constant(examples))
    predicted = list(
        classifier.predict(lambda: tf.data.Dataset.from_tensor_slices({"x": x}).batch(4))
    )
    np.testing.assert_allclose(
        served["probabilities"].numpy(),
        np.stack([p["probabilities"] for p in predicted]),
        rtol=1e-5,
    )
    classified = loaded.signatures["classification"](inputs=tf.constant(examples))
    assert classified["classes"].numpy()[0].tolist() == [b"0", b"1"]


def _shared_columns(make):
    # Shared embedding columns can only be created in graph mode.
    with tf.Graph().as_default():
        return make()


def _train_on_ids(model_dir, columns, classifier_class=canned.DNNClassifier):
    features = {
        "a": (np.arange(16) % 4).astype(np.int64),
        "b": (np.arange(16) % 3).astype(np.int64),
    }
    labels = (np.arange(16) % 2).astype(np.int64)
    classifier = classifier_class([2], columns, model_dir=model_dir, optimizer="SGD")
    input_fn = lambda: tf.data.Dataset.from_tensor_slices((features, labels)).batch(8)  # noqa: E731
    classifier.train(input_fn, steps=1)
    first = {name: classifier.get_variable_value(name) for name in classifier.get_variable_names()}
    classifier.train(input_fn, steps=2)
    return classifier, first


def test_shared_embeddings_v2_keep_the_originals_untrained_table(model_dir):
    a = tf.feature_column.categorical_column_with_identity("a", 4)
    b = tf.feature_column.categorical_column_with_identity("b", 4)
    columns = _shared_columns(lambda: tf.feature_column.shared_embeddings([a, b], 3))
    classifier, first = _train_on_ids(model_dir, columns)
    assert classifier.get_variable_value("dnn/hiddenlayer_0/kernel").shape == (6, 2)
    assert "training/SGD/a_b_shared_embedding/momentum" not in classifier.get_variable_names()
    np.testing.assert_array_equal(
        classifier.get_variable_value("a_b_shared_embedding"), first["a_b_shared_embedding"]
    )


def test_shared_embedding_columns_v1_are_trained(model_dir):
    # v1 columns: the V1 class (the V2 one refuses them, as the original's did).
    fc_v1 = tf.compat.v1.feature_column
    columns = _shared_columns(
        lambda: fc_v1.shared_embedding_columns(
            [fc_v1.categorical_column_with_identity(key, 4) for key in ("a", "b")], 3
        )
    )
    classifier, first = _train_on_ids(model_dir, columns, tf.compat.v1.estimator.DNNClassifier)
    name = "dnn/input_from_feature_columns/input_layer/a_b_shared_embedding/embedding_weights"
    assert classifier.get_variable_value(name).shape == (4, 3)
    assert not np.array_equal(classifier.get_variable_value(name), first[name])
