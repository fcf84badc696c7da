"""RunConfig.session_config reaches the TF2 runtime where TF2 still has the setting."""

import json
import logging
import pathlib
import subprocess
import sys
import textwrap

import tensorflow as tf
from helpers import classifier_model_fn
from helpers import dataset_input_fn

import tfestimator_compat as est

_FRESH_PROCESS = textwrap.dedent(
    """
    import json, sys
    sys.path.insert(0, {tests!r})
    import tensorflow as tf
    import tfestimator_compat as est
    from helpers import classifier_model_fn, dataset_input_fn

    session_config = tf.compat.v1.ConfigProto(
        intra_op_parallelism_threads=1,
        inter_op_parallelism_threads=3,
        device_count={{"GPU": 0}},
    )
    config = est.RunConfig(model_dir={model_dir!r}, session_config=session_config)
    estimator = est.Estimator(classifier_model_fn, config=config, params={{}})
    estimator.train(dataset_input_fn(repeat=True), steps=3)
    print(json.dumps({{
        "intra": tf.config.threading.get_intra_op_parallelism_threads(),
        "inter": tf.config.threading.get_inter_op_parallelism_threads(),
        "gpus": len(tf.config.get_visible_devices("GPU")),
        "step": int(estimator.get_variable_value("global_step")),
    }}))
    """
)


def test_thread_pools_and_devices_follow_session_config(tmp_path):
    # Thread pools are per process in TF2 and fixed once it runs: a fresh
    # process, as a job starting up, takes them from the Estimator's config.
    tests = pathlib.Path(__file__).resolve().parent
    script = _FRESH_PROCESS.format(tests=str(tests), model_dir=str(tmp_path))
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr[-3000:]
    seen = json.loads(result.stdout.strip().splitlines()[-1])
    assert seen == {"intra": 1, "inter": 3, "gpus": 0, "step": 3}


def test_settings_too_late_for_the_runtime_are_named_in_a_warning(model_dir, caplog):
    tf.constant(0)  # the runtime is running in this process
    threads = tf.config.threading.get_intra_op_parallelism_threads() + 1
    session_config = tf.compat.v1.ConfigProto(intra_op_parallelism_threads=threads)
    config = est.RunConfig(model_dir=model_dir, session_config=session_config)
    with caplog.at_level(logging.WARNING, logger="tensorflow"):
        estimator = est.Estimator(classifier_model_fn, config=config, params={})
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert any(
        "session_config.intra_op_parallelism_threads cannot be applied" in w for w in warnings
    )
    estimator.train(dataset_input_fn(repeat=True), steps=2)
    assert estimator.get_variable_value("global_step") == 2
