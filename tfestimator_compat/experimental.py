"""`tf.estimator.experimental`."""

from tfestimator_compat.canned.linear_sdca import LinearSDCA
from tfestimator_compat.canned.logit_fn import call_logit_fn
from tfestimator_compat.canned.rnn import RNNClassifier
from tfestimator_compat.canned.rnn import RNNEstimator
from tfestimator_compat.early_stopping import make_early_stopping_hook
from tfestimator_compat.early_stopping import read_eval_metrics
from tfestimator_compat.early_stopping import stop_if_higher_hook
from tfestimator_compat.early_stopping import stop_if_lower_hook
from tfestimator_compat.early_stopping import stop_if_no_decrease_hook
from tfestimator_compat.early_stopping import stop_if_no_increase_hook
from tfestimator_compat.estimator_hooks import InMemoryEvaluatorHook
from tfestimator_compat.estimator_hooks import make_stop_at_checkpoint_step_hook
from tfestimator_compat.export.receivers import build_raw_supervised_input_receiver_fn

__all__ = [
    "InMemoryEvaluatorHook",
    "LinearSDCA",
    "RNNClassifier",
    "RNNEstimator",
    "build_raw_supervised_input_receiver_fn",
    "call_logit_fn",
    "make_early_stopping_hook",
    "make_stop_at_checkpoint_step_hook",
    "read_eval_metrics",
    "stop_if_higher_hook",
    "stop_if_lower_hook",
    "stop_if_no_decrease_hook",
    "stop_if_no_increase_hook",
]
