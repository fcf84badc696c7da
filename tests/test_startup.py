"""`import tfestimator_compat` imports only what a program uses (issue #37, start-up).

Each check runs in a fresh interpreter, where nothing has been imported yet:
the names of `tf.estimator` are all listed from the start, and the modules
behind a name are imported when the name is first read. Timings are the
bench's (`bench/startup.py`), not these tests'.
"""

import json
import os
import subprocess
import sys
import textwrap

import pytest
import tensorflow as tf

from tfestimator_compat import api
from tfestimator_compat.shim import lazy
from tfestimator_compat.shim.api_surface import missing

# Heavy modules a program that names none of their pieces never needs.
NOT_IMPORTED = [
    "tfestimator_compat.estimator",
    "tfestimator_compat.training",
    "tfestimator_compat.keras_model_to_estimator",
    "tfestimator_compat.engine.loop.keras_adapter",
    "tfestimator_compat.engine.tracing.model_fn_graph",
    "tfestimator_compat.canned.dnn",
    "tfestimator_compat.canned.linear",
    "tfestimator_compat.canned.dnn_linear_combined",
    "tfestimator_compat.canned.baseline",
    "tfestimator_compat.canned.boosted_trees",
    "tfestimator_compat.canned.kmeans",
    "tfestimator_compat.canned.rnn",
    "tfestimator_compat.canned.linear_sdca",
    "tfestimator_compat.canned.v1",
    "tfestimator_compat.head.base_head",
    "tfestimator_compat.export.exporter",
    "tfestimator_compat.export.receivers",
    "tfestimator_compat.tpu.tpu_estimator",
    "tfestimator_compat.early_stopping",
    "tfestimator_compat.legacy.layers_v1.api",
    "tfestimator_compat.legacy.layers_v1.core",
    "tfestimator_compat.legacy.layers_v1.convolutional",
]

# Reading the name (an expression the child evaluates, in this order) imports these modules.
FIRST_READS = {
    "tf.compat.v1.layers.dense": ["tfestimator_compat.legacy.layers_v1.api"],
    "tf.estimator.RunConfig": ["tfestimator_compat.run_config"],
    "tf.estimator.export.ServingInputReceiver": ["tfestimator_compat.export.receivers"],
    "tf.estimator.Estimator": [
        "tfestimator_compat.estimator",
        "tfestimator_compat.engine.loop.keras_adapter",
    ],
    "tf.estimator.DNNClassifier": ["tfestimator_compat.canned.dnn"],
    "tf.compat.v1.estimator.LinearClassifier": ["tfestimator_compat.canned.v1"],
    "tf.estimator.BoostedTreesClassifier": ["tfestimator_compat.canned.boosted_trees"],
    "tf.estimator.experimental.RNNClassifier": ["tfestimator_compat.canned.rnn"],
    "tf.compat.v1.estimator.experimental.KMeans": ["tfestimator_compat.canned.kmeans"],
    "tf.compat.v1.estimator.tpu.TPUEstimator": ["tfestimator_compat.tpu.tpu_estimator"],
    "tf.keras.estimator.model_to_estimator": ["tfestimator_compat.keras_model_to_estimator"],
}

_CHILD = textwrap.dedent(
    """
    import json, sys

    def loaded():
        return sorted(m for m in sys.modules if m.startswith("tfestimator_compat"))

    import tensorflow as tf
    import tfestimator_compat

    report = {"after_import": loaded()}
    report["dir_v2"], report["dir_v1"] = dir(tf.estimator), dir(tf.compat.v1.estimator)
    report["reads"] = {}
    for expression in sys.argv[1:]:
        before = set(loaded())
        eval(expression)
        report["reads"][expression] = sorted(set(loaded()) - before)
    report["dir_v2_after"], report["dir_v1_after"] = dir(tf.estimator), dir(tf.compat.v1.estimator)
    print("REPORT" + json.dumps(report))
    """
)


@pytest.fixture(scope="module")
def child():
    """What a fresh `import tfestimator_compat` imported, and what each first read added."""
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    result = subprocess.run(
        [sys.executable, "-c", _CHILD, *FIRST_READS],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    line = next(line for line in result.stdout.splitlines() if line.startswith("REPORT"))
    return json.loads(line[len("REPORT") :])


def test_import_leaves_unused_pieces_unimported(child):
    imported = set(child["after_import"])
    assert "tfestimator_compat.shim.installer" in imported  # the child did import the shim
    assert sorted(imported & set(NOT_IMPORTED)) == []


@pytest.mark.parametrize("expression", sorted(FIRST_READS))
def test_first_read_of_a_name_imports_its_module(child, expression):
    added = child["reads"][expression]
    for module in FIRST_READS[expression]:
        assert module in added, (expression, added)


def test_every_name_is_listed_before_any_is_read(child):
    public_v2 = {name for name in child["dir_v2"] if not name.startswith("_")}
    assert public_v2 == {*api.__all__, "export", "experimental"}
    public_v1 = {name for name in child["dir_v1"] if not name.startswith("_")}
    assert public_v1 == {*api.__all__, "export", "experimental", "inputs", "tpu"}
    assert child["dir_v2_after"] == child["dir_v2"]
    assert child["dir_v1_after"] == child["dir_v1"]


def test_a_name_read_later_is_the_object_an_eager_import_gives():
    from tfestimator_compat.canned import dnn
    from tfestimator_compat.canned import v1 as canned_v1
    from tfestimator_compat.tpu import experimental as tpu_experimental

    assert tf.estimator.DNNClassifier is dnn.DNNClassifier
    assert tf.compat.v1.estimator.DNNClassifier is canned_v1.DNNClassifier
    assert tf.estimator.Estimator is api.Estimator
    tpu = tf.compat.v1.estimator.tpu
    assert tpu.experimental.EmbeddingConfigSpec is tpu_experimental.EmbeddingConfigSpec
    from tensorflow.estimator import LinearRegressor  # noqa: PLC0415 - the import path itself

    assert LinearRegressor is tf.estimator.LinearRegressor
    from tfestimator_compat.legacy.layers_v1 import api as layers_api

    assert tf.compat.v1.layers.Dense is layers_api.Dense
    public = {name for name in dir(tf.compat.v1.layers) if not name.startswith("_")}
    assert public == {*layers_api.__all__, "experimental"}


def test_a_namespace_answers_its_names_before_its_missing_name_hook():
    import math

    namespace = lazy.Namespace("tensorflow.example")
    namespace.__all__ = namespace.provide([(math, ["sqrt"]), ("json", ["dumps"])])

    def hook(name):
        raise missing.NotProvidedAttributeError(f"hook: {name}")

    namespace.__getattr__ = hook  # as `missing.install_hooks` sets it
    assert namespace.sqrt is math.sqrt and namespace.dumps is json.dumps
    assert "dumps" in vars(namespace) and "dumps" in dir(namespace)
    with pytest.raises(missing.NotProvidedAttributeError, match="hook: loads"):
        namespace.loads  # noqa: B018
    namespace.provide([(math, ["pi"])])  # a new fill forgets the names read before
    assert "dumps" not in vars(namespace) and "dumps" not in dir(namespace)
    assert namespace.pi == math.pi


def test_installed_namespaces_keep_the_missing_name_hook():
    for namespace in (tf.estimator, tf.compat.v1.estimator, tf.estimator.export):
        assert "__getattr__" in vars(namespace), namespace
    assert not hasattr(tf.estimator, "NoSuchEstimator")
