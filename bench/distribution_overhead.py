"""MirroredStrategy overhead: one device vs two logical CPU devices, same global batch.

The model is estimator_speed.py's (a 3x256 ReLU MLP, 10 classes, Adam) with a
global batch of 128: one device reads batches of 128; with
`RunConfig(train_distribute=MirroredStrategy)` on two logical CPU devices each
replica reads 64 and the gradients are all-reduced every step. Logical
devices split the same CPU cores, so this measures what replication costs
(per-replica work, all-reduce, synchronization), not a speed-up.

    python bench/distribution_overhead.py [--steps 1000]

Each setup runs in its own process (logical devices must be configured before
TensorFlow starts); steady steps/s is measured as the difference between a
long and a short `train()` call, best of `--rounds` alternating rounds.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

FEATURES, CLASSES, GLOBAL_BATCH, HIDDEN = 64, 10, 128, 256


def child(replicas, steps):
    """Runs in the measuring process: prints steady steps/s as JSON."""
    import numpy as np
    import tensorflow as tf

    if replicas > 1:
        cpu = tf.config.list_physical_devices("CPU")[0]
        tf.config.set_logical_device_configuration(
            cpu, [tf.config.LogicalDeviceConfiguration()] * replicas
        )
    import tfestimator_compat as est

    rng = np.random.RandomState(0)
    x = rng.rand(GLOBAL_BATCH * 64, FEATURES).astype(np.float32)
    y = rng.randint(0, CLASSES, len(x)).astype(np.int64)

    def model_fn(features, labels, mode):
        net = features["x"]
        for _ in range(3):
            net = tf.keras.layers.Dense(HIDDEN, activation="relu")(net)
        logits = tf.keras.layers.Dense(CLASSES)(net)
        loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
        train_op = tf.compat.v1.train.AdamOptimizer(1e-3).minimize(
            loss, global_step=tf.compat.v1.train.get_global_step()
        )
        return est.EstimatorSpec(mode, loss=loss, train_op=train_op)

    def input_fn():
        ds = tf.data.Dataset.from_tensor_slices(({"x": x}, y)).repeat()
        return ds.batch(GLOBAL_BATCH // replicas)

    strategy = None
    if replicas > 1:
        strategy = tf.distribute.MirroredStrategy([f"/cpu:{i}" for i in range(replicas)])
    config = est.RunConfig(
        model_dir=tempfile.mkdtemp(),
        train_distribute=strategy,
        # A checkpoint only at the start and end of each call, so each call
        # resumes the previous one (without checkpoints every call starts over).
        save_checkpoints_steps=10**9,
        save_summary_steps=0,
        log_step_count_steps=10**9,
    )
    estimator = est.Estimator(model_fn, config=config)
    estimator.train(input_fn, steps=50)  # traces and warms up

    def timed(n):
        start = time.perf_counter()
        estimator.train(input_fn, steps=n)
        return time.perf_counter() - start

    short, long = timed(steps // 5), timed(steps)
    print(json.dumps({"steps_per_sec": (steps - steps // 5) / (long - short)}))


def measure(replicas, steps):
    out = subprocess.run(
        [sys.executable, __file__, "--child", str(replicas), "--steps", str(steps)],
        capture_output=True,
        text=True,
        check=True,
        env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3"),
    )
    return json.loads(out.stdout.strip().splitlines()[-1])["steps_per_sec"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        return child(args.child, args.steps)
    best = {1: 0.0, 2: 0.0}
    for _ in range(args.rounds):
        for replicas in best:
            best[replicas] = max(best[replicas], measure(replicas, args.steps))
    print(f"global batch {GLOBAL_BATCH}, 3x{HIDDEN} MLP, Adam; best of {args.rounds} rounds")
    print(f"{'setup':<44}{'steps/s':>10}{'relative':>10}")
    print(f"{'one device (batch 128)':<44}{best[1]:>10.0f}{1.0:>10.2f}")
    print(
        f"{'MirroredStrategy, 2 logical CPUs (2 x 64)':<44}{best[2]:>10.0f}"
        f"{best[2] / best[1]:>10.2f}"
    )


if __name__ == "__main__":
    main()
