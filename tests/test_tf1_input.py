"""TF1 input_fns run as the original ran them: whatever they return reaches the model_fn.

Each input_fn of `fixtures/tf1_input/cases.py` trains, evaluates and predicts,
and gives the numbers tensorflow-estimator 2.15 gave (`expected.json`, written
by `make_fixture.py` with the original): work after `get_next()`, lookup
tables, None labels, bare tensors, empty and mixed-key dicts, NumPy values,
and queue pipelines over real TFRecord files.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import tensorflow as tf

import tfestimator_compat as est

FIXTURES = Path(__file__).parent / "fixtures" / "tf1_input"
sys.path.insert(0, str(FIXTURES))

import cases  # noqa: E402

EXPECTED = json.loads((FIXTURES / "expected.json").read_text())
# A RandomShuffleQueue's order depends on how full its runner threads made it
# when a batch was taken: the original's own numbers vary with timing.
TIMING_DEPENDENT = {"tfrecord_shuffle_batch": {"eval_loss", "sum_of_logits"}}


@pytest.fixture
def folder(tmp_path):
    cases.write_records(tf, str(tmp_path))
    return str(tmp_path)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_train_evaluate_predict_as_the_original(folder, name):
    numbers = cases.run_case(tf, est, folder, name)
    expected = EXPECTED[name]
    assert numbers.keys() == expected.keys()
    for key, value in expected.items():
        if key in TIMING_DEPENDENT.get(name, ()):
            continue
        assert numbers[key] == pytest.approx(value, rel=1e-5, abs=1e-6), key


def _run(folder, name, seen):
    cases.run_case(tf, est, folder, name, seen)
    return seen


def test_labels_popped_after_get_next_are_not_features(folder):
    seen = _run(folder, "pop_label", {})
    features, labels = seen[est.ModeKeys.TRAIN]
    assert set(features) == {"x"}
    assert labels.dtype == tf.int64
    assert seen[est.ModeKeys.PREDICT][1] is None


def test_no_labels_and_bare_tensors_reach_the_model_fn_as_given(folder):
    features, labels = _run(folder, "none_labels", {})[est.ModeKeys.EVAL]
    assert set(features) == {"x"} and labels is None
    features, labels = _run(folder, "bare_tensor", {})[est.ModeKeys.EVAL]
    assert tf.is_tensor(features) and features.shape.as_list() == [None, 3]
    assert labels is None
    features, labels = _run(folder, "empty_dict", {})[est.ModeKeys.TRAIN]
    assert features == {} and labels is None


def test_mixed_keys_keep_their_keys_and_order(folder):
    seen = _run(folder, "mixed_keys", {})
    features, _ = seen[est.ModeKeys.TRAIN]
    assert list(features) == ["x", 3]
    # The original could not predict from such a dict (it sorted the keys); here it can.
    model = est.Estimator(cases.model_fn_for(tf, est, seen), os.path.join(folder, "mixed_keys"))
    input_fn, _ = cases.input_fns(tf, folder)["mixed_keys"]
    prediction = next(model.predict(input_fn))
    assert list(seen[est.ModeKeys.PREDICT][0]) == ["x", 3]
    x, _ = cases.data()
    expected = x[0] @ model.get_variable_value("w")[:, 0] + model.get_variable_value("b")[0]
    assert prediction["logits"] == pytest.approx(expected, rel=1e-5)


def test_numpy_values_reach_the_model_fn_as_numpy(folder):
    seen = _run(folder, "numpy_values", {})
    for mode in (est.ModeKeys.TRAIN, est.ModeKeys.EVAL, est.ModeKeys.PREDICT):
        features, labels = seen[mode]
        assert isinstance(features["x"], np.ndarray), mode
    assert isinstance(seen[est.ModeKeys.TRAIN][1], np.ndarray)


def test_python_values_reach_the_model_fn_as_given(model_dir):
    seen = {}

    def model_fn(features, labels, mode):
        seen["features"] = features
        w = tf.compat.v1.get_variable("w", [], initializer=tf.compat.v1.zeros_initializer())
        loss = tf.square(w * features["scale"] - labels)
        step = tf.compat.v1.train.get_global_step()
        train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(loss, step)
        return est.EstimatorSpec(mode, loss=loss, train_op=train_op)

    est.Estimator(model_fn, model_dir).train(lambda: ({"scale": 2.0, "name": "a"}, 1.0), steps=2)
    assert seen["features"] == {"scale": 2.0, "name": "a"}


def test_a_changed_numpy_input_is_not_served_by_an_old_trace(model_dir):
    model = est.Estimator(cases.model_fn_for(tf, est), model_dir)
    x, y = cases.data()
    model.train(lambda: ({"x": x}, y), steps=1)
    first = model.evaluate(lambda: ({"x": x}, y), steps=1)["loss"]
    second = model.evaluate(lambda: ({"x": x}, 1 - y), steps=1)["loss"]
    assert first != pytest.approx(second)


def test_evaluate_of_a_queue_ends_at_the_end_of_input(folder):
    model = est.Estimator(cases.model_fn_for(tf, est), os.path.join(folder, "model"))
    input_fn, _ = cases.input_fns(tf, folder)["tfrecord_batch"]
    model.train(input_fn, steps=1)
    results = model.evaluate(input_fn)
    assert results["global_step"] == 1
    # 10 records in batches of 4: two full batches and a last one of 2.
    predictions = list(model.predict(input_fn))
    assert len(predictions) == cases.ROWS


def test_train_stops_at_the_end_of_a_queue_with_epochs(folder):
    model = est.Estimator(cases.model_fn_for(tf, est), os.path.join(folder, "model"))
    input_fn, _ = cases.input_fns(tf, folder)["tfrecord_shuffle_batch"]
    model.train(input_fn, steps=100)
    # 2 epochs of 10 records in batches of 4.
    assert model.get_variable_value("global_step") == 5


def test_a_queue_input_stopped_early_leaves_no_running_threads(folder):
    import threading

    model = est.Estimator(cases.model_fn_for(tf, est), os.path.join(folder, "model"))
    input_fn, _ = cases.input_fns(tf, folder)["fifo_queue"]

    def python_threads():
        # tf.data's own threads show up as dummies once they have run Python.
        return [t for t in threading.enumerate() if not isinstance(t, threading._DummyThread)]

    before = python_threads()
    model.train(input_fn, steps=2)
    assert python_threads() == before
    model.evaluate(input_fn, steps=1)
    assert python_threads() == before
    predictions = model.predict(input_fn)
    next(predictions)
    assert len(python_threads()) > len(before), "queue runners feed the predictions"
    predictions.close()
    assert python_threads() == before


def _missing_file_dataset(folder):
    def input_fn():
        dataset = tf.data.TFRecordDataset(os.path.join(folder, "missing.tfrecord"))
        return dataset.map(lambda record: ({"x": tf.zeros([3])}, tf.constant(0))).batch(2)

    return input_fn


@pytest.mark.parametrize("kind", ["dataset", "queue"])
def test_a_failing_input_is_one_clear_error_naming_the_input_fn(tmp_path, kind):
    model = est.Estimator(cases.model_fn_for(tf, est), str(tmp_path / "model"))
    if kind == "queue":
        input_fn, _ = cases.input_fns(tf, str(tmp_path))["tfrecord_batch"]
    else:
        input_fn = _missing_file_dataset(str(tmp_path))
    for call in (
        lambda: model.train(input_fn, steps=2),
        lambda: model.evaluate(input_fn),
        lambda: list(model.predict(input_fn)),
    ):
        with pytest.raises(tf.errors.NotFoundError) as raised:
            call()
        message = str(raised.value)
        assert message.count("No such file or directory") == 1, message
        assert message.count(f"{input_fn.__code__.co_filename}:") == 1, message
        assert "__inference" not in message and "Traceback" not in message, message
        assert raised.value.__cause__ is None and raised.value.__suppress_context__


def test_evaluating_an_endless_input_to_its_end_warns_once(model_dir, caplog):
    class StopAfter(est.SessionRunHook):
        def __init__(self, steps):
            self.steps = steps

        def after_run(self, run_context, run_values):
            self.steps -= 1
            if self.steps <= 0:
                run_context.request_stop()

    x, y = cases.data()

    def endless():
        return tf.data.Dataset.from_tensor_slices(({"x": x}, y)).repeat().batch(4)

    model = est.Estimator(cases.model_fn_for(tf, est), model_dir)
    model.train(endless, steps=1)
    with caplog.at_level("WARNING", logger="tensorflow"):
        model.evaluate(endless, hooks=[StopAfter(2)])
        model.evaluate(endless, hooks=[StopAfter(2)])
        model.evaluate(endless, steps=2)
    warnings = [r for r in caplog.records if "repeats forever" in r.getMessage()]
    assert len(warnings) == 1
    assert "test_tf1_input.py" in warnings[0].getMessage()


def _python_per_batch(inputs):
    """Whether reading `inputs` calls into Python (a generator) for each batch."""
    return b"PyFunc" in inputs.dataset._as_serialized_graph().numpy()


def test_only_a_queue_input_costs_python_per_batch(folder):
    from tfestimator_compat.engine.inputs.input_fn import call_input_fn

    def inputs_of(input_fn):
        return call_input_fn(input_fn, est.ModeKeys.TRAIN, {}, est.RunConfig())

    x, y = cases.data()
    dataset = inputs_of(lambda: tf.data.Dataset.from_tensor_slices(({"x": x}, y)).batch(4))
    assert not _python_per_batch(dataset)
    features, labels = dataset.unpack(next(iter(dataset.dataset)))
    assert set(features) == {"x"} and labels.shape == (4,)
    input_fns = cases.input_fns(tf, folder)
    assert not _python_per_batch(inputs_of(input_fns["pop_label"][0]))
    assert _python_per_batch(inputs_of(input_fns["tfrecord_batch"][0]))


TF1_PROGRAM = """
import sys
import numpy as np
import tensorflow as tf

folder = sys.argv[1]

def input_fn():
    files = tf.train.string_input_producer([folder + "/data.tfrecord"], num_epochs=1,
                                           shuffle=False)
    _, serialized = tf.TFRecordReader().read(files)
    parsed = tf.parse_single_example(serialized, {
        "x": tf.FixedLenFeature([3], tf.float32),
        "label": tf.FixedLenFeature([], tf.int64)})
    batch = tf.train.batch(parsed, 4, allow_smaller_final_batch=True)
    return batch, batch.pop("label")

def model_fn(features, labels, mode):
    w = tf.get_variable("w", [3, 1], initializer=tf.zeros_initializer())
    b = tf.get_variable("b", [1], initializer=tf.zeros_initializer())
    logits = tf.matmul(features["x"], w) + b
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions={"logits": logits[:, 0]})
    loss = tf.reduce_mean(tf.square(logits - tf.cast(tf.reshape(labels, [-1, 1]), tf.float32)))
    train_op = tf.train.GradientDescentOptimizer(0.5).minimize(
        loss, global_step=tf.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)

estimator = tf.estimator.Estimator(model_fn, folder + "/model")
estimator.train(input_fn)
results = estimator.evaluate(input_fn)
count = sum(1 for _ in estimator.predict(input_fn))
print("RESULT", results["global_step"], repr(float(results["loss"])), count)
"""


@pytest.mark.slow
def test_run_tf1_program_with_queue_input(folder):
    program = Path(folder) / "tf1_queue_program.py"
    program.write_text(TF1_PROGRAM)
    result = subprocess.run(
        [sys.executable, "-m", "tfestimator_compat", "run", "--tf1", str(program), folder],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-4000:]
    line = [line for line in result.stdout.splitlines() if line.startswith("RESULT")][-1]
    _, step, loss, count = line.split()
    expected = EXPECTED["tfrecord_batch"]
    assert int(step) == expected["global_step"]
    assert float(loss) == pytest.approx(expected["eval_loss"], rel=1e-5)
    assert int(count) == expected["predictions"]


def test_two_iterators_are_read_together_by_a_session(model_dir):
    x, y = cases.data()

    def input_fn():
        v1 = tf.compat.v1
        features = v1.data.make_one_shot_iterator(
            tf.data.Dataset.from_tensor_slices({"x": x}).batch(cases.BATCH)
        ).get_next()
        labels = v1.data.make_initializable_iterator(
            tf.data.Dataset.from_tensor_slices(y).batch(cases.BATCH)
        )
        # The TF1 idiom: the initializable iterator starts with the tables.
        v1.add_to_collection(v1.GraphKeys.TABLE_INITIALIZERS, labels.initializer)
        return features, labels.get_next()

    model = est.Estimator(cases.model_fn_for(tf, est), model_dir)
    model.train(input_fn)
    results = model.evaluate(input_fn)
    assert results["global_step"] == 3
    assert results["loss"] == pytest.approx(EXPECTED["pop_label"]["eval_loss"], rel=1e-5)


@pytest.mark.slow
def test_a_queue_input_stopped_early_exits_without_tf_data_warnings(folder):
    program = Path(folder) / "stops_early.py"
    program.write_text(
        "import sys\n"
        f"sys.path.insert(0, {str(FIXTURES)!r})\n"
        "import tensorflow as tf\n"
        "import tfestimator_compat as est\n"
        "import cases\n"
        f"folder = {folder!r}\n"
        "model = est.Estimator(cases.model_fn_for(tf, est), folder + '/model')\n"
        "input_fn, _ = cases.input_fns(tf, folder)['tfrecord_batch']\n"
        "model.train(input_fn, steps=1)\n"
        "print('DONE')\n"
    )
    # The package under test, not an installed one.
    root = str(Path(__file__).parents[1])
    path = os.pathsep.join([root, os.environ.get("PYTHONPATH", "")])
    env = dict(os.environ, PYTHONPATH=path, TF_CPP_MIN_LOG_LEVEL="0")
    result = subprocess.run(
        [sys.executable, str(program)], capture_output=True, text=True, timeout=300, env=env
    )
    assert result.returncode == 0 and "DONE" in result.stdout, result.stderr[-4000:]
    # An iterator finalized after Python's shutdown would say so on stderr.
    assert "GeneratorDataset" not in result.stderr, result.stderr[-4000:]


@pytest.mark.parametrize(
    "name, calls", [("numpy_values", 1), ("pop_label", 2), ("tfrecord_batch", 2)]
)
def test_finding_the_route_calls_the_input_fn_as_often_as_the_guide_says(folder, name, calls):
    # migration_guide/concepts.md: once for a Dataset or values, twice for a `get_next()`
    # input or a queue input, per train() and per evaluate() call.
    input_fn, ends = cases.input_fns(tf, folder)[name]
    counted = []

    def counting_input_fn():
        counted.append(1)
        return input_fn()

    estimator = est.Estimator(cases.model_fn_for(tf, est), os.path.join(folder, name))
    estimator.train(counting_input_fn, steps=None if ends else 2)
    assert len(counted) == calls
    estimator.evaluate(counting_input_fn, steps=None if ends else 2)
    assert len(counted) == 2 * calls
