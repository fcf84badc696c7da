"""Tensors as a TF1 graph treated them, for code written against one.

In a TF1 graph a tensor was hashable and compared by identity: TF1 code keys
dicts by tensors (`LoggingTensorHook([loss, accuracy])` does) and tests
`tensor in some_list`. TensorFlow 2 compares tensors element-wise instead, and
so refuses to hash them. The model_fn and the `SessionRunHook`s run under
`tf1_tensor_semantics()`.
"""

import contextlib

import tensorflow as tf

from tfestimator_compat.engine.internals import tensorflow_internals as tf_internals


@contextlib.contextmanager
def tf1_tensor_semantics():
    """Tensors compare by identity and can be dict keys, as in a TF1 graph.

    Around the model_fn and the hooks: TF1 code keys dicts by tensors
    (`LoggingTensorHook([loss, accuracy])` does), and `t in list` compared
    identities. TensorFlow's switch is process-wide, so it is put back after.
    """
    before = tf_internals.tensor_equality_enabled()
    tf.compat.v1.disable_tensor_equality()
    try:
        yield
    finally:
        if before:
            tf.compat.v1.enable_tensor_equality()
