"""`tf.estimator.experimental`."""

from tfestimator_compat.shim import lazy

# Where each name is defined, imported when the name is first read.
_SOURCES = {
    "LinearSDCA": "tfestimator_compat.canned.linear_sdca",
    "call_logit_fn": "tfestimator_compat.canned.logit_fn",
    "RNNClassifier": "tfestimator_compat.canned.rnn",
    "RNNEstimator": "tfestimator_compat.canned.rnn",
    "make_early_stopping_hook": "tfestimator_compat.early_stopping",
    "read_eval_metrics": "tfestimator_compat.early_stopping",
    "stop_if_higher_hook": "tfestimator_compat.early_stopping",
    "stop_if_lower_hook": "tfestimator_compat.early_stopping",
    "stop_if_no_decrease_hook": "tfestimator_compat.early_stopping",
    "stop_if_no_increase_hook": "tfestimator_compat.early_stopping",
    "InMemoryEvaluatorHook": "tfestimator_compat.estimator_hooks",
    "make_stop_at_checkpoint_step_hook": "tfestimator_compat.estimator_hooks",
    "build_raw_supervised_input_receiver_fn": "tfestimator_compat.export.receivers",
}

__all__ = sorted(_SOURCES)

__getattr__, __dir__ = lazy.attributes(__name__, _SOURCES)
