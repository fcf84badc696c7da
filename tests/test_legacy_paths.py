"""TF 1.x module paths (`tensorflow.python.estimator.*`) and errors for missing pieces.

The names each module held come from tensorflow-estimator 2.15
(`api_surface/make_estimator_modules.py`); each resolves to the shim's public
object, or raises an error that names it and the migration guide.
"""

import importlib
import types

import numpy as np
import pytest
import tensorflow as tf

from tfestimator_compat.shim import api_surface
from tfestimator_compat.shim.api_surface import estimator_modules
from tfestimator_compat.shim.api_surface.missing import NotProvidedAttributeError
from tfestimator_compat.shim.api_surface.missing import NotProvidedError
from tfestimator_compat.shim.api_surface.missing import install_hooks


def test_tf1_imports_give_the_public_objects():
    from tensorflow.python.estimator import estimator
    from tensorflow.python.estimator.canned.metric_keys import MetricKeys
    from tensorflow.python.estimator.export import export_output
    from tensorflow.python.estimator.export.export import build_raw_serving_input_receiver_fn
    from tensorflow.python.estimator.inputs.numpy_io import numpy_input_fn
    from tensorflow.python.estimator.inputs.pandas_io import pandas_input_fn
    from tensorflow.python.estimator.model_fn import EstimatorSpec
    from tensorflow.python.estimator.model_fn import ModeKeys
    from tensorflow.python.estimator.run_config import RunConfig
    from tensorflow.python.estimator.training import train_and_evaluate

    assert ModeKeys is tf.estimator.ModeKeys
    assert EstimatorSpec is tf.estimator.EstimatorSpec
    assert estimator.Estimator is tf.compat.v1.estimator.Estimator
    assert estimator.EstimatorV2 is tf.estimator.Estimator
    assert RunConfig is tf.estimator.RunConfig
    assert train_and_evaluate is tf.estimator.train_and_evaluate
    assert export_output.PredictOutput is tf.estimator.export.PredictOutput
    assert build_raw_serving_input_receiver_fn is (
        tf.estimator.export.build_raw_serving_input_receiver_fn
    )
    assert numpy_input_fn is tf.compat.v1.estimator.inputs.numpy_input_fn
    assert pandas_input_fn is tf.compat.v1.estimator.inputs.pandas_input_fn
    assert MetricKeys.LOSS == "loss"


def test_the_tensorflow_estimator_paths_are_the_same_modules():
    from tensorflow_estimator.python.estimator.canned import dnn
    from tensorflow_estimator.python.estimator.canned import linear

    assert dnn.DNNClassifierV2 is tf.estimator.DNNClassifier
    assert dnn.DNNClassifier is tf.compat.v1.estimator.DNNClassifier
    assert linear.LinearRegressorV2 is tf.estimator.LinearRegressor
    assert importlib.import_module(
        "tensorflow_estimator.python.estimator.head.multi_head"
    ).MultiHead


def test_every_name_of_every_module_resolves_or_names_itself():
    resolved = 0
    for module, names in estimator_modules.original_names().items():
        for prefix in estimator_modules.PREFIXES:
            loaded = importlib.import_module(f"{prefix}.{module}" if module else prefix)
            for name, origin in names.items():
                value = estimator_modules.resolve(module, name)
                if value is None:
                    with pytest.raises(NotProvidedError, match="migration_guide/"):
                        getattr(loaded, name)
                    continue
                resolved += 1
                assert getattr(loaded, name) is value
                if origin.startswith("v2:"):
                    public = tf
                    for part in origin[3:].split("."):
                        public = getattr(public, part)
                    assert value is public, f"{module}.{name}"
    assert resolved >= 2 * 125  # both prefixes; the rest are the original's internals


def test_a_missing_name_in_a_from_import_says_what_and_where():
    with pytest.raises(NotProvidedError) as raised:
        from tensorflow.python.estimator.util import parse_input_fn_result  # noqa: F401
    message = str(raised.value)
    assert "tensorflow.python.estimator.util.parse_input_fn_result" in message
    assert "migration_guide/replacements.md#estimator-package-imports" in message


def test_a_missing_estimator_name_is_not_a_bare_attribute_error():
    # The shim now provides every name tf.estimator had (BoostedTrees* last); a namespace
    # in tf.estimator's name that lacks one still says which, and where the guide is.
    bare = types.ModuleType("tensorflow.estimator")
    install_hooks([bare])
    with pytest.raises(NotProvidedAttributeError) as raised:
        _ = bare.BoostedTreesClassifier
    assert "tensorflow.estimator.BoostedTreesClassifier" in str(raised.value)
    assert "tensorflow-estimator 2.8" in str(raised.value)
    assert "migration_guide/replacements.md#boosted-trees" in str(raised.value)
    assert hasattr(tf.estimator, "BoostedTreesClassifier")
    with pytest.raises(AttributeError) as typo:
        _ = tf.estimator.DNNClasifier
    assert not isinstance(typo.value, NotProvidedAttributeError)


def test_star_import_takes_the_resolved_names():
    namespace = {}
    exec("from tensorflow.python.estimator.model_fn import *", namespace)
    assert namespace["ModeKeys"] is tf.estimator.ModeKeys
    exec("from tensorflow.python.estimator.util import *", namespace)
    assert "parse_input_fn_result" not in namespace


def test_check_lists_the_module_paths():
    paths = api_surface.known_paths()
    assert "tensorflow.python.estimator.model_fn" in paths
    assert "tensorflow_estimator.python.estimator.canned.dnn" in paths
    symbol = api_surface.classify("tensorflow.python.estimator.canned.dnn.DNNClassifierV2")
    assert (symbol.status, symbol.replacement) == (
        api_surface.SUPPORTED,
        "tf.estimator.DNNClassifier",
    )
    private = api_surface.classify("tensorflow.python.estimator.training._TrainingExecutor")
    assert private.status == api_surface.NOT_SUPPORTED


def test_a_tf1_program_trains_through_the_old_paths(model_dir):
    from tensorflow.python.estimator.estimator import Estimator
    from tensorflow.python.estimator.model_fn import EstimatorSpec
    from tensorflow.python.estimator.model_fn import ModeKeys

    def model_fn(features, labels, mode):
        predictions = tf.compat.v1.layers.dense(features["x"], 1)
        if mode == ModeKeys.PREDICT:
            return EstimatorSpec(mode, predictions=predictions)
        loss = tf.compat.v1.losses.mean_squared_error(labels, predictions)
        train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(
            loss, tf.compat.v1.train.get_or_create_global_step()
        )
        return EstimatorSpec(mode, loss=loss, train_op=train_op)

    def input_fn():
        x = np.ones((8, 2), np.float32)
        return tf.data.Dataset.from_tensor_slices(({"x": x}, x[:, :1])).batch(4)

    estimator = Estimator(model_fn, model_dir)
    estimator.train(input_fn, steps=2)
    assert estimator.get_variable_value("global_step") == 2
