"""The BERT fine-tuning example runs unchanged with `run --tf1` and gives the original's numbers.

`examples/bert_tiny_tf1.py` is a TF 1.x program in the shape of google-research/bert's
`run_classifier.py`: `tf.contrib.tpu.TPUEstimator(use_tpu=False)`, `tf.contrib.data`,
`tf.contrib.layers.layer_norm`, `init_from_checkpoint`, a `tf.train.Optimizer` subclass
with its own slots. `examples/reference/bert_tiny_tf215.json` holds what the same file
printed on TensorFlow 2.15.1 with tensorflow-estimator 2.15.0 (examples/reference/README.md).

Tolerances. The two runs do the same float32 arithmetic in the same order of steps,
but on different TensorFlow builds (2.15 vs 2.21, oneDNN kernels), whose reductions
may round differently; over 72 Adam steps the results differed by at most 3e-6
relative when this test was written. 1e-4 relative leaves room for that, while a
real difference (another learning rate for one step, another initial value, a
dropped or repeated batch) moves these numbers by 1e-3 or more. Accuracy, step
counts, checkpoint names and variable names must be equal.
"""

import hashlib
import json
import os

import numpy as np
import pytest
from helpers import run_command

ROOT = os.path.join(os.path.dirname(__file__), "..")
EXAMPLE = os.path.join(ROOT, "examples", "bert_tiny_tf1.py")
REFERENCE = os.path.join(ROOT, "examples", "reference", "bert_tiny_tf215.json")
MARKER = "BERT_TINY_RESULTS "
RTOL = 1e-4


def _results(stdout):
    found = [line[len(MARKER) :] for line in stdout.splitlines() if line.startswith(MARKER)]
    assert len(found) == 1, stdout[-3000:]
    return json.loads(found[0])


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """Runs the example once through `python -m tfestimator_compat run --tf1`."""
    output_dir = str(tmp_path_factory.mktemp("bert_tiny"))
    result = run_command("run", "--tf1", EXAMPLE, f"--output_dir={output_dir}", timeout=600)
    assert result.returncode == 0, result.stderr[-5000:]
    return _results(result.stdout), output_dir


@pytest.fixture(scope="module")
def reference():
    with open(REFERENCE) as file:
        return json.load(file)


def test_the_reference_ran_this_very_file(reference):
    with open(EXAMPLE, "rb") as file:
        sha256 = hashlib.sha256(file.read()).hexdigest()
    assert reference["program_sha256"] == sha256, (
        "examples/bert_tiny_tf1.py changed since the reference numbers were made; "
        "regenerate them as examples/reference/README.md says."
    )
    assert reference["program_args"] == []
    assert reference["tensorflow"].startswith("2.15.")


@pytest.mark.slow
def test_numbers_match_the_original(run, reference):
    results, _ = run
    expected = reference["results"]
    assert results["num_train_steps"] == expected["num_train_steps"] == 72
    assert results["num_warmup_steps"] == expected["num_warmup_steps"]
    assert results["global_step"] == expected["global_step"] == 72

    eval_results, expected_eval = results["eval"], expected["eval"]
    assert set(eval_results) == set(expected_eval)
    assert eval_results["global_step"] == expected_eval["global_step"]
    # 60 examples: accuracy is a count of right answers, exact in both.
    assert eval_results["eval_accuracy"] == expected_eval["eval_accuracy"]
    for key in ("eval_loss", "loss"):
        np.testing.assert_allclose(eval_results[key], expected_eval[key], rtol=RTOL, err_msg=key)

    assert results["predict_inputs"] == expected["predict_inputs"]
    np.testing.assert_allclose(
        results["predict_probabilities"], expected["predict_probabilities"], rtol=RTOL
    )
    assert set(results["variables"]) == set(expected["variables"])
    for name, norm in expected["variables"].items():
        np.testing.assert_allclose(results["variables"][name], norm, rtol=RTOL, err_msg=name)


@pytest.mark.slow
def test_checkpoints_match_the_original(run, reference):
    """Same checkpoint steps (every 20 steps, and the last), same variable names."""
    results, output_dir = run
    expected = reference["results"]
    assert results["checkpoints"] == expected["checkpoints"]
    assert results["checkpoint_variables"] == expected["checkpoint_variables"]

    import tensorflow as tf

    model_dir = os.path.join(output_dir, "model")
    assert tf.train.latest_checkpoint(model_dir).endswith("model.ckpt-72")
    names = {name for name, _ in tf.train.list_variables(model_dir)}
    assert {
        "global_step",
        "output_weights",
        "bert/encoder/layer_1/attention/self/query/kernel",
        "bert/encoder/layer_1/attention/self/query/kernel/adam_m",
        "bert/encoder/layer_0/output/LayerNorm/gamma",
    } <= names


@pytest.mark.slow
def test_the_export_serves_the_predicted_probabilities(run):
    results, output_dir = run
    import tensorflow as tf

    export_dir = results["export_dir"]
    assert os.path.dirname(export_dir) == os.path.join(output_dir, "export")
    serving = tf.saved_model.load(export_dir).signatures["serving_default"]
    inputs = results["predict_inputs"]
    outputs = serving(
        **{
            key: tf.constant([example[key] for example in inputs], dtype=tf.int32)
            for key in ("input_ids", "input_mask", "segment_ids")
        }
    )
    np.testing.assert_allclose(
        outputs["probabilities"].numpy(), results["predict_probabilities"], rtol=1e-5, atol=1e-6
    )
