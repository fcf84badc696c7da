"""`tf.estimator.add_metrics`: more evaluation metrics for an existing Estimator."""

from tfestimator_compat.engine.tracing import fn_args
from tfestimator_compat.estimator import Estimator
from tfestimator_compat.mode_keys import ModeKeys

_METRIC_FN_ARGS = {"features", "labels", "predictions", "config"}


def add_metrics(estimator, metric_fn):
    """A new Estimator that also reports `metric_fn`'s metrics in `evaluate()`.

    `metric_fn` takes any of `features`, `labels`, `predictions`, `config` and
    returns a dict of `(value, update_op)` pairs or Keras `Metric`s. The new
    Estimator shares `model_dir`, config and warm-start settings.

    Example:

    ```python
    def my_auc(labels, predictions):
        return {"auc": tf.compat.v1.metrics.auc(labels, predictions["logistic"])}

    estimator = tf.estimator.add_metrics(estimator, my_auc)
    ```
    """
    unexpected = sorted(set(fn_args.fn_args(metric_fn)) - _METRIC_FN_ARGS)
    if unexpected:
        raise ValueError(f"metric_fn ({metric_fn}) has following not expected args: {unexpected}")

    def model_fn(features, labels, mode, config):
        spec = estimator.model_fn(features, labels, mode, config)
        if mode != ModeKeys.EVAL:
            return spec
        candidates = {
            "features": features,
            "labels": labels,
            "predictions": spec.predictions,
            "config": config,
        }
        names = fn_args.fn_args(metric_fn)
        metrics = dict(spec.eval_metric_ops or {})
        metrics.update(metric_fn(**{k: v for k, v in candidates.items() if k in names}))
        return spec._replace(eval_metric_ops=metrics)

    return Estimator(
        model_fn=model_fn,
        model_dir=estimator.model_dir,
        config=estimator.config,
        warm_start_from=estimator._warm_start_settings,
    )
