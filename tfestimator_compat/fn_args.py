"""Which arguments a user function (model_fn, input_fn, ...) accepts."""

import functools
import inspect


def fn_args(fn):
    """Names of the arguments `fn` can be called with, as a tuple.

    Arguments bound by `functools.partial` are left out, as is `self` of a
    bound method or a callable object's `__call__`.
    """
    if isinstance(fn, functools.partial):
        bound = set(fn.keywords or ())
        names = fn_args(fn.func)[len(fn.args) :]
        return tuple(name for name in names if name not in bound)
    parameters = inspect.signature(fn).parameters.values()
    return tuple(
        p.name
        for p in parameters
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
    )
