"""Logs as the original printed them: each line once, no notices about the package's own calls."""

import collections
import os
import re
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAM = os.path.join(HERE, "fixtures", "logs", "train_and_evaluate_with_exporter.py")
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
    counts = collections.Counter(line for line in lines if line.startswith("INFO:tensorflow:"))
    repeated = {line: n for line, n in counts.items() if n > 1 and "Restoring" not in line}
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
