"""TF_CONFIG read into a task's place in the cluster (engine/distributed/cluster.py).

Between-graph clusters need one chief; a strategy-managed one makes `worker:0`
the chief when it has none; an evaluator never sees the training cluster; each
invalid TF_CONFIG is refused with an error that names the field to fix.
"""

import pytest
import tensorflow as tf

from tfestimator_compat.engine.distributed import cluster

CLUSTER = {
    "chief": ["chief0:2222"],
    "worker": ["worker0:2222", "worker1:2222"],
    "ps": ["ps0:2222", "ps1:2222"],
}


def _parse(task_type, index, cluster_dict=None, strategy_managed=False, **extra):
    tf_config = {"cluster": cluster_dict or CLUSTER, "task": {"type": task_type, "index": index}}
    tf_config.update(extra)
    return cluster.parse_tf_config(tf_config, strategy_managed=strategy_managed)


# --- read_tf_config ---


@pytest.mark.parametrize("value", [None, "", "   \n"])
def test_an_unset_or_blank_tf_config_reads_as_an_empty_dict(monkeypatch, value):
    if value is None:
        monkeypatch.delenv("TF_CONFIG", raising=False)
    else:
        monkeypatch.setenv("TF_CONFIG", value)
    assert cluster.read_tf_config() == {}


def test_tf_config_is_read_as_json(monkeypatch):
    monkeypatch.setenv("TF_CONFIG", '{"task": {"type": "worker", "index": 0}}')
    assert cluster.read_tf_config() == {"task": {"type": "worker", "index": 0}}


def test_tf_config_that_is_not_json_is_refused_with_an_example(monkeypatch):
    monkeypatch.setenv("TF_CONFIG", "{cluster: }")
    with pytest.raises(ValueError, match=r"TF_CONFIG is not valid JSON .*\"cluster\""):
        cluster.read_tf_config()


def test_tf_config_that_is_not_a_json_object_is_refused(monkeypatch):
    monkeypatch.setenv("TF_CONFIG", '["worker"]')
    with pytest.raises(ValueError, match="TF_CONFIG must be a JSON object"):
        cluster.read_tf_config()


# --- no cluster: one local task ---


def test_no_cluster_is_a_single_local_chief_worker():
    config = cluster.parse_tf_config({})
    assert config.cluster_spec.as_dict() == {}
    assert (config.task_type, config.task_id, config.is_chief) == ("worker", 0, True)
    assert (config.master, config.evaluation_master) == ("", "")
    assert (config.num_ps_replicas, config.num_worker_replicas) == (0, 1)
    assert config.global_id_in_cluster == 0
    assert config.device_filters is None


def test_without_a_cluster_the_session_masters_come_from_tf_config():
    config = cluster.parse_tf_config(
        {"session_master": "grpc://here:1", "eval_session_master": "grpc://there:2"}
    )
    assert (config.master, config.evaluation_master) == ("grpc://here:1", "grpc://there:2")


def test_without_a_cluster_only_worker_zero_is_allowed():
    with pytest.raises(ValueError, match="task type must be WORKER. Got 'ps'"):
        cluster.parse_tf_config({"task": {"type": "ps", "index": 0}})
    with pytest.raises(ValueError, match="task index must be 0. Got 1"):
        cluster.parse_tf_config({"task": {"type": "worker", "index": 1}})


def test_a_service_must_be_a_dict_and_is_kept():
    with pytest.raises(TypeError, match='"service" is set in TF_CONFIG, it must be a dict'):
        cluster.parse_tf_config({"service": "name"})
    service = {"name": "my-service"}
    assert cluster.parse_tf_config({"service": service}).service == service
    assert _parse("worker", 0, service=service).service == service


# --- between-graph clusters ---


def test_the_chief_task_is_the_chief_and_talks_to_the_parameter_servers():
    config = _parse("chief", 0)
    assert config.cluster_spec.as_dict() == CLUSTER
    assert (config.task_type, config.task_id, config.is_chief) == ("chief", 0, True)
    assert config.master == "grpc://chief0:2222"
    assert config.evaluation_master == ""
    assert (config.num_ps_replicas, config.num_worker_replicas) == (2, 3)
    assert config.device_filters == ("/job:ps", "/job:chief")


def test_a_worker_is_not_the_chief_and_talks_to_itself_and_the_parameter_servers():
    config = _parse("worker", 1)
    assert config.is_chief is False
    assert config.master == "grpc://worker1:2222"
    assert config.device_filters == ("/job:ps", "/job:worker/task:1")


def test_a_parameter_server_talks_to_every_job():
    config = _parse("ps", 0)
    assert config.is_chief is False
    assert config.device_filters == ("/job:ps", "/job:worker", "/job:chief", "/job:master")


@pytest.mark.parametrize(
    "task_type, index, expected",
    [("chief", 0, 0), ("worker", 0, 1), ("worker", 1, 2), ("ps", 0, 3), ("ps", 1, 4)],
)
def test_global_ids_count_the_chief_first_and_parameter_servers_last(task_type, index, expected):
    assert _parse(task_type, index).global_id_in_cluster == expected


def test_other_jobs_are_numbered_by_name_between_the_chief_and_the_parameter_servers():
    jobs = {"chief": ["c:1"], "worker": ["w:1"], "ps": ["p:1"], "aux": ["a:1", "a:2"]}
    ids = {
        (task_type, index): _parse(task_type, index, jobs).global_id_in_cluster
        for task_type, index in [("chief", 0), ("aux", 0), ("aux", 1), ("worker", 0), ("ps", 0)]
    }
    assert ids == {("chief", 0): 0, ("aux", 0): 1, ("aux", 1): 2, ("worker", 0): 3, ("ps", 0): 4}


def test_a_task_index_given_as_a_string_is_read_as_a_number():
    config = _parse("worker", "1")
    assert config.task_id == 1


def test_a_one_task_cluster_runs_locally():
    assert _parse("chief", 0, {"chief": ["chief0:2222"]}).master == ""


def test_session_master_in_tf_config_overrides_the_tasks_address():
    assert _parse("worker", 0, session_master="grpc://elsewhere:1").master == "grpc://elsewhere:1"


def test_a_cluster_needs_exactly_one_chief_without_a_strategy():
    with pytest.raises(ValueError, match='it must have one "chief" node'):
        _parse("worker", 0, {"worker": ["w0:1", "w1:1"]})
    with pytest.raises(ValueError, match='must have only one "chief" node. It lists 2'):
        _parse("worker", 0, {"chief": ["c0:1", "c1:1"], "worker": ["w0:1"]})


@pytest.mark.parametrize(
    "task, message",
    [
        ({"index": 0}, "task type must be set"),
        ({"type": "worker"}, "task index must be set. Add \"index\" to the 'worker' task"),
        ({"type": "worker", "index": -1}, "Task index must be non-negative number"),
        ({"type": "worker", "index": "first"}, "task index in TF_CONFIG must be an integer"),
        ({"type": "trainer", "index": 0}, "trainer is not a valid task_type"),
        ({"type": "worker", "index": 2}, "2 is not a valid task_id for task_type worker"),
    ],
)
def test_an_invalid_task_is_refused_naming_the_field(task, message):
    with pytest.raises(ValueError, match=message):
        cluster.parse_tf_config({"cluster": CLUSTER, "task": task})


# --- the evaluator ---


def test_an_evaluator_sees_no_training_cluster():
    config = _parse("evaluator", 0, eval_session_master="grpc://eval:1")
    assert config.cluster_spec.as_dict() == {}
    assert (config.task_type, config.task_id, config.is_chief) == ("evaluator", 0, False)
    assert (config.master, config.evaluation_master) == ("", "grpc://eval:1")
    assert (config.num_ps_replicas, config.num_worker_replicas) == (0, 0)
    assert config.global_id_in_cluster is None


def test_an_evaluator_need_not_be_a_job_of_the_cluster():
    assert _parse("evaluator", 3).task_id == 3


# --- the legacy `master` job ---


def test_a_master_job_is_the_chief_of_a_legacy_cluster():
    jobs = {"master": ["m:1"], "worker": ["w0:1", "w1:1"], "ps": ["p:1"]}
    master = _parse("master", 0, jobs)
    assert master.is_chief is True
    assert master.num_worker_replicas == 3
    assert master.device_filters == ("/job:ps", "/job:master")
    worker = _parse("worker", 1, jobs)
    assert (worker.is_chief, worker.global_id_in_cluster) == (False, 2)


def test_a_legacy_cluster_refuses_a_chief_job_or_an_evaluator():
    with pytest.raises(ValueError, match="job `chief` is not supported"):
        _parse("master", 0, {"master": ["m:1"], "chief": ["c:1"]})
    with pytest.raises(ValueError, match="task_type `evaluator` is not supported"):
        _parse("evaluator", 0, {"master": ["m:1"], "worker": ["w:1"]})


# --- strategy-managed clusters ---


def test_with_a_strategy_and_no_chief_worker_zero_is_the_chief():
    jobs = {"worker": ["w0:1", "w1:1"]}
    first = _parse("worker", 0, jobs, strategy_managed=True)
    second = _parse("worker", 1, jobs, strategy_managed=True)
    assert (first.is_chief, second.is_chief) == (True, False)
    assert (first.master, first.evaluation_master) == ("grpc://w0:1", "grpc://w0:1")
    assert first.num_worker_replicas == 2
    assert first.device_filters is None


def test_with_a_strategy_and_a_chief_worker_zero_is_not_the_chief():
    jobs = {"chief": ["c:1"], "worker": ["w0:1"]}
    assert _parse("worker", 0, jobs, strategy_managed=True).is_chief is False
    assert _parse("chief", 0, jobs, strategy_managed=True).is_chief is True


def test_with_a_strategy_the_master_uses_the_rpc_layer_and_the_service_is_dropped():
    jobs = {"worker": ["w0:1"]}
    config = _parse("worker", 0, jobs, strategy_managed=True, rpc_layer="", service={"a": 1})
    assert config.master == "w0:1"
    assert config.service is None
    assert _parse("worker", 0, jobs, strategy_managed=True, rpc_layer="grpc+verbs").master == (
        "grpc+verbs://w0:1"
    )


def test_with_a_strategy_the_evaluator_is_its_own_chief():
    config = _parse("evaluator", 0, {"worker": ["w0:1"]}, strategy_managed=True)
    assert config.is_chief is True
    assert config.cluster_spec.as_dict() == {}


def test_with_a_strategy_there_is_still_at_most_one_chief():
    with pytest.raises(ValueError, match='only one "chief" node'):
        _parse("worker", 0, {"chief": ["c0:1", "c1:1"], "worker": ["w:1"]}, strategy_managed=True)


def test_the_cluster_config_is_frozen():
    config = cluster.parse_tf_config({})
    with pytest.raises(AttributeError):
        config.is_chief = False


# --- is_ps_strategy ---


def test_strategies_other_than_parameter_servers_are_not_ps_strategies():
    assert cluster.is_ps_strategy(None) is False
    assert cluster.is_ps_strategy(tf.distribute.get_strategy()) is False
    assert cluster.is_ps_strategy(tf.distribute.OneDeviceStrategy("/cpu:0")) is False


def test_the_tf1_parameter_server_strategy_is_a_ps_strategy():
    strategy = tf.compat.v1.distribute.experimental.ParameterServerStrategy()
    assert cluster.is_ps_strategy(strategy) is True


def test_a_chief_that_trains_reads_pipeline_0_and_worker_i_pipeline_i_plus_1():
    # As the original's ParameterServerStrategy numbered the training tasks' inputs.
    from tfestimator_compat.engine.distributed.coordinated_training import _pipeline_ids

    workers = ["/job:worker/replica:0/task:0", "/job:worker/replica:0/task:1"]
    assert _pipeline_ids(workers + ["/job:chief/replica:0/task:0"]) == [1, 2, 0]
    assert _pipeline_ids(workers) == [0, 1], "a TF2 coordinator that only schedules"


@pytest.mark.parametrize("chief", ["chief", "master"])
def test_each_pipelines_device_names_the_task_whose_input_fn_it_runs(chief):
    # The chief's job is the chief's own config's (a legacy cluster names it master).
    from tfestimator_compat.engine.distributed.coordinated_training import _task

    class ChiefConfig:
        task_type = chief

    config = ChiefConfig()
    assert _task("/job:chief/replica:0/task:0", config) == (chief, 0)
    assert _task("/job:worker/replica:0/task:2", config) == ("worker", 2)
