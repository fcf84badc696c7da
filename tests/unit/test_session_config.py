"""RunConfig.session_config applied to the TF2 runtime (engine/distributed/session_config.py).

These run after the runtime has started (as in any test process): a setting it
can no longer take must be named in a warning, and left as it was.
"""

import logging

import pytest
import tensorflow as tf

from tfestimator_compat.engine.distributed import session_config

_threading = tf.config.threading


@pytest.fixture
def running_runtime():
    tf.constant(0)  # the runtime starts with the first op
    return (
        _threading.get_intra_op_parallelism_threads(),
        _threading.get_inter_op_parallelism_threads(),
    )


def _warnings(caplog):
    return [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]


def test_no_session_config_changes_nothing(running_runtime, caplog):
    with caplog.at_level(logging.WARNING, logger="tensorflow"):
        session_config.apply(None)
    assert _warnings(caplog) == []
    assert (
        _threading.get_intra_op_parallelism_threads(),
        _threading.get_inter_op_parallelism_threads(),
    ) == running_runtime


@pytest.mark.parametrize("field", ["intra_op_parallelism_threads", "inter_op_parallelism_threads"])
def test_a_thread_pool_size_too_late_for_the_runtime_is_named_in_a_warning(
    running_runtime, caplog, field
):
    current = dict(
        zip(["intra_op_parallelism_threads", "inter_op_parallelism_threads"], running_runtime)
    )
    config = tf.compat.v1.ConfigProto(**{field: current[field] + 1})
    with caplog.at_level(logging.WARNING, logger="tensorflow"):
        session_config.apply(config)
    (warning,) = _warnings(caplog)
    assert warning.startswith(f"session_config.{field} cannot be applied")
    assert "Set it before anything runs a TensorFlow op" in warning
    assert getattr(_threading, f"get_{field}")() == current[field]


def test_a_thread_pool_size_of_zero_or_the_current_one_asks_for_nothing(running_runtime, caplog):
    intra, inter = running_runtime
    configs = [
        tf.compat.v1.ConfigProto(),
        tf.compat.v1.ConfigProto(
            intra_op_parallelism_threads=intra, inter_op_parallelism_threads=inter
        ),
    ]
    with caplog.at_level(logging.WARNING, logger="tensorflow"):
        for config in configs:
            session_config.apply(config)
    assert _warnings(caplog) == []


def test_no_gpu_is_a_warning_only_where_gpus_are_already_in_use(running_runtime, caplog):
    config = tf.compat.v1.ConfigProto(device_count={"GPU": 0})
    gpus = tf.config.list_physical_devices("GPU")
    with caplog.at_level(logging.WARNING, logger="tensorflow"):
        session_config.apply(config)
    if gpus:
        (warning,) = _warnings(caplog)
        assert warning.startswith('session_config.device_count={"GPU": 0} cannot be applied')
    else:  # nothing to hide: the runtime already sees no GPU
        assert _warnings(caplog) == []
        assert tf.config.get_visible_devices("GPU") == []


def test_fields_without_a_tf2_meaning_are_left_alone(running_runtime, caplog):
    config = tf.compat.v1.ConfigProto(allow_soft_placement=True, device_filters=["/job:ps"])
    config.graph_options.optimizer_options.do_common_subexpression_elimination = True
    with caplog.at_level(logging.WARNING, logger="tensorflow"):
        session_config.apply(config)
    assert _warnings(caplog) == []
