"""Running the shim eagerly inside programs that turned eager execution off.

TF1 programs often start with `tf.compat.v1.disable_v2_behavior()` or
`tf.compat.v1.disable_eager_execution()`. The shim is built on eager
execution and `tf.function` (Keras 3 steps, variables created under
`tf.init_scope()`, `.numpy()` reads), so in graph mode its variables become
graph-bound `RefVariable`s and datasets cannot be iterated. Eager execution is
a per-thread mode, not a one-way switch: `in_eager_mode` turns it back on for
the duration of one public call and restores the program's mode afterwards,
so the program's own graph-mode code around that call is untouched.

The other switches `disable_v2_behavior()` flips (TensorShape v1, tensor
equality, control flow v1, reference variables as the default) are left as
the program set them: its `model_fn` may rely on them (`shape[1].value`).
"""

import functools
import inspect
from typing import Callable
from typing import TypeVar

import tensorflow as tf

from tfestimator_compat.engine.internals import tensorflow_internals as tf_internals

_Function = TypeVar("_Function", bound=Callable)


def in_eager_mode(function: _Function) -> _Function:
    """Decorates a function (or generator function) to run with eager execution on.

    A generator function runs eagerly each time it is resumed, and the caller's
    mode is back in force between the values it yields, so a program in graph
    mode keeps its mode while it consumes `Estimator.predict()`.

    Args:
        function: the function or generator function to wrap.

    Returns:
        The wrapped function, marked with `__in_eager_mode__ = True`.

    Example:

    ```python
    class Estimator:
        @in_eager_mode
        def train(self, input_fn, ...):
            ...
    ```
    """
    if getattr(function, "__in_eager_mode__", False):
        return function
    if inspect.isgeneratorfunction(function):

        @functools.wraps(function)
        def wrapper(*args, **kwargs):
            if tf.executing_eagerly():
                # The usual case, and per-value mode switches would cost more
                # than a fast prediction loop spends per example.
                return (yield from function(*args, **kwargs))
            with tf_internals.eager_mode():
                generator = function(*args, **kwargs)
            return (yield from _EagerGenerator(generator))

    else:

        @functools.wraps(function)
        def wrapper(*args, **kwargs):
            with tf_internals.eager_mode():
                return function(*args, **kwargs)

    wrapper.__in_eager_mode__ = True
    return wrapper


class _EagerGenerator:
    """Resumes a generator with eager execution on; the caller's mode between values."""

    def __init__(self, generator):
        self._generator = generator

    def __iter__(self):
        return self

    def __next__(self):
        with tf_internals.eager_mode():
            return next(self._generator)

    def send(self, value):
        with tf_internals.eager_mode():
            return self._generator.send(value)

    def throw(self, *exception):
        with tf_internals.eager_mode():
            return self._generator.throw(*exception)

    def close(self):
        with tf_internals.eager_mode():
            self._generator.close()
