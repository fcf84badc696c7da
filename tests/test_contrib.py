"""`tf.contrib` for TF 1.x programs under `run --tf1`: what it provides, and errors for the rest.

The functions are checked in a `tf.Graph` of this process, as TF 1.x graph
code ran them; whole TF1-spelled programs run in a subprocess, since
`run --tf1` turns TF2 behaviour off for good.
"""

import functools
import json
import math
import os
import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import tensorflow as tf
from helpers import check_json
from helpers import fixture_expected

import tfestimator_compat as est
from tfestimator_compat import experimental
from tfestimator_compat import tpu
from tfestimator_compat.legacy import contrib
from tfestimator_compat.legacy.contrib import cluster_resolver
from tfestimator_compat.legacy.contrib import data
from tfestimator_compat.legacy.contrib import layers
from tfestimator_compat.legacy.contrib import learn
from tfestimator_compat.legacy.contrib import lookup
from tfestimator_compat.legacy.contrib import predictor
from tfestimator_compat.legacy.contrib import training
from tfestimator_compat.shim import api_surface

v1 = tf.compat.v1


def run_tf1(tmp_path, source, *args):
    """Runs `source` as a TF 1.x program under `run --tf1`; returns the JSON it prints last."""
    program = tmp_path / "program.py"
    program.write_text(textwrap.dedent(source))
    result = subprocess.run(
        [sys.executable, "-m", "tfestimator_compat", "run", "--tf1", str(program), *map(str, args)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )
    report = f"exit {result.returncode}\nstdout:\n{result.stdout}\nstderr:\n{result.stderr[-4000:]}"
    assert result.returncode == 0, report
    return json.loads(result.stdout.strip().splitlines()[-1])


def graph_run(build):
    """Calls `build()` in a new graph, initializes it as TF1 did, and runs it.

    `build` returns a dict; its tensors come back as values, the rest as they are.
    """
    with tf.Graph().as_default() as graph:
        built = build()
        tensors = {key: value for key, value in built.items() if tf.is_tensor(value)}
        with v1.Session(graph=graph) as session:
            session.run([v1.global_variables_initializer(), v1.tables_initializer()])
            return {**built, **session.run(tensors)}


# --- tf.contrib.layers -----------------------------------------------------------------------


def test_layer_norm_matches_numpy_and_names_its_variables_like_contrib():
    inputs = np.random.RandomState(0).randn(2, 3, 4).astype(np.float32) * 5 + 2

    def build():
        x = tf.constant(inputs)
        with v1.variable_scope("encoder"):
            over_all = layers.layer_norm(x)
            bert_style = layers.layer_norm(x, begin_norm_axis=-1, begin_params_axis=-1)
        return {
            "over_all": over_all,
            "bert_style": bert_style,
            "names": [v.name for v in v1.global_variables()],
            "model": [v.name for v in v1.get_collection(v1.GraphKeys.MODEL_VARIABLES)],
            "shapes": [v.shape.as_list() for v in v1.trainable_variables()],
        }

    result = graph_run(build)
    mean, var = inputs.mean(axis=(1, 2), keepdims=True), inputs.var(axis=(1, 2), keepdims=True)
    expected = (inputs - mean) / np.sqrt(var + 1e-12)
    np.testing.assert_allclose(result["over_all"], expected, atol=1e-5)
    mean, var = inputs.mean(axis=-1, keepdims=True), inputs.var(axis=-1, keepdims=True)
    expected = (inputs - mean) / np.sqrt(var + 1e-12)
    np.testing.assert_allclose(result["bert_style"], expected, atol=1e-5)
    names = [
        "encoder/LayerNorm/beta:0",
        "encoder/LayerNorm/gamma:0",
        "encoder/LayerNorm_1/beta:0",
        "encoder/LayerNorm_1/gamma:0",
    ]
    assert result["names"] == names
    assert sorted(result["model"]) == names
    assert result["shapes"] == [[4]] * 4


def test_layer_norm_options():
    inputs = np.arange(12, dtype=np.float32).reshape(2, 6)

    def build():
        x = tf.constant(inputs)
        plain = layers.layer_norm(
            x, center=False, scale=False, activation_fn=tf.nn.relu, scope="plain"
        )
        shared = layers.layer_norm(
            x,
            scope="shared",
            trainable=False,
            variables_collections={"gamma": ["gammas"]},
            outputs_collections=["outputs"],
        )
        with v1.variable_scope(v1.get_variable_scope(), reuse=True):
            again = layers.layer_norm(x, scope="shared")
        return {
            "plain": plain,
            "variables": [v.name for v in v1.global_variables()],
            "trainable": len(v1.trainable_variables()),
            "gammas": [v.name for v in v1.get_collection("gammas")],
            "outputs": [t.aliases for t in v1.get_collection("outputs")],
            "again": again,
            "shared": shared,
        }

    result = graph_run(build)
    assert result["plain"].min() == 0.0 and result["plain"].max() > 1.0
    assert result["variables"] == ["shared/beta:0", "shared/gamma:0"]
    assert result["trainable"] == 0
    assert result["gammas"] == ["shared/gamma:0"]
    assert result["outputs"] == [["shared"]]
    np.testing.assert_array_equal(result["again"], result["shared"])
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="must be < rank"):
            layers.layer_norm(tf.zeros([2, 3]), begin_norm_axis=2)
        with pytest.raises(ValueError, match="not fully defined"):
            layers.layer_norm(v1.placeholder(tf.float32, [2, None]))


def test_fully_connected_computes_a_dense_layer_with_contrib_names():
    inputs = np.random.RandomState(2).randn(2, 3, 4).astype(np.float32)

    def build():
        x = tf.constant(inputs)
        flat = layers.fully_connected(x[:, 0], 5, weights_regularizer=layers.l2_regularizer(0.1))
        sequence = layers.fully_connected(x, 2, activation_fn=None)
        normalized = layers.fully_connected(x, 3, normalizer_fn=layers.layer_norm)
        variables = {v.op.name: v for v in v1.global_variables()}
        return {
            "flat": flat,
            "sequence": sequence,
            "static_shape": sequence.shape.as_list(),
            "normalized": normalized,
            "names": sorted(variables),
            "model": len(v1.get_collection(v1.GraphKeys.MODEL_VARIABLES)),
            "penalty": tf.add_n(v1.get_collection(v1.GraphKeys.REGULARIZATION_LOSSES)),
            "weights": variables["fully_connected/weights"],
            "biases": variables["fully_connected/biases"],
            "sequence_weights": variables["fully_connected_1/weights"],
        }

    result = graph_run(build)
    assert result["names"] == [
        "fully_connected/biases",
        "fully_connected/weights",
        "fully_connected_1/biases",
        "fully_connected_1/weights",
        "fully_connected_2/LayerNorm/beta",
        "fully_connected_2/LayerNorm/gamma",
        "fully_connected_2/weights",
    ]
    assert result["model"] == 7
    expected = np.maximum(inputs[:, 0] @ result["weights"] + result["biases"], 0.0)
    np.testing.assert_allclose(result["flat"], expected, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(
        result["sequence"], inputs @ result["sequence_weights"], rtol=1e-5, atol=1e-6
    )
    assert result["static_shape"] == [2, 3, 2]
    assert result["normalized"].min() >= 0.0
    assert result["penalty"] == pytest.approx(0.1 * float((result["weights"] ** 2).sum()) / 2)
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="num_outputs must be an int"):
            layers.fully_connected(tf.zeros([2, 3]), 2.0)


def test_xavier_and_variance_scaling_initializers_follow_contrib():
    def build():
        uniform = layers.xavier_initializer(seed=1)([30, 20])
        normal = layers.xavier_initializer(uniform=False, seed=1)([300, 200])
        he = layers.variance_scaling_initializer(seed=2)([3, 3, 16, 32])
        fan_out = layers.variance_scaling_initializer(
            factor=1.0, mode="FAN_OUT", uniform=True, seed=3
        )([50, 8])
        again = layers.xavier_initializer(seed=1)([30, 20])
        return {"uniform": uniform, "normal": normal, "he": he, "fan_out": fan_out, "again": again}

    result = graph_run(build)
    uniform, normal, he, fan_out = (result[k] for k in ("uniform", "normal", "he", "fan_out"))
    limit = math.sqrt(6.0 / 50)
    assert np.abs(uniform).max() <= limit and np.abs(uniform).max() > 0.9 * limit
    np.testing.assert_array_equal(uniform, result["again"])
    normal_stddev = math.sqrt(1.3 / 250)  # contrib's truncation correction
    assert np.abs(normal).max() <= 2 * normal_stddev
    assert normal.std() == pytest.approx(normal_stddev * 0.88, rel=0.05)
    he_stddev = math.sqrt(1.3 * 2.0 / (3 * 3 * 16))  # fan_in counts the receptive field
    assert np.abs(he).max() <= 2 * he_stddev
    assert np.abs(fan_out).max() <= math.sqrt(3.0 / 8)
    assert np.abs(fan_out).max() > math.sqrt(3.0 / 50)
    with pytest.raises(TypeError, match="Unknown mode 'FAN_MAX'"):
        layers.variance_scaling_initializer(mode="FAN_MAX")
    with pytest.raises(TypeError, match="non-floating"):
        layers.xavier_initializer(dtype=tf.int32)


def test_regularizers_compute_contrib_penalties_and_reach_the_collection():
    weights = np.array([[1.0, -2.0], [3.0, 0.5]], np.float32)

    def build():
        variable = v1.get_variable(
            "w",
            initializer=tf.constant(weights),
            regularizer=layers.l2_regularizer(0.1),
        )
        collected = v1.get_collection(v1.GraphKeys.REGULARIZATION_LOSSES)
        applied = layers.apply_regularization(layers.l1_regularizer(0.5), [variable])
        return {
            "collected": tf.add_n(collected[:1]),
            "count": len(v1.get_collection(v1.GraphKeys.REGULARIZATION_LOSSES)),
            "applied": applied,
            "l1_l2": layers.l1_l2_regularizer(0.5, 0.1)(variable),
            "name": layers.l2_regularizer(0.1, scope="penalty")(variable).op.name,
        }

    result = graph_run(build)
    squares, absolutes = float((weights**2).sum()), float(np.abs(weights).sum())
    assert result["collected"] == pytest.approx(0.1 * squares / 2)
    assert result["count"] == 2
    assert result["applied"] == pytest.approx(0.5 * absolutes)
    assert result["l1_l2"] == pytest.approx(0.5 * absolutes + 0.1 * squares / 2)
    assert result["name"] == "penalty"
    assert layers.l2_regularizer(0.0)(tf.ones([2])) is None
    assert layers.sum_regularizer([None]) is None
    with pytest.raises(ValueError, match="float, not the integer 1"):
        layers.l2_regularizer(1)
    with pytest.raises(ValueError, match=">= 0"):
        layers.l1_regularizer(-0.1)


def test_flatten_keeps_the_batch_axis_in_a_flatten_scope():
    def build():
        x = tf.constant(np.arange(24, dtype=np.float32).reshape(2, 3, 4))
        unknown_batch = v1.placeholder(tf.float32, [None, 2, 3])
        collected = layers.flatten(x, outputs_collections="outputs", scope="flat")
        return {
            "flat": layers.flatten(x),
            "vector": layers.flatten(tf.constant([1.0, 2.0])),
            "static": layers.flatten(unknown_batch).shape.as_list(),
            "name": collected.op.name,
            "collected": [t is collected for t in v1.get_collection("outputs")],
        }

    result = graph_run(build)
    np.testing.assert_array_equal(result["flat"], np.arange(24).reshape(2, 12))
    np.testing.assert_array_equal(result["vector"], [[1.0], [2.0]])
    assert result["static"] == [None, 6]
    assert result["name"].startswith("flat/")
    assert result["collected"] == [True]


class _UnnamedLayer:
    """A layer without a `__name__`: `stack` names its scopes `stack_1`, ..."""

    def __call__(self, inputs, units, scope):
        return layers.fully_connected(inputs, units, scope=scope)


def test_stack_names_each_layer_scope_after_the_layer_or_the_scope():
    def build():
        x = tf.ones([2, 3])
        init = v1.constant_initializer(0.5)
        named = layers.stack(
            x, layers.fully_connected, [4, (2,)], scope="fc", weights_initializer=init
        )
        layers.stack(x, layers.fully_connected, [5])
        layers.stack(x, functools.partial(layers.fully_connected, activation_fn=None), [2])
        layers.stack(x, _UnnamedLayer(), [2])
        return {"out": named, "names": [v.op.name for v in v1.global_variables()]}

    result = graph_run(build)
    # relu(1 * 0.5 * 3) = 1.5 per unit, then relu(1.5 * 0.5 * 4) = 3.
    np.testing.assert_allclose(result["out"], np.full([2, 2], 3.0))
    weights = [name for name in result["names"] if name.endswith("weights")]
    assert weights == [
        "fc/fc_1/weights",
        "fc/fc_2/weights",
        "Stack/fully_connected_1/weights",
        "Stack_1/fully_connected_1/weights",
        "Stack_2/stack_1/weights",
    ]
    with pytest.raises(ValueError, match="stack_args need to be a list or tuple"):
        layers.stack(tf.ones([1, 1]), layers.fully_connected, 3)


def _quadratic(build_train_op):
    """Trains `sum((w - [1, 2]) ** 2)` from w = 0 for two steps.

    Returns w, the step, the losses, the other variables' values and the summaries' names.
    """

    def build():
        weights = v1.get_variable("w", initializer=tf.zeros([2]))
        step = v1.train.get_or_create_global_step()
        loss = tf.reduce_sum(tf.square(weights - [1.0, 2.0]))
        train = build_train_op(loss, step)
        return {"train": train, "w": weights, "step": step}

    with tf.Graph().as_default() as graph:
        built = build()
        with v1.Session(graph=graph) as session:
            session.run(v1.global_variables_initializer())
            losses = [session.run(built["train"]) for _ in range(2)]
            values = {v.op.name: session.run(v) for v in v1.global_variables()}
            summaries = [s.op.name for s in v1.get_collection(v1.GraphKeys.SUMMARIES)]
            return values.pop("w"), values.pop("global_step"), losses, values, summaries


@pytest.mark.parametrize(
    "optimizer",
    [
        "SGD",
        v1.train.GradientDescentOptimizer,
        v1.train.GradientDescentOptimizer(0.1),
        lambda rate: v1.train.GradientDescentOptimizer(rate),
    ],
    ids=["name", "class", "instance", "callable"],
)
def test_optimize_loss_takes_each_kind_of_optimizer_and_advances_the_step(optimizer):
    w, step, losses, names, summaries = _quadratic(
        lambda loss, step: layers.optimize_loss(loss, step, 0.1, optimizer)
    )
    # SGD at 0.1 on (w - t)^2: w <- w + 0.2 (t - w), twice from 0.
    np.testing.assert_allclose(w, [0.36, 0.72], rtol=1e-6)
    assert step == 2
    assert losses == pytest.approx([5.0, 3.2])  # the loss before each update
    assert list(names) == ["OptimizeLoss/learning_rate"]
    assert summaries == ["OptimizeLoss/global_norm/gradient_norm", "OptimizeLoss/loss"]


def test_optimize_loss_clips_decays_multiplies_and_summarizes():
    def train(loss, step):
        return layers.optimize_loss(
            loss,
            None,
            0.1,
            "SGD",
            clip_gradients=1.0,
            learning_rate_decay_fn=lambda rate, step: rate * 0.5,
            gradient_multipliers={"w:0": 2.0},
            summaries=["learning_rate", "gradient_norm"],
            name="opt",
        )

    w, step, _, names, summaries = _quadratic(train)
    # Gradient (-2, -4) doubled, clipped to norm 1: (-1, -2) / sqrt(5); rate 0.05.
    first = 0.05 * np.array([1.0, 2.0]) / np.sqrt(5.0)
    gradient = -2.0 * 2.0 * (np.array([1.0, 2.0]) - first)
    second = first - 0.05 * gradient / max(1.0, np.linalg.norm(gradient))
    np.testing.assert_allclose(w, second, rtol=1e-5)
    assert step == 2
    assert "opt/learning_rate" in names
    assert summaries == [
        "opt/learning_rate_1",  # the variable has the name
        "opt/global_norm/gradient_norm",
        "opt/gradient_norm/w_0",
        "opt/global_norm/clipped_gradient_norm",
    ]


def test_optimize_loss_without_increment_runs_update_ops_and_refuses_mistakes():
    def train(loss, step):
        counter = v1.get_variable("counter", initializer=0.0, trainable=False)
        v1.add_to_collection(v1.GraphKeys.UPDATE_OPS, counter.assign_add(1.0))
        return layers.optimize_loss(
            loss,
            step,
            tf.constant(0.1),
            "Adam",
            increment_global_step=False,
            gradient_noise_scale=0.0,
        )

    w, step, _, names, _ = _quadratic(train)
    assert step == 0
    assert "OptimizeLoss/learning_rate" not in names
    assert "OptimizeLoss/w/Adam" in names and "OptimizeLoss/beta1_power" in names
    assert names["counter"] == 2.0  # UPDATE_OPS ran before each step's loss
    np.testing.assert_allclose(w, [0.2, 0.2], atol=1e-3)  # Adam's first steps move by the rate
    with tf.Graph().as_default():
        loss = tf.reduce_sum(tf.square(v1.get_variable("w", initializer=tf.ones([2]))))
        step = v1.train.get_or_create_global_step()
        with pytest.raises(ValueError, match="Optimizer name should be one of"):
            layers.optimize_loss(loss, step, 0.1, "Nadam")
        with pytest.raises(ValueError, match="Learning rate should be 0d Tensor or float"):
            layers.optimize_loss(loss, step, 1, "SGD")
        with pytest.raises(ValueError, match="Summaries should be one of"):
            layers.optimize_loss(loss, step, 0.1, "SGD", summaries=["weights"])
        with pytest.raises(ValueError, match="Learning rate is None"):
            layers.optimize_loss(loss, step, None, "SGD")
        with pytest.raises(ValueError, match="Expected scalar shape"):
            layers.optimize_loss(tf.ones([2]), step, 0.1, "SGD")
        with pytest.raises(ValueError, match="Unknown type"):
            layers.optimize_loss(loss, step, 0.1, "SGD", clip_gradients=1)


# --- tf.contrib.lookup -----------------------------------------------------------------------


def test_index_tables_map_vocabulary_oov_buckets_and_defaults(tmp_path):
    vocabulary = tmp_path / "vocab.txt"
    vocabulary.write_text("emerson\nlake\npalmer\n")
    words = ["lake", "emerson", "tarkus", "palmer"]

    def build():
        mapping = tf.constant(["emerson", "lake", "palmer"])
        keys = tf.constant(words)
        return {
            "default": lookup.index_table_from_tensor(mapping).lookup(keys),
            "chosen_default": lookup.index_table_from_tensor(mapping, default_value=9).lookup(keys),
            "buckets": lookup.index_table_from_tensor(mapping, num_oov_buckets=2).lookup(keys),
            "file": lookup.index_table_from_file(str(vocabulary), num_oov_buckets=1).lookup(keys),
            "file_size": lookup.index_table_from_file(str(vocabulary), vocab_size=2).lookup(keys),
            "strings": lookup.index_to_string_table_from_tensor(mapping).lookup(
                tf.constant([2, 0, 7], tf.int64)
            ),
            "string_to_index": lookup.string_to_index(keys, mapping),
        }

    result = graph_run(build)
    assert result["default"].tolist() == [1, 0, -1, 2]
    assert result["chosen_default"].tolist() == [1, 0, 9, 2]
    buckets = result["buckets"].tolist()
    assert buckets[:2] + buckets[3:] == [1, 0, 2] and buckets[2] in (3, 4)
    assert result["file"].tolist() == [1, 0, 3, 2]
    assert result["file_size"].tolist() == [1, 0, -1, -1]
    assert result["strings"].tolist() == [b"palmer", b"emerson", b"UNK"]
    assert result["string_to_index"].tolist() == [1, 0, -1, 2]


def test_index_table_needs_tables_initializer_as_in_tf1():
    with tf.Graph().as_default() as graph:
        table = lookup.index_table_from_tensor(tf.constant(["a"]))
        ids = table.lookup(tf.constant(["a"]))
        with v1.Session(graph=graph) as session:
            with pytest.raises(tf.errors.FailedPreconditionError):
                session.run(ids)
            session.run(v1.tables_initializer())
            assert session.run(ids).tolist() == [0]


# --- tf.contrib.data -------------------------------------------------------------------------


def test_map_and_batch_and_parallel_interleave_make_the_right_batches():
    batches = tf.data.Dataset.range(10).apply(
        data.map_and_batch(lambda x: x * 10, batch_size=4, drop_remainder=False)
    )
    assert [b.tolist() for b in batches.as_numpy_iterator()] == [
        [0, 10, 20, 30],
        [40, 50, 60, 70],
        [80, 90],
    ]
    dropped = tf.data.Dataset.range(10).apply(
        data.map_and_batch(lambda x: x, batch_size=4, num_parallel_batches=2, drop_remainder=True)
    )
    assert [b.tolist() for b in dropped.as_numpy_iterator()] == [[0, 1, 2, 3], [4, 5, 6, 7]]
    interleaved = tf.data.Dataset.range(1, 4).apply(
        data.parallel_interleave(
            lambda x: tf.data.Dataset.from_tensors(x).repeat(x), cycle_length=2, block_length=1
        )
    )
    assert list(interleaved.as_numpy_iterator()) == [1, 2, 2, 3, 3, 3]
    batched = tf.data.Dataset.range(5).apply(data.batch_and_drop_remainder(2))
    assert [b.tolist() for b in batched.as_numpy_iterator()] == [[0, 1], [2, 3]]


# --- tf.contrib.predictor, learn, estimator, tpu, cluster_resolver ---------------------------


def _train_and_export(tmp_path):
    features = np.random.RandomState(1).rand(16, 3).astype(np.float32)
    labels = (features[:, 0] > 0.5).astype(np.int64)

    def model_fn(features, labels, mode):
        logits = v1.layers.dense(features["x"], 2)
        predictions = {"logits": logits, "class": tf.argmax(logits, 1)}
        if mode == est.ModeKeys.PREDICT:
            return est.EstimatorSpec(mode, predictions=predictions)
        loss = v1.losses.sparse_softmax_cross_entropy(labels, logits)
        step = v1.train.get_global_step()
        train_op = v1.train.GradientDescentOptimizer(0.5).minimize(loss, step)
        return est.EstimatorSpec(mode, loss=loss, train_op=train_op)

    def serving_input_receiver_fn():
        x = v1.placeholder(tf.float32, [None, 3], name="x")
        return est.export.ServingInputReceiver({"x": x}, {"x": x})

    estimator = est.Estimator(model_fn, str(tmp_path / "model"))
    estimator.train(
        lambda: tf.data.Dataset.from_tensor_slices(({"x": features}, labels)).batch(4), steps=4
    )
    predicted = list(
        estimator.predict(lambda: tf.data.Dataset.from_tensor_slices({"x": features}).batch(8))
    )
    export_dir = estimator.export_saved_model(str(tmp_path / "export"), serving_input_receiver_fn)
    return estimator, serving_input_receiver_fn, features, predicted, export_dir


def test_predictor_from_saved_model_gives_what_predict_gave(tmp_path):
    estimator, receiver_fn, features, predicted, export_dir = _train_and_export(tmp_path)
    predict = predictor.from_saved_model(export_dir)
    assert sorted(predict.feed_tensors) == ["x"]
    assert sorted(predict.fetch_tensors) == ["class", "logits"]
    assert isinstance(predict.session, v1.Session) and predict.graph is predict.session.graph
    output = predict({"x": features})
    np.testing.assert_allclose(output["logits"], [p["logits"] for p in predicted], rtol=1e-6)
    assert output["class"].tolist() == [p["class"] for p in predicted]
    with pytest.raises(ValueError, match=r"Unrecognized input keys \['y'\]"):
        predict({"y": features})
    with pytest.raises(ValueError, match=r"Missing input keys \['x'\]"):
        predict({})
    with pytest.raises(TypeError, match="Input 'x' must be float32; got an array of <U1"):
        predict({"x": [["a", "b", "c"]]})
    with pytest.raises(ValueError, match=r"Input 'x' must have shape \[None, 3\]; got \[3\]"):
        predict({"x": features[0]})
    with pytest.raises(ValueError, match="no signature 'nope'.*serving_default"):
        predictor.from_saved_model(export_dir, signature_def_key="nope")
    by_name = predictor.from_saved_model(
        export_dir,
        input_names={"inputs": predict.feed_tensors["x"].name},
        output_names={"scores": predict.fetch_tensors["logits"].name},
    )
    np.testing.assert_allclose(by_name({"inputs": features})["scores"], output["logits"])
    from_estimator = predictor.from_estimator(estimator, receiver_fn)
    np.testing.assert_allclose(from_estimator({"x": features})["logits"], output["logits"])


def test_learn_run_config_is_the_shims_with_learn_arguments(tmp_path):
    config = learn.RunConfig(model_dir=str(tmp_path), save_checkpoints_steps=5, num_cores=2)
    assert isinstance(config, est.RunConfig)
    assert (config.save_checkpoints_steps, config.save_checkpoints_secs) == (5, None)
    assert config.tf_config.intra_op_parallelism_threads == 2
    default = learn.RunConfig()
    assert (default.save_checkpoints_steps, default.save_checkpoints_secs) == (None, 600)
    assert default.master == ""
    assert learn.ModeKeys.INFER == est.ModeKeys.PREDICT
    assert (learn.ModeKeys.TRAIN, learn.ModeKeys.EVAL) == (est.ModeKeys.TRAIN, est.ModeKeys.EVAL)


def test_contrib_estimator_and_tpu_are_the_shims_names():
    estimator = contrib.namespace("estimator")
    assert estimator.add_metrics is est.add_metrics
    assert estimator.stop_if_no_increase_hook is experimental.stop_if_no_increase_hook
    assert estimator.InMemoryEvaluatorHook is experimental.InMemoryEvaluatorHook
    contrib_tpu = contrib.namespace("tpu")
    for name in ("TPUEstimator", "TPUEstimatorSpec", "RunConfig", "TPUConfig"):
        assert getattr(contrib_tpu, name) is getattr(tpu, name)
    assert contrib_tpu.CrossShardOptimizer is tpu.CrossShardOptimizer
    assert contrib_tpu.InputPipelineConfig.PER_HOST_V2 == tpu.InputPipelineConfig.PER_HOST_V2


def test_tpu_cluster_resolver_fails_naming_the_tpu_and_what_to_do():
    with pytest.raises(ValueError, match="asked for TPU 'my-tpu'.*use_tpu=False"):
        cluster_resolver.TPUClusterResolver("my-tpu", zone="us-central1-b", project="p")
    resolver = contrib.namespace("cluster_resolver").SimpleClusterResolver(tf.train.ClusterSpec({}))
    assert resolver.master() == ""


def test_local_tpu_cluster_resolver_is_a_resolver_of_no_cluster(monkeypatch):
    """`""` and `"local"` named no Cloud TPU in TF 1.x; TF 2.15's `"local"` resolver gave
    master `""`, an empty ClusterSpec, job `worker`, task 0 and no TPU cores (measured on
    /work/ref215); None read $TPU_NAME and, without it, raised as here."""
    for name in ("local", "", ["local"]):
        resolver = cluster_resolver.TPUClusterResolver(name, zone="z", project="p")
        assert isinstance(resolver, tf.distribute.cluster_resolver.ClusterResolver)
        assert resolver.master() == resolver.get_master() == ""
        assert resolver.cluster_spec().as_dict() == {}
        assert (resolver.task_type, resolver.task_id) == ("worker", 0)
        assert resolver.num_accelerators() == {"TPU": 0}
    config = tpu.RunConfig(cluster=resolver, model_dir="m")
    assert config.master == ""
    monkeypatch.delenv("TPU_NAME", raising=False)
    monkeypatch.delenv("KUBE_GOOGLE_CLOUD_TPU_ENDPOINTS", raising=False)
    with pytest.raises(ValueError, match="Please provide a TPU Name to connect to"):
        cluster_resolver.TPUClusterResolver()
    monkeypatch.setenv("TPU_NAME", "env-tpu")
    with pytest.raises(ValueError, match="asked for TPU 'env-tpu'"):
        cluster_resolver.TPUClusterResolver()
    with pytest.raises(ValueError, match="asked for TPU 'grpc://10.0.0.1:8470'"):
        cluster_resolver.TPUClusterResolver("grpc://10.0.0.1:8470")


# --- tf.contrib.training ---------------------------------------------------------------------


def test_hparams_hold_typed_values_read_as_attributes():
    hparams = training.HParams(learning_rate=0.1, hidden=[64, 32], model="dnn", dropout=False)
    assert hparams.learning_rate == 0.1 and hparams.hidden == [64, 32]
    assert hparams.values() == {
        "learning_rate": 0.1,
        "hidden": [64, 32],
        "model": "dnn",
        "dropout": False,
    }
    assert "model" in hparams and "nope" not in hparams
    assert hparams.get("model") == "dnn" and hparams.get("nope", 7) == 7
    hparams.add_hparam("steps", 10)
    hparams.set_hparam("learning_rate", 1)  # an int is a float, as in TF 1.x
    assert hparams.learning_rate == 1.0 and isinstance(hparams.learning_rate, float)
    assert hparams.override_from_dict({"hidden": [8]}) is hparams and hparams.hidden == [8]
    hparams.del_hparam("steps")
    hparams.del_hparam("never-there")
    assert "steps" not in hparams and not hasattr(hparams, "steps")
    assert str(hparams) == "learning_rate=1.0,hidden=[8],model=dnn,dropout=False"
    assert repr(hparams).startswith("HParams([('dropout', False), ('hidden', [8])")
    assert json.loads(hparams.to_json()) == hparams.values()
    assert hparams.parse_json('{"model": "cnn"}').model == "cnn"


def test_hparams_parse_overrides_from_a_string_with_type_checks():
    hparams = training.HParams(rate=0.1, layers=[1, 2], name="a", flag=False, steps=3)
    hparams.parse("rate=0.5, layers=[3,4,5],name=b,flag=true,steps=7")
    assert hparams.values() == {
        "rate": 0.5,
        "layers": [3, 4, 5],
        "name": "b",
        "flag": True,
        "steps": 7,
    }
    hparams.parse("flag=0")
    assert hparams.flag is False
    mistakes = {
        "steps=0.5": "Could not parse hparam 'steps' of type 'int' with value '0.5'",
        "layers=[1,x]": "Could not parse hparam 'layers' of type 'int' with value '1,x'",
        "nope=1": "Unknown hyperparameter type for nope",
        "steps=1,steps=2": "Multiple assignments to variable 'steps'",
        "name=[a,b]": "Must not pass a list for single-valued parameter: name",
        "steps=[1]": "Must not pass a list for single-valued parameter: steps",
        "layers=4": "Must pass a list for multi-valued parameter: layers",
        "steps": "Malformed hyperparameter value: steps",
    }
    for text, message in mistakes.items():
        with pytest.raises(ValueError, match=re.escape(message)):
            hparams.parse(text)
    for name, value in (("steps", 0.5), ("name", 3), ("flag", 1), ("rate", "x")):
        with pytest.raises(ValueError, match=f"Could not cast hparam '{name}'"):
            hparams.set_hparam(name, value)
    with pytest.raises(KeyError):
        hparams.set_hparam("nope", 1)
    with pytest.raises(ValueError, match="Hyperparameter name is reserved: values"):
        hparams.add_hparam("values", 1)
    with pytest.raises(ValueError, match="cannot be empty: empty"):
        training.HParams(empty=[])
    with pytest.raises(ValueError, match="Hparam 'steps' of type .* is incompatible with"):
        hparams.get("steps", "a")


# --- tf.contrib.estimator.forward_features ---------------------------------------------------


def _forwarding_model_fn(features, labels, mode):
    weights = v1.get_variable("w", initializer=tf.ones([1, 1]))
    score = tf.matmul(features["x"], weights)
    predictions = {"score": score}
    if mode == est.ModeKeys.PREDICT:
        outputs = {"serving_default": est.export.PredictOutput(predictions)}
        return est.EstimatorSpec(mode, predictions=predictions, export_outputs=outputs)
    loss = tf.reduce_mean(tf.square(score - labels))
    step = v1.train.get_global_step()
    return est.EstimatorSpec(mode, loss=loss, train_op=step.assign_add(1), predictions=predictions)


def test_forward_features_adds_features_to_predictions_and_serving(model_dir, tmp_path):
    features = {"x": np.array([[1.0], [2.0]], np.float32), "id": np.array([7, 9])}

    def input_fn():
        labels = np.array([[1.0], [2.0]], np.float32)
        return tf.data.Dataset.from_tensor_slices((features, labels)).batch(2)

    def predict_input_fn():
        return tf.data.Dataset.from_tensor_slices(features).batch(2)

    estimator = est.Estimator(_forwarding_model_fn, model_dir=model_dir)
    estimator.train(input_fn, steps=1)
    forwarded = contrib.namespace("estimator").forward_features(estimator, "id")
    assert forwarded.model_dir == estimator.model_dir
    predictions = list(forwarded.predict(predict_input_fn))
    assert [(p["id"], float(p["score"][0])) for p in predictions] == [(7, 1.0), (9, 2.0)]
    everything = contrib.namespace("estimator").forward_features(estimator)
    assert sorted(next(everything.predict(predict_input_fn))) == ["id", "score", "x"]

    def serving_input_fn():
        x = v1.placeholder(tf.float32, [None, 1], name="x")
        ids = v1.placeholder(tf.int64, [None], name="id")
        return est.export.ServingInputReceiver({"x": x, "id": ids}, {"x": x, "id": ids})

    export_dir = forwarded.export_saved_model(str(tmp_path / "export"), serving_input_fn)
    serve = tf.saved_model.load(export_dir).signatures["serving_default"]
    served = serve(x=tf.constant([[3.0]]), id=tf.constant([5], tf.int64))
    assert sorted(served) == ["id", "score"] and served["id"].numpy().tolist() == [5]

    with pytest.raises(TypeError, match="keys should be either a string or a list"):
        contrib.namespace("estimator").forward_features(estimator, 3)
    missing = contrib.namespace("estimator").forward_features(estimator, ["nope"])
    with pytest.raises(ValueError, match='Key "nope" is not in features'):
        list(missing.predict(predict_input_fn))
    clash = contrib.namespace("estimator").forward_features(estimator, "score")
    with pytest.raises(ValueError, match=r"Cannot forward feature key \(score\)"):
        list(
            clash.predict(
                lambda: tf.data.Dataset.from_tensor_slices(
                    {"x": features["x"], "score": features["x"]}
                ).batch(2)
            )
        )


def test_names_not_provided_raise_with_their_replacement():
    with pytest.raises(AttributeError, match=r"tf\.contrib\.slim was removed.*keras\.layers"):
        _ = contrib.namespace().slim
    with pytest.raises(AttributeError) as error:
        _ = contrib.namespace("layers").embed_sequence
    message = str(error.value)
    assert "tf.contrib.layers.embed_sequence" in message
    assert "layer_norm" in message and "keras.layers.Embedding" in message
    assert message.endswith("see migration_guide/replacements.md#contrib.")


# --- tfestimator-compat check ----------------------------------------------------------------


def test_check_reports_provided_contrib_names_as_supported_with_run_tf1(capsys, tmp_path):
    program = tmp_path / "prog.py"
    program.write_text(
        "import tensorflow as tf\n"
        "from tensorflow.contrib import lookup\n"
        "tf.contrib.data.map_and_batch(f, 8)\n"
        "tf.contrib.layers.layer_norm(x)\n"
        "tf.contrib.layers.conv2d(x, 3, 3)\n"
        "tf.contrib.tpu.InputPipelineConfig.PER_HOST_V2\n"
        "tf.contrib.slim.conv2d(x, 3)\n"
        "tf.contrib.training.HParams(a=1)\n"
        "lookup.index_table_from_file(path)\n"
    )
    status, report = check_json(capsys, program)
    findings = report["findings"]
    found = [(f["line"], f["name"], f["status"]) for f in findings]
    assert found == [
        (2, "tf.contrib.lookup", "supported-with-run --tf1"),
        (3, "tf.contrib.data.map_and_batch", "supported-with-run --tf1"),
        (4, "tf.contrib.layers.layer_norm", "supported-with-run --tf1"),
        (5, "tf.contrib.layers.conv2d", "not-supported"),
        (6, "tf.contrib.tpu.InputPipelineConfig.PER_HOST_V2", "supported-with-run --tf1"),
        (7, "tf.contrib.slim.conv2d", "not-supported"),
        (8, "tf.contrib.training.HParams", "supported-with-run --tf1"),
        (9, "tf.contrib.lookup.index_table_from_file", "supported-with-run --tf1"),
    ]
    assert findings[2]["replacement"] == (
        "tf.contrib.layers.layer_norm under run --tf1; native: "
        "keras.layers.LayerNormalization(epsilon=1e-12)"
    )
    assert findings[5]["replacement"].startswith("keras.layers")
    assert status == 1


def test_every_provided_contrib_name_is_classified_as_provided():
    for name in contrib.known_names():
        path = f"tf.contrib.{name}" if name else "tf.contrib"
        symbol = api_surface.classify(path)
        expected = "supported-with-run --tf1" if contrib.provides(name) else "not-supported"
        assert symbol.status == expected, path
    assert contrib.provides("layers.layer_norm") and not contrib.provides("layers.conv2d")
    assert contrib.provides("tpu.InputPipelineConfig.PER_HOST_V2")
    compat = api_surface.classify("tf.compat.v1.contrib.layers.layer_norm")
    assert compat.status == "not-supported"
    assert "tf.contrib.layers.layer_norm under run --tf1" in compat.replacement


# --- Whole TF 1.x programs under run --tf1 ---------------------------------------------------


def test_tf1_program_imports_and_uses_contrib(tmp_path):
    (tmp_path / "vocab.txt").write_text("a\nb\n")
    result = run_tf1(
        tmp_path,
        """
        import json
        import numpy as np
        import tensorflow as tf
        import tensorflow.contrib.data
        import tensorflow.contrib.lookup as contrib_lookup
        from tensorflow import contrib
        from tensorflow.contrib import layers
        from tensorflow.contrib.layers import layer_norm

        out = {"same": [contrib is tf.contrib, layers is tf.contrib.layers,
                        layer_norm is tf.contrib.layers.layer_norm,
                        contrib_lookup is tf.contrib.lookup]}
        dataset = tf.data.Dataset.range(6).apply(
            tf.contrib.data.map_and_batch(lambda x: x + 1, 4))
        batch = tf.data.make_one_shot_iterator(dataset).get_next()
        files = tf.data.Dataset.range(2).apply(tf.contrib.data.parallel_interleave(
            lambda x: tf.data.Dataset.from_tensors(x).repeat(2), cycle_length=2))
        interleaved = tf.data.make_one_shot_iterator(files.batch(4)).get_next()
        x = tf.placeholder(tf.float32, [None, 3])
        with tf.variable_scope("bert"):
            normed = layer_norm(x, begin_norm_axis=-1, begin_params_axis=-1)
        table = tf.contrib.lookup.index_table_from_file("vocab.txt", num_oov_buckets=1)
        ids = table.lookup(tf.constant(["b", "a", "z"]))
        step = tf.contrib.framework.get_or_create_global_step()
        out["step_is_global"] = step is tf.train.get_global_step()
        out["variables"] = [v.op.name for v in tf.global_variables()]
        with tf.Session() as session:
            session.run([tf.global_variables_initializer(), tf.tables_initializer()])
            out["batches"] = [session.run(batch).tolist(), session.run(batch).tolist()]
            out["interleaved"] = session.run(interleaved).tolist()
            out["normed"] = session.run(normed, {x: [[1.0, 2.0, 3.0]]}).tolist()
            out["ids"] = session.run(ids).tolist()
        errors = []
        try:
            tf.contrib.layers.embed_sequence
        except AttributeError as error:
            errors.append(str(error))
        try:
            from tensorflow.contrib.layers import conv2d
        except ImportError as error:
            errors.append(error.name + ": " + str(error))
        try:
            import tensorflow.contrib.slim as slim
        except ImportError as error:
            errors.append(error.name + ": " + str(error))
        try:
            tf.contrib.cluster_resolver.TPUClusterResolver("tpu-1", zone="z", project="p")
        except ValueError as error:
            errors.append(str(error))
        out["errors"] = errors
        out["learn"] = tf.contrib.learn.RunConfig(model_dir="m").model_dir
        out["graph_mode"] = not tf.executing_eagerly()
        print(json.dumps(out))
        """,
    )
    assert result["same"] == [True, True, True, True]
    assert result["batches"] == [[1, 2, 3, 4], [5, 6]]
    assert result["interleaved"] == [0, 1, 0, 1]
    np.testing.assert_allclose(result["normed"], [[-1.2247449, 0.0, 1.2247449]], atol=1e-5)
    assert result["ids"] == [1, 0, 2]
    assert result["step_is_global"] is True
    assert result["variables"] == ["bert/LayerNorm/beta", "bert/LayerNorm/gamma", "global_step"]
    embed_sequence, conv2d, slim, resolver = result["errors"]
    assert embed_sequence.startswith("tf.contrib.layers.embed_sequence was removed in")
    assert conv2d.startswith("tensorflow.contrib.layers: tf.contrib.layers.conv2d was removed")
    assert slim.startswith("tensorflow.contrib.slim: tf.contrib.slim was removed")
    assert "TPU 'tpu-1'" in resolver
    assert result["learn"] == "m"
    assert result["graph_mode"] is True


TPU_PROGRAM = """
    import json
    import sys
    import tensorflow as tf

    model_dir, export_base = sys.argv[1:3]
    WORDS = ["a", "b", "c", "zz"]
    flags = {"use_tpu": False, "tpu_name": "my-tpu"}


    def input_fn(params):
        words = tf.constant(WORDS * 8)
        labels = tf.constant([0, 1, 1, 0] * 8, tf.int64)
        dataset = tf.data.Dataset.from_tensor_slices((words, labels)).repeat()
        return dataset.apply(tf.contrib.data.map_and_batch(
            lambda word, label: ({"word": word}, label), params["batch_size"],
            drop_remainder=True))


    def predict_input_fn(params):
        words = tf.data.Dataset.from_tensor_slices({"word": tf.constant(WORDS)})
        return words.batch(params["batch_size"])


    def model_fn(features, labels, mode, params):
        ids = tf.strings.to_hash_bucket_fast(features["word"], 4)
        embeddings = tf.get_variable(
            "embeddings", [4, 8], initializer=tf.contrib.layers.xavier_initializer(seed=3),
            regularizer=tf.contrib.layers.l2_regularizer(1e-3))
        hidden = tf.nn.embedding_lookup(embeddings, ids)
        hidden = tf.contrib.layers.fully_connected(hidden, 8, activation_fn=tf.tanh)
        with tf.variable_scope("encoder"):
            hidden = tf.contrib.layers.layer_norm(
                hidden, begin_norm_axis=-1, begin_params_axis=-1)
        logits = tf.layers.dense(hidden, 2)
        if mode == tf.estimator.ModeKeys.PREDICT:
            return tf.contrib.tpu.TPUEstimatorSpec(
                mode, predictions={"probabilities": tf.nn.softmax(logits)})
        loss = tf.losses.sparse_softmax_cross_entropy(labels, logits)
        loss += tf.losses.get_regularization_loss()
        optimizer = tf.train.AdamOptimizer(0.05)
        train_op = optimizer.minimize(loss, global_step=tf.contrib.framework.get_global_step())
        return tf.contrib.tpu.TPUEstimatorSpec(mode, loss=loss, train_op=train_op)


    def serving_input_fn():
        word = tf.placeholder(tf.string, [None], name="word")
        return tf.estimator.export.ServingInputReceiver({"word": word}, {"word": word})


    resolver = None
    if flags["use_tpu"]:
        resolver = tf.contrib.cluster_resolver.TPUClusterResolver(flags["tpu_name"])
    config = tf.contrib.tpu.RunConfig(
        cluster=resolver, model_dir=model_dir, save_checkpoints_steps=10,
        tpu_config=tf.contrib.tpu.TPUConfig(
            iterations_per_loop=5,
            per_host_input_for_training=tf.contrib.tpu.InputPipelineConfig.PER_HOST_V2))
    estimator = tf.contrib.tpu.TPUEstimator(
        model_fn, config=config, use_tpu=flags["use_tpu"], train_batch_size=8,
        predict_batch_size=4)
    estimator.train(input_fn, max_steps=30)
    predicted = [p["probabilities"].tolist() for p in estimator.predict(predict_input_fn)]
    export_dir = estimator.export_saved_model(export_base, serving_input_fn)
    predict = tf.contrib.predictor.from_saved_model(export_dir)
    print(json.dumps({
        "step": int(tf.train.load_variable(model_dir, "global_step")),
        "variables": [name for name, _ in tf.train.list_variables(model_dir)],
        "predicted": predicted,
        "served": predict({"word": WORDS})["probabilities"].tolist(),
        "graph_mode": not tf.executing_eagerly(),
    }))
"""


def test_tpu_estimator_program_with_contrib_pieces_trains_and_serves(tmp_path):
    result = run_tf1(tmp_path, TPU_PROGRAM, tmp_path / "model", tmp_path / "export")
    assert result["step"] == 30
    names = ["encoder/LayerNorm/beta", "encoder/LayerNorm/gamma", "fully_connected/weights"]
    for name in names + ["fully_connected/biases", "embeddings"]:
        assert name in result["variables"]
    predicted = np.array(result["predicted"])
    assert predicted.shape == (4, 2)
    # Trained: "a" (label 0) and "c" (label 1) hash to buckets of their own.
    assert predicted[0, 0] > 0.9 and predicted[2, 1] > 0.9
    np.testing.assert_allclose(result["served"], predicted, rtol=1e-5)
    assert result["graph_mode"] is True


ESTIMATOR_PROGRAM = """
    import json
    import sys
    import tensorflow as tf

    sys.path.insert(0, sys.argv[2])
    import make_fixture as fixture

    model_dir = sys.argv[1]
    hparams = tf.contrib.training.HParams(
        learning_rate=0.5, hidden=[8], optimizer="SGD", clip=1.0)
    hparams.parse("learning_rate=%r,hidden=%s,optimizer=Adam" % (
        fixture.LEARNING_RATE, str(fixture.HIDDEN).replace(" ", "")))
    # --use_tpu=False programs still made a resolver, named "" or "local".
    resolver = tf.contrib.cluster_resolver.TPUClusterResolver("local")


    def input_fn():
        data = tf.data.Dataset.from_tensor_slices(
            ({"x": fixture.X, "id": fixture.IDS}, fixture.Y))
        return data.repeat().batch(4)


    def predict_input_fn():
        return tf.data.Dataset.from_tensor_slices({"x": fixture.X, "id": fixture.IDS}).batch(4)


    def model_fn(features, labels, mode, params):
        constant = tf.constant_initializer(0.1)
        hidden = tf.contrib.layers.flatten(features["x"])
        hidden = tf.contrib.layers.stack(
            hidden, tf.contrib.layers.fully_connected, params.hidden, scope="stack",
            weights_initializer=constant)
        logits = tf.layers.dense(hidden, 2, kernel_initializer=constant)
        predictions = {"class": tf.argmax(logits, 1)}
        if mode == tf.estimator.ModeKeys.PREDICT:
            return tf.estimator.EstimatorSpec(mode, predictions=predictions)
        loss = tf.losses.sparse_softmax_cross_entropy(labels, logits)
        train_op = tf.contrib.layers.optimize_loss(
            loss, tf.train.get_global_step(), params.learning_rate, params.optimizer,
            clip_gradients=params.clip)
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


    config = tf.contrib.tpu.RunConfig(cluster=resolver, model_dir=model_dir)
    estimator = tf.estimator.Estimator(model_fn, config=config, params=hparams)
    estimator.train(input_fn, steps=fixture.TRAIN_STEPS)
    evaluated = estimator.evaluate(input_fn, steps=fixture.EVAL_STEPS)
    forwarded = tf.contrib.estimator.forward_features(estimator, "id")
    predicted = list(forwarded.predict(predict_input_fn))
    print(json.dumps({
        "master": config.master,
        "step": int(tf.train.load_variable(model_dir, "global_step")),
        "variables": sorted(name for name, _ in tf.train.list_variables(model_dir)),
        "kernel": tf.train.load_variable(model_dir, "dense/kernel").tolist(),
        "loss": float(evaluated["loss"]),
        "ids": [int(p["id"]) for p in predicted],
        "keys": sorted(predicted[0]),
    }))
"""


@pytest.mark.slow
def test_v1_estimator_program_with_contrib_layers_hparams_and_forwarded_ids(tmp_path):
    """A TF 1.x Estimator program on contrib's flatten, stack, optimize_loss and HParams
    trains as TF 2.15 trained the same graph spelled in tf.compat.v1
    (`fixtures/contrib/make_fixture.py`): same checkpoint names, loss and weights."""
    expected = fixture_expected("contrib")
    fixtures = os.path.join(os.path.dirname(__file__), "fixtures", "contrib")
    result = run_tf1(tmp_path, ESTIMATOR_PROGRAM, tmp_path / "model", fixtures)
    assert result["master"] == ""
    assert result["step"] == 6
    assert result["variables"] == expected["variables"]
    np.testing.assert_allclose(result["kernel"], expected["kernel"], rtol=1e-5)
    assert result["loss"] == pytest.approx(expected["loss"], rel=1e-5)
    assert result["ids"] == list(range(100, 108))
    assert result["keys"] == ["class", "id"]
