"""Logs as the original printed them: each line once, no notices about the package's own calls."""

import logging
import os
import re
import subprocess
import sys

import numpy as np
import pytest
import tensorflow as tf
from helpers import classifier_model_fn
from helpers import dataset_input_fn
from helpers import step_function_calls

import tfestimator_compat as est
from tfestimator_compat.engine.loop import progress

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAM = os.path.join(HERE, "fixtures", "logs", "train_and_evaluate_with_exporter.py")
LOGS = os.path.join(HERE, "fixtures", "logs")
EXAMPLE = os.path.join(os.path.dirname(HERE), "examples", "seed_multitask.py")
# What TensorFlow prints when it starts, before any estimator code runs.
_START_UP = re.compile(
    r"^(I0000|W0000|WARNING: All log messages|To enable the following instructions|"
    r"E0000|.*cpu_feature_guard|.*oneDNN custom operations|.*cuda)"
)
_NOT_THE_USERS = (
    "Saver is deprecated",
    "build_tensor_info",
    "Cannot activate TF2 compatibility support",
    "Your input ran out of data",
    "_interrupted_warning",
    "This API was designed for TensorFlow v1",
)


def _stderr_lines(command):
    result = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    return [line for line in result.stderr.splitlines() if not _START_UP.match(line)]


@pytest.mark.slow
def test_train_and_evaluate_with_exporters_logs_each_line_once():
    lines = _stderr_lines([sys.executable, PROGRAM])
    # A line printed twice (by two handlers) comes out twice in a row; the
    # original's per-call lines (`Calling model_fn.`, ...) recur, but not so.
    info = [line for line in lines if line.startswith("INFO:tensorflow:")]
    repeated = [line for line, after in zip(info, info[1:]) if line == after]
    assert not repeated, repeated
    text = "\n".join(lines)
    for expected in (
        r"INFO:tensorflow:loss = [\d.e-]+, step = 0",
        r"INFO:tensorflow:Saving checkpoints for 300 into .*model\.ckpt\.",
        r"INFO:tensorflow:Saving dict for global step 300: acc = [\d.]+, global_step = 300",
        r"INFO:tensorflow:Loss for final step: [\d.e-]+",
    ):
        assert len(re.findall(expected, text)) == 1, expected
    assert len(re.findall(r"INFO:tensorflow:global_step/sec: [\d.]+", text)) == 2
    # As the original (TF 2.15): once per train, evaluation and export.
    assert text.count("INFO:tensorflow:Calling model_fn.") == 7
    assert len(re.findall(r"INFO:tensorflow:Evaluation \[", text)) == 0
    assert text.count("INFO:tensorflow:Finished evaluation at ") == 3
    for notice in _NOT_THE_USERS:
        assert notice not in text


@pytest.mark.slow
def test_readme_example_prints_only_what_the_original_printed_for_the_users_calls():
    lines = _stderr_lines([sys.executable, "-m", "tfestimator_compat", "run", EXAMPLE])
    # Its Keras layers under tf_random_seed start from other values than the
    # original's (which changed from run to run): said once, and only that.
    (seeds,) = [line for line in lines if "Python's random" in line]
    assert seeds.startswith("WARNING:tensorflow:tf_random_seed: Keras layers")
    lines.remove(seeds)
    # The example calls the deprecated sparse_precision_at_k itself; the
    # original printed that notice too. Nothing else reaches stderr.
    assert lines[:3] == [
        lines[0],
        "Instructions for updating:",
        "Use precision_at_k instead",
    ]
    assert "sparse_precision_at_k" in lines[0] and "seed_multitask.py" in lines[0]
    assert lines[3:] == []


def _line_kind(line, model_dir):
    """A log line without what changes from run to run: paths, numbers, times."""
    if line.startswith("Using config:"):
        return "Using config:"
    line = line.replace(model_dir, "<model_dir>")
    return re.sub(r"[-+]?\d[\w.:-]*", "N", line)


class _KeepInfo(logging.Handler):
    def __init__(self):
        super().__init__(logging.INFO)
        self.lines = []

    def emit(self, record):
        if record.levelno == logging.INFO:
            self.lines.append(record.getMessage().splitlines()[0])


def test_progress_lines_are_the_originals_in_the_originals_order(tmp_path):
    """train, evaluate (5 steps: each; 25 steps: every 2nd and the last; to the
    end: none) and predict log the original's INFO lines, once each, in its
    order (fixtures/logs/record_progress_lines.py recorded them on TF 2.15)."""
    sys.path.insert(0, LOGS)
    try:
        import progress_program
    finally:
        sys.path.remove(LOGS)
    with open(os.path.join(LOGS, "progress_lines_tf215.txt")) as recorded:
        original = recorded.read().splitlines()
    original_dir = re.search(r"Saving checkpoints for 0 into (.*)/model.ckpt", "\n".join(original))
    logger = logging.getLogger("tensorflow")
    handler = _KeepInfo()
    verbosity = tf.compat.v1.logging.get_verbosity()
    tf.compat.v1.logging.set_verbosity(tf.compat.v1.logging.INFO)
    logger.addHandler(handler)
    try:
        progress_program.run(tf, str(tmp_path))
    finally:
        logger.removeHandler(handler)
        tf.compat.v1.logging.set_verbosity(verbosity)
    expected = [_line_kind(line, original_dir.group(1)) for line in original]
    assert [_line_kind(line, str(tmp_path)) for line in handler.lines] == expected


@pytest.mark.slow
def test_a_graph_mode_program_gives_no_warning_the_original_did_not():
    """Eager execution off, summaries, a `SummarySaverHook`, a classify export
    fed floats: TensorFlow's notices about the traced graph's collections and
    the left-out classify signature (INFO in the original) stay out of stderr."""
    sys.path.insert(0, LOGS)
    try:
        import record_graph_mode_warnings as recorded
    finally:
        sys.path.remove(LOGS)
    with open(os.path.join(LOGS, "graph_mode_warnings_tf215.txt")) as original:
        original_kinds = set(original.read().splitlines())
    lines = _stderr_lines([sys.executable, os.path.join(LOGS, "graph_mode_summaries.py")])
    assert [line for line in lines if recorded.warning_kind(line) not in original_kinds] == []


def test_an_evaluation_without_steps_says_it_is_alive_once_a_minute(caplog):
    """The original logged no progress without `steps`; a long run says `[k]`."""
    now = [0.0]
    alive = progress.BatchProgress("Evaluation", clock=lambda: now[0])
    with caplog.at_level(logging.INFO, logger="tensorflow"):
        alive.advance(30)
        now[0] = progress.ALIVE_EVERY_SECS + 1
        alive.advance(20)
        alive.advance(5)
        counted = progress.BatchProgress("Evaluation", steps=40)
        counted.advance(40)
    said = [record.getMessage() for record in caplog.records]
    assert said[0] == "Evaluation [50]"
    assert said[1:] == [f"Evaluation [{k}/40]" for k in range(4, 41, 4)]


def test_an_evaluation_logs_each_progress_line_when_its_batch_is_done(model_dir, caplog):
    """Steps run in chunks; a chunk ends where `Evaluation [k/N]` is due, so a
    long evaluation shows its progress as it goes, not all at the end."""
    estimator = est.Estimator(classifier_model_fn, model_dir=model_dir)
    estimator.train(dataset_input_fn(repeat=True), steps=1)
    with caplog.at_level(logging.INFO, logger="tensorflow"):
        estimator.evaluate(dataset_input_fn(repeat=True), steps=40)
    said = [r.getMessage() for r in caplog.records if r.getMessage().startswith("Evaluation [")]
    assert said == [f"Evaluation [{k}/40]" for k in range(4, 41, 4)]
    assert step_function_calls(estimator, est.ModeKeys.EVAL) == 10


@pytest.mark.slow
def test_a_tf1_program_run_with_tf1_prints_no_notice_of_the_runners_own_calls(tmp_path):
    """`run --tf1` turns TF2 behaviour off for the program; TF 1.x printed
    nothing for that (here TensorFlow said disable_resource_variables is
    deprecated), and the program's hooks and summaries add no warning."""
    program = os.path.join(HERE, "fixtures", "cli", "tf1_program.py")
    command = [sys.executable, "-m", "tfestimator_compat", "run", "--tf1", program]
    assert _stderr_lines([*command, "--model_dir", str(tmp_path)]) == []


def test_a_nan_loss_is_not_logged_before_training_stops_on_it(model_dir, caplog):
    """The original's NaN check ran before its loss log: a chunk of fast steps
    logs the losses before the NaN one, then stops, never logging `nan`."""

    def model_fn(features, labels, mode):
        spec = classifier_model_fn(features, labels, mode, {})
        step = tf.compat.v1.train.get_global_step()
        loss = tf.where(step >= 35, tf.constant(np.nan), spec.loss)
        return spec._replace(loss=loss)

    config = est.RunConfig(model_dir=model_dir, log_step_count_steps=10, save_summary_steps=10)
    estimator = est.Estimator(model_fn, config=config)
    with caplog.at_level(logging.INFO, logger="tensorflow"):
        with pytest.raises(tf.compat.v1.train.NanLossDuringTrainingError):
            estimator.train(dataset_input_fn(repeat=True), steps=200)
    logged = [r.getMessage() for r in caplog.records if r.getMessage().startswith("loss = ")]
    assert [re.search(r"step = (\d+)", m).group(1) for m in logged] == ["0", "10", "20", "30"]
