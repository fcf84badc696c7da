"""The reference workflow spelled the TF 1.x way, unchanged.

`import tensorflow.compat.v1 as tf`, `tf.layers.*`, `tf.train.AdamOptimizer`,
`tf.metrics.*`, a `tf.placeholder` receiver with `tf.image.resize_images`,
and `export_savedmodel(..., as_text=True)`: code converted from TF 1.x with
tf_upgrade_v2 looks like this. It ran on TensorFlow 2.15 with the original
tensorflow-estimator; on TensorFlow >= 2.16 it runs through the shim:

    tfestimator-compat run examples/seed_multitask_tf1.py [MODEL_DIR]

usage: python seed_multitask_tf1.py [MODEL_DIR]     (exits non-zero on any failure)
"""
import os
import sys
import tempfile

import numpy as np
import tensorflow.compat.v1 as tf

IMG = 24


def make_data(n, seed):
    rng = np.random.RandomState(seed)
    gender = rng.randint(0, 2, n).astype(np.int64)
    age = rng.randint(0, 10, n).astype(np.int64)
    images = rng.rand(n, IMG, IMG, 3).astype(np.float32) * 0.5
    images[:, :, :, 0] += gender[:, None, None] * 0.5
    images[:, :, :, 1] += age[:, None, None] / 20.0
    return images, {"gender": gender, "age": age}


def input_fn(images, labels, batch, repeat):
    def fn():
        ds = tf.data.Dataset.from_tensor_slices(({"image": images}, labels))
        if repeat:
            ds = ds.shuffle(256, seed=1).repeat()
        return ds.batch(batch)
    return fn


def model_fn(features, labels, mode, params):
    net = tf.layers.conv2d(features["image"], 8, 3, activation=tf.nn.relu, name="conv1")
    net = tf.layers.max_pooling2d(net, 2, 2)
    net = tf.layers.flatten(net)
    net = tf.layers.dense(net, 32, activation=tf.nn.relu, name="shared")
    gender_logits = tf.layers.dense(net, 2, name="gender")
    age_logits = tf.layers.dense(net, 10, name="age")

    if mode == tf.estimator.ModeKeys.PREDICT:
        predictions = {
            "classes": tf.argmax(gender_logits, axis=1),
            "age_class": tf.argmax(age_logits, axis=1),
            "probabilities": tf.nn.softmax(gender_logits),
        }
        return tf.estimator.EstimatorSpec(mode=mode, predictions=predictions)

    loss = (tf.losses.sparse_softmax_cross_entropy(labels["gender"], gender_logits)
            + tf.losses.sparse_softmax_cross_entropy(labels["age"], age_logits))
    if mode == tf.estimator.ModeKeys.TRAIN:
        optimizer = tf.train.AdamOptimizer(learning_rate=params["learning_rate"])
        train_op = optimizer.minimize(loss, global_step=tf.train.get_global_step())
        return tf.estimator.EstimatorSpec(mode=mode, loss=loss, train_op=train_op)

    metrics = {
        "gender_accuracy": tf.metrics.accuracy(labels["gender"], tf.argmax(gender_logits, 1)),
        "age_accuracy": tf.metrics.accuracy(labels["age"], tf.argmax(age_logits, 1)),
        "age_precision": tf.metrics.sparse_precision_at_k(labels["age"], age_logits, k=10),
    }
    return tf.estimator.EstimatorSpec(mode=mode, loss=loss, eval_metric_ops=metrics)


def serving_input_fn():
    image = tf.placeholder(dtype=tf.float32, shape=[None, None, None, 3], name="image")
    features = {"image": tf.image.resize_images(image, [IMG, IMG])}
    return tf.estimator.export.ServingInputReceiver(features, {"image": image})


def main():
    model_dir = sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp()
    train_x, train_y = make_data(512, 0)
    eval_x, eval_y = make_data(128, 1)
    config = tf.estimator.RunConfig(model_dir=model_dir, save_checkpoints_steps=100, tf_random_seed=7)
    estimator = tf.estimator.Estimator(model_fn, config=config, params={"learning_rate": 1e-2})
    tf.estimator.train_and_evaluate(
        estimator,
        tf.estimator.TrainSpec(input_fn(train_x, train_y, 32, True), max_steps=300),
        tf.estimator.EvalSpec(input_fn(eval_x, eval_y, 32, False), steps=None,
                              start_delay_secs=0, throttle_secs=0))
    metrics = estimator.evaluate(input_fn(eval_x, eval_y, 32, False))
    print("metrics", metrics)
    assert metrics["global_step"] == 300, metrics
    assert metrics["gender_accuracy"] > 0.9 and metrics["age_accuracy"] > 0.3, metrics

    preds = list(estimator.predict(input_fn(eval_x[:5], {k: v[:5] for k, v in eval_y.items()}, 5, False)))
    assert len(preds) == 5 and set(preds[0]) == {"classes", "age_class", "probabilities"}, preds[0]

    export_dir = estimator.export_savedmodel(os.path.join(model_dir, "serving"), serving_input_fn,
                                             as_text=True)
    export_dir = export_dir.decode() if isinstance(export_dir, bytes) else export_dir
    assert os.path.exists(os.path.join(export_dir, "saved_model.pbtxt")), os.listdir(export_dir)
    print("exported", export_dir)
    print("SEED_TF1_OK")


if __name__ == "__main__":
    main()
