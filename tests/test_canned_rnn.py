"""RNNClassifier and RNNEstimator behave as the original's.

`fixtures/canned_rnn/` was written by tensorflow-estimator 2.15
(`fixtures/canned_rnn/make_fixture.py`): an LSTM, a stacked GRU, a
`SimpleRNN` predicting at every step, an `rnn_cell_fn` model and a GRU
(`reset_after=False`) classifying every step. These
tests evaluate, predict, train on and export from them, and check the
arguments the original refused.
"""

import keras
import numpy as np
import pytest
import tensorflow as tf
from helpers import assert_metrics_match
from helpers import assert_variables_match
from helpers import copy_of_fixture
from helpers import fixture_expected
from helpers import fixture_generator

import tfestimator_compat as est
from tfestimator_compat import experimental
from tfestimator_compat.head.sequential_head import SequentialHeadWrapper

fixture = fixture_generator("canned_rnn")
EXPECTED = fixture_expected("canned_rnn")


def _original(tmp_path, model):
    model_dir = copy_of_fixture("canned_rnn", model, tmp_path)
    return fixture.make_estimator(tf.estimator, model, model_dir, SequentialHeadWrapper)


def _close(got, expected, name):
    if expected and isinstance(np.ravel(expected)[0], str):
        assert got == expected, name
    else:
        np.testing.assert_allclose(
            np.array(got, float), np.array(expected, float), atol=1e-4, err_msg=name
        )


@pytest.mark.parametrize("model", fixture.MODELS)
def test_evaluate_and_predict_reproduce_the_original(tmp_path, model):
    original = _original(tmp_path, model)
    metrics = original.evaluate(fixture.eval_input_fn(model))
    assert_metrics_match(metrics, EXPECTED[model]["evaluate"])
    predictions = list(original.predict(fixture.eval_input_fn(model)))[:5]
    expected = EXPECTED[model]["predict_first5"]
    assert sorted(predictions[0]) == sorted(expected)
    for key, values in expected.items():
        _close([fixture.jsonable(p[key]) for p in predictions], values, key)


# Each resumed model traces its training graph (a while loop and its gradient) anew, for
# seconds: an LSTM (Adagrad, clipped) and a SimpleRNN over every step (RMSProp) resume in
# the fast tests, the models whose maths evaluation and prediction already compare with the
# slow ones.
FAST_RESUMED = ("lstm_classifier", "simple_rnn_sequences")
RESUMED = [
    model if model in FAST_RESUMED else pytest.param(model, marks=pytest.mark.slow)
    for model in fixture.MODELS
]


@pytest.mark.parametrize("model", RESUMED)
def test_training_resumes_with_the_originals_numbers(tmp_path, model):
    original = _original(tmp_path, model)
    original.train(fixture.train_input_fn(model), steps=fixture.RESUME_STEPS)
    assert_variables_match(original, EXPECTED[model]["resumed"])
    assert original.get_variable_value("global_step") == fixture.TRAIN_STEPS + fixture.RESUME_STEPS


def test_predictions_at_every_step_of_batches_of_other_lengths(tmp_path):
    """Batches of 4 are 5, 4, 5, ... steps long: each yields its own rows, as in the original."""
    original = _original(tmp_path, "simple_rnn_sequences")
    input_fn = fixture.input_fn("simple_rnn_sequences", fixture.EVAL_SIZE, 1, 4)
    predictions = list(original.predict(input_fn))
    assert len(predictions) == fixture.EVAL_SIZE
    assert [len(p["mask"]) for p in predictions[:8]] == [5] * 4 + [4] * 4
    expected = EXPECTED["simple_rnn_sequences"]["predict_first5"]
    for got, mask, values in zip(predictions, expected["mask"], expected["predictions"]):
        steps = sum(mask)
        assert got["mask"][:steps].all() and not got["mask"][steps:].any()
        np.testing.assert_allclose(got["predictions"][:steps], values[:steps], atol=1e-4)


def test_export_serves_as_the_original(tmp_path):
    original = _original(tmp_path, "lstm_classifier")
    export_dir = original.export_saved_model(
        str(tmp_path / "export"), fixture.serving_input_receiver_fn(tf.estimator)
    )
    served = fixture.served(export_dir.decode())
    expected = EXPECTED["lstm_classifier"]["served"]
    assert sorted(served) == sorted(expected)
    for key, signature in expected.items():
        assert served[key]["inputs"] == signature["inputs"], key
        assert sorted(served[key]["outputs"]) == sorted(signature["outputs"]), key
        for output, value in signature["outputs"].items():
            _close(served[key]["outputs"][output], value, f"{key}/{output}")


def _sum_sign_data(n, seed):
    """Sequences of 1 to 6 numbers; the label says whether they add up to more than zero."""
    rng = np.random.RandomState(seed)
    lengths = rng.randint(1, 7, n)
    values = rng.normal(size=(n, 6)).astype(np.float32)
    values[np.arange(6)[None, :] >= lengths[:, None]] = 0.0
    return values, (values.sum(1) > 0).astype(np.int64)


def _sum_sign_input_fn(n, seed, batch, repeat=False):
    values, labels = _sum_sign_data(n, seed)

    def fn():
        dataset = tf.data.Dataset.from_tensor_slices(({"x": values}, labels))
        dataset = dataset.repeat() if repeat else dataset
        return dataset.batch(batch).map(lambda f, y: ({"x": tf.sparse.from_dense(f["x"])}, y))

    return fn


@pytest.mark.parametrize("cell_type", ["lstm", pytest.param("gru", marks=pytest.mark.slow)])
def test_training_from_scratch_learns_a_sequence_task(model_dir, cell_type):
    classifier = experimental.RNNClassifier(
        [tf.feature_column.sequence_numeric_column("x")],
        units=[8],
        cell_type=cell_type,
        optimizer=keras.optimizers.Adam(0.05),
        model_dir=model_dir,
        config=est.RunConfig(tf_random_seed=1),
    )
    classifier.train(_sum_sign_input_fn(256, 0, 32, repeat=True), steps=150)
    metrics = classifier.evaluate(_sum_sign_input_fn(200, 1, 200))
    assert metrics["accuracy"] > 0.85
    assert metrics["global_step"] == 150


def _graph_variables(**kwargs):
    """Name -> shape of the variables the model_fn makes in a TF1 graph, as the original's did."""
    x = [tf.feature_column.sequence_numeric_column("x")]
    classifier = experimental.RNNClassifier(x, **kwargs)
    with tf.Graph().as_default():
        features = {
            "x": tf.sparse.from_dense(tf.constant([[1.0, 2.0], [3.0, 0.0]])),
            "c": tf.constant([[1], [3]], tf.int64),
        }
        classifier.model_fn(features, None, est.ModeKeys.PREDICT, classifier.config)
        return {
            v.name[: -len(":0")]: v.shape.as_list()
            for v in tf.compat.v1.global_variables()
            if not v.name.startswith("rnn_model/logits")
        }


def test_variables_of_each_cell_layout():
    """Names as the original's Keras 2 layers gave them, for `units` and `cell_type`."""
    assert _graph_variables(units=4, cell_type="lstm") == {
        "rnn_model/lstm/lstm_cell/kernel": [1, 16],
        "rnn_model/lstm/lstm_cell/recurrent_kernel": [4, 16],
        "rnn_model/lstm/lstm_cell/bias": [16],
    }
    assert _graph_variables(units=4, cell_type="gru") == {
        "rnn_model/gru/gru_cell/kernel": [1, 12],
        "rnn_model/gru/gru_cell/recurrent_kernel": [4, 12],
        "rnn_model/gru/gru_cell/bias": [2, 12],
    }
    assert _graph_variables(units=[3]) == {
        "rnn_model/rnn/simple_rnn_cell/kernel": [1, 3],
        "rnn_model/rnn/simple_rnn_cell/recurrent_kernel": [3, 3],
        "rnn_model/rnn/simple_rnn_cell/bias": [3],
    }
    city = tf.feature_column.categorical_column_with_identity("c", 4)
    context = [tf.feature_column.embedding_column(city, 2)]
    assert _graph_variables(units=[3], cell_type="gru", context_feature_columns=context) == {
        "dense_features/c_embedding/embedding_weights": [4, 2],
        "rnn_model/rnn/gru_cell/kernel": [3, 9],
        "rnn_model/rnn/gru_cell/recurrent_kernel": [3, 9],
        "rnn_model/rnn/gru_cell/bias": [2, 9],
    }
    assert _graph_variables(units=[3, 2], cell_type="lstm") == {
        "rnn_model/rnn/stacked_rnn_cells/lstm_cell/kernel": [1, 12],
        "rnn_model/rnn/stacked_rnn_cells/lstm_cell/recurrent_kernel": [3, 12],
        "rnn_model/rnn/stacked_rnn_cells/lstm_cell/bias": [12],
        "rnn_model/rnn/stacked_rnn_cells/lstm_cell_1/kernel": [3, 8],
        "rnn_model/rnn/stacked_rnn_cells/lstm_cell_1/recurrent_kernel": [2, 8],
        "rnn_model/rnn/stacked_rnn_cells/lstm_cell_1/bias": [8],
    }


def test_rnn_cell_fn_keras_cells_train_under_the_original_names(model_dir):
    """A list of Keras 3 cells is stacked as Keras 2 stacked it; their settings are kept."""
    classifier = experimental.RNNClassifier(
        [tf.feature_column.sequence_numeric_column("x")],
        rnn_cell_fn=lambda: [
            keras.layers.LSTMCell(3, dropout=0.2),
            keras.layers.GRUCell(2, reset_after=False, recurrent_dropout=0.3, name="mine"),
        ],
        model_dir=model_dir,
    )
    classifier.train(_sum_sign_input_fn(8, 0, 8), steps=1)
    shapes = {
        name: shape
        for name, shape in tf.train.list_variables(model_dir)
        if name.startswith("rnn_model/rnn/")
    }
    assert shapes == {
        "rnn_model/rnn/stacked_rnn_cells/lstm_cell/kernel": [1, 12],
        "rnn_model/rnn/stacked_rnn_cells/lstm_cell/recurrent_kernel": [3, 12],
        "rnn_model/rnn/stacked_rnn_cells/lstm_cell/bias": [12],
        "rnn_model/rnn/stacked_rnn_cells/mine/kernel": [3, 6],
        "rnn_model/rnn/stacked_rnn_cells/mine/recurrent_kernel": [2, 6],
        "rnn_model/rnn/stacked_rnn_cells/mine/bias": [6],
    }
    bias = classifier.get_variable_value("rnn_model/rnn/stacked_rnn_cells/lstm_cell/bias")
    np.testing.assert_allclose(bias[3:6], 1.0, atol=0.1)  # unit_forget_bias, then one step


def test_arguments_the_original_refused(model_dir):
    x = [tf.feature_column.sequence_numeric_column("x")]
    input_fn = _sum_sign_input_fn(8, 0, 8)
    with pytest.raises(ValueError, match="units and cell_type must not be specified"):
        experimental.RNNClassifier(x, units=[2], rnn_cell_fn=lambda: keras.layers.LSTMCell(2))
    with pytest.raises(ValueError, match="must be a `_SequentialHead`"):
        experimental.RNNEstimator(est.RegressionHead(), x, units=[2], return_sequences=True)
    with pytest.raises(TypeError):  # an int needs a cell type name
        experimental.RNNClassifier(x, units=4, model_dir=model_dir).train(input_fn, steps=1)
    with pytest.raises(ValueError, match="Supported strings are"):
        experimental.RNNClassifier(x, units=[2], cell_type="lstm2", model_dir=model_dir).train(
            input_fn, steps=1
        )
    not_sequential = [tf.feature_column.numeric_column("x")]
    with pytest.raises(ValueError, match="SequenceDenseColumn"):
        experimental.RNNClassifier(not_sequential, units=[2], model_dir=model_dir).train(
            input_fn, steps=1
        )


def test_cells_it_cannot_run_are_refused_naming_the_guide(model_dir):
    x = [tf.feature_column.sequence_numeric_column("x")]
    input_fn = _sum_sign_input_fn(8, 0, 8)

    class Custom(keras.layers.LSTMCell):
        pass

    for cell_fn in (
        lambda: Custom(2),
        lambda: keras.layers.LSTMCell(2, kernel_constraint=keras.constraints.NonNeg()),
    ):
        classifier = experimental.RNNClassifier(x, rnn_cell_fn=cell_fn, model_dir=model_dir)
        with pytest.raises(ValueError, match="replacements.md#rnn-estimators"):
            classifier.train(input_fn, steps=1)


def test_the_original_module_paths_lead_here():
    from tensorflow.python.estimator.canned.rnn import RNNClassifier
    from tensorflow_estimator.python.estimator.head.sequential_head import (
        SequentialHeadWrapper as Wrapper,
    )

    assert RNNClassifier is tf.estimator.experimental.RNNClassifier
    assert Wrapper is SequentialHeadWrapper
    assert tf.estimator.experimental.RNNEstimator is experimental.RNNEstimator
    assert not hasattr(tf.compat.v1.estimator.experimental, "RNNClassifier")  # V2 only, as in 2.15
