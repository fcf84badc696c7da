"""Text-format protos in `model_dir` and exports, printed by protobuf's C code.

`graph.pbtxt` is written on the first `train()` call, before the first step.
protobuf's Python printer (`text_format.MessageToString`) took about a third of
a second for a BERT-sized graph; the upb printer behind `str(message)` takes a
tenth of that. Both write the same fields, values and escapes; only the order
of map entries (a node's attrs) differs, and `text_format.Parse` reads either
back into an equal message. Where protobuf runs in pure Python, `str()` is the
Python printer.
"""

import os

import tensorflow as tf

from tfestimator_compat.engine.internals import tensorflow_internals as tf_internals


def write(message, path):
    """Writes `message` in text format to `path`, atomically (a reader never sees
    half a file), making the directory if needed."""
    directory = os.path.dirname(path)
    if directory and not tf.io.gfile.exists(directory):
        tf.io.gfile.makedirs(directory)
    tf_internals.atomic_write_string_to_file(path, str(message))
