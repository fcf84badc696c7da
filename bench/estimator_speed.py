"""Steps/s and per-call overhead: the shim vs native Keras vs the ceiling vs the original.

Same model everywhere: a 3x256 ReLU MLP on 64 features, 10 classes, batch 128,
Adam. Prints one table; run with the original Estimator's interpreter to add
its column (a venv with tensorflow-cpu==2.15.1 tensorflow-estimator==2.15.0):

    python bench/estimator_speed.py --original-python /path/to/venv215/bin/python

Figures: "steady" is steps (or batches, or examples) per second once running,
measured as the difference between a long and a short call; "overhead" is the
fixed cost of one call (train/evaluate/predict of a single batch). Each figure
is the best of several alternating rounds, as shared machines are noisy.
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

FEATURES, CLASSES, BATCH, HIDDEN = 64, 10, 128, 256


def data(n=BATCH * 64):
    rng = np.random.RandomState(0)
    x = rng.rand(n, FEATURES).astype(np.float32)
    y = rng.randint(0, CLASSES, n).astype(np.int64)
    return x, y


def mlp_model_fn(tf, estimator_module):
    """The bench MLP as a model_fn for `estimator_module` (the shim or the original)."""

    def model_fn(features, labels, mode):
        net = features["x"]
        for _ in range(3):
            net = tf.keras.layers.Dense(HIDDEN, activation="relu")(net)
        logits = tf.keras.layers.Dense(CLASSES)(net)
        if mode == estimator_module.ModeKeys.PREDICT:
            return estimator_module.EstimatorSpec(mode, predictions={"class": tf.argmax(logits, 1)})
        loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
        if mode == estimator_module.ModeKeys.EVAL:
            accuracy = tf.compat.v1.metrics.accuracy(labels, tf.argmax(logits, 1))
            return estimator_module.EstimatorSpec(
                mode, loss=loss, eval_metric_ops={"acc": accuracy}
            )
        train_op = tf.compat.v1.train.AdamOptimizer(1e-3).minimize(
            loss, global_step=tf.compat.v1.train.get_global_step()
        )
        return estimator_module.EstimatorSpec(mode, loss=loss, train_op=train_op)

    return model_fn


def estimator_figures(tf, estimator_module, steps, eval_batches):
    x, y = data()

    def input_fn(batches=None):
        def fn():
            ds = tf.data.Dataset.from_tensor_slices(({"x": x}, y)).repeat().batch(BATCH)
            return ds.take(batches) if batches else ds

        return fn

    model_fn = mlp_model_fn(tf, estimator_module)
    estimator = estimator_module.Estimator(model_fn, model_dir=tempfile.mkdtemp())
    train = steady_and_overhead(lambda n: estimator.train(input_fn(), steps=n), steps)
    evaluate = steady_and_overhead(lambda n: estimator.evaluate(input_fn(n)), eval_batches)
    predict = steady_and_overhead(
        lambda n: sum(1 for _ in estimator.predict(input_fn(n))), eval_batches
    )
    return {
        "train": train,
        "evaluate": evaluate,
        "predict": (predict[0] * BATCH, predict[1]),
    }


def keras_model(keras):
    model = keras.Sequential(
        [keras.Input((FEATURES,))]
        + [keras.layers.Dense(HIDDEN, activation="relu") for _ in range(3)]
        + [keras.layers.Dense(CLASSES)]
    )
    return model


def native_fit_figures(tf, keras, steps):
    x, y = data()
    ds = tf.data.Dataset.from_tensor_slices((x, y)).repeat().batch(BATCH)
    model = keras_model(keras)
    model.compile(
        optimizer=keras.optimizers.Adam(1e-3),
        loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
    )
    return steady_and_overhead(
        lambda n: model.fit(ds, epochs=1, steps_per_epoch=n, verbose=0), steps
    )


def ceiling_figures(tf, keras, steps):
    x, y = data()
    iterator = iter(tf.data.Dataset.from_tensor_slices((x, y)).repeat().batch(BATCH))
    model = keras_model(keras)
    optimizer = keras.optimizers.Adam(1e-3)
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    @tf.function
    def run(n):
        for _ in tf.range(n):
            features, labels = next(iterator)
            with tf.GradientTape() as tape:
                loss = loss_fn(labels, model(features, training=True))
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    return steady_and_overhead(lambda n: run(tf.constant(n)).numpy(), steps)


def measure(mode, steps, eval_batches):
    import tensorflow as tf

    tf.get_logger().setLevel("ERROR")
    if mode == "original":
        return {"original": estimator_figures(tf, tf.estimator, steps, eval_batches)}
    import keras

    import tfestimator_compat

    return {
        "shim": estimator_figures(tf, tfestimator_compat, steps, eval_batches),
        "keras_fit": {"train": native_fit_figures(tf, keras, steps)},
        "ceiling": {"train": ceiling_figures(tf, keras, steps)},
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--original-python", help="interpreter with tensorflow-estimator 2.15")
    parser.add_argument("--steps", type=int, default=3000)
    parser.add_argument("--eval-batches", type=int, default=300)
    parser.add_argument(
        "--rounds",
        type=int,
        default=3,
        help="measure each contender this many times, alternating, and keep the best",
    )
    parser.add_argument("--json-only", choices=["original", "shim"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.json_only:
        print(json.dumps(measure(args.json_only, args.steps, args.eval_batches)))
        return
    results = {}
    for _ in range(args.rounds):
        this_round = measure("shim", args.steps, args.eval_batches)
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
                )
            )
        results = best_of(results, this_round)
    report(results, args.rounds)


def best_of(results, this_round):
    """Per figure, the best so far: the highest rate and the lowest overhead."""
    best = {}
    for column, figures in this_round.items():
        best[column] = {}
        for key, (rate, overhead) in figures.items():
            if key in results.get(column, {}):
                old_rate, old_overhead = results[column][key]
                rate, overhead = max(rate, old_rate), min(overhead, old_overhead)
            best[column][key] = (rate, overhead)
    return best


def report(results, rounds):
    columns = [c for c in ("shim", "original", "keras_fit", "ceiling") if c in results]
    print(f"3x{HIDDEN} MLP, batch {BATCH}, Adam, {os.cpu_count()} CPUs, best of {rounds} rounds")
    print(f"{'':28}" + "".join(f"{c:>14}" for c in columns))
    rows = [
        ("train steady steps/s", "train", 0, "{:.0f}"),
        ("train overhead per call ms", "train", 1, "{:.0f}"),
        ("evaluate steady batches/s", "evaluate", 0, "{:.0f}"),
        ("evaluate overhead per call ms", "evaluate", 1, "{:.0f}"),
        ("predict steady examples/s", "predict", 0, "{:.0f}"),
        ("predict overhead per call ms", "predict", 1, "{:.0f}"),
    ]
    for label, key, index, fmt in rows:
        cells = []
        for column in columns:
            value = results[column].get(key)
            if value is None:
                cells.append(f"{'-':>14}")
            else:
                number = value[index] * (1000 if index == 1 else 1)
                cells.append(f"{fmt.format(number):>14}")
        print(f"{label:28}" + "".join(cells))
    shim = results["shim"]["train"][0]
    if "original" in results:
        print(f"shim / original train steps/s: {shim / results['original']['train'][0]:.2f}x")
    print(f"shim / ceiling train steps/s:  {shim / results['ceiling']['train'][0]:.2f}x")


if __name__ == "__main__":
    sys.exit(main())
