"""`tf.contrib.estimator`: the helpers that became `tf.estimator` names, and `forward_features`.

TensorFlow 1.x moved most of them to `tf.estimator` and
`tf.estimator.experimental` with the same arguments; this shim provides
those, and what TensorFlow 1.x had only here: the in-memory boosted trees
trainers and `forward_features`, which copies input features (an example
id, say) into an Estimator's predictions so batch predictions can be joined
back to their inputs.
"""

import tensorflow as tf

from tfestimator_compat.canned.boosted_trees import boosted_trees_classifier_train_in_memory
from tfestimator_compat.canned.boosted_trees import boosted_trees_regressor_train_in_memory
from tfestimator_compat.estimator import Estimator
from tfestimator_compat.experimental import InMemoryEvaluatorHook
from tfestimator_compat.experimental import build_raw_supervised_input_receiver_fn
from tfestimator_compat.experimental import make_early_stopping_hook
from tfestimator_compat.experimental import make_stop_at_checkpoint_step_hook
from tfestimator_compat.experimental import read_eval_metrics
from tfestimator_compat.experimental import stop_if_higher_hook
from tfestimator_compat.experimental import stop_if_lower_hook
from tfestimator_compat.experimental import stop_if_no_decrease_hook
from tfestimator_compat.experimental import stop_if_no_increase_hook
from tfestimator_compat.export import PredictOutput
from tfestimator_compat.extenders import add_metrics

# The export outputs that serve the predictions dict, and so carry the forwarded features.
_PREDICT_EXPORT_KEYS = ("predict", "serving_default")


def forward_features(estimator, keys=None, sparse_default_values=None):
    """A new Estimator whose predictions also hold the features `keys` (default: all).

    Args:
        estimator: the Estimator to extend; the new one shares its model_dir
            and config.
        keys: a feature name or a list of them; None forwards every feature.
        sparse_default_values: `{name: default}` for the sparse features to
            forward, made dense with that default; other sparse features
            cannot be forwarded.

    Raises:
        TypeError: if `keys` is not a string or a list of strings.
        ValueError (from the model_fn): if a key is not a feature, is already
            a prediction, or names a sparse feature without a default; or if
            the predictions are not a dict.

    Example:

    ```python
    estimator = tf.contrib.estimator.forward_features(estimator, "example_id")
    for prediction in estimator.predict(input_fn):
        print(prediction["example_id"], prediction["probabilities"])
    ```
    """
    keys = _checked_keys(keys)
    defaults = dict(sparse_default_values or {})

    def model_fn(features, labels, mode, config):
        spec = estimator.model_fn(features, labels, mode, config)
        predictions = spec.predictions
        if predictions is None:
            return spec
        if not isinstance(predictions, dict):
            raise ValueError(
                "Predictions should be a dict to be able to forward features. "
                f"Given: {type(predictions)}"
            )
        forwarded = {
            key: _forwarded(features, key, predictions, defaults)
            for key in (features.keys() if keys is None else keys)
        }
        predictions = {**predictions, **forwarded}
        export_outputs = dict(spec.export_outputs or {})
        for name in _PREDICT_EXPORT_KEYS:
            if isinstance(export_outputs.get(name), PredictOutput):
                outputs = {**export_outputs[name].outputs, **forwarded}
                export_outputs[name] = PredictOutput(outputs)
        return spec._replace(predictions=predictions, export_outputs=export_outputs or None)

    return Estimator(model_fn=model_fn, model_dir=estimator.model_dir, config=estimator.config)


def _checked_keys(keys):
    if keys is None:
        return None
    if isinstance(keys, str):
        return [keys]
    if not isinstance(keys, (list, tuple)):
        raise TypeError(f"keys should be either a string or a list of strings. Given: {type(keys)}")
    for key in keys:
        if not isinstance(key, str):
            raise TypeError(
                "All items in the given keys list should be a string. There exist an item "
                f"with type: {type(key)}"
            )
    return list(keys)


def _forwarded(features, key, predictions, defaults):
    """`features[key]` as a dense tensor, checked to be forwardable."""
    if not isinstance(features, dict) or key not in features:
        names = list(features.keys()) if isinstance(features, dict) else []
        raise ValueError(
            f'keys should be exist in features. Key "{key}" is not in features dict. '
            f"features dict has following keys: {names}. Please check arguments of "
            "forward_features."
        )
    if key in predictions:
        raise ValueError(
            f"Cannot forward feature key ({key}). Since it does exist in predictions. "
            f"Existing prediction keys: {list(predictions.keys())}. Please check arguments "
            "of forward_features."
        )
    feature = features[key]
    if isinstance(feature, (tf.SparseTensor, tf.compat.v1.SparseTensorValue)):
        if key not in defaults:
            raise ValueError(
                f"Forwarded feature ({key}) should be a Tensor. Please use keys argument of "
                "forward_features to filter unwanted features, or add key to argument "
                f"'sparse_default_values'. Type of features[{key}] is {type(feature)}."
            )
        return tf.sparse.to_dense(tf.SparseTensor.from_value(feature), defaults[key])
    return tf.convert_to_tensor(feature)


__all__ = [
    "InMemoryEvaluatorHook",
    "add_metrics",
    "boosted_trees_classifier_train_in_memory",
    "boosted_trees_regressor_train_in_memory",
    "build_raw_supervised_input_receiver_fn",
    "forward_features",
    "make_early_stopping_hook",
    "make_stop_at_checkpoint_step_hook",
    "read_eval_metrics",
    "stop_if_higher_hook",
    "stop_if_lower_hook",
    "stop_if_no_decrease_hook",
    "stop_if_no_increase_hook",
]
