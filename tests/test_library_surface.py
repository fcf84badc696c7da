"""What libraries built on tf.estimator import from the original's private modules.

CTR model zoos subclass `canned.head._Head` and build optimizers with
`canned.optimizers.get_optimizer_instance`; Estimator subclasses read and set
`self._model_dir`, `self._config`, `self._session_config`, ...; training
scripts loop on `estimator._load_global_step_from_checkpoint_dir`. Numbers
are compared with tensorflow-estimator 2.15 (`fixtures/library_surface`).
"""

import importlib
import os
import sys

import helpers
import numpy as np
import pytest
import tensorflow as tf

from tfestimator_compat.shim.api_surface import estimator_modules
from tfestimator_compat.shim.api_surface.missing import NotProvidedAttributeError
from tfestimator_compat.shim.api_surface.missing import NotProvidedError

_CASES = os.path.join(helpers.FIXTURES, "library_surface", "cases.py")


@pytest.mark.parametrize(
    "paths", ["tensorflow.python.estimator", "tensorflow_estimator.python.estimator"]
)
def test_a_ctr_library_trains_evaluates_and_exports_as_on_the_original(paths, tmp_path):
    cases = helpers.module_from_file(_CASES, "library_surface_cases")
    result = cases.run(tf, paths, str(tmp_path / "model"))
    expected = helpers.fixture_expected("library_surface")
    expected.pop("factory_heads")
    expected.pop("head_losses")
    helpers.assert_metrics_match(result.pop("metrics"), expected.pop("metrics"))
    np.testing.assert_allclose(result.pop("dnn_kernel"), expected.pop("dnn_kernel"), atol=1e-5)
    np.testing.assert_allclose(
        result.pop("first_probability"), expected.pop("first_probability"), atol=1e-5
    )
    assert result == expected


@pytest.mark.slow
def test_tf1_heads_from_the_private_factories_train_as_on_the_original(tmp_path):
    cases = helpers.module_from_file(_CASES, "library_surface_cases")
    result = cases.factory_heads(tf, "tensorflow.python.estimator", str(tmp_path))
    expected = helpers.fixture_expected("library_surface")["factory_heads"]
    assert sorted(result) == sorted(expected)
    for case, seen in result.items():
        helpers.assert_metrics_match(seen["metrics"], expected[case]["metrics"])
        # Batch norm's moving mean moves only if the head ran the graph's UPDATE_OPS.
        for name in ("moving_mean", "kernel"):
            np.testing.assert_allclose(seen[name], expected[case][name], atol=1e-5, err_msg=case)


def test_tf1_heads_create_the_originals_loss_spec():
    cases = helpers.module_from_file(_CASES, "library_surface_cases")
    result = cases.head_losses(tf, "tensorflow.python.estimator")
    expected = helpers.fixture_expected("library_surface")["head_losses"]
    for case, parts in expected.items():
        for field, value in parts.items():
            seen = np.broadcast_to(result[case][field], np.shape(value))  # weights may be 1.0
            np.testing.assert_allclose(seen, value, rtol=1e-6, err_msg=f"{case} {field}")


def test_the_factories_heads_are_tf1_heads():
    from tensorflow.python.estimator.canned import head as head_lib

    head = head_lib._binary_logistic_or_multi_class_head(3, None, None, "weighted_sum")
    assert isinstance(head, head_lib._Head)
    assert isinstance(head, head_lib._MultiClassHeadWithSoftmaxCrossEntropyLoss)
    assert head_lib._regression_head(label_dimension=2).logits_dimension == 2


def _model_fn(features, labels, mode):
    w = tf.compat.v1.get_variable("w", [1, 1], initializer=tf.compat.v1.zeros_initializer())
    predictions = tf.matmul(features["x"], w)
    loss = tf.reduce_mean(tf.square(predictions - labels))
    train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(
        loss, tf.compat.v1.train.get_global_step()
    )
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op, predictions=predictions)


def _input_fn():
    return {"x": tf.ones([2, 1])}, tf.ones([2, 1])


def test_the_head_base_names_what_a_subclass_must_implement():
    from tensorflow.python.estimator.canned.head import _Head

    head = _Head()  # the original's ABCMeta was Python 2 syntax: nothing is enforced
    with pytest.raises(NotImplementedError, match="Calling an abstract method"):
        _ = head.name
    with pytest.raises(NotImplementedError, match="must implement `create_estimator_spec"):
        head.create_estimator_spec(features={}, mode="train", logits=None)


def test_a_head_that_builds_a_tpu_spec_gives_an_estimator_spec():
    from tensorflow_estimator.python.estimator.canned import head as head_lib

    class PredictOnlyHead(head_lib._Head):
        name = "predict_only"
        logits_dimension = 1

        def _create_tpu_estimator_spec(self, features, mode, logits, labels, *training):
            return tf.compat.v1.estimator.tpu.TPUEstimatorSpec(mode, predictions={"l": logits})

    with tf.Graph().as_default():
        spec = PredictOnlyHead().create_estimator_spec(
            features={}, mode=tf.estimator.ModeKeys.PREDICT, logits=tf.ones([2, 1])
        )
    assert isinstance(spec, tf.estimator.EstimatorSpec)
    assert sorted(spec.predictions) == ["l"]
    assert head_lib._summary_key("ctr", "auc") == "auc/ctr"
    assert head_lib._DEFAULT_SERVING_KEY == "serving_default"
    assert head_lib.LossSpec(1, 2, 3, 4).processed_labels == 4


def test_get_optimizer_instance_builds_tf1_optimizers_as_the_original():
    from tensorflow.python.estimator.canned.optimizers import get_optimizer_instance

    optimizer = get_optimizer_instance("Adagrad", 0.1)
    assert isinstance(optimizer, tf.compat.v1.train.AdagradOptimizer)
    assert optimizer._learning_rate == 0.1
    sgd = tf.compat.v1.train.GradientDescentOptimizer(0.5)
    assert get_optimizer_instance(lambda: sgd) is sgd
    # The original's messages, measured on tensorflow-estimator 2.15.
    with pytest.raises(ValueError, match="learning_rate must be specified when opt is string"):
        get_optimizer_instance("Adagrad")
    with pytest.raises(ValueError, match="Unsupported optimizer name: Nope"):
        get_optimizer_instance("Nope", 0.1)
    with pytest.raises(ValueError, match="not a tf.compat.v1.train.Optimizer instance"):
        get_optimizer_instance(3)


def test_load_global_step_reads_a_model_dir_and_answers_zero_without_one(model_dir):
    from tensorflow_estimator.python.estimator import estimator as estimator_lib

    assert estimator_lib._load_global_step_from_checkpoint_dir(model_dir) == 0
    tf.compat.v1.estimator.Estimator(_model_fn, model_dir).train(_input_fn, steps=3)
    assert estimator_lib._load_global_step_from_checkpoint_dir(model_dir) == 3


def test_a_subclass_that_replaces_config_keeps_writing_to_its_model_dir(tmp_path):
    # Measured on tensorflow-estimator 2.15: a `_config` with another model_dir set
    # after `__init__` changes what the next calls use, but files stay in `_model_dir`.
    first, second = str(tmp_path / "a"), str(tmp_path / "b")
    estimator = tf.estimator.Estimator(_model_fn, model_dir=first)
    estimator.train(_input_fn, steps=2)
    estimator._config = estimator._config.replace(model_dir=second, save_summary_steps=1)
    assert estimator.config.save_summary_steps == 1
    estimator.train(_input_fn, steps=1)
    assert sorted(os.listdir(tmp_path)) == ["a"]
    assert estimator.model_dir == first
    assert estimator.get_variable_value("global_step") == 3


def test_a_subclass_that_moves_model_dir_before_init_is_overridden(tmp_path):
    class Early(tf.estimator.Estimator):
        def __init__(self, model_dir):
            self._model_dir = "ignored, as in the original"
            super().__init__(_model_fn, model_dir=model_dir)

    estimator = Early(str(tmp_path / "model"))
    assert estimator._model_dir == estimator.model_dir == str(tmp_path / "model")


def test_session_config_is_the_configs_or_the_originals_default():
    estimator = tf.estimator.Estimator(_model_fn)
    assert estimator._session_config.allow_soft_placement
    rewrite = estimator._session_config.graph_options.rewrite_options
    assert rewrite.meta_optimizer_iterations == rewrite.ONE
    session_config = tf.compat.v1.ConfigProto(inter_op_parallelism_threads=2)
    config = tf.estimator.RunConfig(session_config=session_config)
    given = tf.estimator.Estimator(_model_fn, config=config)._session_config
    assert (given.inter_op_parallelism_threads, given.allow_soft_placement) == (2, False)


def test_a_subclass_sets_session_config_after_init_not_before():
    class Configured(tf.estimator.Estimator):
        def __init__(self, before, after):
            self._session_config = before  # `__init__` replaces it, as in the original
            super().__init__(_model_fn)
            assert self._session_config.allow_soft_placement
            self._session_config = after

    after = tf.compat.v1.ConfigProto(allow_soft_placement=False)
    estimator = Configured(tf.compat.v1.ConfigProto(), after)
    assert estimator._session_config is after


def test_a_subclass_builds_its_own_graph_with_the_private_methods():
    estimator = tf.estimator.Estimator(_model_fn)
    with tf.Graph().as_default() as graph:
        step = estimator._create_and_assert_global_step(graph)
        spec = estimator._call_model_fn(
            {"x": tf.ones([2, 1])}, tf.ones([2, 1]), tf.estimator.ModeKeys.TRAIN, estimator.config
        )
        with tf.compat.v1.Session() as session:
            session.run(tf.compat.v1.global_variables_initializer())
            session.run(spec.train_op)
            assert session.run(step) == 1
        with pytest.raises(ValueError, match='"global_step" already exists'):
            estimator._create_and_assert_global_step(graph)


def test_a_private_method_the_shim_lacks_names_the_guide():
    estimator = tf.estimator.Estimator(_model_fn)
    with pytest.raises(NotProvidedAttributeError) as raised:
        estimator._get_features_from_input_fn(_input_fn, tf.estimator.ModeKeys.PREDICT)
    assert "Estimator._get_features_from_input_fn" in str(raised.value)
    assert "replacements.md#private-modules-and-names-libraries-use" in str(raised.value)
    with pytest.raises(AttributeError) as typo:
        _ = estimator._modle_dir
    assert not isinstance(typo.value, NotProvidedAttributeError)


def test_a_private_name_the_shim_lacks_names_itself_and_the_guide():
    with pytest.raises(NotProvidedError) as raised:
        from tensorflow.python.estimator.canned.head import _classification_output  # noqa: F401
    message = str(raised.value)
    assert "tensorflow.python.estimator.canned.head._classification_output" in message
    assert "replacements.md#private-modules-and-names-libraries-use" in message


def test_every_private_name_of_the_original_is_known_and_a_typo_is_not():
    # Private names the survey did not list come from 2.15 (make_estimator_modules.py).
    with pytest.raises(NotProvidedError, match="private-modules-and-names-libraries-use"):
        from tensorflow_estimator.python.estimator.training import _TrainingExecutor  # noqa: F401
    with pytest.raises(ImportError) as typo:
        from tensorflow.python.estimator.canned.head import _Haed  # noqa: F401
    assert not isinstance(typo.value, NotProvidedError)
    assert (
        "_check_dense_labels_match_logits_and_reshape"
        in estimator_modules.private_names()["canned.head"]
    )


def test_every_library_name_resolves_or_names_itself():
    provided = 0
    for module, names in estimator_modules.library_names().items():
        for prefix in estimator_modules.PREFIXES:
            loaded = importlib.import_module(f"{prefix}.{module}")
            for name, target in names.items():
                assert estimator_modules.provides(module, name) == (target is not None)
                if target is None:
                    with pytest.raises(NotProvidedError, match="private-modules-and-names"):
                        getattr(loaded, name)
                    continue
                provided += 1
                assert getattr(loaded, name) is estimator_modules.resolve(module, name)
    assert provided >= 2 * 20


@pytest.mark.parametrize("outer", ["v1", "v2"])
def test_the_compat_namespaces_of_the_compat_namespaces(outer):
    compat = getattr(tf.compat, outer).compat
    assert compat.v1.estimator is tf.compat.v1.estimator
    assert compat.v2.estimator is tf.estimator
    module = importlib.import_module(f"tensorflow.compat.{outer}.compat.v1.estimator")
    assert module.DNNClassifier is tf.compat.v1.estimator.DNNClassifier
    assert sys.modules[f"tensorflow.compat.{outer}.compat.v2.estimator"] is tf.estimator
