"""`tf.compat.v1.layers.experimental`: Keras-style TF1 layers make the original's variables.

`fixtures/keras_style/` recorded, with TF 2.15, the variables, layer names
and refusals of `build` in a TF1 graph; the same `build` runs here in a graph
and inside an Estimator's model_fn.
"""

import json
import os
import subprocess
import sys

import numpy as np
import tensorflow as tf
from helpers import fixture_generator

import tfestimator_compat as est
from tfestimator_compat.legacy.layers_v1 import keras_style

fixture = fixture_generator("keras_style")
with open(os.path.join(os.path.dirname(__file__), "fixtures", "keras_style", "expected.json")) as f:
    EXPECTED = json.load(f)


def test_the_switches_are_at_the_originals_path():
    experimental = tf.compat.v1.layers.experimental
    assert experimental.keras_style_scope is keras_style.keras_style_scope
    assert experimental.set_keras_style is keras_style.set_keras_style
    import tensorflow.compat.v1.layers.experimental as imported  # noqa: PLC0415

    assert imported is experimental


def test_a_graph_gets_the_originals_variables_names_and_refusals():
    graph = tf.Graph()
    with graph.as_default():
        _, names, refused = fixture.build(tf.compat.v1.placeholder(tf.float32, [None, 3]))
        variables = sorted(v.name for v in tf.compat.v1.global_variables())
        trainable = sorted(v.name for v in tf.compat.v1.trainable_variables())
    assert variables == EXPECTED["variables"]
    assert trainable == EXPECTED["trainable"]
    assert names == EXPECTED["layer_names"]
    assert refused == EXPECTED["refused"]
    assert not keras_style.in_keras_style()  # the scope ended


def test_a_model_fn_checkpoints_the_originals_names(model_dir):
    def model_fn(features, labels, mode):
        outputs, _, _ = fixture.build(features["x"])
        loss = tf.reduce_mean(tf.square(outputs))
        step = tf.compat.v1.train.get_global_step()
        train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(loss, step)
        return est.EstimatorSpec(mode, loss=loss, train_op=train_op)

    x = np.ones((4, 3), np.float32)
    estimator = est.Estimator(model_fn, model_dir=model_dir)
    estimator.train(lambda: tf.data.Dataset.from_tensors({"x": x}).repeat(), steps=1)
    names = sorted(estimator.get_variable_names())
    assert names == sorted([v[: -len(":0")] for v in EXPECTED["variables"]] + ["global_step"])


def test_set_keras_style_holds_for_the_rest_of_the_program():
    program = (
        "import tfestimator_compat, tensorflow as tf\n"
        "tf.compat.v1.layers.experimental.set_keras_style()\n"
        "try:\n"
        "    tf.compat.v1.layers.Dense(2, _reuse=True)\n"
        "except ValueError as error:\n"
        "    print('refused', 'reuse' in str(error))\n"
    )
    env = dict(os.environ, PYTHONPATH=os.getcwd(), TF_CPP_MIN_LOG_LEVEL="3")
    result = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, env=env, timeout=120
    )
    assert "refused True" in result.stdout, result.stderr[-2000:]
