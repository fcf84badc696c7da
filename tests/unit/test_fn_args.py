"""Which arguments a user function accepts (engine/tracing/fn_args.py).

A model_fn is called with only the keyword arguments it names, as the
original called it; what a partial binds or a method's `self` is not asked for.
"""

import functools

import pytest

from tfestimator_compat.engine.tracing.fn_args import fn_args
from tfestimator_compat.engine.tracing.fn_args import model_fn_kwargs


def _model_fn(features, labels, mode, params, config):
    return features


def _features_only(features, mode):
    return features


class _ModelBuilder:
    def model_fn(self, features, labels, mode):
        return features

    def __call__(self, features, labels):
        return features


def test_fn_args_names_positional_and_keyword_arguments():
    def fn(a, b=1, *args, c, d=2, **kwargs):
        return a

    assert fn_args(fn) == ("a", "b", "c", "d")


def test_fn_args_of_a_positional_only_argument_names_it():
    def fn(a, /, b):
        return a

    assert fn_args(fn) == ("a", "b")


def test_a_partial_leaves_out_what_it_binds():
    assert fn_args(functools.partial(_model_fn, {"x": 1})) == ("labels", "mode", "params", "config")
    assert fn_args(functools.partial(_model_fn, params={}, config=None)) == (
        "features",
        "labels",
        "mode",
    )


def test_partials_of_partials_leave_out_what_each_binds():
    bound = functools.partial(functools.partial(_model_fn, params={}), {"x": 1})
    assert fn_args(bound) == ("labels", "mode", "config")


def test_methods_and_callable_objects_leave_out_self():
    builder = _ModelBuilder()
    assert fn_args(builder.model_fn) == ("features", "labels", "mode")
    assert fn_args(builder) == ("features", "labels")


def test_a_lambda_names_its_arguments():
    assert fn_args(lambda features, labels: None) == ("features", "labels")


def test_model_fn_kwargs_are_those_it_names():
    kwargs = model_fn_kwargs(_features_only, labels=None, mode="train", params={}, config="cfg")
    assert kwargs == {"mode": "train"}
    kwargs = model_fn_kwargs(_model_fn, labels="l", mode="eval", params={"p": 1}, config="cfg")
    assert kwargs == {"labels": "l", "mode": "eval", "params": {"p": 1}, "config": "cfg"}


def test_labels_for_a_model_fn_that_takes_none_are_refused_with_the_originals_error():
    with pytest.raises(
        ValueError, match="model_fn does not take labels, but input_fn returns labels"
    ):
        model_fn_kwargs(_features_only, labels="l", mode="train", params={}, config=None)


def test_a_model_fn_that_takes_labels_gets_them_even_when_there_are_none():
    assert model_fn_kwargs(
        lambda features, labels: None, labels=None, mode="infer", params={}, config=None
    ) == {"labels": None}
