"""install() and the `run` command make tf.estimator reachable for unchanged programs."""

import subprocess
import sys
import textwrap

import tensorflow as tf

import tfestimator_compat


def test_install_sets_tf_estimator_and_compat_v1():
    module = tfestimator_compat.install()
    assert tf.estimator is module
    assert tf.compat.v1.estimator.Estimator is tfestimator_compat.Estimator
    assert tf.estimator.ModeKeys.PREDICT == "infer"
    assert tfestimator_compat.install() is not None, "install() is idempotent"


def test_public_api_names():
    for name in (
        "Estimator",
        "EstimatorSpec",
        "ModeKeys",
        "RunConfig",
        "WarmStartSettings",
        "VocabInfo",
        "SessionRunHook",
        "SessionRunArgs",
        "SessionRunContext",
        "SessionRunValues",
        "LoggingTensorHook",
        "StopAtStepHook",
        "CheckpointSaverHook",
        "CheckpointSaverListener",
        "NanTensorHook",
        "NanLossDuringTrainingError",
        "StepCounterHook",
        "SummarySaverHook",
        "FinalOpsHook",
        "TrainSpec",
        "EvalSpec",
        "train_and_evaluate",
    ):
        assert hasattr(tf.estimator, name), name


def test_run_command_runs_a_program_unchanged(tmp_path):
    program = tmp_path / "legacy.py"
    program.write_text(
        textwrap.dedent(
            """
        import sys
        import tensorflow as tf
        assert __name__ == "__main__"
        print("ARGS", sys.argv[1:], tf.estimator.ModeKeys.TRAIN)
        sys.exit(3)
        """
        )
    )
    result = subprocess.run(
        [sys.executable, "-m", "tfestimator_compat", "run", str(program), "--flag", "x"],
        capture_output=True,
        text=True,
    )
    assert "ARGS ['--flag', 'x'] train" in result.stdout
    assert result.returncode == 3
