"""The estimators of `tf.estimator.experimental` and BoostedTrees: the shim vs the original.

- rnn: `RNNClassifier` (one LSTM layer of 32 units) over a
  `sequence_numeric_column` of 20 steps, batch 32;
- sdca: `LinearClassifier(optimizer=LinearSDCA(...))` on 10 numeric features
  and a 1,000-bucket hashed column, batch 64;
- boosted_trees: `BoostedTreesClassifier` (50 trees of depth 4,
  `n_batches_per_layer=1`) on titanic-like columns, batch 256. tensorflow-estimator
  2.15 has no BoostedTrees (2.8 was its last release, and no TensorFlow that
  runs on Python 3.11 has its kernels), so its original column is empty.

Each side and workload runs in a fresh process per round, sides alternating,
best of the rounds:

    python bench/experimental_speed.py --original-python /path/to/venv215/bin/python

"steady steps/s" is the difference between a long and a short `train()` call,
so per-call costs (the final checkpoint) drop out; "first train s" is the
first call of all (tracing, graph build, session start); "predict rows/s"
times a second `predict()` over the data set (2,048 to 4,096 rows).
"""

import argparse
import json
import os
import sys
import tempfile

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402
from side_by_side import alternating_rounds  # noqa: E402
from side_by_side import steady_and_overhead  # noqa: E402
from side_by_side import timed  # noqa: E402

WORKLOADS = ("rnn", "sdca", "boosted_trees")
STEPS = 20


def rnn(tf, module, model_dir):
    rng = np.random.RandomState(0)
    values = rng.randn(2048, STEPS).astype(np.float32)
    labels = (values.sum(1) > 0).astype(np.int64)

    def input_fn(repeat=True, with_labels=True):
        data = ({"x": values}, labels) if with_labels else {"x": values}
        dataset = tf.data.Dataset.from_tensor_slices(data)
        dataset = (dataset.repeat() if repeat else dataset).batch(32)
        if with_labels:
            return dataset.map(lambda f, y: ({"x": tf.sparse.from_dense(f["x"])}, y))
        return dataset.map(lambda f: {"x": tf.sparse.from_dense(f["x"])})

    classifier = module.experimental.RNNClassifier(
        [tf.feature_column.sequence_numeric_column("x")],
        units=[32],
        cell_type="lstm",
        model_dir=model_dir,
    )
    return classifier, input_fn


def sdca(tf, module, model_dir):
    rng = np.random.RandomState(0)
    rows = 4096
    x = rng.randn(rows, 10).astype(np.float32)
    words = np.array([f"w{i}" for i in rng.randint(0, 5000, rows)])
    labels = ((x[:, 0] + x[:, 1] > 0) ^ (rng.rand(rows) < 0.1)).astype(np.int64)
    ids = np.array([str(i) for i in range(rows)])
    columns = [
        tf.feature_column.numeric_column("x", shape=(10,)),
        tf.feature_column.categorical_column_with_hash_bucket("word", 1000),
    ]

    def input_fn(repeat=True, with_labels=True):
        features = {"x": x, "word": words, "example_id": ids}
        data = (features, labels) if with_labels else features
        dataset = tf.data.Dataset.from_tensor_slices(data)
        return (dataset.repeat() if repeat else dataset).batch(64)

    optimizer = module.experimental.LinearSDCA("example_id", symmetric_l2_regularization=1.0)
    classifier = module.LinearClassifier(columns, optimizer=optimizer, model_dir=model_dir)
    return classifier, input_fn


def boosted_trees(tf, module, model_dir):
    rng = np.random.RandomState(0)
    rows = 2048
    age = rng.uniform(1, 80, rows).astype(np.float32)
    fare = rng.lognormal(3, 1, rows).astype(np.float32)
    sex = rng.choice(["male", "female"], rows)
    klass = rng.choice(["First", "Second", "Third"], rows)
    logits = 1.5 * (sex == "female") - 0.03 * (age - 30) + 0.5 * (klass == "First") - 0.5
    labels = (rng.rand(rows) < 1 / (1 + np.exp(-logits))).astype(np.int64)
    fc = tf.feature_column
    columns = [
        fc.indicator_column(fc.categorical_column_with_vocabulary_list("sex", ["male", "female"])),
        fc.indicator_column(
            fc.categorical_column_with_vocabulary_list("class", ["First", "Second", "Third"])
        ),
        fc.bucketized_column(fc.numeric_column("age"), [10.0, 20.0, 30.0, 40.0, 50.0, 60.0]),
        fc.bucketized_column(fc.numeric_column("fare"), [10.0, 20.0, 40.0, 80.0]),
    ]

    def input_fn(repeat=True, with_labels=True):
        features = {"age": age, "fare": fare, "sex": sex, "class": klass}
        data = (features, labels) if with_labels else features
        dataset = tf.data.Dataset.from_tensor_slices(data)
        return (dataset.repeat() if repeat else dataset).batch(256)

    classifier = module.BoostedTreesClassifier(
        columns, n_batches_per_layer=1, n_trees=50, max_depth=4, model_dir=model_dir
    )
    return classifier, input_fn


def measure_side(side, workload, quick):
    import tensorflow as tf

    tf.get_logger().setLevel("ERROR")
    if side == "original":
        module = tf.estimator
    else:
        import tfestimator_compat as module
    if workload == "boosted_trees" and not hasattr(module, "BoostedTreesClassifier"):
        return {}
    make = {"rnn": rnn, "sdca": sdca, "boosted_trees": boosted_trees}[workload]
    classifier, input_fn = make(tf, module, tempfile.mkdtemp(prefix=f"{workload}-{side}-"))
    train = lambda steps: classifier.train(lambda: input_fn(), steps=steps)  # noqa: E731
    first_train = timed(lambda: train(5))
    # SDCA steps take about a millisecond: its long call must outlast the noise.
    long = {"sdca": 1000, "rnn": 40, "boosted_trees": 40}[workload] * (1 if quick else 5)
    steps_per_s, _ = steady_and_overhead(train, long=long, short=10, repeats=1 if quick else 3)

    counted = []

    def predict_all():
        predictions = classifier.predict(lambda: input_fn(repeat=False, with_labels=False))
        counted.append(sum(1 for _ in predictions))

    predict_all()
    predict_s = timed(predict_all)
    return {
        "steady steps/s": steps_per_s,
        "first train s": first_train,
        "predict rows/s": counted[-1] / predict_s,
    }


FIGURES = (
    ("steady steps/s", max, "{:.0f}"),
    ("first train s", min, "{:.2f}"),
    ("predict rows/s", max, "{:.0f}"),
)


def print_table(results, rounds):
    print(f"{'workload':14} {'figure':16} {'shim':>10} {'original':>10} {'shim/original':>14}")
    for workload, by_side in results.items():
        for name, best, fmt in FIGURES:
            values = {
                side: best(r[name] for r in runs) if runs and name in runs[0] else None
                for side, runs in by_side.items()
            }
            shim, original = values.get("shim"), values.get("original")
            cells = [fmt.format(v) if v is not None else "n/a" for v in (shim, original)]
            ratio = f"{shim / original:.2f}x" if shim and original else ""
            print(f"{workload:14} {name:16} {cells[0]:>10} {cells[1]:>10} {ratio:>14}")
    cpus = os.cpu_count()
    print(f"best of {rounds} alternating rounds, {cpus} CPUs; first train s: lower is better")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--original-python", help="interpreter with tensorflow-estimator 2.15")
    parser.add_argument("--rounds", type=int, help="rounds per side (default 3, 1 with --quick)")
    parser.add_argument("--quick", action="store_true", help="fewer steps")
    parser.add_argument("--workloads", nargs="+", choices=WORKLOADS, default=list(WORKLOADS))
    parser.add_argument(
        "--json-only", nargs=2, metavar=("SIDE", "WORKLOAD"), help=argparse.SUPPRESS
    )
    args = parser.parse_args()
    if args.json_only:
        side, workload = args.json_only
        print(json.dumps(measure_side(side, workload, args.quick)))
        return
    rounds = args.rounds or (1 if args.quick else 3)
    extra = ["--quick"] if args.quick else []
    results = {
        workload: alternating_rounds(__file__, args.original_python, rounds, workload, *extra)
        for workload in args.workloads
    }
    print_table(results, rounds)


if __name__ == "__main__":
    sys.exit(main())
