"""KMeans (`tf.compat.v1.estimator.experimental.KMeans`): the shim vs the original.

Mini-batch k-means (batches of 100) and full-batch Lloyd iterations on 2000
synthetic points in 8 dimensions, 10 clusters, k-means++ initialization.
Run with the original Estimator's interpreter to add its column:

    python bench/kmeans_speed.py --original-python /path/to/venv215/bin/python

Each side runs in a fresh process per round, shim and original alternating;
each figure is the best of the rounds. "steps/s" times a whole
`train(steps=N)` call after a first, untimed one (tracing, initialization,
first checkpoint).
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

ROWS, DIMENSIONS, CLUSTERS, BATCH = 2000, 8, 10, 100


def points():
    rng = np.random.RandomState(0)
    centers = rng.uniform(-10, 10, (CLUSTERS, DIMENSIONS))
    return (centers[rng.randint(0, CLUSTERS, ROWS)] + rng.randn(ROWS, DIMENSIONS)).astype(
        np.float32
    )


def measure(tf, steps):
    data = points()
    results = {}
    for mode, input_fn in (
        ("mini-batch", lambda: tf.data.Dataset.from_tensor_slices(data).batch(BATCH).repeat()),
        ("full-batch", lambda: tf.data.Dataset.from_tensors(data).repeat()),
    ):
        kmeans = tf.compat.v1.estimator.experimental.KMeans(
            CLUSTERS,
            model_dir=tempfile.mkdtemp(),
            initial_clusters="kmeans_plus_plus",
            use_mini_batch=mode == "mini-batch",
            config=tf.estimator.RunConfig(tf_random_seed=1),
        )
        kmeans.train(input_fn, steps=10)
        results[f"{mode} steps/s"] = steps / timed(
            lambda k=kmeans, f=input_fn: k.train(f, steps=steps)
        )
        once = lambda: tf.data.Dataset.from_tensors(data)  # noqa: E731
        results[f"{mode} score"] = float(kmeans.score(once))
    return results


def measure_side(side, steps):
    import tensorflow as tf

    tf.get_logger().setLevel("ERROR")
    if side == "shim":
        import tfestimator_compat  # noqa: F401
    return measure(tf, steps)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--original-python", help="interpreter with tensorflow-estimator 2.15")
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json-only", choices=["original", "shim"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.json_only:
        print(json.dumps(measure_side(args.json_only, args.steps)))
        return
    rounds = alternating_rounds(__file__, args.original_python, args.rounds, "--steps", args.steps)
    print(
        f"KMeans, {ROWS} points x {DIMENSIONS}, {CLUSTERS} clusters, {args.steps} steps; "
        f"best of {args.rounds} rounds, {os.cpu_count()} CPUs"
    )
    print(f"{'':22}" + "".join(f"{side:>12}" for side in rounds))
    for name in rounds["shim"][0]:
        best = min if name.endswith("score") else max
        cells = [f"{best(r[name] for r in results):.1f}" for results in rounds.values()]
        print(f"{name:22}" + "".join(f"{cell:>12}" for cell in cells))


if __name__ == "__main__":
    sys.exit(main())
