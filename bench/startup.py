"""Start-up: where the seconds before a program's first step go, shim against original.

Each figure is the best of `--rounds` fresh processes, cases alternating:

- imports, timed inside one process in the order a program meets them:
  `import tensorflow`, then `import keras`, then `import tfestimator_compat`
  (the shim's own share: what it adds after TensorFlow and Keras), then the
  first read of `tf.estimator.Estimator` (which imports the engine);
- the same shim share with the package's modules compiled from source, as on a
  machine with `PYTHONDONTWRITEBYTECODE=1` and no `__pycache__` (an editable
  install in such an environment);
- the same two processes timed whole: `import tensorflow, keras` against
  `import tfestimator_compat`, their difference the shim's share again;
- with `--original-python`: `import tensorflow`, then `tf.estimator` (the
  original's lazy import of tensorflow_estimator);
- a tiny TF1-style program (`tf.compat.v1.layers.dense`, one training step)
  from process start to its first step: `tfestimator-compat run prog.py`,
  the same program as the one cell of a notebook (`run nb.ipynb`, cells run in
  the command's process), and `python prog.py` with `import
  tfestimator_compat`, against the original's `python prog.py` (the original
  venv has no Jupyter kernel to run the notebook with).

    python bench/startup.py [--rounds 3] [--original-python /path/to/venv215/bin/python]

The shim's cases run with bytecode written (one untimed warm-up first), as
after `pip install`; `PYTHONDONTWRITEBYTECODE` is dropped from their
environment.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

IMPORTS = textwrap.dedent(
    """
    import json, sys, tempfile, time
    marks = [time.perf_counter()]
    import tensorflow as tf
    marks.append(time.perf_counter())
    import keras
    marks.append(time.perf_counter())
    if sys.argv[1] == "no-bytecode":  # the shim's modules compiled from source
        sys.dont_write_bytecode = True
        sys.pycache_prefix = tempfile.mkdtemp()
    import tfestimator_compat
    marks.append(time.perf_counter())
    tf.estimator.Estimator
    marks.append(time.perf_counter())
    modules = sum(name.startswith("tfestimator_compat") for name in sys.modules)
    steps = [b - a for a, b in zip(marks, marks[1:])]
    labels = ["tensorflow", "keras", "shim", "Estimator"]
    print(json.dumps(dict(zip(labels, steps), modules=modules)))
    """
)

ORIGINAL_IMPORTS = textwrap.dedent(
    """
    import json, time
    marks = [time.perf_counter()]
    import tensorflow as tf
    marks.append(time.perf_counter())
    tf.estimator.Estimator
    marks.append(time.perf_counter())
    print(json.dumps({"tensorflow": marks[1] - marks[0], "tf.estimator": marks[2] - marks[1]}))
    """
)

PROGRAM = textwrap.dedent(
    """
    import os
    import sys
    import time

    import numpy as np
    import tensorflow as tf

    if "--shim" in sys.argv:
        import tfestimator_compat  # noqa: F401


    class FirstStep(tf.estimator.SessionRunHook):
        def __init__(self):
            self.seen = False

        def after_run(self, run_context, run_values):
            if not self.seen:
                self.seen = True
                with open(os.environ["STARTUP_MARK"], "w") as f:
                    f.write(str(time.time()))


    def model_fn(features, labels, mode):
        logits = tf.compat.v1.layers.dense(features["x"], 1)
        loss = tf.compat.v1.losses.mean_squared_error(labels, logits)
        step = tf.compat.v1.train.get_global_step()
        train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(loss, step)
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


    def input_fn():
        x = np.random.RandomState(0).rand(32, 2).astype("float32")
        dataset = tf.data.Dataset.from_tensor_slices(({"x": x}, x.sum(1, keepdims=True)))
        return dataset.batch(8).repeat()


    estimator = tf.estimator.Estimator(model_fn, model_dir=os.environ["STARTUP_MODEL_DIR"])
    estimator.train(input_fn, steps=1, hooks=[FirstStep()])
    """
)


def _env(bytecode=True):
    env = dict(os.environ, PYTHONPATH=REPO, TF_CPP_MIN_LOG_LEVEL="3")
    if bytecode:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def _json(argv, env):
    result = subprocess.run(argv, env=env, cwd=REPO, capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"{argv[:3]} exited {result.returncode}:\n{result.stderr[-3000:]}")
    return json.loads(result.stdout.strip().splitlines()[-1])


def _wall(argv, env):
    start = time.perf_counter()
    result = subprocess.run(argv, env=env, cwd=REPO, capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"{argv[:3]} exited {result.returncode}:\n{result.stderr[-3000:]}")
    return time.perf_counter() - start


def _to_first_step(argv, env):
    """Seconds from starting `argv` to the program's first step, in a fresh model_dir."""
    with tempfile.TemporaryDirectory() as folder:
        mark = os.path.join(folder, "first_step")
        env = dict(env, STARTUP_MODEL_DIR=os.path.join(folder, "model"), STARTUP_MARK=mark)
        start = time.time()
        result = subprocess.run(argv, env=env, cwd=REPO, capture_output=True, text=True)
        if result.returncode != 0 or not os.path.exists(mark):
            raise RuntimeError(f"{argv} exited {result.returncode}:\n{result.stderr[-3000:]}")
        with open(mark) as f:
            return float(f.read()) - start


def cases(original_python, program, notebook):
    """Label -> a function that runs the case once and returns its figures."""
    python = sys.executable
    shim = _env()
    run = [python, "-m", "tfestimator_compat_command", "run"]
    found = {
        "imports": lambda: _json([python, "-c", IMPORTS, "bytecode"], shim),
        "imports, shim compiled from source": lambda: _json(
            [python, "-c", IMPORTS, "no-bytecode"], shim
        ),
        "process: import tensorflow, keras": lambda: _wall(
            [python, "-c", "import tensorflow, keras"], shim
        ),
        "process: import tfestimator_compat": lambda: _wall(
            [python, "-c", "import tfestimator_compat"], shim
        ),
        "first step: tfestimator-compat run prog.py": lambda: _to_first_step([*run, program], shim),
        "first step: tfestimator-compat run nb.ipynb": lambda: _to_first_step(
            [*run, notebook], shim
        ),
        "first step: python prog.py (imports the shim)": lambda: _to_first_step(
            [python, program, "--shim"], shim
        ),
    }
    if original_python:
        original = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
        found["original: imports"] = lambda: _json(
            [original_python, "-c", ORIGINAL_IMPORTS], original
        )
        found["original first step: python prog.py"] = lambda: _to_first_step(
            [original_python, program], original
        )
    return found


def _notebook(source):
    """A notebook whose one code cell is `source`."""
    cell = {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None}
    cell["source"] = source.splitlines(keepends=True)
    return {"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}


def best(figures):
    """The smallest of each figure over the rounds (a number, or a dict of numbers)."""
    if isinstance(figures[0], dict):
        return {key: min(figure[key] for figure in figures) for key in figures[0]}
    return min(figures)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--original-python", default=None)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        program = os.path.join(folder, "prog.py")
        with open(program, "w") as f:
            f.write(PROGRAM)
        notebook = os.path.join(folder, "nb.ipynb")
        with open(notebook, "w") as f:
            json.dump(_notebook(PROGRAM), f)
        runs = cases(options.original_python, program, notebook)
        runs["imports"]()  # warm-up: writes the shim's bytecode, as `pip install` does
        results = {label: [] for label in runs}
        for _ in range(options.rounds):
            for label, case in runs.items():
                results[label].append(case())
    report(
        {label: best(figures) for label, figures in results.items()},
        options.rounds,
    )


def report(figures, rounds):
    print(f"best of {rounds} fresh processes, seconds ({sys.version.split()[0]})")
    imports = figures["imports"]
    cold = figures["imports, shim compiled from source"]
    rows = [
        ("import tensorflow", imports["tensorflow"]),
        ("import keras (after tensorflow)", imports["keras"]),
        ("import tfestimator_compat = shim's own share", imports["shim"]),
        ("  ... shim compiled from source (no bytecode)", cold["shim"]),
        ("first read of tf.estimator.Estimator", imports["Estimator"]),
        ("  ... shim compiled from source (no bytecode)", cold["Estimator"]),
        ("process: import tensorflow, keras", figures["process: import tensorflow, keras"]),
        ("process: import tfestimator_compat", figures["process: import tfestimator_compat"]),
        (
            "  shim's share, process difference",
            figures["process: import tfestimator_compat"]
            - figures["process: import tensorflow, keras"],
        ),
    ]
    if "original: imports" in figures:
        rows += [
            ("original: import tensorflow (2.15)", figures["original: imports"]["tensorflow"]),
            ("original: tf.estimator", figures["original: imports"]["tf.estimator"]),
        ]
    rows += [(label, value) for label, value in figures.items() if "first step" in label]
    for label, value in rows:
        print(f"{label:50s} {value:7.3f}")
    print(f"shim modules imported by `import tfestimator_compat` + Estimator: {imports['modules']}")


if __name__ == "__main__":
    main()
