"""Importing tfestimator_compat makes tf.estimator reachable wherever legacy code looks."""

import importlib
import subprocess
import sys
import types

import tensorflow as tf

import tfestimator_compat


def test_install_sets_tf_estimator_and_compat_v1():
    module = tfestimator_compat.install()
    assert tf.estimator is module
    assert tf.compat.v1.estimator.Estimator is tfestimator_compat.Estimator
    assert tf.estimator.ModeKeys.PREDICT == "infer"
    assert tfestimator_compat.install() is module, "install() is idempotent"


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
    assert not hasattr(tf.estimator, "install")


def test_subpackages_come_from_the_package_modules():
    from tfestimator_compat import experimental
    from tfestimator_compat import export

    for name in export.__all__:
        assert getattr(tf.estimator.export, name) is getattr(export, name)
    for name in experimental.__all__:
        assert getattr(tf.estimator.experimental, name) is getattr(experimental, name)
    assert tf.compat.v1.estimator.export is tf.estimator.export


def test_importing_the_package_activates_it():
    code = (
        "import tensorflow as tf, tfestimator_compat; "
        "print(tf.estimator.Estimator is tfestimator_compat.Estimator)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.stdout.strip() == "True", result.stderr[-2000:]


def test_every_import_form():
    import tensorflow.estimator
    import tensorflow.estimator.export
    from tensorflow import estimator

    assert estimator is tf.estimator
    assert tensorflow.estimator is tf.estimator
    assert tensorflow.estimator.export.Exporter is tfestimator_compat.export.Exporter
    assert importlib.import_module("tensorflow.estimator.experimental") is tf.estimator.experimental


def test_compat_v1_module_object_and_inputs():
    import tensorflow.compat.v1 as v1
    import tensorflow.compat.v1.estimator.inputs
    import tensorflow.compat.v2 as v2

    assert v1.estimator is tf.compat.v1.estimator
    assert v1.estimator.Estimator is tfestimator_compat.Estimator
    assert v1.estimator.inputs.numpy_input_fn is tfestimator_compat.inputs.numpy_input_fn
    assert tensorflow.compat.v1.estimator.inputs.pandas_input_fn
    assert v2.estimator is tf.estimator
    assert not hasattr(tf.estimator, "inputs"), "inputs is TF1 only, as in the original"


def test_old_package_name():
    import tensorflow_estimator as tf_estimator
    import tensorflow_estimator.estimator
    from tensorflow_estimator import estimator

    assert tf_estimator.estimator is estimator is tf.compat.v1.estimator
    assert tensorflow_estimator.estimator.Estimator is tfestimator_compat.Estimator
    assert tensorflow_estimator.estimator.inputs.numpy_input_fn


def test_namespace_follows_the_package_all(monkeypatch):
    monkeypatch.setattr(tfestimator_compat, "LateAddition", object(), raising=False)
    monkeypatch.setattr(
        tfestimator_compat, "__all__", [*tfestimator_compat.__all__, "LateAddition"]
    )
    tfestimator_compat.install()
    assert tf.estimator.LateAddition is tfestimator_compat.LateAddition
    assert tf.compat.v1.estimator.LateAddition is tfestimator_compat.LateAddition
    monkeypatch.undo()
    tfestimator_compat.install()
    assert not hasattr(tf.estimator, "LateAddition")


def test_keras_model_to_estimator_once_the_package_has_it():
    code = (
        "import tensorflow as tf, tfestimator_compat\n"
        "def model_to_estimator(keras_model=None, **kwargs):\n"
        "    return 'estimator'\n"
        "tfestimator_compat.model_to_estimator = model_to_estimator\n"
        "tfestimator_compat.install()\n"
        "from tensorflow.keras.estimator import model_to_estimator as imported\n"
        "import tensorflow.compat.v1 as v1\n"
        "print(tf.keras.estimator.model_to_estimator is imported is model_to_estimator,\n"
        "      v1.keras.estimator.model_to_estimator is model_to_estimator)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.stdout.strip() == "True True", result.stderr[-2000:]


def test_a_tensorflow_with_its_own_estimator_keeps_it(monkeypatch):
    own = types.ModuleType("tensorflow_estimator.python.estimator.api._v2.estimator")
    monkeypatch.setattr(tf, "estimator", own)
    assert tfestimator_compat.install() is None
    assert tf.estimator is own
    installed = tfestimator_compat.install(force=True)
    assert tf.estimator is installed
    assert installed.Estimator is tfestimator_compat.Estimator


def test_layers_v1_is_installed_when_present():
    try:
        from tfestimator_compat import layers_v1  # noqa: F401
    except ImportError:
        return
    import tensorflow.compat.v1 as v1

    assert callable(v1.layers.dense)
    assert callable(tf.compat.v1.layers.dense)


def test_namespaces_are_the_same_objects_across_installs():
    before = (tf.estimator, tf.compat.v1.estimator, tf.estimator.export)
    tfestimator_compat.install()
    assert (tf.estimator, tf.compat.v1.estimator, tf.estimator.export) == before
