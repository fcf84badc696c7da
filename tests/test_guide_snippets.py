"""The code of `migration_guide/to_native_keras.md` runs, and keeps what the estimator trained.

The page says every snippet runs on TensorFlow >= 2.16 with Keras 3 and that the old
checkpoint, loaded into the native model, evaluates as `estimator.evaluate` did. This
runs the page's Python blocks in order, as one program, with a small data set and
fewer training steps.
"""

import os
import re

import numpy as np
import pytest
import tensorflow as tf

GUIDE = os.path.join(os.path.dirname(os.path.dirname(__file__)), "migration_guide")
# Fewer steps than the page's, so the test stays quick; the code is otherwise as written.
_SHORTER = (
    ("max_steps=1000", "max_steps=100"),
    ("epochs=10, steps_per_epoch=100", "epochs=2, steps_per_epoch=10"),
)


def _python_blocks(page):
    with open(os.path.join(GUIDE, page)) as f:
        blocks = re.findall(r"```python\n(.*?)```", f.read(), re.S)
    for old, new in _SHORTER:
        blocks = [block.replace(old, new) for block in blocks]
    return blocks


def _close(native, original):
    assert native["accuracy"] == pytest.approx(original["accuracy"], abs=1e-6)
    assert native["loss"] == pytest.approx(original["loss"], rel=1e-4)


@pytest.mark.slow
def test_to_native_keras_runs_as_written_and_keeps_the_estimators_numbers(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rng = np.random.RandomState(0)
    x = rng.rand(64, 4).astype(np.float32)
    y = (x.sum(axis=1) * 3 / 4.01).astype(np.int64)  # 3 classes
    program, *native, from_model_to_estimator = _python_blocks("to_native_keras.md")
    scope = {"tf": tf, "os": os, "x": x, "y": y, "model_dir": str(tmp_path / "model")}
    scope["export_base"] = str(tmp_path / "export")
    exec(program, scope)
    original = scope["estimator"].evaluate(scope["input_fn"])
    load_checkpoint = native.pop()
    for block in native:
        exec(block, scope)
    assert tf.saved_model.load(os.path.join(scope["export_base"], "1")).signatures[
        "serving_default"
    ](x=tf.constant(x))["probabilities"].shape == (64, 3)
    scope["model"].evaluate = _returning(scope["model"].evaluate, scope)
    exec(load_checkpoint, scope)
    _close(scope["evaluated"], original)

    import keras

    def build_model():
        inputs = keras.Input(shape=(4,), name="x")
        hidden = keras.layers.Dense(8, activation="relu", name="hidden")(inputs)
        return keras.Model(inputs, keras.layers.Dense(3, name="logits")(hidden))

    trained = build_model()
    trained.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
    estimator = tf.keras.estimator.model_to_estimator(
        trained, model_dir=str(tmp_path / "keras_model")
    )
    estimator.train(lambda: scope["input_fn"]().map(lambda f, label: (f["x"], label)), steps=20)
    original = estimator.evaluate(lambda: scope["input_fn"]().map(lambda f, label: (f["x"], label)))
    scope.update(build_model=build_model, estimator=estimator)
    scope["eval_ds"] = scope["input_fn"]().map(lambda f, label: (f["x"], label))
    exec(from_model_to_estimator.replace("model.evaluate(", "evaluated = model.evaluate("), scope)
    _close(scope["evaluated"], original)
    assert os.path.isfile(tmp_path / "model.keras")


def _returning(evaluate, scope):
    """`model.evaluate` that also keeps its result in `scope["evaluated"]`."""

    def wrapped(*args, **kwargs):
        scope["evaluated"] = evaluate(*args, **kwargs)
        return scope["evaluated"]

    return wrapped
