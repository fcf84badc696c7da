"""Start-up of the kernel `tfestimator-compat run NB.ipynb` runs, beside TensorFlow's import.

Times, each in fresh processes, best of `--rounds`:
- `python -c "import tensorflow"`: what importing TensorFlow costs by itself;
- kernel ready: from `KernelManager.start_kernel` to the kernel's first
  `kernel_info` reply, for the shim's launcher (TensorFlow imported by the
  notebook's first cell), the shim's launcher with `--tf1` (TensorFlow
  imported before the first cell), the plain IPython kernel, and a kernel that
  imports the shim before starting (how the launcher started until 2026-12-05);
- first TF cell: the same start, plus running `import tensorflow as tf`
  (and `tf.estimator`, but on the plain kernel) in the kernel: when a
  notebook's first TensorFlow cell is done;
- `tfestimator-compat run NB.ipynb` (`python -m tfestimator_compat_command`,
  what the console script runs): the whole command, for a notebook of that
  one cell.

Each round runs every case once, so load on a shared machine falls on all
of them alike.

    python bench/notebook_startup.py [--rounds 3]
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LAUNCHER = os.path.join(REPO, "tfestimator_compat", "command", "kernel_launcher.py")
FIRST_CELL = "import tensorflow as tf"
CHECK_SHIM = "\ntf.estimator"
IMPORT_TF = [sys.executable, "-c", "import tensorflow"]
KERNELS = {
    "shim launcher (TF in the first cell)": [sys.executable, LAUNCHER],
    "shim launcher --tf1 (TF before the first cell)": [sys.executable, LAUNCHER, "--tf1"],
    "plain IPython kernel": [sys.executable, "-m", "ipykernel_launcher"],
    "shim imported, then the kernel (before 2026-12-05)": [
        sys.executable,
        "-c",
        "import tfestimator_compat, sys\n"
        "from ipykernel import kernelapp\n"
        "kernelapp.launch_new_instance(argv=sys.argv[1:])",
    ],
}


def kernel_seconds(argv, first_cell):
    """Seconds from starting the kernel to its readiness, and to the end of `first_cell`."""
    manager = _kernel_manager(argv)
    start = time.perf_counter()
    manager.start_kernel(stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    client = manager.client()
    client.start_channels()
    try:
        client.wait_for_ready(timeout=300)
        ready = time.perf_counter() - start
        reply = client.execute_interactive(first_cell, timeout=300, output_hook=lambda _: None)
        if reply["content"]["status"] != "ok":
            raise RuntimeError(f"{argv}: the first cell failed: {reply['content']}")
        return ready, time.perf_counter() - start
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)


def _kernel_manager(argv):
    from jupyter_client import KernelManager
    from jupyter_client.kernelspec import KernelSpec
    from jupyter_client.kernelspec import KernelSpecManager

    spec = KernelSpec(argv=[*argv, "-f", "{connection_file}"], display_name="bench")

    class OneSpec(KernelSpecManager):
        def get_kernel_spec(self, kernel_name):
            return spec

    return KernelManager(kernel_name="bench", kernel_spec_manager=OneSpec())


def process_seconds(argv):
    start = time.perf_counter()
    result = subprocess.run(argv, capture_output=True, text=True, cwd=REPO, env=_env())
    if result.returncode:
        raise RuntimeError(f"{argv} exited {result.returncode}:\n{result.stderr[-2000:]}")
    return time.perf_counter() - start


def _env():
    return dict(os.environ, PYTHONPATH=REPO, TF_CPP_MIN_LOG_LEVEL="3")


def one_round(notebook):
    """{label: (ready seconds or None, first TF cell seconds)}, each case once."""
    times = {"python -c 'import tensorflow'": (process_seconds(IMPORT_TF), None)}
    for label, argv in KERNELS.items():
        cell = FIRST_CELL if "ipykernel_launcher" in argv else FIRST_CELL + CHECK_SHIM
        times[label] = kernel_seconds(argv, cell)
    run = [sys.executable, "-m", "tfestimator_compat_command", "run", notebook]
    times["tfestimator-compat run NB.ipynb (that cell)"] = (None, process_seconds(run))
    return times


def _write_notebook(path):
    cell = {"cell_type": "code", "metadata": {}, "source": FIRST_CELL + CHECK_SHIM}
    cell.update(outputs=[], execution_count=None)
    with open(path, "w") as file:
        json.dump({"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, file)


def _seconds(values):
    values = [value for value in values if value is not None]
    return f"{min(values):.2f}" if values else ""


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    options = parser.parse_args()
    os.environ.update(_env())
    with tempfile.TemporaryDirectory() as directory:
        notebook = os.path.join(directory, "first_cell.ipynb")
        _write_notebook(notebook)
        rounds = [one_round(notebook) for _ in range(options.rounds)]
    print(f"best of {options.rounds} rounds, each case once a round in fresh processes; seconds")
    print(f"{'':54s} {'ready':>7s} {'1st TF cell':>12s}")
    for label in rounds[0]:
        ready = _seconds(times[label][0] for times in rounds)
        cell = _seconds(times[label][1] for times in rounds)
        print(f"{label:54s} {ready:>7s} {cell:>12s}")


if __name__ == "__main__":
    main()
