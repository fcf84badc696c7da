"""TF1 constructs inside a model_fn behave as in TF1 graph mode, with TF1 names."""

import numpy as np
import pytest
import tensorflow as tf
from helpers import dataset_input_fn

import tfestimator_compat as est


def train_names(model_fn, model_dir, steps=2, **kwargs):
    estimator = est.Estimator(model_fn, model_dir=model_dir, **kwargs)
    estimator.train(dataset_input_fn(repeat=True), steps=steps)
    return estimator, dict(tf.train.list_variables(model_dir))


def test_keras_layers_get_tf1_names_and_optimizer_slots(model_dir):
    def model_fn(features, labels, mode):
        x = tf.keras.layers.Dense(4, name="named")(features["x"])
        x = tf.keras.layers.Dense(4)(x)
        x = tf.keras.layers.Dense(3)(x)
        with tf.compat.v1.variable_scope("outer"):
            logits = tf.keras.layers.Dense(2)(x)
        loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
        train_op = tf.compat.v1.train.AdamOptimizer(0.01).minimize(
            loss, global_step=tf.compat.v1.train.get_global_step()
        )
        return est.EstimatorSpec(mode, loss=loss, train_op=train_op)

    _, shapes = train_names(model_fn, model_dir)
    for layer in ("named", "dense", "dense_1", "outer/dense_2"):
        for suffix in ("kernel", "bias", "kernel/Adam", "kernel/Adam_1", "bias/Adam"):
            assert f"{layer}/{suffix}" in shapes, sorted(shapes)
    assert {"beta1_power", "beta2_power", "global_step"} <= set(shapes)
    assert shapes["dense_1/kernel"] == [4, 3]
    assert (
        tf.train.load_checkpoint(model_dir).get_variable_to_dtype_map()["global_step"] == tf.int64
    )


def test_get_variable_scopes_and_auto_reuse(model_dir):
    def model_fn(features, labels, mode):
        def tower(x):
            with tf.compat.v1.variable_scope("tower", reuse=tf.compat.v1.AUTO_REUSE):
                w = tf.compat.v1.get_variable(
                    "w", [3, 1], initializer=tf.compat.v1.zeros_initializer()
                )
                return tf.matmul(x, w)

        prediction = tower(features["x"]) + tower(features["x"] * 2.0)
        loss = tf.reduce_mean(tf.square(prediction[:, 0] - tf.cast(labels, tf.float32)))
        train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(
            loss, global_step=tf.compat.v1.train.get_or_create_global_step()
        )
        return est.EstimatorSpec(mode, loss=loss, train_op=train_op)

    estimator, shapes = train_names(model_fn, model_dir)
    assert set(shapes) == {"tower/w", "global_step"}
    assert estimator.get_variable_value("global_step") == 2
    assert np.any(estimator.get_variable_value("tower/w") != 0)


def test_variables_are_shared_across_modes(model_dir):
    def model_fn(features, labels, mode):
        w = tf.compat.v1.get_variable("w", [3, 2])
        logits = tf.matmul(features["x"], w)
        if mode == est.ModeKeys.PREDICT:
            return est.EstimatorSpec(mode, predictions=logits)
        loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
        train_op = tf.compat.v1.train.GradientDescentOptimizer(0.5).minimize(
            loss, global_step=tf.compat.v1.train.get_global_step()
        )
        return est.EstimatorSpec(mode, loss=loss, train_op=train_op)

    estimator, _ = train_names(model_fn, model_dir, steps=3)
    w = estimator.get_variable_value("w")
    features = np.eye(3, dtype=np.float32)
    predictions = list(estimator.predict(lambda: tf.data.Dataset.from_tensors({"x": features})))
    np.testing.assert_allclose(np.stack(predictions), features @ w, rtol=1e-6)


def test_assign_add_train_op_and_tf_group(model_dir):
    def model_fn(features, labels, mode):
        w = tf.compat.v1.get_variable("w", [], initializer=tf.compat.v1.zeros_initializer())
        counter = tf.compat.v1.get_variable(
            "counter", [], initializer=tf.compat.v1.zeros_initializer(), trainable=False
        )
        loss = tf.reduce_mean(features["x"]) * w
        global_step = tf.compat.v1.train.get_global_step()
        train_op = tf.group(counter.assign_add(2.0), global_step.assign_add(1))
        return est.EstimatorSpec(mode, loss=loss, train_op=train_op)

    estimator, _ = train_names(model_fn, model_dir, steps=4)
    assert estimator.get_variable_value("global_step") == 4
    assert estimator.get_variable_value("counter") == 8.0


def test_update_ops_run_when_the_model_fn_depends_on_them(model_dir):
    def model_fn(features, labels, mode):
        moving = tf.compat.v1.get_variable(
            "moving", [], initializer=tf.compat.v1.zeros_initializer(), trainable=False
        )
        w = tf.compat.v1.get_variable("w", [3, 1])
        tf.compat.v1.add_to_collection(tf.compat.v1.GraphKeys.UPDATE_OPS, moving.assign_add(1.0))
        loss = tf.reduce_mean(tf.matmul(features["x"], w))
        with tf.control_dependencies(
            tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.UPDATE_OPS)
        ):
            train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(
                loss, global_step=tf.compat.v1.train.get_global_step()
            )
        return est.EstimatorSpec(mode, loss=loss, train_op=train_op)

    estimator, _ = train_names(model_fn, model_dir, steps=3)
    assert estimator.get_variable_value("moving") == 3.0


def test_regularization_loss_reaches_the_loss(model_dir):
    def model_fn(features, labels, mode):
        w = tf.compat.v1.get_variable(
            "w",
            [3, 1],
            initializer=tf.compat.v1.ones_initializer(),
            regularizer=lambda v: 10.0 * tf.reduce_sum(v),
        )
        data_loss = tf.reduce_mean(tf.matmul(features["x"], w)) * 0.0
        loss = data_loss + tf.compat.v1.losses.get_regularization_loss()
        return est.EstimatorSpec(mode, loss=loss)

    estimator = est.Estimator(model_fn, model_dir=model_dir)
    result = estimator.evaluate(dataset_input_fn(), steps=1)
    assert result["loss"] == pytest.approx(30.0)


def test_keras_metric_objects_in_eval_metric_ops(model_dir):
    def model_fn(features, labels, mode):
        mean = tf.keras.metrics.Mean(name="mean_x")
        mean.update_state(features["x"])
        loss = tf.reduce_mean(features["x"])
        tf.compat.v1.train.get_global_step()
        return est.EstimatorSpec(mode, loss=loss, eval_metric_ops={"mean_x": mean})

    estimator = est.Estimator(model_fn, model_dir=model_dir)
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    input_fn = lambda: tf.data.Dataset.from_tensor_slices(({"x": x}, np.zeros(4))).batch(2)  # noqa: E731
    first = estimator.evaluate(input_fn)
    second = estimator.evaluate(input_fn)
    assert first["mean_x"] == pytest.approx(x.mean())
    assert second["mean_x"] == pytest.approx(x.mean()), "metric state must be fresh per evaluate()"


def test_tf_random_seed_makes_runs_repeat(tmp_path):
    def model_fn(features, labels, mode):
        logits = tf.keras.layers.Dense(2)(
            tf.keras.layers.Dropout(0.5)(features["x"], training=True)
        )
        loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
        train_op = tf.compat.v1.train.AdamOptimizer(0.1).minimize(
            loss, global_step=tf.compat.v1.train.get_global_step()
        )
        return est.EstimatorSpec(mode, loss=loss, train_op=train_op)

    values = []
    for run in range(2):
        config = est.RunConfig(model_dir=str(tmp_path / str(run)), tf_random_seed=3)
        estimator = est.Estimator(model_fn, config=config)
        estimator.train(dataset_input_fn(repeat=True), steps=5)
        values.append(estimator.get_variable_value("dense/kernel"))
    np.testing.assert_array_equal(values[0], values[1])
