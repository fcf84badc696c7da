"""Peak memory of long training and large prediction stays flat.

Trains a small model for `--steps` steps (checkpoints every 1000 steps, the
default summaries and logs) and reports the process's peak resident memory
after the first tenth and at the end; then predicts over `--rows` rows and
reports peak memory after the first tenth and at the end. Flat means the
second figure of each pair is within 10% of the first. Also counts the files
left in model_dir, which must not grow beyond keep_checkpoint_max.

    python bench/memory.py --steps 100000 --rows 1000000
"""

import argparse
import os
import tempfile

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

import tfestimator_compat as est  # noqa: E402


def peak_rss_mb():
    """The process's peak resident set size so far (VmHWM), in MiB."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError("VmHWM not found in /proc/self/status")


def model_fn(features, labels, mode):
    hidden = tf.keras.layers.Dense(64, activation="relu")(features["x"])
    logits = tf.keras.layers.Dense(2)(hidden)
    if mode == est.ModeKeys.PREDICT:
        return est.EstimatorSpec(mode, predictions={"class": tf.argmax(logits, 1)})
    loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
    train_op = tf.compat.v1.train.AdamOptimizer(1e-3).minimize(
        loss, global_step=tf.compat.v1.train.get_global_step()
    )
    return est.EstimatorSpec(mode, loss=loss, train_op=train_op)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=100_000)
    parser.add_argument("--rows", type=int, default=1_000_000)
    args = parser.parse_args()
    tf.get_logger().setLevel("ERROR")
    rng = np.random.RandomState(0)
    x = rng.rand(4096, 16).astype(np.float32)
    y = rng.randint(0, 2, 4096)

    def train_input_fn():
        return tf.data.Dataset.from_tensor_slices(({"x": x}, y)).repeat().batch(64)

    model_dir = tempfile.mkdtemp()
    config = est.RunConfig(model_dir=model_dir, save_checkpoints_steps=1000, keep_checkpoint_max=3)
    estimator = est.Estimator(model_fn, config=config)
    estimator.train(train_input_fn, max_steps=args.steps // 10)
    train_early = peak_rss_mb()
    estimator.train(train_input_fn, max_steps=args.steps)
    train_late = peak_rss_mb()
    files = len(os.listdir(model_dir))

    def predict_input_fn():
        rows = tf.data.Dataset.range(args.rows).map(
            lambda i: {"x": tf.fill([16], tf.cast(i % 7, tf.float32) / 7.0)}
        )
        return rows.batch(1000)

    predictions = estimator.predict(predict_input_fn)
    for seen, _ in enumerate(predictions, start=1):
        if seen == args.rows // 10:
            predict_early = peak_rss_mb()
    predict_late = peak_rss_mb()

    print(f"peak RSS, MiB          {'first tenth':>12} {'end':>10} {'growth':>8}")
    for label, early, late in (
        (f"train {args.steps} steps", train_early, train_late),
        (f"predict {args.rows} rows", predict_early, predict_late),
    ):
        print(f"{label:22} {early:12.0f} {late:10.0f} {100 * (late / early - 1):7.1f}%")
    print(f"files in model_dir after training: {files}")


if __name__ == "__main__":
    main()
