"""`tf.keras.layers.DenseFeatures` as a Keras 3 layer, against what TF 2.15 computed.

`fixtures/dense_features/make_fixture.py` ran the original layer on fixed
inputs with constant-initialized tables; the same columns give the same
numbers and variable names here, standalone, in Keras models and in a model_fn.
"""

import json
import os

import keras
import numpy as np
import pytest
import tensorflow as tf
from helpers import LEGACY_KERAS_MODE
from helpers import fixture_generator
from tfestimator_compat.legacy.keras2.dense_features import DenseFeatures

import tfestimator_compat as est

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures", "dense_features")


fixture = fixture_generator("dense_features")


@pytest.fixture(scope="module")
def expected():
    with open(os.path.join(FIXTURES, "expected.json")) as f:
        return json.load(f)


@pytest.mark.skipif(LEGACY_KERAS_MODE, reason="tf.keras is tf_keras, whose own layer stays")
def test_both_layer_names_are_bound():
    assert tf.keras.layers.DenseFeatures is DenseFeatures
    assert tf.compat.v1.keras.layers.DenseFeatures is DenseFeatures


def test_standalone_call_computes_the_originals_numbers(expected):
    layer = DenseFeatures(fixture.columns(shared=False))
    outputs = {}
    dense = layer(fixture.features(), cols_to_output_tensors=outputs)
    np.testing.assert_allclose(dense, expected["v1"]["output"], atol=1e-6)
    by_name = {column.name: value for column, value in outputs.items()}
    assert set(by_name) == set(expected["v1"]["columns"])
    for name, value in expected["v1"]["columns"].items():
        np.testing.assert_allclose(by_name[name], value, atol=1e-6, err_msg=name)
    paths = sorted(variable.path + ":0" for variable in layer.variables)
    assert paths == expected["v1"]["layer_variables"]


def _shared_model_fn(features, labels, mode):
    layer = DenseFeatures(fixture.columns(shared=True))
    outputs = {}
    dense = layer(features, cols_to_output_tensors=outputs)
    predictions = {"dense": dense}
    predictions.update({column.name: value for column, value in outputs.items()})
    if mode == est.ModeKeys.PREDICT:
        return est.EstimatorSpec(mode, predictions=predictions)
    loss = tf.reduce_mean(tf.square(dense))
    optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.1)
    train_op = optimizer.minimize(loss, tf.compat.v1.train.get_or_create_global_step())
    return est.EstimatorSpec(mode, loss=loss, train_op=train_op)


def _fixture_input_fn():
    features = fixture.features()
    return tf.data.Dataset.from_tensors(features)


def _fixture_train_input_fn():
    return tf.data.Dataset.from_tensors((fixture.features(), tf.zeros([3, 1]))).repeat()


@pytest.mark.slow
def test_in_a_model_fn_with_shared_embeddings_as_the_original(expected, model_dir):
    estimator = est.Estimator(_shared_model_fn, model_dir)
    predictions = list(estimator.predict(_fixture_input_fn, yield_single_examples=False))[0]
    np.testing.assert_allclose(predictions["dense"], expected["v2"]["output"], atol=1e-6)
    for name, value in expected["v2"]["columns"].items():
        np.testing.assert_allclose(predictions[name], value, atol=1e-6, err_msg=name)

    estimator.train(_fixture_train_input_fn, steps=2)
    estimator.evaluate(_fixture_train_input_fn, steps=1)
    names = set(estimator.get_variable_names())
    # Each mode's call builds a new layer; all share the original's variable names.
    assert names == {name.split(":")[0] for name in expected["v2"]["variables"]} | {"global_step"}
    trained = estimator.get_variable_value("dense_features/color_embedding/embedding_weights")
    assert not np.allclose(trained, np.arange(9).reshape(3, 3) / 10.0 + 0.1)


def _house_data(n=64):
    rng = np.random.RandomState(0)
    price = rng.uniform(0, 20, (n, 1)).astype(np.float32)
    color = np.array(["red", "green", "blue"])[rng.randint(0, 3, n)].reshape(n, 1)
    label = ((price[:, 0] > 10) ^ (color[:, 0] == "red")).astype(np.float32).reshape(n, 1)
    return {"price": price, "color": color}, label


def _house_columns():
    fc = tf.feature_column
    price = fc.numeric_column("price")
    color = fc.categorical_column_with_vocabulary_list("color", ["red", "green", "blue"])
    return [
        fc.bucketized_column(price, [5.0, 10.0, 15.0]),
        fc.embedding_column(color, 2),
        fc.indicator_column(color),
    ]


def test_a_functional_keras_model_fits_and_predicts():
    features, label = _house_data()
    inputs = {
        "price": keras.Input(shape=(1,), name="price"),
        "color": keras.Input(shape=(1,), name="color", dtype="string"),
    }
    hidden = DenseFeatures(_house_columns())(inputs)
    assert tuple(hidden.shape) == (None, 4 + 2 + 3)
    output = keras.layers.Dense(1, activation="sigmoid")(keras.layers.Dense(8, "relu")(hidden))
    model = keras.Model(inputs, output)
    model.compile(keras.optimizers.Adam(0.05), "binary_crossentropy")
    embedding = next(v for v in model.trainable_weights if "embedding_weights" in v.path)
    before = embedding.numpy().copy()
    dataset = tf.data.Dataset.from_tensor_slices((features, label)).batch(16)
    history = model.fit(dataset, epochs=15, verbose=0)
    assert history.history["loss"][-1] < history.history["loss"][0]
    assert not np.allclose(embedding.numpy(), before)  # the column's table trains
    assert model.predict(dataset.map(lambda x, y: x), verbose=0).shape == (64, 1)


def test_a_sequential_model_fits_on_a_dict_dataset():
    features, label = _house_data()
    model = keras.Sequential([DenseFeatures(_house_columns()), keras.layers.Dense(1)])
    model.compile("sgd", "mse")
    dataset = tf.data.Dataset.from_tensor_slices((features, label)).batch(16)
    model.fit(dataset, epochs=2, verbose=0)
    assert model.predict(dataset, verbose=0).shape == (64, 1)
    assert len(model.layers[0].trainable_weights) == 1


def test_a_model_with_the_layer_saves_and_loads(tmp_path):
    features, _ = _house_data(8)
    features = {key: tf.constant(value) for key, value in features.items()}
    inputs = {
        "price": keras.Input(shape=(1,), name="price"),
        "color": keras.Input(shape=(1,), name="color", dtype="string"),
    }
    model = keras.Model(inputs, keras.layers.Dense(1)(DenseFeatures(_house_columns())(inputs)))
    path = str(tmp_path / "model.keras")
    model.save(path)
    loaded = keras.models.load_model(path)
    np.testing.assert_allclose(loaded(features), model(features), atol=1e-6)


def test_config_round_trips():
    layer = DenseFeatures(_house_columns(), name="houses")
    clone = DenseFeatures.from_config(layer.get_config())
    assert clone.name == "houses"
    assert [c.name for c in clone.feature_columns] == [c.name for c in layer.feature_columns]


def test_a_categorical_column_is_refused_with_what_to_do():
    color = tf.feature_column.categorical_column_with_identity("color", 3)
    with pytest.raises(ValueError, match="embedding_column"):
        DenseFeatures([color])


def test_a_partitioner_is_refused_naming_what_is_partitioned_instead():
    price = tf.feature_column.numeric_column("price")
    partitioner = tf.compat.v1.fixed_size_partitioner(2)
    with pytest.raises(ValueError, match=r"partitioner.*get_variable.*checkpoints.md"):
        DenseFeatures([price], partitioner=partitioner)


def test_python_lists_are_taken_as_keras_2_took_them():
    """Python values in the features dict, as TensorFlow's feature-column guide passes them.

    Expected values and errors were measured with TF 2.15's
    `tf.compat.v1.keras.layers.DenseFeatures` on /work/ref215 (Keras 2 made each
    Python value a tensor and packed the lists; mixed ints and floats failed to pack).
    """
    fc = tf.feature_column
    kind = fc.categorical_column_with_identity("type", num_buckets=3)
    size = fc.categorical_column_with_vocabulary_list("size", ["small", "medium", "large"])

    def call(columns, features):
        return DenseFeatures(columns)(features).numpy().tolist()

    assert call([fc.indicator_column(kind)], {"type": [0, 1, 2]}) == np.eye(3).tolist()
    embedding = fc.embedding_column(kind, 2, initializer=tf.compat.v1.ones_initializer())
    assert call([embedding], {"type": [0, 2]}) == [[1.0, 1.0], [1.0, 1.0]]
    assert call([fc.indicator_column(size)], {"size": ["small", "large", "huge"]}) == [
        [1.0, 0.0, 0.0],
        [0.0, 0.0, 1.0],
        [0.0, 0.0, 0.0],
    ]
    nested = {"size": [["small", "medium"], ["large", "large"]]}
    assert call([fc.indicator_column(size)], nested) == [[1.0, 1.0, 0.0], [0.0, 0.0, 2.0]]
    assert call([fc.numeric_column("x")], {"x": [1, 2]}) == [[1.0], [2.0]]
    assert call([fc.numeric_column("y", shape=2)], {"y": ([1.0, 2.0],)}) == [[1.0, 2.0]]
    with pytest.raises(tf.errors.InvalidArgumentError, match="Pack"):
        call([fc.numeric_column("x")], {"x": [1.5, 2]})
    with pytest.raises(ValueError, match="non-rectangular"):
        call([fc.indicator_column(size)], {"size": [["small"], ["large", "large"]]})
    with pytest.raises(ValueError, match="cannot have rank 0"):
        call([fc.numeric_column("x")], {"x": 1.0})
