"""RunConfig keeps the original's defaults and validation."""

import json

import pytest
import tensorflow as tf

from tfestimator_compat import RunConfig


def test_defaults_match_the_original():
    config = RunConfig()
    assert config.save_checkpoints_secs == 600
    assert config.save_checkpoints_steps is None
    assert config.save_summary_steps == 100
    assert config.keep_checkpoint_max == 5
    assert config.keep_checkpoint_every_n_hours == 10000
    assert config.log_step_count_steps == 100
    assert config.tf_random_seed is None
    assert config.model_dir is None
    assert config.is_chief and config.task_type == "worker" and config.task_id == 0
    assert config.num_worker_replicas == 1 and config.num_ps_replicas == 0
    assert config.cluster_spec.as_dict() == {}


def test_steps_replace_the_default_secs():
    config = RunConfig(save_checkpoints_steps=10)
    assert config.save_checkpoints_steps == 10
    assert config.save_checkpoints_secs is None


def test_both_checkpoint_schedules_is_an_error():
    with pytest.raises(ValueError, match="cannot be both set"):
        RunConfig(save_checkpoints_steps=10, save_checkpoints_secs=10)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"model_dir": ""}, "model_dir should be non-empty"),
        ({"save_summary_steps": -1}, "save_summary_steps should be >= 0"),
        ({"keep_checkpoint_max": -1}, "keep_checkpoint_max should be >= 0"),
        ({"keep_checkpoint_every_n_hours": 0}, "keep_checkpoint_every_n_hours should be > 0"),
        ({"session_config": "x"}, "session_config must be instance of ConfigProto"),
        ({"tf_random_seed": 1.5}, "tf_random_seed must be integer"),
    ],
)
def test_invalid_values(kwargs, message):
    with pytest.raises(ValueError, match=message):
        RunConfig(**kwargs)


def test_replace_returns_a_validated_copy():
    config = RunConfig(model_dir="/tmp/a")
    other = config.replace(save_checkpoints_steps=5)
    assert other.save_checkpoints_steps == 5 and other.save_checkpoints_secs is None
    assert config.save_checkpoints_secs == 600
    with pytest.raises(ValueError, match="Replacing task_type is not supported"):
        config.replace(task_type="chief")


def test_model_dir_from_tf_config(monkeypatch):
    monkeypatch.setenv("TF_CONFIG", json.dumps({"model_dir": "/tmp/from_env"}))
    assert RunConfig().model_dir == "/tmp/from_env"
    with pytest.raises(ValueError, match="same value as the model_dir in TF_CONFIG"):
        RunConfig(model_dir="/tmp/other")


def test_session_config_accepts_config_proto():
    assert RunConfig(session_config=tf.compat.v1.ConfigProto()).session_config is not None
