"""One TF1 parameter-server program under several TensorFlow releases: what the release costs.

`ps_throughput.py` compares the shim, on the TensorFlow it runs on, with
the original on TensorFlow 2.15. This script tells how much of such a gap
the release itself makes: it runs the same TF1 program, with neither the
shim nor the Estimator, under each interpreter given. The program is the
bench MLP of estimator_speed.py (3x256 ReLU on 64 features, 10 classes,
batch 128, TF1 Adam) as a TF1 graph whose variables `replica_device_setter`
puts on 2 ps tasks; a chief trains it alone through a `Session` on its
server, one `Session.run` per step, as an estimator's chief did.

    python bench/ps_tf_releases.py /path/to/venv215/bin/python /path/to/venv216/bin/python ...

Each interpreter runs a job of 500 and one of 4500 steps (after 50 warm-up
steps); "steps/s" is the difference of steps over the difference of the
timed loops' seconds, "CPU ms/step" the difference of the CPU seconds all
three processes used, per step. Interpreters alternate over `--rounds`
rounds; each figure is the best (steps/s) or lowest (CPU) of the rounds.
"""

import argparse
import json
import os
import subprocess
import sys
import time

from estimator_speed import BATCH
from estimator_speed import CLASSES
from estimator_speed import HIDDEN
from estimator_speed import data
from ps_throughput import PS_TASKS
from ps_throughput import free_port
from side_by_side import children_cpu_seconds
from side_by_side import rate_between
from side_by_side import tensorflow_version

SHORT, LONG, WARM_UP = 500, 4500, 50


def run_task(job, index, cluster, steps):
    """One task: a ps task serves until it is killed; the chief trains `steps` steps."""
    import tensorflow as tf

    tf.compat.v1.disable_eager_execution()
    spec = tf.train.ClusterSpec(cluster)
    server = tf.distribute.Server(spec, job_name=job, task_index=index, start=True)
    if job == "ps":
        server.join()
    setter = tf.compat.v1.train.replica_device_setter(
        ps_tasks=PS_TASKS, worker_device="/job:chief/task:0", cluster=spec
    )
    with tf.compat.v1.device(setter):
        train_op = mlp_train_op(tf)
        init = tf.compat.v1.global_variables_initializer()
    with tf.compat.v1.Session(server.target) as session:
        session.run(init)
        for _ in range(WARM_UP):
            session.run(train_op)
        start = time.perf_counter()
        for _ in range(steps):
            session.run(train_op)
        print(json.dumps({"seconds": time.perf_counter() - start}), flush=True)


def mlp_train_op(tf):
    x, y = data()
    dataset = tf.compat.v1.data.Dataset.from_tensor_slices((x, y)).repeat().batch(BATCH)
    features, labels = tf.compat.v1.data.make_one_shot_iterator(dataset).get_next()
    net = features
    for index, units in enumerate([HIDDEN, HIDDEN, HIDDEN, CLASSES]):
        kernel = tf.compat.v1.get_variable(
            f"dense_{index}/kernel",
            [net.shape[-1], units],
            initializer=tf.compat.v1.glorot_uniform_initializer(seed=index),
        )
        bias = tf.compat.v1.get_variable(
            f"dense_{index}/bias", [units], initializer=tf.compat.v1.zeros_initializer()
        )
        net = tf.matmul(net, kernel) + bias
        net = tf.nn.relu(net) if units != CLASSES else net
    loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, net)
    global_step = tf.compat.v1.train.get_or_create_global_step()
    return tf.compat.v1.train.AdamOptimizer(1e-3).minimize(loss, global_step=global_step)


def job(python, steps, timeout=600):
    """(seconds of the chief's timed loop, CPU seconds of all the job's processes)."""
    cluster = {
        "chief": [f"localhost:{free_port()}"],
        "ps": [f"localhost:{free_port()}" for _ in range(PS_TASKS)],
    }
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    cpu_before = children_cpu_seconds()
    tasks = [
        subprocess.Popen(
            [python, __file__, "--task", name, str(index), json.dumps(cluster), str(steps)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        for name, count in (("ps", PS_TASKS), ("chief", 1))
        for index in range(count)
    ]
    try:
        stdout, stderr = tasks[-1].communicate(timeout=timeout)
        if tasks[-1].returncode != 0:
            raise RuntimeError(f"{python}: the chief failed:\n{stderr[-3000:]}")
    finally:
        for task in tasks:
            task.kill()
            task.communicate()
    seconds = json.loads(stdout.strip().splitlines()[-1])["seconds"]
    return seconds, children_cpu_seconds() - cpu_before


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pythons", nargs="*", help="interpreters, each with a TensorFlow")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--task", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.task:
        name, index, cluster, steps = args.task
        return run_task(name, int(index), json.loads(cluster), int(steps))
    pythons = args.pythons or [sys.executable]
    versions = {python: tensorflow_version(python) for python in pythons}
    rate, cpu = {}, {}
    for _ in range(args.rounds):
        for python in pythons:
            steps_per_sec, cpu_ms = rate_between(SHORT, LONG, job(python, SHORT), job(python, LONG))
            # A NaN rate (noise) never beats a number: max keeps the first argument.
            rate[python] = max(rate.get(python, 0.0), steps_per_sec)
            cpu[python] = min(cpu.get(python, float("inf")), cpu_ms)
    first = pythons[0]
    width = max(12, *(len(version) + 2 for version in versions.values()))
    against = "rate vs " + versions[first]
    print(f"{'TensorFlow':{width}}{'steps/s':>10}{'CPU ms/step':>14}{against:>18}")
    for python in pythons:
        print(
            f"{versions[python]:{width}}{rate[python]:>10.0f}{cpu[python]:>14.2f}"
            f"{rate[python] / rate[first]:>17.2f}x"
        )
    print(
        f"The same TF1 program (the bench MLP, a chief training alone against {PS_TASKS} "
        f"ps tasks), all on this machine's {os.cpu_count()} CPUs; best of {args.rounds} rounds."
    )


if __name__ == "__main__":
    sys.exit(main())
