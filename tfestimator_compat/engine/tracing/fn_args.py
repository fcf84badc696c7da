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


def model_fn_kwargs(model_fn, labels, mode, params, config):
    """The keyword arguments besides `features` that `model_fn` accepts.

    Raises the original's error when there are labels but the model_fn takes none.
    """
    names = fn_args(model_fn)
    if labels is not None and "labels" not in names:
        raise ValueError("model_fn does not take labels, but input_fn returns labels.")
    candidates = {"labels": labels, "mode": mode, "params": params, "config": config}
    return {name: value for name, value in candidates.items() if name in names}
