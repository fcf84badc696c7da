"""Event files in `model_dir` and `eval_dir`, in the original's format.

Values are written as v1 `Summary` protos (`simple_value` scalars), as the
original Estimator wrote them, so TensorBoard and scripts that read
`summary_iterator(...).summary.value[i].simple_value` see the same thing.
"""

import os
import weakref

import numpy as np
import tensorflow as tf
from google.protobuf import message

from tfestimator_compat.engine import logs
from tfestimator_compat.engine import process_state

# The writers whose events file already holds a graph.
_WITH_GRAPH = weakref.WeakSet()


def writer_for(directory):
    """One event-file writer per directory for the life of the process.

    A directory removed since its writer was made (a notebook that clears
    `model_dir` and trains again) gets a new writer, and so a new events
    file: the old writer would go on writing into the file that was deleted.
    """
    writers = process_state.STATE.event_writers
    writer, made_in = writers.get(directory, (None, None))
    if writer is not None and _identity(directory) != made_in:
        process_state.close_writer(writer)
        writer = None
    if writer is None:
        writer = tf.summary.create_file_writer(directory)
        writers[directory] = (writer, _identity(directory))
    return writer


def _identity(directory):
    """What tells a directory from another made later at the same path, where it can be told.

    A local directory's inode; for other filesystems (`gs://`, ...) only
    whether it exists.
    """
    if "://" in directory:
        return tf.io.gfile.isdir(directory)
    try:
        status = os.stat(directory)
    except OSError:
        return None
    return (status.st_dev, status.st_ino)


def write_summary(directory, summary, step, flush=True):
    """Appends a serialized or proto `Summary` at `step`.

    Training writes many and flushes at the end of `train()`; other writes flush
    at once so readers see them immediately.
    """
    if isinstance(summary, tf.compat.v1.Summary):
        summary = summary.SerializeToString()
    writer = writer_for(directory)
    with writer.as_default():
        tf.summary.experimental.write_raw_pb(tf.constant(summary), step=int(step))
    if flush:
        writer.flush()


def flush(directory):
    writer_for(directory).flush()


def read_events(path):
    """The events of one event file, as a list; a corrupted tail is logged and skipped.

    Read in full under `logs.internal_tf_calls()`: TensorFlow's reader prints
    a deprecation notice the user did not cause and cannot act on.
    """
    events = []
    with logs.internal_tf_calls():
        try:
            events.extend(tf.compat.v1.train.summary_iterator(path))
        except tf.errors.DataLossError as error:
            tf.compat.v1.logging.warning(
                "Skipping the rest of %s, which is corrupted: %s", path, error
            )
    return events


def write_graph(directory, graph_def):
    """Adds the model_fn's graph to the events file, for TensorBoard's graph tab."""
    writer = writer_for(directory)
    with writer.as_default():
        tf.summary.graph(graph_def)
    writer.flush()
    _WITH_GRAPH.add(writer)


def dict_to_summary(values):
    """A `Summary` of the scalar and array entries of an evaluation result."""
    summary = tf.compat.v1.Summary()
    for key, value in sorted(values.items()):
        if key == "global_step" or value is None:
            continue
        if isinstance(value, bytes):
            _add_serialized_summary(summary, key, value)
            continue
        if isinstance(value, str):
            continue
        if isinstance(value, (tuple, list, dict)):
            # A metric with a nested value is returned, not summarized, as in the original.
            tf.compat.v1.logging.warning(
                "Skipping summary for %s: a nested metric value has no summary form.", key
            )
            continue
        array = np.asarray(value)
        if array.ndim == 0 and np.issubdtype(array.dtype, np.number):
            summary.value.add(tag=key, simple_value=float(array))
        else:
            summary.value.add(tag=key, tensor=tf.make_tensor_proto(array))
    return summary


def _add_serialized_summary(summary, key, serialized):
    """A metric whose value is a serialized `Summary` (an image, a histogram) is
    written as its values, tagged `<key>/<i>`, as the original wrote it."""
    try:
        metric_summary = tf.compat.v1.Summary.FromString(serialized)
    except message.DecodeError:
        tf.compat.v1.logging.warning(
            "Skipping summary for %s: its value is bytes but not a serialized Summary.", key
        )
        return
    for index, value in enumerate(metric_summary.value):
        value.tag = f"{key}/{index}"
        summary.value.append(value)


def dict_to_str(values):
    # str(): a numpy float32 prints as the original printed it (0.95), not widened.
    return ", ".join(
        f"{key} = {value!s}"
        for key, value in sorted(values.items())
        if not isinstance(value, bytes)
    )


def write_eval_results(directory, results, checkpoint_path, graph_def=None):
    """Writes evaluation metrics and the evaluated checkpoint's path.

    `graph_def()` (the evaluation's GraphDef) goes first into an events file
    that holds no graph yet: the original's eval writer, made once per
    directory, wrote its first evaluation's graph for TensorBoard.
    """
    step = int(results["global_step"])
    if graph_def is not None and writer_for(directory) not in _WITH_GRAPH:
        write_graph(directory, graph_def())
    tf.compat.v1.logging.info("Saving dict for global step %d: %s", step, dict_to_str(results))
    summary = dict_to_summary(results)
    if checkpoint_path:
        summary.value.add(
            tag="checkpoint_path",
            tensor=tf.make_tensor_proto(checkpoint_path, dtype=tf.string),
        )
    if checkpoint_path:
        tf.compat.v1.logging.info(
            "Saving 'checkpoint_path' summary for global step %d: %s", step, checkpoint_path
        )
    write_summary(directory, summary, step)
