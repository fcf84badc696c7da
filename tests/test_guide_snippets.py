"""Every code block of the migration guide runs, or says why it cannot.

The guide promises code that runs on TensorFlow >= 2.16 with Keras 3. Each page's
Python blocks run here in order, as one program, with a small data set, fewer
steps and temporary paths in place of the page's; a few names a page takes as
given (the reader's `model_fn`, a trained `estimator`) are set up first. A block
that needs what a test cannot have (a cluster, another package, a shell) is
preceded in the page by `<!-- not run: <why> -->`, and
`test_every_block_runs_or_says_why_not` holds every page to that.
"""

import ast
import json
import linecache
import os
import re
import shutil
import subprocess
import sys
import textwrap

import keras
import numpy as np
import pytest
import tensorflow as tf
from helpers import FIXTURES
from helpers import module_from_file

GUIDE = os.path.join(os.path.dirname(os.path.dirname(__file__)), "migration_guide")
PAGES = sorted(name for name in os.listdir(GUIDE) if name.endswith(".md"))
_FENCE = re.compile(r"^\s*```(\w*)\s*$")
_NOT_RUN = re.compile(r"^\s*<!-- not run: (.*) -->\s*$")
# The test below that runs each page's Python blocks; each fails when a page gains a block.
_PAGE_TESTS = {
    "README.md": "test_readme_runs",
    "checkpoints.md": "test_checkpoints_runs_on_a_model_dir_the_original_wrote",
    "cluster.md": "test_cluster_runs_on_two_logical_cpus",
    "export.md": "test_export_runs",
    "replacements.md": "test_replacements_runs",
    "to_native_keras.md": "test_to_native_keras_runs_as_written_and_keeps_the_estimators_numbers",
}
# Languages a test runs: Python is executed, JSON parsed.
_RUN = ("python", "json")
# Fewer steps than the pages', so the tests stay quick; the code is otherwise as written.
_SHORTER = (
    ("max_steps=1000", "max_steps=100"),
    ("epochs=10, steps_per_epoch=100", "epochs=2, steps_per_epoch=10"),
    ("max_steps=20000", "max_steps=30"),
    ("update_freq=100", "update_freq=10"),
    (
        'summary_dir=os.path.join(model_dir, "train"))',
        'summary_dir=os.path.join(model_dir, "train"), summary_steps=10)',
    ),
)


def _blocks(page, lang=None):
    """The page's fenced blocks as (lang, code, why-not-run), shortened as `_SHORTER` says.

    A `<!-- not run: why -->` line right above a fence marks its block.
    """
    with open(os.path.join(GUIDE, page)) as f:
        lines = f.read().splitlines()
    found, opened = [], None
    for number, line in enumerate(lines):
        fence = _FENCE.match(line)
        if fence and opened is None:
            marker = _NOT_RUN.match(lines[number - 1]) if number else None
            opened = (fence.group(1), number, marker and marker.group(1))
        elif fence:
            kind, start, why = opened
            code = textwrap.dedent("\n".join(lines[start + 1 : number]) + "\n")
            for old, new in _SHORTER:
                code = code.replace(old, new)
            found.append((kind, code, why))
            opened = None
    assert opened is None, f"{page}: the block opened on line {opened[1] + 1} is not closed"
    return [block for block in found if lang is None or block[0] == lang]


def _runnable(page):
    return [code for kind, code, why in _blocks(page, "python") if why is None]


def _data():
    rng = np.random.RandomState(0)
    x = rng.rand(64, 4).astype(np.float32)
    return x, (x.sum(axis=1) * 3 / 4.01).astype(np.int64)  # 3 classes


@pytest.mark.parametrize("page", PAGES)
def test_every_block_runs_or_says_why_not(page):
    for kind, code, why in _blocks(page):
        where = f"{page}: a ```{kind} block starting {code[:60]!r}"
        assert kind, f"{where} names no language"
        if why is not None:
            assert len(why.split()) >= 3, f"{where} is not run without saying why"
        else:
            assert kind in _RUN, (
                f"{where} is neither run ({_RUN}) nor marked `<!-- not run: why -->`"
            )


def test_every_page_with_python_blocks_has_a_test_here():
    with_code = {page for page in PAGES if _runnable(page)}
    assert with_code == set(_PAGE_TESTS), "a page whose Python blocks no test below runs"
    assert all(callable(globals().get(name)) for name in _PAGE_TESTS.values())


@pytest.mark.parametrize("page", PAGES)
def test_json_blocks_parse(page):
    for _, code, _ in _blocks(page, "json"):
        assert isinstance(json.loads(code), dict)


def _close(native, original):
    assert native["accuracy"] == pytest.approx(original["accuracy"], abs=1e-6)
    assert native["loss"] == pytest.approx(original["loss"], rel=1e-4)


def _events(directory):
    """{(tag, step): value} of the event files in `directory` (None for non-scalars)."""
    found = {}
    for name in tf.io.gfile.listdir(directory):
        if name.startswith("events.out.tfevents"):
            for event in tf.compat.v1.train.summary_iterator(os.path.join(directory, name)):
                for value in event.summary.value:
                    scalar = tf.make_ndarray(value.tensor) if value.HasField("tensor") else None
                    found[value.tag, event.step] = scalar if np.ndim(scalar) == 0 else None
    return found


@pytest.mark.slow
def test_to_native_keras_runs_as_written_and_keeps_the_estimators_numbers(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    x, y = _data()
    program, *native, from_model_to_estimator = _runnable("to_native_keras.md")
    scope = {"tf": tf, "os": os, "x": x, "y": y, "model_dir": str(tmp_path / "model")}
    scope["export_base"] = str(tmp_path / "export")
    _exec(program, scope)
    original = scope["estimator"].evaluate(scope["input_fn"])
    assert os.listdir(tmp_path / "model" / "export" / "best")
    *_, evaluated = [_exec(block, scope) for block in native]  # Step 6 evaluates last
    _close(evaluated, original)
    served = tf.saved_model.load(os.path.join(scope["export_base"], "1"))
    assert served.signatures["serving_default"](x=tf.constant(x))["probabilities"].shape == (64, 3)
    latest = sorted(os.listdir(os.path.join(scope["export_base"], "latest")), key=int)
    assert len(latest) == 2 and int(latest[1]) - int(latest[0]) == 10
    assert set(os.listdir(os.path.join(scope["export_base"], "best"))) <= set(latest)
    # The model_fn's histogram, written by the SummarizingModel at the estimator's steps.
    written = _events(tmp_path / "model" / "train")
    assert {("logits", 1), ("logits", 11)} <= set(written)
    assert written["batch_loss", 10] > 0.1
    assert scope["model"].optimizer.epsilon == 1e-8

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
    _exec(from_model_to_estimator.replace("model.evaluate(", "evaluated = model.evaluate("), scope)
    _close(scope["evaluated"], original)
    assert os.path.isfile(tmp_path / "model.keras")


def _exec(code, scope):
    """Runs `code` in `scope`; returns its last statement's value when that is an expression."""
    name = f"<guide block {len(linecache.cache)}>"  # registered, so autograph finds the source
    linecache.cache[name] = (len(code), None, code.splitlines(True), name)
    tree = ast.parse(code, name)
    last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
    exec(compile(tree, name, "exec"), scope)
    if last is not None:
        return eval(compile(ast.Expression(last.value), name, "eval"), scope)
    return None


def _run_page(page, scope, substitutions=(), before=None, after=None):
    """Runs the page's runnable Python blocks in order in `scope`; returns each one's last value.

    `substitutions` replace the page's example paths; `before[i](scope)` prepares block i,
    `after[i](scope)` keeps what it made.
    """
    values = []
    for index, code in enumerate(_runnable(page)):
        for old, new in substitutions:
            code = code.replace(old, new)
        if before and index in before:
            before[index](scope)
        values.append(_exec(code, scope))
        if after and index in after:
            after[index](scope)
    return values


def test_readme_runs():
    scope = {}
    [installed] = _run_page("README.md", scope)  # what install() returned
    assert installed.Estimator is tf.estimator.Estimator is scope["tfestimator_compat"].Estimator


@pytest.mark.slow
def test_checkpoints_runs_on_a_model_dir_the_original_wrote(tmp_path):
    fixture_dir = os.path.join(FIXTURES, "tf215_tf1_layers")
    original = module_from_file(os.path.join(fixture_dir, "make_fixture.py"), "make_fixture")
    with open(os.path.join(fixture_dir, "expected.json")) as f:
        expected = json.load(f)
    old = str(tmp_path / "written_by_2_15")
    shutil.copytree(os.path.join(fixture_dir, "model_dir"), old)
    # A checkpoint whose output layer had another name, for WarmStartSettings' renaming.
    reader = tf.train.load_checkpoint(old)
    renamed = {"old_dense/kernel": "dense/kernel", "dense/bias": "dense/bias"}
    saved = {key: tf.Variable(reader.get_tensor(name)) for key, name in renamed.items()}
    tf.compat.v1.train.Saver(saved).save(None, str(tmp_path / "old" / "model.ckpt"))
    scope = {
        "tf": tf,
        "model_fn": lambda features, labels, mode: original.model_fn(
            features, labels, mode, original.PARAMS
        ),
        "train_input_fn": original.input_fn(*original.train_data(), 32, True),
        "eval_input_fn": original.input_fn(*original.eval_data(), 32, False),
    }
    evaluated, _, _ = _run_page(
        "checkpoints.md",
        scope,
        substitutions=(
            ('"/models/written_by_2_15"', repr(old)),
            ('"/models/old"', repr(str(tmp_path / "old"))),
            ('"/models/new"', repr(str(tmp_path / "new"))),
        ),
    )
    for key, value in expected["evaluate"].items():  # the 2.15 model_dir was at step 50
        assert evaluated[key] == pytest.approx(value, rel=1e-4), key
    warm_started = scope["estimator"]
    warm_started.train(scope["train_input_fn"], steps=1)
    kernel = warm_started.get_variable_value("dense/kernel")
    np.testing.assert_allclose(kernel, reader.get_tensor("dense/kernel"), atol=0.011)
    np.testing.assert_array_equal(scope["kernel"], reader.get_tensor("dense/kernel"))


def _export_model_fn(features, labels, mode):
    """A binary classifier with the tensor names export.md runs: `probs`, `mean/update_op`."""
    logits = tf.compat.v1.layers.dense(features["x"], 1)
    probs = tf.nn.sigmoid(logits, name="probs")
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions={"probs": probs})
    loss = tf.compat.v1.losses.sigmoid_cross_entropy(labels, logits)
    if mode == tf.estimator.ModeKeys.EVAL:
        mean = tf.compat.v1.metrics.mean(loss)
        return tf.estimator.EstimatorSpec(mode, loss=loss, eval_metric_ops={"mean": mean})
    step = tf.compat.v1.train.get_global_step()
    train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(loss, step)
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


@pytest.mark.slow
def test_export_runs(tmp_path):
    x, y = _data()
    labels = (y[:, None] > 0).astype(np.float32)
    estimator = tf.estimator.Estimator(_export_model_fn, str(tmp_path / "model"))
    estimator.train(lambda: tf.data.Dataset.from_tensor_slices(({"x": x}, labels)).batch(16))
    example = tf.train.Example(
        features=tf.train.Features(
            feature={"x": tf.train.Feature(float_list=tf.train.FloatList(value=x[0]))}
        )
    )

    def eval_export(scope):
        receiver = tf.estimator.experimental.build_raw_supervised_input_receiver_fn(
            {"x": tf.constant(x[:4])}, tf.constant(labels[:4])
        )
        scope["export_dir"] = estimator.export_saved_model(
            str(tmp_path / "eval"), receiver, experimental_mode=tf.estimator.ModeKeys.EVAL
        )
        with tf.compat.v1.Session(graph=tf.Graph()) as session:
            meta = tf.compat.v1.saved_model.loader.load(session, ["eval"], scope["export_dir"])
        inputs = meta.signature_def["eval"].inputs
        scope["feeds"] = {inputs["x"].name: x[:4], inputs["label"].name: labels[:4]}

    def by_name_export(scope):
        def receiver():
            x_in = tf.compat.v1.placeholder(tf.float32, [None, 4], name="x_in")
            return tf.estimator.export.ServingInputReceiver({"x": x_in}, {"x": x_in})

        scope["export_dir"] = estimator.export_saved_model(str(tmp_path / "named"), receiver)
        scope["batch"] = x[:4]

    inputs = {"x": keras.Input(shape=(4,), name="x")}
    scope = {
        "tf": tf,
        "estimator": estimator,
        "serialized_example": example.SerializeToString(),
        "model": keras.Model(inputs, keras.layers.Dense(3)(inputs["x"])),
    }
    values = _run_page(
        "export.md",
        scope,
        substitutions=(
            ('"/exports/model/1718000000"', "path.decode()"),
            ('"/exports/model/2"', repr(str(tmp_path / "native"))),
            ('"/exports/model"', repr(str(tmp_path / "exports"))),
            ('session.run("', 'ran = session.run("'),
        ),
        before={1: eval_export, 3: by_name_export},
        after={1: lambda scope: scope.update(mean=scope["ran"])},
    )
    assert len(values) == 5
    assert values[0] is None and scope["path"].startswith(str(tmp_path / "exports").encode())
    assert scope["outputs"]["probs"].shape == (1, 1)
    assert scope["mean"] > 0  # the EVAL graph's metric update ran
    predicted = [
        p["probs"]
        for p in estimator.predict(
            lambda: tf.data.Dataset.from_tensor_slices({"x": x[:4]}).batch(4)
        )
    ]
    np.testing.assert_allclose(scope["ran"], predicted, rtol=1e-5)
    reloaded = tf.saved_model.load(str(tmp_path / "native"))
    assert reloaded.signatures["serving_default"](
        examples=tf.constant([scope["serialized_example"]])
    )["probabilities"].shape == (1, 3)


def _classifier(inputs):
    model = keras.Model(inputs, keras.layers.Dense(3)(inputs["x"]))
    model.compile(
        optimizer="adam",
        loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        metrics=["accuracy"],
    )
    return model


def test_replacements_runs():
    x, y = _data()
    dataset = tf.data.Dataset.from_tensor_slices(({"x": x}, y)).batch(16)
    raw = tf.data.Dataset.from_tensor_slices(
        ({"age": x[:, 0] * 90, "city": np.array(["a", "b", "c", "d"] * 16)}, y)
    ).batch(16)
    scope = {
        "tf": tf,
        "keras": keras,
        "model": _classifier({"x": keras.Input(shape=(4,), name="x")}),
        "train_ds": dataset.repeat(),
        "eval_ds": dataset,
        "epochs": 1,
        "steps": 2,
        "eval_steps": 1,
        "callbacks": [],
        "raw_train_ds": raw,
        "n_classes": 3,
        "vocabulary_size": 50,
        "x": {"x": x},
        "y": y,
        "num_epochs": 1,
    }
    # Each section's block stands alone: it gets the names above, not the last block's.
    fit, features, stopping, rnn, numpy_input = (dict(scope) for _ in range(5))
    blocks = zip(
        _runnable("replacements.md"), (fit, features, stopping, rnn, numpy_input), strict=True
    )
    values = [_exec(code, block_scope) for code, block_scope in blocks]
    assert scope["model"].optimizer.iterations.numpy() == 2 + 1  # fit, then the NumPy input
    batch, _ = next(iter(features["preprocessed"]))
    assert features["dnn"](batch).shape == features["linear"](batch).shape == (16, 3)
    assert isinstance(values[2], keras.callbacks.EarlyStopping) and values[2].patience == 3
    assert rnn["model"](np.ones([2, 5], np.int64)).shape == (2, 1)


_CLUSTER_PROGRAM = """
import numpy as np
import tfestimator_compat

def model_fn(features, labels, mode):
    logits = tf.compat.v1.layers.dense(features["x"], 1)
    loss = tf.compat.v1.losses.sigmoid_cross_entropy(labels, logits)
    step = tf.compat.v1.train.get_global_step()
    train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(loss, step)
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)

def input_fn():
    x = np.ones([8, 4], np.float32)
    return tf.data.Dataset.from_tensor_slices(({"x": x}, np.ones([8, 1], np.float32))).batch(2)
"""


@pytest.mark.slow
def test_cluster_runs_on_two_logical_cpus(tmp_path):
    one_machine, logical_cpus, input_context = _runnable("cluster.md")
    # The page's second block replaces the first one's strategy when there are no GPUs.
    one_machine = one_machine.replace("strategy = tf.distribute.MirroredStrategy()", "")
    program = "\n".join(
        [
            "import tensorflow as tf",
            logical_cpus,
            _CLUSTER_PROGRAM,
            one_machine,
            "estimator.train(input_fn)",
            "step = estimator.get_variable_value('global_step')",
            "print('RESULT', strategy.num_replicas_in_sync, step)",
        ]
    )
    (tmp_path / "job.py").write_text(program)
    result = subprocess.run(
        [sys.executable, "job.py"], cwd=tmp_path, capture_output=True, text=True, timeout=600
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert "RESULT 2 2" in result.stdout  # 4 batches of 2, one per replica per step

    files = [str(tmp_path / "records.tfrecord")]
    with tf.io.TFRecordWriter(files[0]) as writer:
        for record in range(8):
            writer.write(str(record).encode())
    scope = {"tf": tf, "GLOBAL_BATCH": 4, "files": files}
    _exec(input_context, scope)
    context = tf.distribute.InputContext(2, 1, 2)  # pipelines, this pipeline, replicas
    assert next(iter(scope["input_fn"](context))).numpy().tolist() == [b"1", b"3"]
