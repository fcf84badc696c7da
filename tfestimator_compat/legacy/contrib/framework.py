"""`tf.contrib.framework`: the global-step and checkpoint helpers of `tf.compat.v1.train`.

Those `tf.contrib.framework` names moved to `tf.train` in TensorFlow 1.x with
the same arguments; `tf.compat.v1.train` still has them.
"""

import tensorflow as tf

_train = tf.compat.v1.train

assert_global_step = _train.assert_global_step
create_global_step = _train.create_global_step
get_global_step = _train.get_global_step
get_or_create_global_step = _train.get_or_create_global_step
init_from_checkpoint = _train.init_from_checkpoint
is_tensor = tf.is_tensor
list_variables = _train.list_variables
load_checkpoint = _train.load_checkpoint
load_variable = _train.load_variable

__all__ = [
    "assert_global_step",
    "create_global_step",
    "get_global_step",
    "get_or_create_global_step",
    "init_from_checkpoint",
    "is_tensor",
    "list_variables",
    "load_checkpoint",
    "load_variable",
]
