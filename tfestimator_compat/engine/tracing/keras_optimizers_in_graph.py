"""A Keras 3 optimizer's `apply_gradients` inside a model_fn, as TF1 code called it.

The estimator guide's custom model_fn did
`tf.group(optimizer.apply_gradients(zip(grads, variables)), global_step.assign_add(1))`.
A Keras 3 optimizer returns a Keras variable there (which `tf.group` refuses),
and its updates rely on the automatic control dependencies of a
`tf.function`, which a TF1 graph does not add. While a model_fn is traced,
`apply_gradients` of the Keras 3 optimizers the canned estimators can
convert (`canned.optimizers.from_keras`) runs as the equivalent Keras 2
optimizer instead: the same hyperparameters, an op that orders its updates,
per-replica gradient averaging under a strategy, and slots saved under
Keras 2's names (`Adam/dense/kernel/m`, `Adam/iter`, whatever scopes the graph
already has), so training resumes.
"""

from __future__ import annotations

import contextlib
import weakref

import keras

_EQUIVALENTS = weakref.WeakKeyDictionary()


@contextlib.contextmanager
def tf1_apply_gradients():
    """While active, `keras.optimizers.Optimizer.apply_gradients` returns a TF1 train op."""
    original = keras.optimizers.Optimizer.apply_gradients

    def apply_gradients(self, grads_and_vars, *args, **kwargs):
        return _equivalent(self).apply_gradients(grads_and_vars, *args, **kwargs)

    keras.optimizers.Optimizer.apply_gradients = apply_gradients
    try:
        yield
    finally:
        keras.optimizers.Optimizer.apply_gradients = original


def equivalent_of(optimizer):
    """The Keras 2 equivalent that ran `optimizer`'s updates in a traced model_fn, or None."""
    try:
        return _EQUIVALENTS.get(optimizer)
    except TypeError:  # not weak-referenceable: never converted
        return None


def _equivalent(optimizer):
    """One Keras 2 equivalent per Keras 3 optimizer, reused by every trace."""
    from tfestimator_compat.canned import optimizers

    if optimizer not in _EQUIVALENTS:
        equivalent = optimizers.from_keras(optimizer)
        # The Keras 3 optimizer opened scopes named like it (`adam`); names stay `Adam/...`.
        equivalent.reuse_name_scope = True
        _EQUIVALENTS[optimizer] = equivalent
    return _EQUIVALENTS[optimizer]
