"""What the package's own TensorFlow calls may print, and what they may not.

The original ran everything in TF1 graph mode with a Session, where TensorFlow
printed nothing about how it was called. Here the same work goes through TF2:
a name-based `Saver` made eagerly logs that it is deprecated, the TF1
SavedModel helpers log deprecations, v1 summary ops warn that no TF2 writer is
set (the Estimator writes them itself), Keras advises `.repeat()` when an
evaluation reaches the end of its input (which is how the original evaluated),
and TensorFlow's checkpoint code logs through absl, which configures Python's
root logger on first use, so every later `tensorflow` log line is printed twice.
None of that is the user's to act on. The user's own calls keep every notice
the original printed for them.
"""

import contextlib
import logging
import warnings

from tfestimator_compat.engine.internals import tensorflow_internals as tf_internals

_TF_LOGGER = logging.getLogger("tensorflow")
_INTERNAL_LOG_MESSAGES = ("Saver is deprecated",)
_V1_SUMMARY_WARNING = "Cannot activate TF2 compatibility support for TF1 summary ops"
_KERAS_END_OF_INPUT_WARNING = "Your input ran out of data"
_COLLECTION_NOT_SERIALIZED = ("Issue encountered when serializing",)


class _DropMessages(logging.Filter):
    def __init__(self, prefixes):
        super().__init__()
        self._prefixes = prefixes

    def filter(self, record):
        return not record.getMessage().startswith(self._prefixes)


_DROP_INTERNAL_MESSAGES = _DropMessages(_INTERNAL_LOG_MESSAGES)
_DROP_COLLECTION_NOTICES = _DropMessages(_COLLECTION_NOT_SERIALIZED)
_SWALLOW = logging.NullHandler()


@contextlib.contextmanager
def internal_tf_calls():
    """Around the package's own TF calls (savers, exports): no notices, one log handler."""
    root_handlers = list(logging.root.handlers)
    if not root_handlers:
        # absl configures the root logger when it has no handler at all.
        logging.root.addHandler(_SWALLOW)
    _TF_LOGGER.addFilter(_DROP_INTERNAL_MESSAGES)
    try:
        with tf_internals.deprecation_notices_silenced(), warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            yield
    finally:
        _TF_LOGGER.removeFilter(_DROP_INTERNAL_MESSAGES)
        for handler in logging.root.handlers[:]:
            if handler not in root_handlers:
                logging.root.removeHandler(handler)


@contextlib.contextmanager
def v1_summaries_written_by_the_estimator():
    """Around a model_fn call: its v1 summary ops are fetched and written by the loop."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=_V1_SUMMARY_WARNING)
        yield


@contextlib.contextmanager
def reading_to_the_end_of_input():
    """Around Keras `fit`/`evaluate` of an input that ends, as the original ran it."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=_KERAS_END_OF_INPUT_WARNING)
        yield


@contextlib.contextmanager
def meta_graphs_of_traced_graphs():
    """Around `SessionRunHook` calls: a hook's `FileWriter` (`SummarySaverHook`'s)
    writes the traced graph's meta graph, whose variable collections hold the
    model's variables, made eagerly. TensorFlow leaves those collections out,
    warning once per collection; TensorBoard never reads them, and the user
    can do nothing about it."""
    _TF_LOGGER.addFilter(_DROP_COLLECTION_NOTICES)
    try:
        yield
    finally:
        _TF_LOGGER.removeFilter(_DROP_COLLECTION_NOTICES)
