"""`tf.contrib` for TensorFlow 1.x programs run with `tfestimator-compat run --tf1`.

TensorFlow 2.0 removed `tf.contrib`, yet estimator programs of the TF 1.x era
used a few of its pieces on every line that mattered: `tf.contrib.tpu` for
TPUEstimator, `tf.contrib.data.map_and_batch`, `tf.contrib.layers.layer_norm`
and `optimize_loss`, `tf.contrib.lookup` tables, `tf.contrib.predictor`,
`tf.contrib.training.HParams`. `run --tf1` gives such programs a `tf.contrib`
with those pieces, each mapped onto what TensorFlow 2 still has; one module
of this package per contrib module, whose `__all__` is what the program sees.

Any other contrib name raises an error that names it and its TensorFlow 2
replacement. The replacements live in `REPLACEMENTS` only: the errors and
`tfestimator-compat check` both read them.

Example, in a program run with `tfestimator-compat run --tf1 train.py`:

```python
import tensorflow as tf

dataset = dataset.apply(tf.contrib.data.map_and_batch(parse, batch_size=32))
hidden = tf.contrib.layers.layer_norm(hidden, begin_norm_axis=-1, begin_params_axis=-1)
```
"""

import importlib
import types
from typing import Dict
from typing import List
from typing import Tuple

SUBMODULES = (
    "cluster_resolver",
    "data",
    "estimator",
    "framework",
    "layers",
    "learn",
    "lookup",
    "predictor",
    "tpu",
    "training",
)
"""The contrib modules `run --tf1` provides; each is `tfestimator_compat.legacy.contrib.<name>`."""

GUIDE = "migration_guide/replacements.md#contrib"

# TensorFlow >= 2.15 has the BoostedTrees* op definitions but no kernels for them; the
# shim's boosted trees grow in plain ops.
_BOOSTED_TREES = (
    "tf.estimator.BoostedTreesClassifier/Regressor(..., train_in_memory=True) (this shim, see "
    "migration_guide/replacements.md#boosted-trees); natively, ydf.GradientBoostedTreesLearner, "
    "sklearn.ensemble.HistGradientBoostingClassifier/Regressor or lightgbm"
)

# Contrib name (relative to `tf.contrib`) -> its TensorFlow 2 replacement. A name without a
# row of its own takes the row of its longest dotted prefix.
REPLACEMENTS: Dict[str, str] = {
    "": "the TensorFlow 2 API of each contrib module (see the guide's table)",
    "cluster_resolver": "tf.distribute.cluster_resolver",
    "cluster_resolver.TPUClusterResolver": (
        "tf.distribute.cluster_resolver.TPUClusterResolver with tf.distribute.TPUStrategy "
        "(on a TPU); off TPU, TPUEstimator(use_tpu=False) needs no resolver"
    ),
    "data": "tf.data",
    "data.map_and_batch": (
        "dataset.map(map_func, num_parallel_calls=...).batch(batch_size, drop_remainder=...)"
    ),
    "data.parallel_interleave": (
        "dataset.interleave(map_func, cycle_length, block_length, "
        "num_parallel_calls=tf.data.AUTOTUNE, deterministic=not sloppy)"
    ),
    "data.sloppy_interleave": (
        "dataset.interleave(map_func, cycle_length, block_length, "
        "num_parallel_calls=tf.data.AUTOTUNE, deterministic=False)"
    ),
    "data.batch_and_drop_remainder": "dataset.batch(batch_size, drop_remainder=True)",
    "data.padded_batch_and_drop_remainder": "dataset.padded_batch(..., drop_remainder=True)",
    "data.shuffle_and_repeat": "dataset.shuffle(buffer_size).repeat(count)",
    "data.unbatch": "dataset.unbatch()",
    "data.sliding_window_batch": "dataset.window(size, shift, drop_remainder=True).flat_map(...)",
    "estimator": "tf.estimator and tf.estimator.experimental (this shim)",
    "estimator.binary_classification_head": "tf.estimator.BinaryClassHead",
    "estimator.multi_class_head": "tf.estimator.MultiClassHead",
    "estimator.multi_label_head": "tf.estimator.MultiLabelHead",
    "estimator.regression_head": "tf.estimator.RegressionHead",
    "estimator.poisson_regression_head": "tf.estimator.PoissonRegressionHead",
    "estimator.logistic_regression_head": "tf.estimator.LogisticRegressionHead",
    "estimator.multi_head": "tf.estimator.MultiHead",
    "estimator.DNNEstimator": "tf.estimator.DNNEstimator with a tf.estimator head",
    "estimator.LinearEstimator": "tf.estimator.LinearEstimator with a tf.estimator head",
    "estimator.DNNLinearCombinedEstimator": (
        "tf.estimator.DNNLinearCombinedEstimator with a tf.estimator head"
    ),
    "estimator.replicate_model_fn": "tf.distribute.MirroredStrategy (RunConfig(train_distribute=))",
    "estimator.boosted_trees_classifier_train_in_memory": _BOOSTED_TREES,
    "estimator.boosted_trees_regressor_train_in_memory": _BOOSTED_TREES,
    "boosted_trees": _BOOSTED_TREES,
    "estimator.TowerOptimizer": "tf.distribute.MirroredStrategy (RunConfig(train_distribute=))",
    "estimator.clip_gradients_by_norm": "tf.clip_by_global_norm on the gradients in the model_fn",
    "estimator.forward_features": (
        "copy the features into the predictions dict (and PredictOutput) in the model_fn"
    ),
    "framework": "tf (e.g. get_or_create_global_step -> optimizer.iterations)",
    "framework.get_or_create_global_step": "optimizer.iterations",
    "framework.get_global_step": "optimizer.iterations",
    "framework.create_global_step": "optimizer.iterations",
    "framework.arg_scope": "pass the arguments explicitly, or functools.partial",
    "framework.add_arg_scope": "pass the arguments explicitly, or functools.partial",
    "framework.get_variables_to_restore": "tf.train.Checkpoint(...).restore(path)",
    "framework.assign_from_checkpoint_fn": "tf.train.Checkpoint(...).restore(path)",
    "layers": "keras.layers",
    "layers.layer_norm": "keras.layers.LayerNormalization(epsilon=1e-12)",
    "layers.xavier_initializer": "keras.initializers.GlorotUniform (uniform=False: GlorotNormal)",
    "layers.xavier_initializer_conv2d": "keras.initializers.GlorotUniform",
    "layers.variance_scaling_initializer": "keras.initializers.VarianceScaling",
    "layers.l1_regularizer": "keras.regularizers.L1",
    "layers.l2_regularizer": "keras.regularizers.L2 (its l2 is 2 * scale: no 1/2 factor)",
    "layers.l1_l2_regularizer": "keras.regularizers.L1L2",
    "layers.sum_regularizer": "a function adding the keras.regularizers' values",
    "layers.apply_regularization": "tf.add_n of the regularizers' values, added to the loss",
    "layers.fully_connected": "keras.layers.Dense(num_outputs, activation='relu')",
    "layers.flatten": "keras.layers.Flatten",
    "layers.stack": "a loop applying keras layers in turn",
    "layers.embed_sequence": "keras.layers.Embedding",
    "layers.optimize_loss": "a keras optimizer's apply_gradients in train_step",
    "layers.feature_column": "tf.feature_column, or keras.utils.FeatureSpace",
    "feature_column": "tf.feature_column, or keras.utils.FeatureSpace",
    "learn": "tf.estimator (this shim) or a keras.Model",
    "learn.RunConfig": "tf.estimator.RunConfig",
    "learn.ModeKeys": "tf.estimator.ModeKeys (INFER is PREDICT there)",
    "learn.Experiment": "tf.estimator.train_and_evaluate with a TrainSpec and an EvalSpec",
    "lookup": "tf.lookup",
    "lookup.index_table_from_tensor": (
        "tf.lookup.StaticVocabularyTable over a tf.lookup.KeyValueTensorInitializer, "
        "or keras.layers.StringLookup(vocabulary=...)"
    ),
    "lookup.index_table_from_file": (
        "tf.lookup.StaticVocabularyTable over a tf.lookup.TextFileInitializer, "
        "or keras.layers.StringLookup(vocabulary=path)"
    ),
    "lookup.index_to_string_table_from_tensor": "keras.layers.StringLookup(invert=True)",
    "lookup.index_to_string_table_from_file": "keras.layers.StringLookup(invert=True)",
    "lookup.HashTable": "tf.lookup.StaticHashTable",
    "predictor": "tf.saved_model.load(path).signatures['serving_default']",
    "tpu": "tf.compat.v1.estimator.tpu (this shim) or tf.distribute.TPUStrategy",
    "slim": "keras.layers (the tf-slim package exists but targets TF1 graphs)",
    "rnn": "keras.layers.LSTMCell/GRUCell with keras.layers.RNN",
    "cudnn_rnn": "keras.layers.LSTM/GRU (they use cuDNN when they can)",
    "seq2seq": "keras layers (tensorflow-addons, its successor, is end-of-life)",
    "metrics": "keras.metrics",
    "losses": "keras.losses",
    "opt": "keras.optimizers",
    "training": "tf.data and keras",
    "training.HParams": "a dict or a dataclass",
    "distribute": "tf.distribute",
    "summary": "tf.summary",
    "image": "tf.image and Keras preprocessing layers",
    "quantize": "the TensorFlow Model Optimization Toolkit",
    "eager": "eager execution is the default in TF2",
    "keras": "keras",
}


def replacement(relative: str) -> str:
    """The TensorFlow 2 replacement of `tf.contrib.<relative>` ("" for `tf.contrib`)."""
    parts = relative.split(".") if relative else []
    for end in range(len(parts), -1, -1):
        key = ".".join(parts[:end])
        if key in REPLACEMENTS:
            return REPLACEMENTS[key]
    raise AssertionError("REPLACEMENTS has a row for the empty name")


_ROOT = "tensorflow.contrib"


class Namespace(types.ModuleType):
    """A `tf.contrib` module as a program sees it: what is provided, and errors for the rest."""

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        if self.__name__ == _ROOT and name in SUBMODULES:
            return namespace(name)
        raise AttributeError(missing_message(_relative(self.__name__, name)))

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self.__all__))


_namespaces: Dict[str, Namespace] = {}


def _relative(module_name: str, name: str) -> str:
    prefix = module_name[len(_ROOT) + 1 :]
    return f"{prefix}.{name}" if prefix else name


def namespace(submodule: str = "") -> Namespace:
    """The module object a program sees as `tf.contrib` ("") or `tf.contrib.<submodule>`."""
    if submodule not in _namespaces:
        if submodule == "":
            module = Namespace(_ROOT, __doc__)
            module.__all__ = list(SUBMODULES)
        elif submodule in SUBMODULES:
            source = _import_submodule(submodule)
            module = Namespace(f"{_ROOT}.{submodule}", source.__doc__)
            for name in source.__all__:
                setattr(module, name, getattr(source, name))
            module.__all__ = list(source.__all__)
            setattr(namespace(), submodule, module)
        else:
            raise AttributeError(missing_message(submodule))
        _namespaces[submodule] = module
    return _namespaces[submodule]


def _import_submodule(submodule: str) -> types.ModuleType:
    """This package's `tf.contrib.<submodule>`; on a TensorFlow that ships its own
    tf.estimator (<= 2.15, with Keras 2), only those that map to it import."""
    try:
        return importlib.import_module(f"{__name__}.{submodule}")
    except ImportError:
        from tfestimator_compat.shim import native_estimator

        if not native_estimator.tensorflow_has_estimator():
            raise
        raise ImportError(
            f"tf.contrib.{submodule} under `tfestimator-compat run --tf1` needs TensorFlow "
            ">= 2.16 with Keras 3: it runs on this package's own engine, and this "
            "TensorFlow still ships tf.estimator with Keras 2 (only tf.contrib.tpu maps "
            f"to TensorFlow's own). Replace it with {replacement(submodule)}; see {GUIDE}."
        ) from None


def provides(relative: str) -> bool:
    """Whether `tf.contrib.<relative>` works under `run --tf1` ("" is `tf.contrib` itself).

    A name below a provided class or function (`tpu.InputPipelineConfig.PER_HOST_V2`)
    counts as provided: it is that object's business.
    """
    if not relative:
        return True
    submodule, _, rest = relative.partition(".")
    if submodule not in SUBMODULES:
        return False
    return not rest or rest.split(".")[0] in provided_names(submodule)


def provided_names(submodule: str) -> Tuple[str, ...]:
    """`tf.contrib.<submodule>`'s names: its module's `__all__`, read without importing it.

    The module imports TensorFlow, which `tfestimator-compat check` must not.
    """
    from tfestimator_compat.shim.api_surface import source_names

    return source_names.declared_all(f"{__name__}.{submodule}")


def known_names() -> List[str]:
    """Every contrib name with a row in `REPLACEMENTS` or provided here, sorted."""
    names = set(REPLACEMENTS) | set(SUBMODULES)
    for submodule in SUBMODULES:
        names.update(f"{submodule}.{name}" for name in provided_names(submodule))
    return sorted(names)


def missing_message(relative: str) -> str:
    """The error for `tf.contrib.<relative>`, which `run --tf1` does not provide."""
    submodule = relative.split(".")[0]
    if submodule in SUBMODULES:
        has = f"its tf.contrib.{submodule} has {', '.join(namespace(submodule).__all__)}"
    else:
        has = f"its tf.contrib has {', '.join(SUBMODULES)}"
    return (
        f"tf.contrib.{relative} was removed in TensorFlow 2.0 and `tfestimator-compat run "
        f"--tf1` does not provide it ({has}). Replace it with {replacement(relative)}; "
        f"see {GUIDE}."
    )
