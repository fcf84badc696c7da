"""warm_start_from initializes a new model_dir from another model's variables."""

import os
import shutil

import numpy as np
import pytest
import tensorflow as tf
from helpers import classifier_model_fn
from helpers import dataset_input_fn

import tfestimator_compat as est


@pytest.fixture
def source_dir(tmp_path):
    model_dir = str(tmp_path / "source")
    est.Estimator(classifier_model_fn, model_dir=model_dir, params={}).train(
        dataset_input_fn(repeat=True), steps=5
    )
    return model_dir


def evaluate_with(tmp_path, warm_start_from, model_fn=classifier_model_fn):
    params = {} if model_fn is classifier_model_fn else None
    estimator = est.Estimator(
        model_fn, model_dir=str(tmp_path / "target"), params=params, warm_start_from=warm_start_from
    )
    estimator.evaluate(dataset_input_fn(), steps=1)
    return estimator


def kernel_of(estimator, name="dense/kernel"):
    return estimator._model_state.store.get(name).numpy()


def test_from_a_checkpoint_directory(tmp_path, source_dir):
    estimator = evaluate_with(tmp_path, source_dir)
    np.testing.assert_array_equal(
        kernel_of(estimator), tf.train.load_variable(source_dir, "dense/kernel")
    )


def test_from_a_checkpoint_path_and_then_training_owns_model_dir(tmp_path, source_dir):
    path = tf.train.latest_checkpoint(source_dir)
    estimator = est.Estimator(
        classifier_model_fn, model_dir=str(tmp_path / "target"), params={}, warm_start_from=path
    )
    estimator.train(dataset_input_fn(repeat=True), steps=1)
    assert estimator.get_variable_value("global_step") == 1
    # The first checkpoint of the new model_dir holds the warm-started values.
    first = os.path.join(estimator.model_dir, "model.ckpt-0")
    np.testing.assert_array_equal(
        tf.train.load_variable(first, "dense/kernel"), tf.train.load_variable(path, "dense/kernel")
    )


def test_from_a_saved_model_directory(tmp_path, source_dir):
    saved_model = tmp_path / "saved_model"
    os.makedirs(saved_model / "variables")
    prefix = tf.train.latest_checkpoint(source_dir)
    for suffix in (".index", ".data-00000-of-00001"):
        shutil.copy(prefix + suffix, saved_model / "variables" / ("variables" + suffix))
    estimator = evaluate_with(tmp_path, str(saved_model))
    np.testing.assert_array_equal(
        kernel_of(estimator), tf.train.load_variable(prefix, "dense/kernel")
    )


def test_regex_selects_trainable_variables_only(tmp_path, source_dir):
    settings = est.WarmStartSettings(source_dir, vars_to_warm_start="dense_1/.*")
    estimator = evaluate_with(tmp_path, settings)
    np.testing.assert_array_equal(
        kernel_of(estimator, "dense_1/kernel"), tf.train.load_variable(source_dir, "dense_1/kernel")
    )
    assert not np.array_equal(
        kernel_of(estimator), tf.train.load_variable(source_dir, "dense/kernel")
    )


def test_previous_names_map_renamed_variables(tmp_path, source_dir):
    def renamed_model_fn(features, labels, mode):
        hidden = tf.keras.layers.Dense(8, activation="relu", name="hidden")(features["x"])
        logits = tf.keras.layers.Dense(2)(hidden)
        loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
        return est.EstimatorSpec(mode, loss=loss)

    settings = est.WarmStartSettings(
        source_dir,
        vars_to_warm_start=["hidden/kernel"],
        var_name_to_prev_var_name={"hidden/kernel": "dense/kernel"},
    )
    estimator = evaluate_with(tmp_path, settings, renamed_model_fn)
    np.testing.assert_array_equal(
        kernel_of(estimator, "hidden/kernel"), tf.train.load_variable(source_dir, "dense/kernel")
    )


def test_vocab_remapping(tmp_path):
    old_vocab, new_vocab = tmp_path / "old.txt", tmp_path / "new.txt"
    old_vocab.write_text("a\nb\nc\n")
    new_vocab.write_text("c\na\nz\n")
    source = tmp_path / "vocab_source"

    def model_fn(features, labels, mode):
        table = tf.compat.v1.get_variable(
            "embedding",
            [3, 2],
            initializer=tf.compat.v1.constant_initializer([[1, 1], [2, 2], [3, 3]]),
        )
        loss = tf.reduce_sum(table) + 0.0 * tf.reduce_sum(features["x"])
        return est.EstimatorSpec(
            mode,
            loss=loss,
            train_op=tf.compat.v1.assign_add(tf.compat.v1.train.get_global_step(), 1),
        )

    est.Estimator(model_fn, model_dir=str(source)).train(dataset_input_fn(), steps=1)
    info = est.VocabInfo(
        new_vocab=str(new_vocab),
        new_vocab_size=3,
        num_oov_buckets=0,
        old_vocab=str(old_vocab),
        backup_initializer=tf.compat.v1.zeros_initializer(),
    )
    settings = est.WarmStartSettings(
        str(source), vars_to_warm_start=None, var_name_to_vocab_info={"embedding": info}
    )
    estimator = evaluate_with(tmp_path, settings, model_fn)
    np.testing.assert_array_equal(kernel_of(estimator, "embedding"), [[3, 3], [1, 1], [0, 0]])


def test_bad_settings():
    with pytest.raises(ValueError, match="`ckpt_to_initialize_from` MUST be set"):
        est.WarmStartSettings("")
    with pytest.raises(ValueError, match="warm_start_from must be a string or a WarmStartSettings"):
        est.Estimator(classifier_model_fn, params={}, warm_start_from=3)


def test_missing_tensor_names_it(tmp_path, source_dir):
    settings = est.WarmStartSettings(
        source_dir,
        vars_to_warm_start=["dense/kernel"],
        var_name_to_prev_var_name={"dense/kernel": "nope"},
    )
    with pytest.raises(ValueError, match="tensor 'nope' is not in checkpoint"):
        evaluate_with(tmp_path, settings)


def test_from_a_saved_model_exported_here(tmp_path, source_dir):
    source = est.Estimator(classifier_model_fn, model_dir=source_dir, params={})
    receiver = est.export.build_raw_serving_input_receiver_fn({"x": tf.zeros([1, 3])})
    export_dir = source.export_saved_model(str(tmp_path / "exports"), receiver).decode()
    estimator = evaluate_with(tmp_path, export_dir)
    np.testing.assert_array_equal(
        kernel_of(estimator, "dense_1/kernel"), tf.train.load_variable(source_dir, "dense_1/kernel")
    )


def test_init_from_checkpoint_in_the_model_fn_runs_only_without_a_checkpoint(tmp_path):
    pretrained = {
        "bert/w": tf.Variable(np.full([3, 1], 7.0, np.float32)),
        "bert/b": tf.Variable(np.full([1], 2.0, np.float32)),
    }
    source = tf.compat.v1.train.Saver(var_list=pretrained).save(None, str(tmp_path / "pre.ckpt"))

    def model_fn(features, labels, mode):
        with tf.compat.v1.variable_scope("encoder"):
            w = tf.compat.v1.get_variable("w", [3, 1])
            b = tf.compat.v1.get_variable("b", [1])
        tf.compat.v1.train.init_from_checkpoint(source, {"bert/": "encoder/"})
        loss = tf.reduce_mean(tf.matmul(features["x"], w) + b)
        train_op = tf.compat.v1.train.GradientDescentOptimizer(0.5).minimize(
            loss, global_step=tf.compat.v1.train.get_global_step()
        )
        return est.EstimatorSpec(mode, loss=loss, train_op=train_op)

    model_dir = str(tmp_path / "fine_tuned")
    estimator = est.Estimator(model_fn, model_dir=model_dir)
    estimator.train(dataset_input_fn(repeat=True), steps=1)
    first = tf.train.load_variable(os.path.join(model_dir, "model.ckpt-0"), "encoder/w")
    np.testing.assert_array_equal(first, np.full([3, 1], 7.0))
    trained = estimator.get_variable_value("encoder/w")
    assert not np.allclose(trained, 7.0), "training moved away from the pre-trained values"
    estimator.train(dataset_input_fn(repeat=True), steps=1)
    assert not np.allclose(
        tf.train.load_variable(os.path.join(model_dir, "model.ckpt-1"), "encoder/w"), 7.0
    ), "with a checkpoint of its own, the model_dir's values win"
