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


def _warned_inside(block, *warnings_to_issue):
    """The messages of `warnings_to_issue` ((message, category) pairs) that get out of `block`."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with block():
            for message, category in warnings_to_issue:
                warnings.warn(message, category, stacklevel=1)
    return [str(w.message) for w in caught]


def test_internal_calls_silence_deprecation_warnings_only():
    caught = _warned_inside(
        logs.internal_tf_calls, ("old", DeprecationWarning), ("the user's", UserWarning)
    )
    assert caught == ["the user's"]


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
    caught = _warned_inside(
        logs.v1_summaries_written_by_the_estimator,
        (
            "Cannot activate TF2 compatibility support for TF1 summary ops: "
            "default summary writer not found.",
            UserWarning,
        ),
        ("a warning of the user's model_fn", UserWarning),
    )
    assert caught == ["a warning of the user's model_fn"]


def test_an_input_that_ends_does_not_warn_that_it_ran_out():
    caught = _warned_inside(
        logs.reading_to_the_end_of_input,
        ("Your input ran out of data; interrupting training.", UserWarning),
        ("another warning", UserWarning),
    )
    assert caught == ["another warning"]
