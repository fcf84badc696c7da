"""Steps/s of train, evaluate and predict for each way an input_fn can read its data.

Patterns, from fastest path to slowest:
- `dataset`: the input_fn returns a `tf.data.Dataset` (no Python per step);
- `get_next_pop`: a TF1 one-shot iterator, then `features.pop("label")` after
  `get_next()` (rebuilt as a `map` over the iterator's dataset);
- `queue_tfrecord`: `string_input_producer` + `TFRecordReader` + parse +
  `batch`, the TF 1.0-1.3 queue pipeline (a Session run per batch).

Same small model everywhere (one 64->10 Dense layer, batch 128) so the input
dominates. Run with the original Estimator's interpreter to add its column:

    python bench/input_speed.py --original-python /path/to/venv215/bin/python

Figures are steady rates (difference of a long and a short call), best of
`--rounds`; a shared machine makes them noisy.
"""

import argparse
import json
import os
import sys
import tempfile

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402
from side_by_side import run_json  # noqa: E402
from side_by_side import steady_and_overhead  # noqa: E402

FEATURES, CLASSES, BATCH = 64, 10, 128
PATTERNS = ("dataset", "get_next_pop", "queue_tfrecord")


def data(n=BATCH * 64):
    rng = np.random.RandomState(0)
    x = rng.rand(n, FEATURES).astype(np.float32)
    y = rng.randint(0, CLASSES, n).astype(np.int64)
    return x, y


def write_tfrecord(tf, path, x, y):
    with tf.io.TFRecordWriter(path) as writer:
        for row, label in zip(x, y):
            example = tf.train.Example(
                features=tf.train.Features(
                    feature={
                        "x": tf.train.Feature(float_list=tf.train.FloatList(value=row)),
                        "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[label])),
                    }
                )
            )
            writer.write(example.SerializeToString())
    return path


def input_fns(tf, folder):
    """pattern -> make(batches) -> input_fn reading `batches` batches (None: endless)."""
    x, y = data()
    v1 = tf.compat.v1
    files = {}

    def dataset(batches):
        def fn():
            ds = tf.data.Dataset.from_tensor_slices(({"x": x}, y)).repeat().batch(BATCH)
            return ds.take(batches) if batches else ds

        return fn

    def get_next_pop(batches):
        def fn():
            ds = tf.data.Dataset.from_tensor_slices({"x": x, "label": y}).repeat().batch(BATCH)
            ds = ds.take(batches) if batches else ds
            features = v1.data.make_one_shot_iterator(ds).get_next()
            return features, features.pop("label")

        return fn

    def queue_tfrecord(batches):
        if batches not in files:
            n = (batches or 8) * BATCH
            rows = np.resize(np.arange(len(x)), n)
            path = os.path.join(folder, f"data_{batches}.tfrecord")
            files[batches] = write_tfrecord(tf, path, x[rows], y[rows])

        def fn():
            queue = v1.train.string_input_producer(
                [files[batches]], num_epochs=1 if batches else None, shuffle=False
            )
            _, serialized = v1.TFRecordReader().read_up_to(queue, BATCH)
            parsed = v1.parse_example(
                serialized,
                {
                    "x": v1.FixedLenFeature([FEATURES], tf.float32),
                    "label": v1.FixedLenFeature([], tf.int64),
                },
            )
            batch = v1.train.batch(parsed, BATCH, enqueue_many=True, allow_smaller_final_batch=True)
            return batch, batch.pop("label")

        return fn

    return {"dataset": dataset, "get_next_pop": get_next_pop, "queue_tfrecord": queue_tfrecord}


def figures(tf, estimator_module, steps, eval_batches, patterns=PATTERNS):
    def model_fn(features, labels, mode):
        logits = tf.keras.layers.Dense(CLASSES)(features["x"])
        if mode == estimator_module.ModeKeys.PREDICT:
            return estimator_module.EstimatorSpec(mode, predictions={"class": tf.argmax(logits, 1)})
        loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
        if mode == estimator_module.ModeKeys.EVAL:
            return estimator_module.EstimatorSpec(mode, loss=loss)
        train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(
            loss, global_step=tf.compat.v1.train.get_global_step()
        )
        return estimator_module.EstimatorSpec(mode, loss=loss, train_op=train_op)

    results = {}
    folder = tempfile.mkdtemp()
    for pattern, make in input_fns(tf, folder).items():
        if pattern not in patterns:
            continue
        estimator = estimator_module.Estimator(model_fn, model_dir=tempfile.mkdtemp())
        try:
            results[pattern] = rates(estimator, make, steps, eval_batches)
        except Exception as error:  # a pattern the implementation cannot run
            results[pattern] = f"fails: {type(error).__name__}"
    return results


def rates(estimator, make, steps, eval_batches):
    """Steady train steps/s, evaluate batches/s and predict examples/s."""
    train = steady_and_overhead(lambda n: estimator.train(make(None), steps=n), steps, 1, 3)
    evaluate = steady_and_overhead(lambda n: estimator.evaluate(make(n)), eval_batches, 1, 3)
    predict = steady_and_overhead(
        lambda n: sum(1 for _ in estimator.predict(make(n))), eval_batches, 1, 3
    )
    return [train[0], evaluate[0], predict[0] * BATCH]


def measure(side, steps, eval_batches, patterns):
    import tensorflow as tf

    tf.get_logger().setLevel("ERROR")
    if side == "original":
        return {"original": figures(tf, tf.estimator, steps, eval_batches, patterns)}
    import tfestimator_compat

    return {"shim": figures(tf, tfestimator_compat, steps, eval_batches, patterns)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--original-python", help="interpreter with tensorflow-estimator 2.15")
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--eval-batches", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--patterns", default=",".join(PATTERNS), help="comma-separated")
    parser.add_argument("--json-only", choices=["original", "shim"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    patterns = args.patterns.split(",")
    if args.json_only:
        print(json.dumps(measure(args.json_only, args.steps, args.eval_batches, patterns)))
        return
    best = {}
    for _ in range(args.rounds):
        this_round = measure("shim", args.steps, args.eval_batches, patterns)
        if args.original_python:
            this_round.update(
                run_json(
                    args.original_python,
                    __file__,
                    "--json-only",
                    "original",
                    "--steps",
                    args.steps,
                    "--eval-batches",
                    args.eval_batches,
                    "--patterns",
                    args.patterns,
                )
            )
        for column, rows in this_round.items():
            for pattern, row in rows.items():
                old = best.setdefault(column, {}).get(pattern)
                if isinstance(row, list) and isinstance(old, list):
                    row = [max(a, b) for a, b in zip(row, old)]
                best[column][pattern] = row
    report(best, args.rounds)


def report(best, rounds):
    print(f"Dense 64->10, batch {BATCH}, {os.cpu_count()} CPUs, best of {rounds} round(s)")
    print(f"{'':34}{'train steps/s':>15}{'eval batches/s':>16}{'predict ex/s':>14}")
    for column, rows in best.items():
        for pattern in rows:
            row = rows[pattern]
            cells = (
                "".join(f"{v:>{w}.0f}" for v, w in zip(row, (15, 16, 14)))
                if isinstance(row, list)
                else f"{row:>45}"
            )
            print(f"{column + ' ' + pattern:34}{cells}")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
