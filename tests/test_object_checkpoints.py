"""A `tf.train.Checkpoint` as the Scaffold's saver: object-based checkpoints, as the original wrote.

The model_fn is the one of TensorFlow's estimator guide ("Object-based
checkpoints"). Measured with tensorflow-estimator 2.15: after `train(steps=10)`
the state file lists `model.ckpt-0` and `model.ckpt-10` by absolute path, the
keys are object-based (`step/.ATTRIBUTES/VARIABLE_VALUE`, no `global_step`), a
fresh `tf.train.Checkpoint(...).restore(latest)` gives step 10, `evaluate`
reports global_step 10, `train(steps=5)` goes on to 15 and then
`train(max_steps=12)` runs one step (16): without a `global_step` key it cannot
tell the model is past 12.
"""

import os

import keras
import numpy as np
import tensorflow as tf

import tfestimator_compat as est


def toy_dataset():
    inputs = tf.range(10.0)[:, None]
    labels = inputs * 5.0 + tf.range(5.0)[None, :]
    return tf.data.Dataset.from_tensor_slices(dict(x=inputs, y=labels)).repeat().batch(2)


class Net(keras.Model):
    def __init__(self):
        super().__init__()
        self.l1 = keras.layers.Dense(5)

    def call(self, x):
        return self.l1(x)


def guide_model_fn(features, labels, mode):
    net = Net()
    opt = keras.optimizers.Adam(0.1)
    ckpt = tf.train.Checkpoint(step=tf.compat.v1.train.get_global_step(), optimizer=opt, net=net)
    with tf.GradientTape() as tape:
        output = net(features["x"])
        loss = tf.reduce_mean(tf.abs(output - features["y"]))
    variables = net.trainable_variables
    gradients = tape.gradient(loss, variables)
    return est.EstimatorSpec(
        mode,
        loss=loss,
        train_op=tf.group(opt.apply_gradients(zip(gradients, variables)), ckpt.step.assign_add(1)),
        scaffold=tf.compat.v1.train.Scaffold(saver=ckpt),
    )


def test_the_guides_checkpoint_restores_its_step_and_weights(model_dir):
    estimator = est.Estimator(guide_model_fn, model_dir)
    estimator.train(toy_dataset, steps=10)

    net = Net()
    ckpt = tf.train.Checkpoint(
        step=tf.Variable(1, dtype=tf.int64), optimizer=keras.optimizers.Adam(0.1), net=net
    )
    net(tf.zeros([1, 1]))
    ckpt.restore(tf.train.latest_checkpoint(model_dir))
    assert ckpt.step.numpy() == 10
    kernel = estimator.get_variable_value("net/l1/_kernel/.ATTRIBUTES/VARIABLE_VALUE")
    np.testing.assert_array_equal(net.l1.kernel.numpy(), kernel)
    assert "global_step" not in estimator.get_variable_names()
    state = tf.train.get_checkpoint_state(model_dir)
    assert [os.path.basename(p) for p in state.all_model_checkpoint_paths] == [
        "model.ckpt-0",
        "model.ckpt-10",
    ]


def test_training_resumes_from_the_guides_checkpoint(model_dir, tmp_path):
    config = est.RunConfig(tf_random_seed=1)
    estimator = est.Estimator(guide_model_fn, model_dir, config=config)
    estimator.train(toy_dataset, steps=10)
    assert estimator.evaluate(lambda: toy_dataset().take(3))["global_step"] == 10
    estimator.train(toy_dataset, steps=5)
    assert estimator.latest_checkpoint().endswith("model.ckpt-15")

    # The optimizer's slots came back too: as if trained 15 steps in one go.
    uninterrupted = est.Estimator(guide_model_fn, str(tmp_path / "once"), config=config)
    uninterrupted.train(toy_dataset, steps=15)
    key = "net/l1/_kernel/.ATTRIBUTES/VARIABLE_VALUE"
    np.testing.assert_allclose(
        estimator.get_variable_value(key), uninterrupted.get_variable_value(key), rtol=1e-6
    )

    # Without a `global_step` key, max_steps cannot tell how far the model is.
    estimator.train(toy_dataset, max_steps=12)
    assert estimator.latest_checkpoint().endswith("model.ckpt-16")
