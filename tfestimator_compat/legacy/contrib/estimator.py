"""`tf.contrib.estimator`: the helpers that became `tf.estimator` names.

TensorFlow 1.x moved them to `tf.estimator` and `tf.estimator.experimental`
with the same arguments; this shim provides those, and the in-memory boosted
trees trainers (which TensorFlow 1.x had only here).
"""

from tfestimator_compat.canned.boosted_trees import boosted_trees_classifier_train_in_memory
from tfestimator_compat.canned.boosted_trees import boosted_trees_regressor_train_in_memory
from tfestimator_compat.experimental import InMemoryEvaluatorHook
from tfestimator_compat.experimental import build_raw_supervised_input_receiver_fn
from tfestimator_compat.experimental import make_early_stopping_hook
from tfestimator_compat.experimental import make_stop_at_checkpoint_step_hook
from tfestimator_compat.experimental import read_eval_metrics
from tfestimator_compat.experimental import stop_if_higher_hook
from tfestimator_compat.experimental import stop_if_lower_hook
from tfestimator_compat.experimental import stop_if_no_decrease_hook
from tfestimator_compat.experimental import stop_if_no_increase_hook
from tfestimator_compat.extenders import add_metrics

__all__ = [
    "InMemoryEvaluatorHook",
    "add_metrics",
    "boosted_trees_classifier_train_in_memory",
    "boosted_trees_regressor_train_in_memory",
    "build_raw_supervised_input_receiver_fn",
    "make_early_stopping_hook",
    "make_stop_at_checkpoint_step_hook",
    "read_eval_metrics",
    "stop_if_higher_hook",
    "stop_if_lower_hook",
    "stop_if_no_decrease_hook",
    "stop_if_no_increase_hook",
]
