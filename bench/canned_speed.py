"""DNNClassifier on the premade-estimator (iris) workload: the shim vs the original.

The TensorFlow premade-estimator tutorial: four numeric feature columns,
three classes, `DNNClassifier(hidden_units=[30, 10], n_classes=3)`, batches of
100 from `shuffle(1000).repeat()`, 5000 training steps, then evaluate and
predict. The data is iris-shaped and synthetic (no download). Run with the
original Estimator's interpreter to add its column:

    python bench/canned_speed.py --original-python /path/to/venv215/bin/python

Each side runs in a fresh process per round, shim and original alternating,
and each figure is the best of the rounds. "train steps/s" times a whole
`train(steps=N)` call after a first, untimed one (tracing, first
checkpoint), so it includes the final checkpoint of that call, as a user sees
it; "predict examples/s" likewise times a second `predict()` over all rows.
"""

import argparse
import json
import os
import sys
import tempfile

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np  # noqa: E402
from side_by_side import alternating_rounds  # noqa: E402
from side_by_side import timed  # noqa: E402

FEATURES = ("SepalLength", "SepalWidth", "PetalLength", "PetalWidth")
# Per-class feature means and spreads close to the real iris data set.
MEANS = np.array([[5.0, 3.4, 1.5, 0.2], [5.9, 2.8, 4.3, 1.3], [6.6, 3.0, 5.6, 2.0]], np.float32)
SPREADS = np.array([[0.35, 0.38, 0.17, 0.1], [0.5, 0.3, 0.47, 0.2], [0.64, 0.32, 0.55, 0.27]])
BATCH = 100


def iris_like(rows, seed):
    rng = np.random.RandomState(seed)
    labels = rng.randint(0, 3, rows).astype(np.int64)
    values = MEANS[labels] + rng.randn(rows, 4).astype(np.float32) * SPREADS[labels]
    features = {name: values[:, i].astype(np.float32) for i, name in enumerate(FEATURES)}
    return features, labels


def measure(tf, estimator_module, train_steps, predict_rows):
    train_x, train_y = iris_like(120 * 10, seed=0)
    test_x, test_y = iris_like(300, seed=1)
    predict_x, _ = iris_like(predict_rows, seed=2)

    def train_input_fn():
        ds = tf.data.Dataset.from_tensor_slices((train_x, train_y))
        return ds.shuffle(1000).repeat().batch(BATCH)

    def eval_input_fn():
        return tf.data.Dataset.from_tensor_slices((test_x, test_y)).batch(BATCH)

    def predict_input_fn():
        return tf.data.Dataset.from_tensor_slices(predict_x).batch(BATCH)

    classifier = estimator_module.DNNClassifier(
        feature_columns=[tf.feature_column.numeric_column(name) for name in FEATURES],
        hidden_units=[30, 10],
        n_classes=3,
        model_dir=tempfile.mkdtemp(),
    )
    first_train = timed(lambda: classifier.train(train_input_fn, steps=100))
    train = timed(lambda: classifier.train(train_input_fn, steps=train_steps))
    results = {}
    first_evaluate = timed(lambda: results.update(classifier.evaluate(eval_input_fn)))
    evaluate = timed(lambda: classifier.evaluate(eval_input_fn))

    def predict_all():
        count = sum(1 for _ in classifier.predict(predict_input_fn))
        assert count == predict_rows, count

    first_predict = timed(predict_all)
    predict = timed(predict_all)
    return {
        "train steps/s": train_steps / train,
        "predict examples/s": predict_rows / predict,
        "first train call s": first_train,
        "evaluate call s": evaluate,
        "first evaluate call s": first_evaluate,
        "first predict call s": first_predict,
        "accuracy": float(results["accuracy"]),
    }


def measure_side(side, train_steps, predict_rows):
    import tensorflow as tf

    tf.get_logger().setLevel("ERROR")
    if side == "original":
        return measure(tf, tf.estimator, train_steps, predict_rows)
    import tfestimator_compat

    return measure(tf, tfestimator_compat, train_steps, predict_rows)


# Higher is better for rates; lower for call times.
ROWS = (
    ("train steps/s", max, "{:.0f}"),
    ("predict examples/s", max, "{:.0f}"),
    ("first train call s", min, "{:.2f}"),
    ("evaluate call s", min, "{:.3f}"),
    ("first evaluate call s", min, "{:.2f}"),
    ("first predict call s", min, "{:.2f}"),
    ("accuracy", max, "{:.3f}"),
)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--original-python", help="interpreter with tensorflow-estimator 2.15")
    parser.add_argument("--train-steps", type=int, default=5000)
    parser.add_argument("--predict-rows", type=int, default=3000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json-only", choices=["original", "shim"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.json_only:
        print(json.dumps(measure_side(args.json_only, args.train_steps, args.predict_rows)))
        return
    rounds = alternating_rounds(
        __file__,
        args.original_python,
        args.rounds,
        "--train-steps",
        args.train_steps,
        "--predict-rows",
        args.predict_rows,
    )
    print(
        f"DNNClassifier [30, 10], iris-like, batch {BATCH}, {args.train_steps} steps, "
        f"{args.predict_rows} rows predicted; best of {args.rounds} rounds, {os.cpu_count()} CPUs"
    )
    print(f"{'':24}" + "".join(f"{side:>12}" for side in rounds))
    for name, best, fmt in ROWS:
        cells = [fmt.format(best(r[name] for r in results)) for results in rounds.values()]
        print(f"{name:24}" + "".join(f"{cell:>12}" for cell in cells))
    if "original" in rounds:
        for name in ("train steps/s", "predict examples/s"):
            shim = max(r[name] for r in rounds["shim"])
            original = max(r[name] for r in rounds["original"])
            print(f"shim / original {name}: {shim / original:.2f}x")


if __name__ == "__main__":
    sys.exit(main())
