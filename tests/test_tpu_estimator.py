"""TPUEstimator programs run on CPU with use_tpu=False, as the original ran them."""

import glob
import os

import numpy as np
import pytest
import tensorflow as tf
from helpers import linear_data
from helpers import step_function_calls

import tfestimator_compat as est
from tfestimator_compat import tpu


def tpu_config(model_dir, iterations_per_loop=2, **kwargs):
    return tpu.RunConfig(
        model_dir=model_dir,
        tpu_config=tpu.TPUConfig(iterations_per_loop=iterations_per_loop),
        **kwargs,
    )


def input_fn(params):
    x, y = linear_data(64)
    dataset = tf.data.Dataset.from_tensor_slices(({"x": x}, y)).repeat()
    return dataset.batch(params["batch_size"], drop_remainder=True)


class AdamWeightDecay(tf.compat.v1.train.Optimizer):
    """A BERT-style optimizer: its own apply_gradients, decoupled weight decay."""

    def __init__(self, learning_rate, weight_decay_rate=0.01, beta_1=0.9, beta_2=0.999):
        super().__init__(False, "AdamWeightDecay")
        self.learning_rate = learning_rate
        self.weight_decay_rate = weight_decay_rate
        self.beta_1, self.beta_2 = beta_1, beta_2

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        updates = []
        for grad, param in grads_and_vars:
            base = param.name.split(":")[0]
            m = tf.compat.v1.get_variable(
                base + "/adam_m",
                param.shape,
                initializer=tf.compat.v1.zeros_initializer(),
                trainable=False,
            )
            v = tf.compat.v1.get_variable(
                base + "/adam_v",
                param.shape,
                initializer=tf.compat.v1.zeros_initializer(),
                trainable=False,
            )
            next_m = self.beta_1 * m + (1.0 - self.beta_1) * grad
            next_v = self.beta_2 * v + (1.0 - self.beta_2) * tf.square(grad)
            update = next_m / (tf.sqrt(next_v) + 1e-6) + self.weight_decay_rate * param
            updates += [
                param.assign(param - self.learning_rate * update),
                m.assign(next_m),
                v.assign(next_v),
            ]
        with tf.control_dependencies(updates):
            return global_step.assign_add(1)


def make_model_fn(seen=None):
    def model_fn(features, labels, mode, params):
        if seen is not None:
            seen.setdefault(mode, []).append(dict(params))
        with tf.compat.v1.variable_scope("bert"):
            w = tf.compat.v1.get_variable("w", [3, 2])
        logits = tf.matmul(features["x"], w)
        if mode == est.ModeKeys.PREDICT:
            return tpu.TPUEstimatorSpec(mode, predictions={"logits": logits})
        loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
        if mode == est.ModeKeys.EVAL:

            def metric_fn(labels, logits):
                return {"accuracy": tf.compat.v1.metrics.accuracy(labels, tf.argmax(logits, 1))}

            return tpu.TPUEstimatorSpec(mode, loss=loss, eval_metrics=(metric_fn, [labels, logits]))
        global_step = tf.compat.v1.train.get_global_step()
        learning_rate = tf.compat.v1.train.polynomial_decay(
            0.1, global_step, 100, end_learning_rate=0.0
        )
        warmup = tf.cast(global_step, tf.float32) / 5.0
        learning_rate = tf.where(global_step < 5, 0.1 * warmup, learning_rate)
        optimizer = tf.compat.v1.tpu.CrossShardOptimizer(AdamWeightDecay(learning_rate))
        train_op = optimizer.minimize(loss, global_step=global_step)
        return tpu.TPUEstimatorSpec(mode, loss=loss, train_op=train_op)

    return model_fn


def test_use_tpu_without_a_tpu_fails_at_construction(model_dir):
    with pytest.raises(ValueError, match="needs a TPU.*use_tpu=False"):
        tpu.TPUEstimator(make_model_fn(), config=tpu_config(model_dir), train_batch_size=8)
    with pytest.raises(
        ValueError, match="`config` must be provided with type `tpu_config.RunConfig`"
    ):
        tpu.TPUEstimator(make_model_fn(), config=est.RunConfig(model_dir=model_dir), use_tpu=False)
    with pytest.raises(ValueError, match="reserved keys"):
        tpu.TPUEstimator(
            make_model_fn(), config=tpu_config(model_dir), params={"batch_size": 3}, use_tpu=False
        )
    with pytest.raises(ValueError, match="iterations_per_loop"):
        tpu.TPUConfig(iterations_per_loop=0)


def test_batch_sizes_reach_input_fn_and_model_fn_per_mode(model_dir):
    seen = {}
    estimator = tpu.TPUEstimator(
        make_model_fn(seen),
        config=tpu_config(model_dir),
        use_tpu=False,
        train_batch_size=16,
        eval_batch_size=8,
        predict_batch_size=4,
    )
    estimator.train(input_fn, max_steps=6)
    result = estimator.evaluate(input_fn, steps=2)
    predictions = [next(estimator.predict(input_fn, yield_single_examples=False))]
    assert seen[est.ModeKeys.TRAIN][0] == {"batch_size": 16, "use_tpu": False}
    assert seen[est.ModeKeys.EVAL][0]["batch_size"] == 8
    assert seen[est.ModeKeys.PREDICT][0]["batch_size"] == 4
    assert predictions[0]["logits"].shape == (4, 2)
    assert set(result) == {"accuracy", "loss", "global_step"} and result["global_step"] == 6
    assert estimator.get_variable_value("bert/w/adam_m").shape == (3, 2)


def test_custom_optimizer_with_warmup_trains(model_dir):
    estimator = tpu.TPUEstimator(
        make_model_fn(),
        config=tpu_config(model_dir),
        use_tpu=False,
        train_batch_size=16,
        eval_batch_size=16,
    )
    before = estimator.evaluate(input_fn, steps=4)["loss"]
    estimator.train(input_fn, max_steps=60)
    after = estimator.evaluate(input_fn, steps=4)["loss"]
    assert after < before * 0.9


def test_input_fn_must_take_params(model_dir):
    estimator = tpu.TPUEstimator(
        make_model_fn(), config=tpu_config(model_dir), use_tpu=False, train_batch_size=8
    )
    with pytest.raises(ValueError, match="does not include params argument"):
        estimator.train(lambda: input_fn({"batch_size": 8}), steps=1)


def test_iterations_per_loop_bounds_steps_per_call(model_dir):
    estimator = tpu.TPUEstimator(
        make_model_fn(),
        config=tpu_config(model_dir, iterations_per_loop=4),
        use_tpu=False,
        train_batch_size=8,
    )
    estimator.train(input_fn, steps=12)
    calls = step_function_calls(estimator)
    assert calls == 3, "12 steps in chunks of at most iterations_per_loop=4"


def test_scaffold_fn_init_from_checkpoint_and_host_call_summaries(tmp_path):
    pretrained = {"bert/w": tf.Variable(np.full([3, 2], 0.25, np.float32))}
    source = tf.compat.v1.train.Saver(var_list=pretrained).save(None, str(tmp_path / "bert.ckpt"))
    model_dir = str(tmp_path / "model")

    def model_fn(features, labels, mode, params):
        spec = make_model_fn()(features, labels, mode, params)
        if mode != est.ModeKeys.TRAIN:
            return spec

        def scaffold_fn():
            tf.compat.v1.train.init_from_checkpoint(source, {"bert/w": "bert/w"})
            return tf.compat.v1.train.Scaffold()

        def host_call_fn(global_step, loss):
            with tf.compat.v2.summary.create_file_writer(model_dir).as_default():
                with tf.compat.v2.summary.record_if(True):
                    tf.compat.v2.summary.scalar("host_loss", loss[0], step=global_step[0])
                    return tf.compat.v1.summary.all_v2_summary_ops()

        global_step = tf.reshape(tf.compat.v1.train.get_global_step(), [1])
        return spec._replace(
            scaffold_fn=scaffold_fn,
            host_call=(host_call_fn, [global_step, tf.reshape(spec.loss, [1])]),
        )

    estimator = tpu.TPUEstimator(
        model_fn, config=tpu_config(model_dir), use_tpu=False, train_batch_size=8
    )
    estimator.train(input_fn, steps=3)
    first = tf.train.load_variable(os.path.join(model_dir, "model.ckpt-0"), "bert/w")
    np.testing.assert_array_equal(first, np.full([3, 2], 0.25))
    assert host_loss_steps(model_dir) == [0, 1, 2]


def host_loss_steps(model_dir):
    steps = []
    for path in glob.glob(os.path.join(model_dir, "events.*")):
        for event in tf.compat.v1.train.summary_iterator(path):
            steps += [event.step for value in event.summary.value if value.tag == "host_loss"]
    return sorted(steps)


def test_host_call_sees_the_step_each_run_started_at_even_when_its_read_comes_late(tmp_path):
    """A host_call's read of the global step and the train op's increment have no
    dependency between them; a read that waits for other work (here a slow
    computation, in practice a loaded machine) must still see the step the run
    started at, or summaries repeat and skip steps."""
    model_dir = str(tmp_path)

    def model_fn(features, labels, mode, params):
        spec = make_model_fn()(features, labels, mode, params)
        work = tf.random.normal([300, 300])  # not constant-folded away
        for _ in range(30):
            work = tf.tanh(tf.matmul(work, work) / 300.0)
        with tf.control_dependencies([work]):
            global_step = tf.reshape(tf.compat.v1.train.get_global_step(), [1])

        def host_call_fn(global_step, loss):
            with tf.compat.v2.summary.create_file_writer(model_dir).as_default():
                with tf.compat.v2.summary.record_if(True):
                    tf.compat.v2.summary.scalar("host_loss", loss[0], step=global_step[0])
                    return tf.compat.v1.summary.all_v2_summary_ops()

        return spec._replace(host_call=(host_call_fn, [global_step, tf.reshape(spec.loss, [1])]))

    estimator = tpu.TPUEstimator(
        model_fn,
        config=tpu_config(model_dir, iterations_per_loop=10),
        use_tpu=False,
        train_batch_size=8,
    )
    estimator.train(input_fn, steps=30)
    assert host_loss_steps(model_dir) == list(range(30))


def test_export_with_export_to_tpu(model_dir, tmp_path):
    estimator = tpu.TPUEstimator(
        make_model_fn(),
        config=tpu_config(model_dir),
        use_tpu=False,
        train_batch_size=8,
        export_to_tpu=True,
    )
    estimator.train(input_fn, steps=2)
    receiver = est.export.build_raw_serving_input_receiver_fn({"x": tf.zeros([1, 3])})
    export_dir = estimator.export_saved_model(str(tmp_path / "export"), receiver).decode()
    served = tf.saved_model.load(export_dir).signatures["serving_default"](x=tf.ones([5, 3]))
    assert served["logits"].shape == (5, 2)
