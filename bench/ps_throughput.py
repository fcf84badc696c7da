"""Parameter-server jobs on localhost: steps/s with 1 and 2 workers beside one process.

Two models, each an unchanged estimator program that every task of a
`TF_CONFIG` cluster runs (real `tf.distribute.Server` tasks, one process per
task, on free localhost ports):

- mlp: the bench MLP of estimator_speed.py (3x256 ReLU on 64 features, 10
  classes, batch 128, Adam), a custom model_fn;
- wide_deep: a V1 `DNNLinearCombinedClassifier` (hidden 256/128, batch 256)
  whose 1,000,000-row id column feeds a 16-wide embedding and the linear
  weights, in 2 parts by `input_layer_partitioner=fixed_size_partitioner(2)`.

Setups: one process (no TF_CONFIG, `Estimator.train`), and a chief, a ps
task and 1 or 2 workers
(`train_and_evaluate`, which starts the servers in the original). Here the
chief schedules chunks of steps onto the workers and onto itself; in the
original every worker and the chief ran its own loop against the ps tasks.
Either way the chief trains too.
With `--original-python` each setup also runs under tensorflow-estimator 2.15.
A `native` side runs each model as TensorFlow's own `ParameterServerStrategy`
custom loop (`run_native_task`), the most TensorFlow's engine gives here.
`--python` adds interpreters with other TensorFlow releases (the shim
supports 2.16 and later): the shim and native sides run under each, so one
run shows how much of a gap is the TensorFlow release rather than the shim.

    python bench/ps_throughput.py --original-python /path/to/venv215/bin/python \
        [--python /path/to/venv216/bin/python]

A job trains a fresh model_dir to `max_steps` (checkpoints only at its start
and end); "steps/s" is (long - short) / (seconds of a long job - seconds of a
short one), timed on the chief, so starting the cluster and the checkpoints
drop out; best of `--rounds` alternating rounds. "CPU ms/step" is the same
difference of the CPU seconds all the job's processes used (the lowest of
the rounds). All tasks share this machine's cores, so the CPU a step costs
bounds the rate: on one machine the figures show what the protocol costs
(RPCs to the ps tasks, scheduling), not a cluster's speed-up.
"""

import argparse
import json
import math
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

import numpy as np
from estimator_speed import BATCH as MLP_BATCH
from estimator_speed import CLASSES as MLP_CLASSES
from estimator_speed import FEATURES as MLP_FEATURES
from estimator_speed import HIDDEN as MLP_HIDDEN
from estimator_speed import data as mlp_data
from estimator_speed import mlp_model_fn
from side_by_side import children_cpu_seconds
from side_by_side import rate_between
from side_by_side import tensorflow_version

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODELS = ("mlp", "wide_deep")
SETUPS = {"one process": 0, "1 worker": 1, "2 workers": 2}
# The embedding and linear weight are split over the two ps tasks.
PS_TASKS = 2
PARTS = 2
ID_ROWS, WIDE_DEEP_BATCH = 1_000_000, 256


def wide_deep_estimator(tf, model_dir, config):
    ids = tf.feature_column.categorical_column_with_identity("id", ID_ROWS)
    x = tf.feature_column.numeric_column("x", shape=[8])
    return tf.compat.v1.estimator.DNNLinearCombinedClassifier(
        model_dir=model_dir,
        linear_feature_columns=[ids, x],
        dnn_feature_columns=[tf.feature_column.embedding_column(ids, 16), x],
        dnn_hidden_units=[256, 128],
        input_layer_partitioner=tf.compat.v1.fixed_size_partitioner(PARTS),
        config=config,
    )


def wide_deep_input_fn(tf):
    rng = np.random.RandomState(0)
    rows = WIDE_DEEP_BATCH * 64
    ids = rng.randint(0, ID_ROWS, (rows, 1)).astype(np.int64)
    x = rng.rand(rows, 8).astype(np.float32)
    labels = ((ids[:, 0] % 2) ^ (x[:, 0] > 0.5)).astype(np.int64).reshape(-1, 1)

    def input_fn():
        dataset = tf.data.Dataset.from_tensor_slices(({"id": ids, "x": x}, labels))
        return dataset.repeat().batch(WIDE_DEEP_BATCH)

    return input_fn


def mlp_input_fn(tf):
    x, y = mlp_data()

    def input_fn():
        return tf.data.Dataset.from_tensor_slices(({"x": x}, y)).repeat().batch(MLP_BATCH)

    return input_fn


def run_task(side, model, model_dir, max_steps):
    """One task of a job (TF_CONFIG names it; without it, the job in one process).

    The chief (or the one process) prints the seconds its training took.
    """
    import tensorflow as tf

    if side == "native":
        return run_native_task(tf, model, max_steps)

    if side == "shim":
        import tfestimator_compat  # noqa: F401  (installs tf.estimator)
    tf.get_logger().setLevel("ERROR")
    config = tf.estimator.RunConfig(
        model_dir=model_dir,
        save_checkpoints_steps=10**9,
        save_summary_steps=0,
        log_step_count_steps=10**9,
        experimental_max_worker_delay_secs=0,
    )
    if model == "mlp":
        estimator = tf.estimator.Estimator(mlp_model_fn(tf, tf.estimator), config=config)
        input_fn = mlp_input_fn(tf)
    else:
        estimator = wide_deep_estimator(tf, model_dir, config)
        input_fn = wide_deep_input_fn(tf)
    start = time.perf_counter()
    if "TF_CONFIG" in os.environ:
        tf.estimator.train_and_evaluate(
            estimator,
            tf.estimator.TrainSpec(input_fn, max_steps=max_steps),
            tf.estimator.EvalSpec(input_fn, steps=1),
        )
    else:
        estimator.train(input_fn, max_steps=max_steps)
    if config.is_chief:
        print(json.dumps({"seconds": time.perf_counter() - start}), flush=True)


NATIVE_STEPS_PER_CLOSURE = 100


def run_native_task(tf, model, max_steps):
    """The model as TensorFlow's own parameter-server custom loop, as TensorFlow's
    guide writes it (Keras 3's `fit` takes no `ParameterServerStrategy`): the
    chief coordinates and runs no step, each closure runs 100 steps (the MLP
    with Adam; wide & deep with Adagrad, sparse on the two-part embedding and
    id weights, where the canned model's linear side used FTRL); workers and
    ps tasks serve until they are killed. The ceiling of TensorFlow's own
    engine for these models on this machine."""
    tf.get_logger().setLevel("ERROR")
    resolver = tf.distribute.cluster_resolver.TFConfigClusterResolver()
    if resolver.task_type in ("worker", "ps"):
        server = tf.distribute.Server(
            resolver.cluster_spec(),
            job_name=resolver.task_type,
            task_index=resolver.task_id,
            protocol="grpc",
            start=True,
        )
        server.join()
    start = time.perf_counter()
    if resolver.task_type is None:
        strategy = tf.distribute.get_strategy()
        coordinator = None
    else:
        strategy = tf.distribute.experimental.ParameterServerStrategy(resolver)
        coordinator = tf.distribute.experimental.coordinator.ClusterCoordinator(strategy)
    if model == "wide_deep":
        dataset_fn, steps, step = native_wide_deep(tf, strategy)
    else:
        dataset_fn, steps, step = native_mlp(tf, strategy)
    if coordinator is None:
        iterator = iter(dataset_fn())
        for _ in range(max_steps // NATIVE_STEPS_PER_CLOSURE):
            steps(iterator, tf.constant(NATIVE_STEPS_PER_CLOSURE))
    else:
        iterator = iter(coordinator.create_per_worker_dataset(dataset_fn))
        for _ in range(max_steps // NATIVE_STEPS_PER_CLOSURE):
            coordinator.schedule(steps, args=(iterator, tf.constant(NATIVE_STEPS_PER_CLOSURE)))
        coordinator.join()
    int(step.numpy())
    print(json.dumps({"seconds": time.perf_counter() - start}), flush=True)


def _slots(tf, strategy, variables, count, value=0.0):
    """`count` optimizer slots per variable, each on its variable's ps task."""
    slots = []
    for variable in variables:
        with strategy.extended.colocate_vars_with(variable):
            slots.append([tf.Variable(tf.fill(variable.shape, value)) for _ in range(count)])
    return slots


def native_wide_deep(tf, strategy):
    """The wide & deep model by hand: a 16-wide embedding and per-id linear weights
    of `ID_ROWS` rows, each in `PARTS` parts by id range; DNN 256/128 on the
    embedding and `x`; logistic loss; Adagrad (sparse updates on the parts)."""
    rows = ID_ROWS // PARTS
    glorot = tf.keras.initializers.GlorotUniform(seed=0)
    with strategy.scope():
        embedding = [tf.Variable(tf.random.normal([rows, 16], stddev=0.25)) for _ in range(PARTS)]
        id_weights = [tf.Variable(tf.zeros([rows, 1])) for _ in range(PARTS)]
        dense = [
            tf.Variable(glorot((24, 256))),
            tf.Variable(tf.zeros(256)),
            tf.Variable(glorot((256, 128))),
            tf.Variable(tf.zeros(128)),
            tf.Variable(glorot((128, 1))),
            tf.Variable(tf.zeros(1)),
            tf.Variable(tf.zeros((8, 1))),
            tf.Variable(tf.zeros(1)),
        ]
        sparse = embedding + id_weights
        sparse_accumulators = _slots(tf, strategy, sparse, 1, 0.1)
        dense_accumulators = _slots(tf, strategy, dense, 1, 0.1)
        step = tf.Variable(0, dtype=tf.int64)
    input_fn = wide_deep_input_fn(tf)

    def dataset_fn(_=None):
        return input_fn()

    def lookup(parts, ids):
        part = tf.cast(ids // rows, tf.int32)
        positions = tf.dynamic_partition(tf.range(tf.size(ids)), part, PARTS)
        local = tf.dynamic_partition(ids % rows, part, PARTS)
        found = [tf.gather(variable, index) for variable, index in zip(parts, local)]
        return tf.dynamic_stitch(positions, found)

    @tf.function
    def steps(iterator, n):
        def one_step(i):
            features, labels = next(iterator)
            ids, x = tf.reshape(features["id"], [-1]), features["x"]
            with tf.GradientTape() as tape:
                net = tf.concat([lookup(embedding, ids), x], 1)
                for kernel, bias in zip(dense[0:6:2], dense[1:6:2]):
                    net = net @ kernel + bias
                    net = tf.nn.relu(net) if kernel.shape[-1] != 1 else net
                wide = lookup(id_weights, ids) + x @ dense[6] + dense[7]
                loss = tf.reduce_mean(
                    tf.nn.sigmoid_cross_entropy_with_logits(tf.cast(labels, tf.float32), net + wide)
                )
            grads = tape.gradient(loss, sparse + dense)
            for variable, (accumulator,), grad in zip(sparse, sparse_accumulators, grads):
                tf.raw_ops.ResourceSparseApplyAdagradV2(
                    var=variable.handle,
                    accum=accumulator.handle,
                    lr=0.05,
                    epsilon=1e-7,
                    grad=grad.values,
                    indices=grad.indices,
                )
            for variable, (accumulator,), grad in zip(
                dense, dense_accumulators, grads[len(sparse) :]
            ):
                tf.raw_ops.ResourceApplyAdagradV2(
                    var=variable.handle,
                    accum=accumulator.handle,
                    lr=0.05,
                    epsilon=1e-7,
                    grad=grad,
                )
            step.assign_add(1)
            return i + 1

        tf.while_loop(lambda i: i < n, one_step, [tf.constant(0)])

    return dataset_fn, steps, step


def native_mlp(tf, strategy):
    """The bench MLP by hand, with Adam."""
    x, y = mlp_data()
    sizes = [(MLP_FEATURES, MLP_HIDDEN), (MLP_HIDDEN, MLP_HIDDEN), (MLP_HIDDEN, MLP_HIDDEN)]
    sizes.append((MLP_HIDDEN, MLP_CLASSES))
    with strategy.scope():
        init = tf.keras.initializers.GlorotUniform(seed=0)
        variables = [tf.Variable(init(size)) for size in sizes]
        variables += [tf.Variable(tf.zeros(size[1])) for size in sizes]
        slots = _slots(tf, strategy, variables, 2)
        powers = tf.Variable(0.9), tf.Variable(0.999)
        step = tf.Variable(0, dtype=tf.int64)

    def dataset_fn(_=None):
        return tf.data.Dataset.from_tensor_slices((x, y)).repeat().batch(MLP_BATCH)

    @tf.function
    def steps(iterator, n):
        def one_step(i):
            features, labels = next(iterator)
            with tf.GradientTape() as tape:
                net = features
                for kernel, bias in zip(variables[:3], variables[4:7]):
                    net = tf.nn.relu(net @ kernel + bias)
                logits = net @ variables[3] + variables[7]
                loss = tf.reduce_mean(
                    tf.nn.sparse_softmax_cross_entropy_with_logits(labels, logits)
                )
            for variable, (m, v), grad in zip(variables, slots, tape.gradient(loss, variables)):
                tf.raw_ops.ResourceApplyAdam(
                    var=variable.handle,
                    m=m.handle,
                    v=v.handle,
                    beta1_power=powers[0].read_value(),
                    beta2_power=powers[1].read_value(),
                    lr=1e-3,
                    beta1=0.9,
                    beta2=0.999,
                    epsilon=1e-8,
                    grad=grad,
                )
            powers[0].assign(powers[0] * 0.9)
            powers[1].assign(powers[1] * 0.999)
            step.assign_add(1)
            return i + 1

        tf.while_loop(lambda i: i < n, one_step, [tf.constant(0)])

    return dataset_fn, steps, step


def free_port():
    with socket.socket() as s:
        s.bind(("localhost", 0))
        return s.getsockname()[1]


def start_task(python, side, model, model_dir, max_steps, tf_config):
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    env.pop("TF_CONFIG", None)
    if side != "original":
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [ROOT, env.get("PYTHONPATH")]))
    if tf_config:
        env["TF_CONFIG"] = json.dumps(tf_config)
    command = [python, __file__, "--task", side, model, model_dir, str(max_steps)]
    return subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
    )


def job_seconds(python, side, model, workers, max_steps, timeout=900):
    """Seconds the chief (or the one process) of a fresh job took to train to
    `max_steps`, and the CPU seconds all the job's processes used."""
    cpu_before = children_cpu_seconds()
    seconds = _job(python, side, model, workers, max_steps, timeout)  # waits for every task
    return seconds, children_cpu_seconds() - cpu_before


def _job(python, side, model, workers, max_steps, timeout):
    model_dir = tempfile.mkdtemp(prefix=f"ps-{side}-{model}-")
    try:
        if not workers:
            chief = start_task(python, side, model, model_dir, max_steps, None)
            others = {}
        else:
            jobs = {"chief": 1, "worker": workers, "ps": PS_TASKS}
            cluster = {
                job: [f"localhost:{free_port()}" for _ in range(n)] for job, n in jobs.items()
            }
            tasks = {
                (job, index): start_task(
                    python,
                    side,
                    model,
                    model_dir,
                    max_steps,
                    {"cluster": cluster, "task": {"type": job, "index": index}},
                )
                for job, n in jobs.items()
                for index in range(n)
            }
            chief = tasks.pop(("chief", 0))
            others = tasks
        try:
            stdout, stderr = chief.communicate(timeout=timeout)
            if chief.returncode != 0:
                raise RuntimeError(f"{side} {model} chief failed:\n{stderr[-3000:]}")
            return json.loads(stdout.strip().splitlines()[-1])["seconds"]
        finally:
            end(others, grace_secs=0 if side == "native" else 60)
    finally:
        shutil.rmtree(model_dir, ignore_errors=True)


def end(tasks, grace_secs=60):
    """Waits for the workers and ps tasks to end; the original's ps tasks (and every
    native task) serve for good."""
    deadline = time.time() + grace_secs
    for (job, _), process in tasks.items():
        try:
            process.communicate(timeout=0.1 if job == "ps" else max(deadline - time.time(), 0.1))
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()


def steps_per_sec(python, side, model, workers, short, long):
    """Steps/s and CPU ms per step between a short and a long job; NaN where noise
    made the long one no slower."""
    short_job = job_seconds(python, side, model, workers, short)
    long_job = job_seconds(python, side, model, workers, long)
    return rate_between(short, long, short_job, long_job)


def bench_sides(original_python, other_pythons):
    """Label -> (side, interpreter): the shim and native under this interpreter's
    TensorFlow and each of `other_pythons`', and the original."""
    pythons = [sys.executable, *other_pythons]
    versions = {python: tensorflow_version(python) for python in pythons}
    tagged = len(set(versions.values())) > 1

    def under_each(side):
        return {f"{side} {versions[p]}" if tagged else side: (side, p) for p in pythons}

    sides = under_each("shim")
    if original_python:
        sides["original"] = ("original", original_python)
    return {**sides, **under_each("native")}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--original-python", help="interpreter with tensorflow-estimator 2.15")
    parser.add_argument(
        "--python",
        action="append",
        default=[],
        help="another interpreter (another TensorFlow release, with keras 3) to run the "
        "shim and native sides under too; may be repeated",
    )
    parser.add_argument("--quick", action="store_true", help="shorter jobs, one round")
    parser.add_argument("--rounds", type=int, help="rounds per side (default 2, 1 with --quick)")
    parser.add_argument("--models", nargs="+", choices=MODELS, default=list(MODELS))
    parser.add_argument("--task", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.task:
        side, model, model_dir, max_steps = args.task
        return run_task(side, model, model_dir, int(max_steps))
    short, long = (100, 1100) if args.quick else (200, 3200)
    rounds = args.rounds or (1 if args.quick else 2)
    sides = bench_sides(args.original_python, args.python)
    best, cpu = {}, {}
    for _ in range(rounds):
        for model in args.models:
            for setup, workers in SETUPS.items():
                for label, (side, python) in sides.items():
                    rate, cpu_ms = steps_per_sec(python, side, model, workers, short, long)
                    key = (model, setup, label)
                    best[key] = max(best.get(key, float("nan")), rate, key=_or_lowest)
                    cpu[key] = min(cpu.get(key, float("inf")), cpu_ms)
    print("steps/s (best of the rounds):")
    print_table(best, sides, args.models, rounds, short, long)
    print()
    print("CPU ms per step, all of a job's processes (lowest of the rounds):")
    print_table(cpu, sides, args.models, rounds, short, long, fmt=".2f", ratios=False)


def _or_lowest(rate):
    return float("-inf") if math.isnan(rate) else rate


def _ratios(sides):
    """(shim label, other label) pairs: each shim against the original and
    against native under the same TensorFlow."""
    pairs = []
    for label, (side, python) in sides.items():
        if side != "shim":
            continue
        pairs += [(label, other) for other, (kind, _) in sides.items() if kind == "original"]
        pairs += [
            (label, other)
            for other, (kind, other_python) in sides.items()
            if kind == "native" and other_python == python
        ]
    return pairs


def print_table(values, sides, models, rounds, short, long, fmt=".0f", ratios=True):
    width = max(18, *(len(label) + 2 for label in sides))
    pairs = _ratios(sides) if ratios else []
    header = f"{'model':11}{'setup':13}" + "".join(f"{label:>{width}}" for label in sides)
    header += "".join(f"{a + ' / ' + b:>{len(a) + len(b) + 5}}" for a, b in pairs)
    print(header)
    for model in models:
        for setup in SETUPS:
            row_values = {label: values[model, setup, label] for label in sides}
            row = f"{model:11}{setup:13}"
            row += "".join(f"{value:>{width}{fmt}}" for value in row_values.values())
            row += "".join(
                f"{row_values[a] / row_values[b]:>{len(a) + len(b) + 4}.2f}x" for a, b in pairs
            )
            print(row)
    if not ratios:
        return
    print(
        f"{PS_TASKS} ps tasks and a chief beside the workers, all on this machine's "
        f"{os.cpu_count()} CPUs; jobs of {short} and {long} steps, best of {rounds} rounds. "
        "The shim's and the original's chief train too; native is TensorFlow's own "
        "ParameterServerStrategy custom loop, whose chief only coordinates."
    )


if __name__ == "__main__":
    sys.exit(main())
