"""tf.compat.v1.layers on Keras 3: TF1's names, defaults, collections and numbers.

Expected names, shapes and values were measured with TensorFlow 2.15 and its
own tf.compat.v1.layers; `fixtures/tf215_tf1_layers` is a model_dir it wrote.
"""

import json
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest
import tensorflow as tf
from helpers import LEGACY_KERAS_MODE
from helpers import dataset_input_fn
from helpers import module_from_file

import tfestimator_compat as est
from tfestimator_compat.legacy import layers_v1

UPDATE_OPS = tf.compat.v1.GraphKeys.UPDATE_OPS
FIXTURE = os.path.join(os.path.dirname(__file__), "fixtures", "tf215_tf1_layers")


@pytest.fixture(autouse=True)
def installed():
    return layers_v1.install()


def pattern(shape, scale):
    """Deterministic values -3..3 (times `scale`), the same in the TF 2.15 script."""
    n = int(np.prod(shape))
    return (((np.arange(n) % 7) - 3) * scale).reshape(shape).astype(np.float32)


def init(shape, scale=0.1):
    return tf.compat.v1.constant_initializer(pattern(shape, scale))


def run(graph, fetches):
    """Initializes the graph's variables and runs `fetches` once."""
    with tf.compat.v1.Session(graph=graph) as session:
        session.run(tf.compat.v1.global_variables_initializer())
        return session.run(fetches)


def shapes(graph):
    return {v.op.name: v.shape.as_list() for v in graph.get_collection("variables")}


# Names and shapes TF 2.15 gave the graph built in `test_variable_names_in_a_graph`.
TF215_GRAPH_VARIABLES = {
    "conv2d/kernel": [3, 3, 3, 4],
    "conv2d/bias": [4],
    "c/kernel": [3, 3, 4, 4],
    "c/bias": [4],
    "separable_conv2d/depthwise_kernel": [1, 1, 4, 1],
    "separable_conv2d/pointwise_kernel": [1, 1, 4, 5],
    "separable_conv2d/bias": [5],
    "batch_normalization/gamma": [5],
    "batch_normalization/beta": [5],
    "batch_normalization/moving_mean": [5],
    "batch_normalization/moving_variance": [5],
    "dense/kernel": [20, 3],
    "dense/bias": [3],
    "dense_1/kernel": [3, 3],
    "dense_1/bias": [3],
    "outer/dense/kernel": [3, 2],
    "outer/dense/bias": [2],
    "outer/foo/kernel": [3, 2],
    "outer/foo/bias": [2],
    "outer/foo_1/kernel": [3, 2],
    "outer/foo_1/bias": [2],
    "dense_2/kernel": [3, 2],
    "dense_2/bias": [2],
    "au/dense/kernel": [3, 2],
    "au/dense/bias": [2],
    "au/dense_1/kernel": [3, 2],
    "au/dense_1/bias": [2],
    "conv1d/kernel": [3, 3, 4],
    "conv1d/bias": [4],
    "separable_conv1d/depthwise_kernel": [3, 4, 2],
    "separable_conv1d/pointwise_kernel": [1, 8, 4],
    "separable_conv1d/bias": [4],
    "conv3d/kernel": [3, 3, 3, 3, 4],
    "conv3d/bias": [4],
    "conv3d_transpose/kernel": [3, 3, 3, 2, 4],
    "conv3d_transpose/bias": [2],
    "conv2d_transpose/kernel": [3, 3, 2, 3],
    "conv2d_transpose/bias": [2],
}


def test_variable_names_in_a_graph():
    layers = tf.compat.v1.layers
    graph = tf.Graph()
    with graph.as_default():
        x = tf.compat.v1.placeholder(tf.float32, [None, 8, 8, 3])
        h = layers.conv2d(x, 4, 3)
        h = layers.conv2d(h, 4, 3, name="c")
        h = layers.max_pooling2d(h, 2, 2)
        h = layers.separable_conv2d(h, 5, 1)
        h = layers.batch_normalization(h, training=True)
        d = layers.dense(layers.flatten(h), 3)
        d = layers.dense(d, 3)
        with tf.compat.v1.variable_scope("outer"):
            layers.dense(d, 2)
            layers.Dense(2, name="foo")(d)
            layers.Dense(2, name="foo")(d)  # class form: uniquified, not an error
        shared = layers.Dense(2)
        shared(d)
        shared(d)
        with tf.compat.v1.variable_scope("au", reuse=tf.compat.v1.AUTO_REUSE):
            layers.dense(d, 2)
            layers.dense(d, 2)
        y = layers.conv1d(tf.zeros([2, 10, 3]), 4, 3)
        layers.separable_conv1d(y, 4, 3, depth_multiplier=2)
        y = layers.conv3d(tf.zeros([2, 6, 6, 6, 3]), 4, 3)
        assert layers.conv3d_transpose(y, 2, 3, strides=2).shape == (2, 9, 9, 9, 2)
        transposed = layers.conv2d_transpose(
            tf.zeros([2, 5, 5, 3]), 2, 3, strides=2, padding="SAME"
        )
        assert transposed.shape == (2, 10, 10, 2)

    assert shapes(graph) == TF215_GRAPH_VARIABLES
    assert list(shapes(graph)) == list(TF215_GRAPH_VARIABLES)  # creation order too
    trainable = {v.op.name for v in graph.get_collection("trainable_variables")}
    assert trainable == {n for n in TF215_GRAPH_VARIABLES if "moving" not in n}
    assert [op.name for op in graph.get_collection(UPDATE_OPS)] == [
        "batch_normalization/AssignMovingAvg/AssignSubVariableOp",
        "batch_normalization/AssignMovingAvg_1/AssignSubVariableOp",
    ]
    assert shared.scope_name == "dense_2"
    assert [v.op.name for v in shared.trainable_weights] == ["dense_2/kernel", "dense_2/bias"]


def test_reuse_shares_variables_and_repeating_a_name_is_an_error():
    layers = tf.compat.v1.layers
    graph = tf.Graph()
    with graph.as_default():
        x = tf.ones([2, 3])
        first = layers.dense(x, 2, name="shared")
        second = layers.dense(x, 2, name="shared", reuse=True)
        with pytest.raises(ValueError, match="shared/kernel already exists"):
            layers.dense(x, 2, name="shared")
        with tf.compat.v1.variable_scope("tower"):
            layers.conv1d(tf.ones([2, 4, 3]), 2, 2)
        with tf.compat.v1.variable_scope("tower", reuse=True):
            layers.conv1d(tf.ones([2, 4, 3]), 2, 2)
        layers.dense(x, 2, reuse=True, name="shared")
        with pytest.raises(ValueError, match="does not exist"):
            layers.dense(x, 2, name="missing", reuse=True)

    assert set(shapes(graph)) == {
        "shared/kernel",
        "shared/bias",
        "tower/conv1d/kernel",
        "tower/conv1d/bias",
    }
    a, b = run(graph, [first, second])
    np.testing.assert_array_equal(a, b)


def test_float64_inputs_make_float64_variables():
    graph = tf.Graph()
    with graph.as_default():
        tf.compat.v1.layers.dense(tf.ones([2, 3], tf.float64), 2)
        tf.compat.v1.layers.batch_normalization(tf.ones([2, 3, 3, 2], tf.float16), training=True)
    dtypes = {v.op.name: v.dtype.base_dtype for v in graph.get_collection("variables")}
    assert dtypes["dense/kernel"] == tf.float64
    assert dtypes["batch_normalization/moving_mean"] == tf.float32


def test_regularizers_reach_get_regularization_loss():
    graph = tf.Graph()
    with graph.as_default():
        x = tf.ones([4, 3])
        tf.compat.v1.layers.dense(
            x,
            2,
            kernel_initializer=tf.compat.v1.constant_initializer(0.5),
            kernel_regularizer=tf.reduce_sum,
            bias_regularizer=lambda b: tf.reduce_sum(b) + 1.0,
            activity_regularizer=tf.reduce_sum,
        )
        # A reused variable is not regularized a second time.
        tf.compat.v1.layers.dense(x, 2, name="dense", reuse=True, kernel_regularizer=tf.reduce_sum)
        tf.compat.v1.layers.conv2d(
            tf.ones([1, 3, 3, 1]),
            1,
            1,
            kernel_initializer=tf.compat.v1.constant_initializer(2.0),
            kernel_regularizer=tf.keras.regularizers.l2(0.25),
        )
        losses = tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.REGULARIZATION_LOSSES)
        total = tf.compat.v1.losses.get_regularization_loss()

    assert [loss.op.name for loss in losses] == [
        "dense/kernel/Regularizer/Sum",
        "dense/bias/Regularizer/add",
        "dense/ActivityRegularizer/truediv",
        "conv2d/kernel/Regularizer/mul",
    ]
    # TF 2.15: kernel 6 * 0.5, bias 0 + 1, activity sum(1.5 * 8) / batch 4; l2 0.25 * 2**2.
    values, value = run(graph, [losses, total])
    np.testing.assert_allclose(values, [3.0, 1.0, 3.0, 1.0], rtol=1e-6)
    assert value == pytest.approx(8.0)


def test_constraints_apply_after_optimizer_updates():
    graph = tf.Graph()
    with graph.as_default():
        out = tf.compat.v1.layers.dense(
            tf.ones([2, 3]), 1, kernel_constraint=lambda w: tf.clip_by_value(w, -0.1, 0.1)
        )
        step = tf.compat.v1.train.GradientDescentOptimizer(10.0).minimize(tf.reduce_sum(out))
        (kernel,) = [v for v in graph.get_collection("variables") if v.op.name == "dense/kernel"]
        with tf.compat.v1.Session() as session:
            session.run(tf.compat.v1.global_variables_initializer())
            session.run(step)
            np.testing.assert_allclose(session.run(kernel), -0.1)


# Outputs and moving statistics of TF 2.15's tf.compat.v1.layers for these inputs.
TF215_OUTPUTS = {
    "dense": (
        [4, 2],
        [-0.099668, -0.197375, -0.50052, -0.197375, -0.761594, -0.716298, -0.379949, -0.197375],
    ),
    "conv2d": (
        [2, 2, 2, 2],
        [-0.45, -0.7, -0.05, -0.55, -1.35, -0.95, 0.1, -0.45]
        + [-1.4, 0.3, -1.35, -0.95, -0.2, -0.65, -0.85, 0.2],
    ),
    "conv2d_transpose": (
        [2, 4, 4, 1],
        [0.65, 0.15, 0.15, 0.05, -0.35, -0.15, -0.05, -0.15, -0.15, -0.15, 0.4, 0.1]
        + [-0.15, 0.9, -0.2, -0.15, -0.35, -0.05, -0.15, -0.15, 0.25, -0.15, -0.15, 0.9]
        + [-0.1, 0.0, -0.6, -0.1, 0.1, -0.15, 0.4, -0.15],
    ),
    "separable_conv2d": ([2, 2, 2, 1], [-0.345, 0.15, 0.09, 0.06, 0.33, 0.09, 0.24, -0.525]),
    "bn_fused": (
        [2, 3, 3, 2],
        [2.877905, 0.826094, -0.040698, -1.166009, -2.959302, -3.158111, -5.877905, 1.822145]
        + [1.418603, -0.169957, -1.5, -2.16206, -4.418603, -4.154162, 2.877905, 0.826094]
        + [-0.040698, -1.166009, -2.959302, -3.158111, -5.877905, 1.822145, 1.418603]
        + [-0.169957, -1.5, -2.16206, -4.418603, -4.154162, 2.877905, 0.826094, -0.040698]
        + [-1.166009, -2.959302, -3.158111, -5.877905, 1.822145],
    ),
    "bn_dense": (
        [4, 3],
        [-1.269629, -0.63195, -0.63195, 0.115421, 1.2639, 1.2639, 1.500471, -1.263901]
        + [-1.2639, -0.346262, 0.63195, 0.63195],
    ),
}
TF215_MOVING = {
    # 4D inputs use the fused kernel: its moving variance takes the unbiased variance.
    "batch_normalization/moving_mean": [0.0, -0.041667],
    "batch_normalization/moving_variance": [1.058824, 1.033088],
    "batch_normalization_1/moving_mean": [-0.0625, -0.25, 0.0],
    "batch_normalization_1/moving_variance": [1.085938, 0.8125, 0.8125],
}


def test_outputs_match_tf215():
    layers = tf.compat.v1.layers
    graph = tf.Graph()
    with graph.as_default():
        x2 = tf.constant(pattern([4, 3], 0.5))
        x4 = tf.constant(pattern([2, 3, 3, 2], 0.5))
        outputs = {
            "dense": layers.dense(
                x2, 2, tf.nn.tanh, kernel_initializer=init([3, 2]), bias_initializer=init([2], 0.2)
            ),
            "conv2d": layers.conv2d(
                x4, 2, 2, kernel_initializer=init([2, 2, 2, 2]), bias_initializer=init([2], 0.2)
            ),
            "conv2d_transpose": layers.conv2d_transpose(
                x4[:, :2, :2], 1, 2, strides=2, kernel_initializer=init([2, 2, 1, 2])
            ),
            "separable_conv2d": layers.separable_conv2d(
                x4,
                1,
                2,
                depthwise_initializer=init([2, 2, 2, 1]),
                pointwise_initializer=init([1, 1, 2, 1], 0.3),
            ),
            "bn_fused": layers.batch_normalization(
                x4,
                training=True,
                momentum=0.5,
                gamma_initializer=init([2], 1.0),
                beta_initializer=init([2], 0.5),
            ),
            "bn_dense": layers.batch_normalization(x2, training=True, momentum=0.5),
        }
        moving = {v.op.name: v for v in graph.get_collection("variables") if "moving" in v.name}
        with tf.compat.v1.Session() as session:
            session.run(tf.compat.v1.global_variables_initializer())
            values = session.run(outputs)
            session.run(tf.compat.v1.get_collection(UPDATE_OPS))
            moving_values = session.run(moving)

    for name, (shape, expected) in TF215_OUTPUTS.items():
        assert list(values[name].shape) == shape, name
        np.testing.assert_allclose(values[name].ravel(), expected, atol=2e-6, err_msg=name)
    for name, expected in TF215_MOVING.items():
        np.testing.assert_allclose(moving_values[name], expected, atol=2e-6, err_msg=name)


@pytest.mark.parametrize("shape", [[6, 4], [2, 3, 3, 4]], ids=["plain", "fused"])
def test_batch_norm_statistics_move_only_through_update_ops(shape):
    graph = tf.Graph()
    with graph.as_default():
        x = tf.constant(pattern(shape, 0.7) + 1.0)
        training = tf.compat.v1.placeholder_with_default(True, [])
        out = tf.compat.v1.layers.batch_normalization(x, training=training, momentum=0.0)
        inference = tf.compat.v1.layers.batch_normalization(
            x, name="batch_normalization", reuse=True
        )
        updates = tf.compat.v1.get_collection(UPDATE_OPS)
        mean, variance = [v for v in graph.get_collection("variables") if "moving" in v.name]
        assert len(updates) == 2
        with tf.compat.v1.Session() as session:
            session.run(tf.compat.v1.global_variables_initializer())
            session.run(out)
            np.testing.assert_array_equal(session.run([mean, variance]), [[0] * 4, [1] * 4])
            session.run(updates, {training: False})
            np.testing.assert_array_equal(session.run([mean, variance]), [[0] * 4, [1] * 4])
            session.run(updates)
            moving_mean, moving_variance = session.run([mean, variance])
            inferred = session.run(inference)

    values = pattern(shape, 0.7).reshape(-1, 4) + 1.0
    np.testing.assert_allclose(moving_mean, values.mean(0), rtol=1e-5)
    ddof = 1 if len(shape) == 4 else 0  # the fused kernel's variance is unbiased
    np.testing.assert_allclose(moving_variance, values.var(0, ddof=ddof), rtol=1e-5)
    expected = (values - moving_mean) / np.sqrt(moving_variance + 1e-3)
    np.testing.assert_allclose(inferred.reshape(-1, 4), expected, atol=1e-5)


def test_dropout_applies_only_when_training():
    graph = tf.Graph()
    with graph.as_default():
        x = tf.ones([200, 10])
        flag = tf.compat.v1.placeholder_with_default(False, [])
        outputs = [
            tf.compat.v1.layers.dropout(x),
            tf.compat.v1.layers.dropout(x, rate=0.5, training=True, seed=1),
            tf.compat.v1.layers.dropout(x, rate=0.5, training=flag, seed=1),
            tf.compat.v1.layers.dropout(x, 0.5, noise_shape=[None, 1], training=True, seed=2),
        ]
    default, trained, off, rows = run(graph, outputs)
    np.testing.assert_array_equal(default, 1.0)
    np.testing.assert_array_equal(off, 1.0)
    assert set(np.unique(trained)) == {0.0, 2.0}
    assert 0.3 < np.mean(trained == 0) < 0.7
    assert all(len(set(row)) == 1 for row in rows)  # one draw per row
    with tf.compat.v1.Session(graph=graph) as session:
        assert set(np.unique(session.run(outputs[2], {flag: True}))) == {0.0, 2.0}


IMAGE, SEQUENCE, VOLUME = [2, 5, 5, 2], [2, 5, 2], [2, 3, 3, 3, 2]
CHANNELS_CASES = {
    "conv2d": (
        IMAGE,
        lambda layers, x, fmt: layers.conv2d(
            x, 3, 2, 2, "same", data_format=fmt, kernel_initializer=init([2, 2, 2, 3])
        ),
    ),
    "separable_conv2d": (
        IMAGE,
        lambda layers, x, fmt: layers.separable_conv2d(
            x,
            2,
            2,
            data_format=fmt,
            depthwise_initializer=init([2, 2, 2, 1]),
            pointwise_initializer=init([1, 1, 2, 2]),
        ),
    ),
    "conv2d_transpose": (
        IMAGE,
        lambda layers, x, fmt: layers.conv2d_transpose(
            x, 2, 3, 2, data_format=fmt, kernel_initializer=init([3, 3, 2, 2])
        ),
    ),
    "max_pooling2d": (
        IMAGE,
        lambda layers, x, fmt: layers.max_pooling2d(x, 2, 2, data_format=fmt),
    ),
    "average_pooling2d": (
        IMAGE,
        lambda layers, x, fmt: layers.average_pooling2d(x, 3, 1, "same", data_format=fmt),
    ),
    "batch_normalization": (
        IMAGE,
        lambda layers, x, fmt: layers.batch_normalization(
            x, axis=1 if fmt == "channels_first" else -1, training=True
        ),
    ),
    "conv1d": (
        SEQUENCE,
        lambda layers, x, fmt: layers.conv1d(
            x, 2, 2, padding="causal", data_format=fmt, kernel_initializer=init([2, 2, 2])
        ),
    ),
    "separable_conv1d": (
        SEQUENCE,
        lambda layers, x, fmt: layers.separable_conv1d(
            x,
            2,
            2,
            data_format=fmt,
            depthwise_initializer=init([2, 2, 1]),
            pointwise_initializer=init([1, 2, 2]),
        ),
    ),
    "max_pooling1d": (
        SEQUENCE,
        lambda layers, x, fmt: layers.max_pooling1d(x, 2, 1, data_format=fmt),
    ),
    "conv3d_transpose": (
        VOLUME,
        lambda layers, x, fmt: layers.conv3d_transpose(
            x, 1, 2, 2, data_format=fmt, kernel_initializer=init([2, 2, 2, 1, 2])
        ),
    ),
    "average_pooling3d": (
        VOLUME,
        lambda layers, x, fmt: layers.average_pooling3d(x, 2, 1, data_format=fmt),
    ),
}


@pytest.mark.parametrize("case", CHANNELS_CASES)
def test_channels_first_equals_channels_last_transposed(case):
    shape, build = CHANNELS_CASES[case]
    inputs = pattern(shape, 0.3)
    graph = tf.Graph()
    with graph.as_default():
        last = build(tf.compat.v1.layers, tf.constant(inputs), "channels_last")
        first = build(
            tf.compat.v1.layers, tf.constant(np.moveaxis(inputs, -1, 1)), "channels_first"
        )
    last, first = run(graph, [last, first])
    np.testing.assert_allclose(np.moveaxis(first, 1, -1), last, atol=1e-5)


def test_flatten_and_one_dimensional_layers():
    layers = tf.compat.v1.layers
    graph = tf.Graph()
    with graph.as_default():
        x = tf.compat.v1.placeholder(tf.float32, [None, 3, 4])
        causal = layers.conv1d(x, 2, 3, padding="causal", kernel_initializer=init([3, 4, 2]))
        flat = layers.flatten(x)
        flat_first = layers.flatten(x, data_format="channels_first")
        pooled = layers.average_pooling1d(x, 2, 1)
    assert causal.shape.as_list() == [None, 3, 2]
    assert flat.shape.as_list() == [None, 12]
    values = pattern([2, 3, 4], 1.0)
    with tf.compat.v1.Session(graph=graph) as session:
        session.run(tf.compat.v1.global_variables_initializer())
        out = session.run([causal, flat, flat_first, pooled], {x: values})
    kernel = pattern([3, 4, 2], 0.1)
    np.testing.assert_allclose(out[0][:, 0], values[:, 0] @ kernel[2], atol=1e-6)  # sees t=0 only
    np.testing.assert_array_equal(out[1], values.reshape(2, 12))
    np.testing.assert_array_equal(out[2], values.transpose(0, 2, 1).reshape(2, 12))
    np.testing.assert_allclose(out[3], (values[:, 1:] + values[:, :-1]) / 2)


def test_invalid_arguments_are_reported():
    layers = layers_v1
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="expected ndim=4"):
            layers.conv2d(tf.ones([2, 5, 3]), 2, 3)
        with pytest.raises(ValueError, match="padding"):
            layers.conv2d(tf.ones([2, 5, 5, 3]), 2, 3, padding="full")
        with pytest.raises(NotImplementedError, match="renorm"):
            layers.batch_normalization(tf.ones([2, 3]), renorm=True)


def test_layer_subclass_gets_a_scope_and_weights():
    class Scale(tf.compat.v1.layers.Layer):
        def build(self, input_shape):
            self.w = self.add_weight("w", [input_shape[-1]], initializer=tf.ones_initializer())

        def call(self, inputs):
            return inputs * self.w

    graph = tf.Graph()
    with graph.as_default():
        layer = Scale()
        out = layer(tf.fill([2, 3], 2.0))
        Scale()(out)
    assert list(shapes(graph)) == ["scale/w", "scale_1/w"]
    assert len(layer.trainable_variables) == 1 and layer.trainable_variables[0] is layer.w
    np.testing.assert_array_equal(run(graph, out), 2.0)


def test_a_layer_object_is_not_shared_between_graphs():
    layer = layers_v1.Dense(2)
    with tf.Graph().as_default():
        layer(tf.ones([1, 3]))
    with tf.Graph().as_default(), pytest.raises(ValueError, match="another graph"):
        layer(tf.ones([1, 3]))


def test_eager_layer_objects_keep_their_variables():
    layer = tf.compat.v1.layers.Dense(2, kernel_regularizer="l2")
    x = tf.ones([1, 3])
    np.testing.assert_array_equal(layer(x), layer(x))
    assert len(layer.variables) == 2
    assert len(layer.losses) == 1


@pytest.mark.skipif(
    LEGACY_KERAS_MODE, reason="tf_keras's tf.compat.v1.layers works there and is kept"
)
def test_install_replaces_the_lazy_loader_everywhere(installed):
    import tensorflow.compat.v1 as tf1
    import tensorflow.compat.v1.layers as imported

    assert installed is layers_v1.install()  # idempotent
    assert tf.compat.v1.layers is installed
    assert tf1.layers is installed
    assert imported is installed
    assert tf1.layers.dense is layers_v1.dense
    assert tf1.layers.BatchNormalization is layers_v1.BatchNormalization
    assert set(installed.__all__) == set(layers_v1.__all__)
    assert tf1.get_variable is tf.compat.v1.get_variable  # the rest is untouched


def test_install_in_a_fresh_process():
    program = """
import tensorflow as tf
v1_before = tf.compat.v1
import tensorflow.compat.v1 as tf1
from tfestimator_compat.legacy import layers_v1
layers_v1.install()
with tf.Graph().as_default():
    tf1.layers.dense(tf.ones([1, 2]), 3)
    v1_before.layers.conv2d(tf.ones([1, 3, 3, 1]), 1, 1)
    print(sorted(v.op.name for v in tf1.global_variables()))
"""
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    result = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, env=env, timeout=120
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert "['conv2d/bias', 'conv2d/kernel', 'dense/bias', 'dense/kernel']" in result.stdout


def test_a_tf1_mode_program_trains_with_reference_variables():
    """After `disable_v2_behavior()`, `get_variable` makes reference variables."""
    program = """
import numpy as np
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()
import tfestimator_compat
x = tf.placeholder(tf.float32, [None, 4, 4, 1])
net = tf.layers.conv2d(x, 2, 2, kernel_regularizer=tf.keras.regularizers.l2(0.1))
net = tf.layers.batch_normalization(net, training=True)
max_norm = tf.keras.constraints.MaxNorm(0.5)
net = tf.layers.dense(tf.layers.flatten(net), 1, kernel_constraint=max_norm)
loss = tf.reduce_mean(net) + tf.losses.get_regularization_loss()
with tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS)):
    train_op = tf.train.AdamOptimizer().minimize(loss)
(mean,) = [v for v in tf.global_variables() if v.op.name == "batch_normalization/moving_mean"]
with tf.Session() as session:
    session.run(tf.global_variables_initializer())
    session.run(train_op, {x: np.ones([2, 4, 4, 1])})
    print(type(mean).__name__, bool(np.any(session.run(mean) != 0)))
"""
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    result = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, env=env, timeout=120
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.split()[-2:] == ["RefVariable", "True"]


# Checkpoint keys TF 2.15's Estimator wrote for `every_layer_model_fn`.
TF215_ESTIMATOR_VARIABLES = {
    "batch_normalization/beta": [2],
    "batch_normalization/gamma": [2],
    "batch_normalization/moving_mean": [2],
    "batch_normalization/moving_variance": [2],
    "conv2d/bias": [2],
    "conv2d/kernel": [3, 3, 1, 2],
    "conv2d_transpose/bias": [2],
    "conv2d_transpose/kernel": [2, 2, 2, 2],
    "conv3d/bias": [2],
    "conv3d/kernel": [2, 2, 2, 1, 2],
    "conv3d_transpose/bias": [1],
    "conv3d_transpose/kernel": [2, 2, 2, 1, 2],
    "dense/bias": [4],
    "dense/kernel": [50, 4],
    "global_step": [],
    "head/dense/bias": [2],
    "head/dense/kernel": [4, 2],
    "separable_conv1d/bias": [2],
    "separable_conv1d/depthwise_kernel": [2, 3, 1],
    "separable_conv1d/pointwise_kernel": [1, 3, 2],
    "separable_conv2d/bias": [2],
    "separable_conv2d/depthwise_kernel": [2, 2, 2, 2],
    "separable_conv2d/pointwise_kernel": [1, 1, 4, 2],
    "seq/bias": [3],
    "seq/kernel": [2, 6, 3],
}


def every_layer_model_fn(features, labels, mode):
    layers = tf.compat.v1.layers
    training = mode == est.ModeKeys.TRAIN
    flat = tf.tile(features["x"], [1, 12])
    image = layers.conv2d(tf.reshape(flat, [-1, 6, 6, 1]), 2, 3, padding="same")
    image = layers.separable_conv2d(image, 2, 2, depth_multiplier=2)
    image = layers.conv2d_transpose(image, 2, 2, strides=2)
    image = layers.batch_normalization(layers.max_pooling2d(image, 2, 2), training=training)
    image = layers.average_pooling2d(image, 2, 2)
    sequence = layers.conv1d(tf.reshape(flat, [-1, 6, 6]), 3, 2, name="seq")
    sequence = layers.separable_conv1d(sequence, 2, 2)
    sequence = layers.max_pooling1d(sequence, 2, 1)
    volume = layers.conv3d(tf.reshape(flat, [-1, 3, 3, 4, 1]), 2, 2)
    volume = layers.conv3d_transpose(volume, 1, 2)
    net = tf.concat([layers.flatten(t) for t in (image, sequence, volume)], 1)
    net = layers.dropout(layers.dense(net, 4, activation=tf.nn.relu), 0.5, training=training)
    with tf.compat.v1.variable_scope("head"):
        logits = layers.dense(net, 2)
    loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
    with tf.control_dependencies(tf.compat.v1.get_collection(UPDATE_OPS)):
        train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(
            loss, global_step=tf.compat.v1.train.get_global_step()
        )
    return est.EstimatorSpec(mode, loss=loss, train_op=train_op)


def test_estimator_checkpoint_has_tf1_names(model_dir):
    estimator = est.Estimator(every_layer_model_fn, model_dir=model_dir)
    estimator.train(dataset_input_fn(repeat=True), steps=2)
    assert dict(tf.train.list_variables(model_dir)) == TF215_ESTIMATOR_VARIABLES
    # The moving averages moved through UPDATE_OPS, run with the train op.
    assert np.any(estimator.get_variable_value("batch_normalization/moving_mean") != 0)
    assert estimator.evaluate(dataset_input_fn(), steps=1)["global_step"] == 2


def test_keras_layers_next_to_tf1_layers_keep_tf215_names(model_dir):
    def model_fn(features, labels, mode):
        net = tf.keras.layers.Dense(4)(features["x"])
        net = tf.compat.v1.layers.dense(net, 4)
        net = tf.keras.layers.Dense(4)(net)
        logits = tf.compat.v1.layers.dense(net, 2)
        loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
        train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(
            loss, global_step=tf.compat.v1.train.get_global_step()
        )
        return est.EstimatorSpec(mode, loss=loss, train_op=train_op)

    est.Estimator(model_fn, model_dir=model_dir).train(dataset_input_fn(repeat=True), steps=1)
    # What TF 2.15 wrote: TF1 layers count in Keras's layer-name counter.
    assert dict(tf.train.list_variables(model_dir)) == {
        "dense/kernel": [3, 4],
        "dense/bias": [4],
        "dense/kernel_1": [4, 4],
        "dense/bias_1": [4],
        "dense_2/kernel": [4, 4],
        "dense_2/bias": [4],
        "dense_1/kernel": [4, 2],
        "dense_1/bias": [2],
        "global_step": [],
    }


@pytest.fixture
def fixture_module():
    return module_from_file(os.path.join(FIXTURE, "make_fixture.py"), "make_fixture")


@pytest.fixture
def fixture_estimator(tmp_path, fixture_module):
    model_dir = str(tmp_path / "fixture")
    shutil.copytree(os.path.join(FIXTURE, "model_dir"), model_dir)
    config = est.RunConfig(model_dir=model_dir, tf_random_seed=fixture_module.SEED)
    return est.Estimator(fixture_module.model_fn, config=config, params=fixture_module.PARAMS)


def test_checkpoint_written_by_tf215_evaluates_predicts_and_resumes(
    fixture_estimator, fixture_module
):
    with open(os.path.join(FIXTURE, "expected.json")) as f:
        expected = json.load(f)
    m = fixture_module
    metrics = fixture_estimator.evaluate(m.input_fn(*m.eval_data(), 32, False))
    for key, value in expected["evaluate"].items():
        assert metrics[key] == pytest.approx(value, abs=1e-5), key
    predictions = list(fixture_estimator.predict(m.input_fn(*m.eval_data(), 32, False)))[:5]
    np.testing.assert_allclose(
        [p["probabilities"] for p in predictions],
        expected["predict_first5"]["probabilities"],
        atol=1e-5,
    )

    fixture_estimator.train(m.input_fn(*m.train_data(), 32, True), steps=3)
    assert fixture_estimator.latest_checkpoint().endswith("model.ckpt-53")
    saved = dict(tf.train.list_variables(fixture_estimator.model_dir))
    assert saved == expected["variables"]
    moving_mean = fixture_estimator.get_variable_value("batch_normalization/moving_mean")
    assert not np.allclose(moving_mean, expected["moving_mean"])
