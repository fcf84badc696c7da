"""Programs in graph mode: `in_eager_mode`, and TF 1.x programs under `run --tf1`."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
import tensorflow as tf
from tensorflow.python.eager import context

from tfestimator_compat.engine.tracing.eager import in_eager_mode

FIXTURES = Path(__file__).parent / "fixtures" / "cli"


def _run(args, cwd=FIXTURES):
    return subprocess.run(
        [sys.executable, *map(str, args)], capture_output=True, text=True, timeout=300, cwd=cwd
    )


def _shim(args):
    return _run(["-m", "tfestimator_compat", *args])


def _report(result):
    return f"exit {result.returncode}\nstdout:\n{result.stdout}\nstderr:\n{result.stderr[-4000:]}"


def test_in_eager_mode_turns_eager_on_for_the_call_only():
    @in_eager_mode
    def executing_eagerly(value):
        return tf.executing_eagerly(), value

    with context.graph_mode():
        assert not tf.executing_eagerly()
        assert executing_eagerly(3) == (True, 3)
        assert not tf.executing_eagerly()
    assert executing_eagerly.__in_eager_mode__
    assert in_eager_mode(executing_eagerly) is executing_eagerly
    assert executing_eagerly.__name__ == "executing_eagerly"


def test_in_eager_mode_generator_gives_the_caller_its_mode_between_values():
    @in_eager_mode
    def modes(count):
        for _ in range(count):
            received = yield tf.executing_eagerly()
            assert received is None

    with context.graph_mode():
        seen = []
        for eager_inside in modes(3):
            seen.append((eager_inside, tf.executing_eagerly()))
    assert seen == [(True, False)] * 3


def test_in_eager_mode_generator_cleans_up_when_closed():
    finished = []

    @in_eager_mode
    def values():
        try:
            yield 1
            yield 2
        finally:
            finished.append(tf.executing_eagerly())

    with context.graph_mode():
        generator = values()
        assert next(generator) == 1
        generator.close()
    assert finished == [True]


@pytest.mark.slow
@pytest.mark.parametrize("switch", ["v2", "eager"])
def test_estimator_works_after_eager_execution_was_disabled(switch, tmp_path):
    result = _run(
        [FIXTURES / "graph_mode_estimator.py", switch, tmp_path / "model", tmp_path / "export"]
    )
    assert result.returncode == 0, _report(result)
    assert "global_step 10" in result.stdout
    assert "classes 5" in result.stdout
    assert "exported True" in result.stdout
    assert "final_step 15" in result.stdout


@pytest.mark.slow
def test_tf1_program_runs_unchanged(tmp_path):
    model_dir = tmp_path / "model"
    result = _shim(
        [
            "run",
            "--tf1",
            FIXTURES / "tf1_program.py",
            "--model_dir",
            model_dir,
            "--steps",
            "12",
            "extra",
        ]
    )
    assert result.returncode == 0, _report(result)
    for line in (
        "argv ['extra']",
        "session 12.0",
        "global_step 12",
        "checkpoint True",
        "predictions 3",
        "contrib True",
        "graph_mode True",
    ):
        assert line in result.stdout, _report(result)


def test_tf1_contrib_fails_with_a_clear_error():
    result = _shim(["run", "--tf1", FIXTURES / "tf1_contrib.py"])
    assert result.returncode == 1
    assert "AttributeError: tf.contrib.slim was removed in TensorFlow 2.0" in result.stderr
    assert 'tf1_contrib.py", line 5' in result.stderr


def test_tf1_imports_are_scoped_to_the_program(tmp_path):
    (tmp_path / "helper.py").write_text("import tensorflow as tf\n")
    (tmp_path / "tensorflow_library.py").write_text("import tensorflow as tf\n")
    program = tmp_path / "imports.py"
    program.write_text(
        "import sys\n"
        "import tensorflow as tf\n"
        "import tensorflow.compat.v1 as v1\n"
        "from tensorflow import placeholder, estimator\n"
        "import helper, tensorflow_library\n"
        "import tensorflow.python.framework.ops as ops\n"
        "print('placeholder', placeholder is v1.placeholder)\n"
        "print('estimator', estimator is v1.estimator, hasattr(estimator, 'inputs'))\n"
        "print('graph', tf.executing_eagerly())\n"
        "print('own module', helper.tf is tf)\n"
        "print('library', tensorflow_library.tf is sys.modules['tensorflow'])\n"
        "print('python', ops.Graph is v1.Graph, tf.python.framework.ops is ops)\n"
        "from tensorflow import contrib\n"
        "print('import contrib', contrib is tf.contrib, contrib.__name__)\n"
        "try:\n"
        "    import tensorflow.contrib.slim\n"
        "except ImportError as error:\n"
        "    print('import slim', error.name)\n"
    )
    result = _shim(["run", "--tf1", program])
    assert result.returncode == 0, _report(result)
    out = result.stdout
    assert "placeholder True" in out
    assert "estimator True True" in out
    assert "graph False" in out
    assert "own module True" in out
    assert "library True" in out
    assert "python True True" in out
    assert "import contrib True tensorflow.contrib" in out
    assert "import slim tensorflow.contrib.slim" in out


def test_tf1_notebook(tmp_path):
    notebook = tmp_path / "tf1.ipynb"
    source = (
        "import tensorflow as tf\n"
        "value = tf.placeholder(tf.float32)\n"
        "with tf.Session() as session:\n"
        "    print('doubled', session.run(value * 2, {value: 3.0}))"
    )
    notebook.write_text(
        json.dumps(
            {
                "cells": [{"cell_type": "code", "source": source}],
                "metadata": {},
                "nbformat": 4,
                "nbformat_minor": 5,
            }
        )
    )
    result = _shim(["run", "--tf1", notebook])
    assert result.returncode == 0, _report(result)
    assert "doubled 6.0" in result.stdout
