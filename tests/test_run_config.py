"""RunConfig keeps the original's defaults and validation."""

import collections
import copy
import json
import os
import subprocess

import pytest
import tensorflow as tf

from tfestimator_compat import RunConfig
from tfestimator_compat import run_config

REFERENCE_PYTHON = os.environ.get("TFESTIMATOR_REFERENCE_PYTHON")
# The shape of the original's `experimental_distribute` argument.
DistributeConfig = collections.namedtuple(
    "DistributeConfig", "train_distribute eval_distribute remote_cluster", defaults=(None,) * 3
)


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
    # The original's sentence, which the upstream test matches; then what to do.
    with pytest.raises(ValueError) as raised:
        RunConfig(save_checkpoints_steps=10, save_checkpoints_secs=10)
    assert str(raised.value).startswith(
        "`save_checkpoints_steps` and `save_checkpoints_secs` cannot be both set. Set one"
    )


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


# TF_CONFIG: one table of cases, checked against every cluster property here and
# against tensorflow-estimator 2.15 itself in `test_table_matches_the_original`.

CHIEF_CLUSTER = {"chief": ["host0:2222"], "worker": ["host1:2222", "host2:2222"]}
PS_CLUSTER = {**CHIEF_CLUSTER, "ps": ["host3:2222", "host4:2222"]}
MASTER_CLUSTER = {"master": ["host0:2222"], "ps": ["host3:2222"], "worker": ["host1:2222"]}
WORKERS_ONLY = {"worker": ["host1:2222", "host2:2222"]}

LOCAL = {
    "cluster_spec": {},
    "task_type": "worker",
    "task_id": 0,
    "is_chief": True,
    "master": "",
    "evaluation_master": "",
    "num_ps_replicas": 0,
    "num_worker_replicas": 1,
    "global_id_in_cluster": 0,
    "service": None,
    "device_filters": None,
}


def _task(task_type, index, cluster=CHIEF_CLUSTER, **extra):
    return {"cluster": cluster, "task": {"type": task_type, "index": index}, **extra}


# name: (TF_CONFIG, whether a train_distribute strategy is given, expected properties).
# With a strategy the cluster is the strategy's: the original's values are those its
# distribute coordinator gave each worker once training started.
VALID_CASES = {
    "no TF_CONFIG": ({}, False, LOCAL),
    "local worker 0 with masters and service": (
        {
            "task": {"type": "worker", "index": 0},
            "session_master": "grpc://local:1",
            "eval_session_master": "grpc://eval:1",
            "service": {"name": "platform"},
        },
        False,
        {
            **LOCAL,
            "master": "grpc://local:1",
            "evaluation_master": "grpc://eval:1",
            "service": {"name": "platform"},
        },
    ),
    "chief of chief+workers": (
        _task("chief", 0, service={"name": "platform"}),
        False,
        {
            **LOCAL,
            "cluster_spec": CHIEF_CLUSTER,
            "task_type": "chief",
            "master": "grpc://host0:2222",
            "num_worker_replicas": 3,
            "service": {"name": "platform"},
            "device_filters": ["/job:ps", "/job:chief"],
        },
    ),
    "worker 1 of chief+workers": (
        _task("worker", "1"),
        False,
        {
            **LOCAL,
            "cluster_spec": CHIEF_CLUSTER,
            "task_id": 1,
            "is_chief": False,
            "master": "grpc://host2:2222",
            "num_worker_replicas": 3,
            "global_id_in_cluster": 2,
            "device_filters": ["/job:ps", "/job:worker/task:1"],
        },
    ),
    "a one-task cluster runs locally": (
        _task("chief", 0, cluster={"chief": ["host0:2222"]}),
        False,
        {
            **LOCAL,
            "cluster_spec": {"chief": ["host0:2222"]},
            "task_type": "chief",
            "device_filters": ["/job:ps", "/job:chief"],
        },
    ),
    "legacy master": (
        _task("master", 0, cluster=MASTER_CLUSTER),
        False,
        {
            **LOCAL,
            "cluster_spec": MASTER_CLUSTER,
            "task_type": "master",
            "master": "grpc://host0:2222",
            "num_ps_replicas": 1,
            "num_worker_replicas": 2,
            "device_filters": ["/job:ps", "/job:master"],
        },
    ),
    "worker of a legacy master, session_master given": (
        _task("worker", 0, cluster=MASTER_CLUSTER, session_master="grpc://elsewhere:1"),
        False,
        {
            **LOCAL,
            "cluster_spec": MASTER_CLUSTER,
            "is_chief": False,
            "master": "grpc://elsewhere:1",
            "num_ps_replicas": 1,
            "num_worker_replicas": 2,
            "global_id_in_cluster": 1,
            "device_filters": ["/job:ps", "/job:worker/task:0"],
        },
    ),
    "ps 1 of ps+workers": (
        _task("ps", 1, cluster=PS_CLUSTER),
        False,
        {
            **LOCAL,
            "cluster_spec": PS_CLUSTER,
            "task_type": "ps",
            "task_id": 1,
            "is_chief": False,
            "master": "grpc://host4:2222",
            "num_ps_replicas": 2,
            "num_worker_replicas": 3,
            "global_id_in_cluster": 4,
            "device_filters": ["/job:ps", "/job:worker", "/job:chief", "/job:master"],
        },
    ),
    "worker 0 of ps+workers": (
        _task("worker", 0, cluster=PS_CLUSTER, rpc_layer="grpc+loas", environment="google"),
        False,
        {
            **LOCAL,
            "cluster_spec": PS_CLUSTER,
            "is_chief": False,
            "master": "grpc://host1:2222",
            "num_ps_replicas": 2,
            "num_worker_replicas": 3,
            "global_id_in_cluster": 1,
            "device_filters": ["/job:ps", "/job:worker/task:0"],
        },
    ),
    "evaluator": (
        _task("evaluator", 0, cluster=PS_CLUSTER, eval_session_master="grpc://eval:1"),
        False,
        {
            **LOCAL,
            "task_type": "evaluator",
            "is_chief": False,
            "evaluation_master": "grpc://eval:1",
            "num_worker_replicas": 0,
            "global_id_in_cluster": None,
        },
    ),
    # The original accepted an "evaluator" job in the cluster; the evaluator still
    # sees no cluster, and the other tasks count it only in their global ids.
    "evaluator listed in the cluster": (
        _task("evaluator", 0, cluster={**CHIEF_CLUSTER, "evaluator": ["host9:2222"]}),
        False,
        {
            **LOCAL,
            "task_type": "evaluator",
            "is_chief": False,
            "num_worker_replicas": 0,
            "global_id_in_cluster": None,
        },
    ),
    "worker beside an evaluator job": (
        _task("worker", 0, cluster={**CHIEF_CLUSTER, "evaluator": ["host9:2222"]}),
        False,
        {
            **LOCAL,
            "cluster_spec": {**CHIEF_CLUSTER, "evaluator": ["host9:2222"]},
            "is_chief": False,
            "master": "grpc://host1:2222",
            "num_worker_replicas": 3,
            "global_id_in_cluster": 2,
            "device_filters": ["/job:ps", "/job:worker/task:0"],
        },
    ),
    "strategy: worker 0 is the chief without a chief job": (
        _task("worker", 0, cluster=WORKERS_ONLY, service={"name": "platform"}),
        True,
        {
            **LOCAL,
            "cluster_spec": WORKERS_ONLY,
            "master": "grpc://host1:2222",
            "evaluation_master": "grpc://host1:2222",
            "num_worker_replicas": 2,
        },
    ),
    "strategy: worker 1 without a chief job": (
        _task("worker", 1, cluster=WORKERS_ONLY, rpc_layer="grpc+loas"),
        True,
        {
            **LOCAL,
            "cluster_spec": WORKERS_ONLY,
            "task_id": 1,
            "is_chief": False,
            "master": "grpc+loas://host2:2222",
            "evaluation_master": "grpc+loas://host2:2222",
            "num_worker_replicas": 2,
            "global_id_in_cluster": 1,
        },
    ),
    "strategy: the chief job's task is the chief": (
        _task("chief", 0),
        True,
        {
            **LOCAL,
            "cluster_spec": CHIEF_CLUSTER,
            "task_type": "chief",
            "master": "grpc://host0:2222",
            "evaluation_master": "grpc://host0:2222",
            "num_worker_replicas": 3,
        },
    ),
    "strategy: worker 0 beside a chief": (
        _task("worker", 0, rpc_layer=""),
        True,
        {
            **LOCAL,
            "cluster_spec": CHIEF_CLUSTER,
            "is_chief": False,
            "master": "host1:2222",
            "evaluation_master": "host1:2222",
            "num_worker_replicas": 3,
            "global_id_in_cluster": 1,
        },
    ),
    "strategy: evaluator": (
        _task("evaluator", 0, cluster=WORKERS_ONLY),
        True,
        {**LOCAL, "task_type": "evaluator", "num_worker_replicas": 0, "global_id_in_cluster": None},
    ),
    "strategy: a legacy master cluster reads as without one": (
        _task("worker", 0, cluster=MASTER_CLUSTER),
        True,
        {
            **LOCAL,
            "cluster_spec": MASTER_CLUSTER,
            "is_chief": False,
            "master": "grpc://host1:2222",
            "num_ps_replicas": 1,
            "num_worker_replicas": 2,
            "global_id_in_cluster": 1,
            "device_filters": ["/job:ps", "/job:worker/task:0"],
        },
    ),
}

_NO_TASK_TYPE = 'If "cluster" is set in TF_CONFIG, task type must be set.'
_NEGATIVE_INDEX = "Task index must be non-negative number."
# name: (TF_CONFIG, whether a strategy is given, exception type, the original's first
# sentence, which ours starts with before saying what to do).
INVALID_CASES = {
    "missing task": ({"cluster": CHIEF_CLUSTER}, False, ValueError, _NO_TASK_TYPE),
    "missing index": (
        {"cluster": CHIEF_CLUSTER, "task": {"type": "worker"}},
        False,
        ValueError,
        'If "cluster" is set in TF_CONFIG, task index must be set.',
    ),
    "index out of range": (
        _task("worker", 2),
        False,
        ValueError,
        "2 is not a valid task_id for task_type worker in the cluster_spec:",
    ),
    "negative index": (_task("worker", -1), False, ValueError, _NEGATIVE_INDEX),
    # The original let int() fail ("invalid literal for int() ..."); ours names TF_CONFIG.
    "non-integer index": (
        _task("worker", "one"),
        False,
        ValueError,
        "The task index in TF_CONFIG must be an integer",
    ),
    "chief index 1": (
        _task("chief", 1),
        False,
        ValueError,
        "1 is not a valid task_id for task_type chief in the cluster_spec:",
    ),
    "two chiefs": (
        _task("chief", 0, cluster={**CHIEF_CLUSTER, "chief": ["host0:2222", "host9:2222"]}),
        False,
        ValueError,
        'The "cluster" in TF_CONFIG must have only one "chief" node.',
    ),
    "two masters": (
        _task("master", 0, cluster={**MASTER_CLUSTER, "master": ["host0:2222", "host9:2222"]}),
        False,
        ValueError,
        'The "cluster" in TF_CONFIG must have only one "master" node.',
    ),
    "no chief without a strategy": (
        _task("worker", 0, cluster=WORKERS_ONLY),
        False,
        ValueError,
        'If "cluster" is set in TF_CONFIG, it must have one "chief" node.',
    ),
    "master and chief": (
        _task("master", 0, cluster={**MASTER_CLUSTER, "chief": ["host9:2222"]}),
        False,
        ValueError,
        "If `master` node exists in `cluster`, job `chief` is not supported.",
    ),
    "evaluator beside a master": (
        _task("evaluator", 0, cluster=MASTER_CLUSTER),
        False,
        ValueError,
        "If `master` node exists in `cluster`, task_type `evaluator` is not supported.",
    ),
    "unknown task type": (
        _task("trainer", 0),
        False,
        ValueError,
        "trainer is not a valid task_type in the cluster_spec:",
    ),
    "local chief": (
        {"task": {"type": "chief", "index": 0}},
        False,
        ValueError,
        'If "cluster" is not set in TF_CONFIG, task type must be WORKER.',
    ),
    "local index 1": (
        {"task": {"type": "worker", "index": 1}},
        False,
        ValueError,
        'If "cluster" is not set in TF_CONFIG, task index must be 0.',
    ),
    "service not a dict": (
        {"service": ["x"]},
        False,
        TypeError,
        "If \"service\" is set in TF_CONFIG, it must be a dict. Given <class 'list'>",
    ),
    "strategy: missing task": ({"cluster": WORKERS_ONLY}, True, ValueError, _NO_TASK_TYPE),
    "strategy: two chiefs": (
        _task("worker", 0, cluster={**WORKERS_ONLY, "chief": ["a:1", "b:1"]}),
        True,
        ValueError,
        'The "cluster" in TF_CONFIG must have only one "chief" node.',
    ),
    "strategy: index out of range": (
        _task("worker", 2, cluster=WORKERS_ONLY),
        True,
        ValueError,
        "2 is not a valid task_id for task_type worker in the cluster_spec:",
    ),
    "strategy: unknown task type": (
        _task("chief", 0, cluster=WORKERS_ONLY),
        True,
        ValueError,
        "chief is not a valid task_type in the cluster_spec:",
    ),
}


def _strategy():
    return tf.distribute.OneDeviceStrategy("/cpu:0")


def _config(monkeypatch, tf_config, with_strategy, **kwargs):
    monkeypatch.setenv("TF_CONFIG", json.dumps(tf_config))
    return RunConfig(train_distribute=_strategy() if with_strategy else None, **kwargs)


def _properties(config):
    session_config = config.session_config
    return {
        "cluster_spec": config.cluster_spec.as_dict(),
        "task_type": config.task_type,
        "task_id": config.task_id,
        "is_chief": config.is_chief,
        "master": config.master,
        "evaluation_master": config.evaluation_master,
        "num_ps_replicas": config.num_ps_replicas,
        "num_worker_replicas": config.num_worker_replicas,
        "global_id_in_cluster": config.global_id_in_cluster,
        "service": config.service,
        "device_filters": None if session_config is None else list(session_config.device_filters),
    }


@pytest.mark.parametrize("name", list(VALID_CASES))
def test_tf_config_sets_the_cluster_properties(monkeypatch, name):
    tf_config, with_strategy, expected = VALID_CASES[name]
    assert _properties(_config(monkeypatch, tf_config, with_strategy)) == expected


@pytest.mark.parametrize("name", list(INVALID_CASES))
def test_invalid_tf_config_is_rejected(monkeypatch, name):
    tf_config, with_strategy, error, sentence = INVALID_CASES[name]
    with pytest.raises(error) as raised:
        _config(monkeypatch, tf_config, with_strategy)
    message = str(raised.value)
    assert message.startswith(sentence), message
    assert len(message) > len(sentence), f"no advice after the original's words: {message}"


def test_no_tf_config_is_local(monkeypatch):
    monkeypatch.delenv("TF_CONFIG", raising=False)
    assert _properties(RunConfig()) == LOCAL


def test_tf_config_that_is_not_json_says_so(monkeypatch):
    monkeypatch.setenv("TF_CONFIG", "{cluster: oops}")
    with pytest.raises(ValueError, match="TF_CONFIG is not valid JSON"):
        RunConfig()


def test_distributed_default_session_config(monkeypatch):
    config = _config(monkeypatch, _task("worker", 1), False)
    session_config = config.session_config
    assert session_config.allow_soft_placement
    rewrite = session_config.graph_options.rewrite_options
    assert rewrite.meta_optimizer_iterations == rewrite.ONE
    given = tf.compat.v1.ConfigProto(log_device_placement=True)
    assert (
        _config(monkeypatch, _task("worker", 1), False, session_config=given).session_config
        is given
    )


def test_replace_and_deepcopy_keep_the_cluster(monkeypatch):
    strategy = _strategy()
    config = _config(monkeypatch, _task("worker", 1, service={"name": "platform"}), False)
    monkeypatch.delenv("TF_CONFIG")
    other = config.replace(train_distribute=strategy, save_checkpoints_steps=7)
    assert _properties(other) == _properties(config)
    assert other.train_distribute is strategy
    assert other.cluster_spec is not config.cluster_spec
    assert other.service is not config.service
    copied = copy.deepcopy(other)
    assert copied.train_distribute is strategy
    assert copied.cluster_spec.as_dict() == CHIEF_CLUSTER


def test_experimental_distribute_supplies_the_strategies(monkeypatch):
    strategy = _strategy()
    distribute = DistributeConfig(train_distribute=strategy, eval_distribute=strategy)
    config = _config(
        monkeypatch,
        _task("worker", 0, cluster=WORKERS_ONLY),
        False,
        experimental_distribute=distribute,
    )
    assert config.train_distribute is strategy and config.eval_distribute is strategy
    assert config.is_chief and config.num_worker_replicas == 2
    with pytest.raises(ValueError, match="Both `train_distribute` and"):
        RunConfig(train_distribute=strategy, experimental_distribute=distribute)
    with pytest.raises(NotImplementedError, match="remote_cluster"):
        RunConfig(experimental_distribute=DistributeConfig(remote_cluster=WORKERS_ONLY))


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"protocol": "http"}, "protocol should be grpc or grpc\\+verbs"),
        ({"session_creation_timeout_secs": 0}, "session_creation_timeout_secs should be > 0"),
        ({"experimental_max_worker_delay_secs": 1.5}, "must be an integer"),
        ({"device_fn": lambda operation: None}, 'exactly one argument "op"'),
    ],
)
def test_more_invalid_values(kwargs, message):
    with pytest.raises(ValueError, match=message):
        RunConfig(**kwargs)


_REFERENCE_PROPERTIES = """
import json, os, sys
import tensorflow as tf
from tensorflow.python.distribute import distribute_coordinator
from tensorflow.python.distribute import estimator_training

results = {}
for name, (tf_config, with_strategy) in json.loads(sys.argv[1]).items():
    os.environ["TF_CONFIG"] = json.dumps(tf_config)
    strategy = tf.distribute.OneDeviceStrategy("/cpu:0") if with_strategy else None
    try:
        config = tf.estimator.RunConfig(train_distribute=strategy)
    except Exception as error:
        results[name] = [type(error).__name__, str(error)]
        continue
    if getattr(config, "_distribute_coordinator_mode", None):
        # What train_and_evaluate did on every task before building the model.
        task = tf_config["task"]
        context = distribute_coordinator._WorkerContext(
            strategy, config.cluster_spec, task["type"], int(task["index"]),
            rpc_layer=tf_config.get("rpc_layer", "grpc"))
        estimator_training._init_run_config_from_worker_context(config, context)
    session_config = config.session_config
    results[name] = {
        "cluster_spec": config.cluster_spec.as_dict(),
        "task_type": config.task_type,
        "task_id": config.task_id,
        "is_chief": config.is_chief,
        "master": config.master,
        "evaluation_master": config.evaluation_master,
        "num_ps_replicas": config.num_ps_replicas,
        "num_worker_replicas": config.num_worker_replicas,
        "global_id_in_cluster": config.global_id_in_cluster,
        "service": config.service,
        "device_filters": None if session_config is None else list(session_config.device_filters),
        "session_config": None if session_config is None else str(session_config),
    }
print(json.dumps(results))
"""


@pytest.mark.skipif(
    not REFERENCE_PYTHON,
    reason="set TFESTIMATOR_REFERENCE_PYTHON to a python with tensorflow-estimator 2.15",
)
def test_table_matches_the_original(monkeypatch):
    # Invalid cases with a strategy are left out: the original only failed on them
    # later, once its distribute coordinator started.
    plain_invalid = {name: case for name, case in INVALID_CASES.items() if not case[1]}
    cases = {name: case[:2] for name, case in {**VALID_CASES, **plain_invalid}.items()}
    result = subprocess.run(
        [REFERENCE_PYTHON, "-c", _REFERENCE_PROPERTIES, json.dumps(cases)],
        capture_output=True,
        text=True,
        env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"},
    )
    assert result.returncode == 0, result.stderr[-3000:]
    theirs = json.loads(result.stdout.strip().splitlines()[-1])
    for name, (tf_config, with_strategy, expected) in VALID_CASES.items():
        original = dict(theirs[name])
        session_config = original.pop("session_config")
        assert original == expected, name
        ours = _config(monkeypatch, tf_config, with_strategy).session_config
        assert session_config == (None if ours is None else str(ours)), name
    for name, (_, _, error, sentence) in plain_invalid.items():
        assert theirs[name][0] == error.__name__, name
        if name != "non-integer index":
            assert theirs[name][1].startswith(sentence), (name, theirs[name][1])


def test_a_train_distribute_that_is_no_strategy_is_refused_by_the_estimator(tmp_path):
    # 2.15 accepted it in RunConfig and failed later; here the Estimator refuses it.
    from helpers import classifier_model_fn

    import tfestimator_compat as est

    config = RunConfig(model_dir=str(tmp_path), train_distribute="mirrored")
    with pytest.raises(ValueError, match="must be a tf.distribute strategy"):
        est.Estimator(classifier_model_fn, config=config)


@pytest.mark.parametrize("chief", ["chief", "master"])
def test_a_config_as_another_task_saw_it_matches_that_tasks_own(monkeypatch, chief):
    # A ps chief calls each worker's input_fn itself, with the config the
    # worker would have made from its own TF_CONFIG.
    cluster = {chief: ["host0:2222"], "worker": ["host1:2222", "host2:2222"], "ps": ["host3:2222"]}

    def config_of(task_type, task_id):
        task = {"type": task_type, "index": task_id}
        monkeypatch.setenv("TF_CONFIG", json.dumps({"cluster": cluster, "task": task}))
        return RunConfig(model_dir="/tmp/m", save_checkpoints_steps=7, tf_random_seed=3)

    chief_config = config_of(chief, 0)
    for task_type, task_id in [(chief, 0), ("worker", 0), ("worker", 1)]:
        seen = run_config.as_seen_by_task(chief_config, task_type, task_id)
        own = config_of(task_type, task_id)
        expected = _properties(own)
        del expected["device_filters"]  # of the session_config, which stays the chief's
        assert {k: v for k, v in _properties(seen).items() if k in expected} == expected
        assert (seen.model_dir, seen.save_checkpoints_steps, seen.tf_random_seed) == (
            "/tmp/m",
            7,
            3,
        )
    assert (chief_config.task_type, chief_config.task_id) == (chief, 0), "the chief's is kept"
