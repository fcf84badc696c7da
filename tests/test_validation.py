"""Each mistake with the Estimator API raises what the original raised, when it raised it.

The cases live in `tests/fixtures/validation/make_fixture.py`, which also records
`EXPECTED` from TF 2.15 + tensorflow-estimator 2.15 (run it with the reference
python; it prints this table). "ok" means the original raised nothing at that
moment (a predict case ending in `_call` does not start the generator).
"""

import pytest
import tensorflow as tf
from helpers import fixture_generator

import tfestimator_compat  # noqa: F401 - provides tf.estimator, which the cases use

CASES = fixture_generator("validation")

EXPECTED = {
    "spec_missing_train_op": "ValueError",
    "spec_train_op_not_an_op": "TypeError",
    "spec_train_op_a_variable": "ok",
    "spec_train_op_other_graph": "ValueError",
    "spec_missing_loss_train": "ValueError",
    "spec_missing_loss_eval": "ValueError",
    "spec_missing_loss_predict": "ok",
    "spec_loss_not_a_tensor": "TypeError",
    "spec_loss_not_scalar": "ValueError",
    "spec_loss_other_graph": "ValueError",
    "spec_missing_predictions": "ValueError",
    "spec_predictions_not_a_tensor": "TypeError",
    "spec_predictions_dict_value_not_a_tensor": "TypeError",
    "spec_predictions_other_graph": "ValueError",
    "spec_predictions_dict_other_graph": "ValueError",
    "spec_eval_metric_ops_not_a_dict": "TypeError",
    "spec_eval_metric_value_not_a_tuple": "TypeError",
    "spec_eval_metric_tuple_of_three": "TypeError",
    "spec_eval_metric_update_not_an_op": "AttributeError",
    "spec_eval_metric_other_graph": "ValueError",
    "spec_export_outputs_not_a_dict": "TypeError",
    "spec_export_output_wrong_type": "TypeError",
    "spec_export_output_key_not_a_string": "ok",
    "spec_training_hooks_not_hooks": "TypeError",
    "spec_training_chief_hooks_not_hooks": "TypeError",
    "spec_evaluation_hooks_not_hooks": "TypeError",
    "spec_prediction_hooks_not_hooks": "TypeError",
    "spec_hooks_fine": "ok",
    "spec_scaffold_not_a_scaffold": "TypeError",
    "spec_replace_mode": "ValueError",
    "config_both_checkpoint_schedules": "ValueError",
    "config_negative_save_summary_steps": "ValueError",
    "config_negative_save_checkpoints_steps": "ValueError",
    "config_negative_save_checkpoints_secs": "ValueError",
    "config_negative_keep_checkpoint_max": "ValueError",
    "config_zero_keep_checkpoint_every_n_hours": "ValueError",
    "config_zero_log_step_count_steps": "ValueError",
    "config_tf_random_seed_not_an_int": "ValueError",
    "config_session_config_wrong_type": "ValueError",
    "config_device_fn_wrong_args": "ValueError",
    "config_protocol_unknown": "ValueError",
    "config_worker_delay_not_an_int": "ValueError",
    "config_zero_session_creation_timeout": "ValueError",
    "config_model_dir_empty": "ValueError",
    "config_replace_unknown_property": "ValueError",
    "config_replace_model_dir_property": "ValueError",
    "tf_config_task_without_type": "ValueError",
    "tf_config_index_out_of_range": "ValueError",
    "tf_config_type_not_in_cluster": "ValueError",
    "tf_config_two_chiefs": "ValueError",
    "tf_config_workers_without_chief": "ValueError",
    "tf_config_evaluator_index_1": "ok",
    "tf_config_train_and_evaluate_on_evaluator_1": "ValueError",
    "tf_config_train_on_evaluator": "ValueError",
    "estimator_model_fn_none": "ValueError",
    "estimator_model_fn_without_features": "ValueError",
    "estimator_model_fn_unexpected_arg": "ValueError",
    "estimator_params_not_taken": "ValueError",
    "estimator_config_not_a_run_config": "ValueError",
    "estimator_model_dir_differs_from_config": "ValueError",
    "estimator_warm_start_from_wrong_type": "ValueError",
    "warm_start_settings_without_checkpoint": "ValueError",
    "train_steps_and_max_steps": "ValueError",
    "train_zero_steps": "ValueError",
    "train_zero_max_steps": "ValueError",
    "train_hooks_not_hooks": "TypeError",
    "train_listeners_not_listeners": "TypeError",
    "train_listeners_without_checkpoints": "ValueError",
    "train_labels_not_taken": "ValueError",
    "evaluate_zero_steps": "ValueError",
    "evaluate_hooks_not_hooks": "TypeError",
    "evaluate_without_checkpoint": "ok",
    "evaluate_missing_checkpoint_path": "ValueError",
    "predict_hooks_not_hooks_call": "ok",
    "predict_hooks_not_hooks_next": "TypeError",
    "predict_keys_not_dict_call": "ok",
    "predict_keys_not_dict_next": "ValueError",
    "predict_missing_checkpoint_path_next": "ValueError",
    "export_without_receiver_fn": "ValueError",
    "export_without_checkpoint": "ValueError",
    "train_spec_input_fn_not_callable": "TypeError",
    "train_spec_zero_max_steps": "ValueError",
    "train_spec_hooks_not_hooks": "TypeError",
    "train_spec_listeners_not_listeners": "TypeError",
    "eval_spec_input_fn_not_callable": "TypeError",
    "eval_spec_zero_steps": "ValueError",
    "eval_spec_name_not_a_string": "TypeError",
    "eval_spec_hooks_not_hooks": "TypeError",
    "eval_spec_exporter_wrong_type": "TypeError",
    "eval_spec_negative_start_delay": "ValueError",
    "eval_spec_negative_throttle": "ValueError",
    "train_and_evaluate_estimator_wrong_type": "TypeError",
    "train_and_evaluate_train_spec_wrong_type": "TypeError",
    "train_and_evaluate_eval_spec_wrong_type": "TypeError",
}


@pytest.fixture(scope="module")
def cases(tmp_path_factory):
    return CASES.cases(tf.estimator, str(tmp_path_factory.mktemp("validation")))


def test_every_case_has_a_recorded_outcome(cases):
    assert sorted(cases) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_the_same_exception_type_as_the_original(cases, name, monkeypatch):
    monkeypatch.delenv("TF_CONFIG", raising=False)
    assert EXPECTED[name] in _raised(cases[name])


def _raised(case):
    """The names of the classes of the exception `case` raises, or {"ok"}.

    Ours may raise a subclass that is also the original's type.
    """
    try:
        case()
    except Exception as error:
        return {cls.__name__ for cls in type(error).__mro__}
    return {"ok"}
