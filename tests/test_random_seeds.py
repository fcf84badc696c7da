"""RunConfig.tf_random_seed seeds that Estimator's graphs, as in the original."""

import random

import numpy as np
import pytest
import tensorflow as tf

import tfestimator_compat as est

# Initial values the original (tensorflow-estimator 2.15) gave the model_fn
# below with tf_random_seed=42, and without a seed for the two variables with
# an explicit op seed (graph seed then TensorFlow's default).
ORIGINAL_SEEDED = {
    "a": [-0.4527415633201599, -0.3004075288772583, -0.07882861793041229],
    "b": [-0.4527415633201599, -0.3004075288772583, -0.07882861793041229],
    "c": [-0.3010156750679016, 0.5185916423797607, -0.1569397747516632],
    "d": [-1.49994695186615, -1.2420494556427002, 0.5228314399719238],
}
ORIGINAL_UNSEEDED_OP_SEED_7 = [-0.046945683658123016, -1.2039023637771606, 1.1668351888656616]


def model_fn(features, labels, mode):
    def variable(name, seed=None):
        initializer = tf.compat.v1.random_normal_initializer(seed=seed)
        return tf.compat.v1.get_variable(name, [3], initializer=initializer)

    total = variable("a", seed=7) + variable("b", seed=7) + variable("c") + variable("d")
    loss = tf.reduce_sum(total) * features["x"][0, 0]
    train_op = tf.compat.v1.train.GradientDescentOptimizer(0.0).minimize(
        loss, tf.compat.v1.train.get_global_step()
    )
    return est.EstimatorSpec(mode, loss=loss, train_op=train_op)


def initial_values(model_dir, seed):
    config = est.RunConfig(model_dir=model_dir, tf_random_seed=seed)
    estimator = est.Estimator(model_fn, config=config)
    estimator.train(lambda: tf.data.Dataset.from_tensors(({"x": [[1.0]]}, [0])), steps=1)
    return {name: estimator.get_variable_value(name) for name in "abcd"}


def test_seeded_initial_values_are_the_originals(tmp_path):
    values = initial_values(str(tmp_path), 42)
    for name, expected in ORIGINAL_SEEDED.items():
        np.testing.assert_allclose(values[name], expected, rtol=1e-6, err_msg=name)


def test_same_explicit_op_seed_gives_the_same_values_without_a_graph_seed(tmp_path):
    values = initial_values(str(tmp_path), None)
    np.testing.assert_allclose(values["a"], ORIGINAL_UNSEEDED_OP_SEED_7, rtol=1e-6)
    np.testing.assert_array_equal(values["a"], values["b"])
    assert not np.array_equal(values["c"], values["d"])


@pytest.mark.parametrize("seed", [42, None])
def test_process_wide_seeds_are_left_alone(tmp_path, seed):
    def draws():
        return random.random(), np.random.rand(), float(tf.random.uniform([]))

    random.seed(5)
    np.random.seed(5)
    tf.random.set_seed(5)
    expected = draws()
    random.seed(5)
    np.random.seed(5)
    tf.random.set_seed(5)
    initial_values(str(tmp_path), seed)
    assert draws() == expected


def test_a_seed_does_not_reach_a_later_estimator(tmp_path):
    initial_values(str(tmp_path / "seeded"), 42)
    first = initial_values(str(tmp_path / "unseeded_1"), None)
    second = initial_values(str(tmp_path / "unseeded_2"), None)
    assert not np.array_equal(first["c"], second["c"])
    assert not np.allclose(first["c"], ORIGINAL_SEEDED["c"])
