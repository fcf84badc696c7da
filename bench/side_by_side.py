"""Timing helpers shared by the bench scripts, and running one side in another interpreter.

A bench script measures the shim in its own process and the original
tensorflow-estimator 2.15 by running itself under that venv's interpreter,
which prints its figures as one JSON line.
"""

import json
import os
import resource
import subprocess
import sys
import time


def timed(fn):
    """Seconds `fn()` took."""
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def steady_and_overhead(run, long, short=1, repeats=5):
    """Runs `run(n)` for a short and a long n; returns (items/s, seconds per call)."""
    run(short)  # warm up: traces, caches, first checkpoint
    best_short = min(timed(lambda: run(short)) for _ in range(repeats))
    best_long = min(timed(lambda: run(long)) for _ in range(repeats))
    if best_long <= best_short:
        # Noise swamped the difference (a loaded machine): no figure, not an absurd one.
        return float("nan"), best_short
    return (long - short) / (best_long - best_short), best_short


def children_cpu_seconds():
    """CPU seconds the child processes that were waited for used so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def rate_between(short, long, short_job, long_job):
    """Steps/s and CPU ms per step between a short and a long job of one setup.

    `short_job` and `long_job` are each (seconds, CPU seconds) of a job of
    `short` and `long` steps, so what both jobs pay once (start-up,
    checkpoints) drops out. The rate is NaN where noise made the long job
    no slower.
    """
    (short_secs, short_cpu), (long_secs, long_cpu) = short_job, long_job
    cpu_ms = 1000 * (long_cpu - short_cpu) / (long - short)
    if long_secs <= short_secs:
        return float("nan"), cpu_ms
    return (long - short) / (long_secs - short_secs), cpu_ms


def tensorflow_version(python):
    """The TensorFlow release `python` imports."""
    command = [python, "-c", "import tensorflow as tf; print(tf.__version__)"]
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    output = subprocess.run(command, capture_output=True, text=True, env=env, check=True)
    return output.stdout.strip().splitlines()[-1]


def run_json(python, script, *args):
    """Runs `python script *args` and returns the JSON object its last line printed."""
    result = subprocess.run(
        [python, script, *map(str, args)], capture_output=True, text=True, check=False
    )
    if result.returncode != 0:
        raise RuntimeError(f"{python} {script} failed:\n{result.stderr[-3000:]}")
    return json.loads(result.stdout.strip().splitlines()[-1])


def alternating_rounds(script, original_python, rounds, *args, native=False, more_sides=()):
    """Side -> the JSON results of `script --json-only SIDE *args`, sides alternating.

    The shim runs under this interpreter, the original under `original_python`
    (skipped when None), and with `native` a "native" side (the same program
    written in plain Keras) under this interpreter too, as do `more_sides`
    (variants of the shim, after the shim); alternating evens out a shared
    machine's noise.
    """
    sides = {"shim": sys.executable}
    sides.update({side: sys.executable for side in more_sides})
    if original_python:
        sides["original"] = original_python
    if native:
        sides["native"] = sys.executable
    results = {side: [] for side in sides}
    for _ in range(rounds):
        for side, python in sides.items():
            results[side].append(run_json(python, script, "--json-only", side, *args))
    return results
