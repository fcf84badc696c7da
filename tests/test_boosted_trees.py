"""The BoostedTrees estimators: why they are missing, and that they say so.

tensorflow-estimator 2.8 was the last release with `BoostedTreesClassifier`,
`BoostedTreesRegressor` and `BoostedTreesEstimator`; TF 1.x had the in-memory
trainers in `tf.contrib.estimator`. They ran on TensorFlow's `BoostedTrees*`
kernels, which TensorFlow >= 2.15 no longer ships (the op definitions remain),
so the shim raises, names the guide section and `check` reports them.
"""

import json

import pytest
import tensorflow as tf
from tensorflow.python.framework import kernels

import tfestimator_compat  # noqa: F401  (installs tf.estimator)
from tfestimator_compat import api_surface
from tfestimator_compat import check
from tfestimator_compat import contrib
from tfestimator_compat.api_surface.missing import NotProvidedAttributeError

_GUIDE = "migration_guide/replacements.md#boosted-trees"
_CLASSES = ("BoostedTreesClassifier", "BoostedTreesRegressor", "BoostedTreesEstimator")
# The ops the original's training, prediction and explanations ran on.
_KERNELS_USED = (
    "BoostedTreesEnsembleResourceHandleOp",
    "BoostedTreesCreateEnsemble",
    "BoostedTreesCreateQuantileStreamResource",
    "BoostedTreesMakeQuantileSummaries",
    "BoostedTreesQuantileStreamResourceAddSummaries",
    "BoostedTreesQuantileStreamResourceFlush",
    "BoostedTreesQuantileStreamResourceGetBucketBoundaries",
    "BoostedTreesBucketize",
    "BoostedTreesAggregateStats",
    "BoostedTreesCalculateBestFeatureSplitV2",
    "BoostedTreesUpdateEnsembleV2",
    "BoostedTreesCenterBias",
    "BoostedTreesTrainingPredict",
    "BoostedTreesPredict",
    "BoostedTreesExampleDebugOutputs",
    "BoostedTreesSerializeEnsemble",
    "BoostedTreesDeserializeEnsemble",
)


def test_tensorflow_ships_the_boosted_trees_ops_without_kernels():
    # The day a TensorFlow ships them again, this fails: the estimators can then be built.
    for op in _KERNELS_USED:
        assert hasattr(tf.raw_ops, op), op
        assert not kernels.get_registered_kernels_for_op(op).kernel, op
    with pytest.raises(tf.errors.NotFoundError, match="BoostedTreesBucketize"):
        tf.raw_ops.BoostedTreesBucketize(
            float_values=[tf.constant([0.0, 1.0])], bucket_boundaries=[tf.constant([0.5])]
        )


@pytest.mark.parametrize("namespace", [tf.estimator, tf.compat.v1.estimator])
@pytest.mark.parametrize("name", _CLASSES)
def test_each_class_raises_naming_its_last_release_and_the_guide(namespace, name):
    with pytest.raises(NotProvidedAttributeError) as raised:
        getattr(namespace, name)
    message = str(raised.value)
    assert name in message
    assert "tensorflow-estimator 2.8" in message
    assert "no kernel" in message and _GUIDE in message
    assert not hasattr(namespace, name)


@pytest.mark.parametrize("root", ["tf.estimator", "tf.compat.v1.estimator"])
def test_check_knows_the_classes_and_their_methods(root):
    for name in _CLASSES:
        symbol = api_surface.classify(f"{root}.{name}")
        assert symbol.name == f"{root}.{name}"
        assert symbol.status == api_surface.NOT_SUPPORTED
        assert symbol.guide == _GUIDE
        assert "ydf" in symbol.replacement
    method = api_surface.classify(f"{root}.BoostedTreesClassifier.experimental_feature_importances")
    assert method.name == f"{root}.BoostedTreesClassifier" and method.guide == _GUIDE


def test_the_contrib_in_memory_trainers_point_to_the_same_section():
    for relative in (
        "estimator.boosted_trees_classifier_train_in_memory",
        "estimator.boosted_trees_regressor_train_in_memory",
        "boosted_trees",
    ):
        symbol = api_surface.classify(f"tf.contrib.{relative}")
        assert symbol.status == api_surface.NOT_SUPPORTED
        assert "#boosted-trees" in symbol.replacement
    with pytest.raises(AttributeError, match="boosted_trees_classifier_train_in_memory.*no kernel"):
        _ = contrib.namespace("estimator").boosted_trees_classifier_train_in_memory


def test_check_reports_a_tutorial_program_as_not_runnable(capsys, tmp_path):
    program = tmp_path / "titanic.py"
    program.write_text(
        "import tensorflow as tf\n"
        "est = tf.estimator.BoostedTreesClassifier(feature_columns, n_batches_per_layer=1)\n"
        "est.train(train_input_fn, max_steps=100)\n"
        "importances = est.experimental_feature_importances(normalize=True)\n"
    )
    status = check.main(["--format", "json", str(program)])
    findings = json.loads(capsys.readouterr().out)["findings"]
    assert status == 1
    names = {finding["name"] for finding in findings}
    assert "tf.estimator.BoostedTreesClassifier" in names
    assert all(f["status"] == api_surface.NOT_SUPPORTED for f in findings if "Boosted" in f["name"])
