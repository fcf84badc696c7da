"""What the package's own TensorFlow calls may print (engine/logs.py).

Notices about how the package calls TensorFlow are not the user's to act on:
they are dropped inside these blocks, everything else still gets through, and
logging is left as it was found.
"""

import logging
import warnings

import pytest
import tensorflow as tf

from tfestimator_compat.engine import logs


def _messages(caplog):
    return [record.getMessage() for record in caplog.records]


def test_internal_calls_drop_the_savers_deprecation_notice_only(caplog):
    with caplog.at_level(logging.INFO, logger="tensorflow"):
        with logs.internal_tf_calls():
            tf.compat.v1.logging.warning(
                "Saver is deprecated, please switch to tf.train.Checkpoint"
            )
            tf.compat.v1.logging.info("Restoring parameters from model.ckpt-3")
    assert _messages(caplog) == ["Restoring parameters from model.ckpt-3"]


def test_after_internal_calls_the_notice_gets_through_again(caplog):
    with logs.internal_tf_calls():
        pass
    with caplog.at_level(logging.WARNING, logger="tensorflow"):
        tf.compat.v1.logging.warning("Saver is deprecated (the user's own Saver)")
    assert _messages(caplog) == ["Saver is deprecated (the user's own Saver)"]


def test_internal_calls_silence_deprecation_warnings_only():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with logs.internal_tf_calls():
            warnings.warn("old", DeprecationWarning, stacklevel=1)
            warnings.warn("the user's", UserWarning, stacklevel=1)
    assert [str(w.message) for w in caught] == ["the user's"]


def test_internal_calls_leave_the_root_loggers_handlers_as_they_were():
    before = list(logging.root.handlers)
    handler = logging.NullHandler()
    with logs.internal_tf_calls():
        logging.root.addHandler(handler)  # as absl does on first use
    assert logging.root.handlers == before


def test_internal_calls_clean_up_when_they_raise(caplog):
    before = list(logging.root.handlers)
    with pytest.raises(OSError):
        with logs.internal_tf_calls():
            logging.root.addHandler(logging.NullHandler())
            raise OSError("the save failed")
    assert logging.root.handlers == before
    with caplog.at_level(logging.WARNING, logger="tensorflow"):
        tf.compat.v1.logging.warning("Saver is deprecated (the user's own Saver)")
    assert _messages(caplog) == ["Saver is deprecated (the user's own Saver)"]


def test_the_estimators_own_v1_summaries_do_not_warn():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with logs.v1_summaries_written_by_the_estimator():
            warnings.warn(
                "Cannot activate TF2 compatibility support for TF1 summary ops: "
                "default summary writer not found.",
                UserWarning,
                stacklevel=1,
            )
            warnings.warn("a warning of the user's model_fn", UserWarning, stacklevel=1)
    assert [str(w.message) for w in caught] == ["a warning of the user's model_fn"]


def test_an_input_that_ends_does_not_warn_that_it_ran_out():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with logs.reading_to_the_end_of_input():
            warnings.warn("Your input ran out of data; interrupting training.", stacklevel=1)
            warnings.warn("another warning", UserWarning, stacklevel=1)
    assert [str(w.message) for w in caught] == ["another warning"]
