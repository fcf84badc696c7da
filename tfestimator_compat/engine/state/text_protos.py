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
from google.protobuf import text_format
from google.protobuf import wrappers_pb2

from tfestimator_compat.engine.internals import tensorflow_internals as tf_internals


def write(message, path):
    """Writes `message` in text format to `path`, atomically (a reader never sees
    half a file), making the directory if needed."""
    directory = os.path.dirname(path)
    if directory and not tf.io.gfile.exists(directory):
        tf.io.gfile.makedirs(directory)
    tf_internals.atomic_write_string_to_file(path, _print(message))


def _str_escapes_quotes() -> bool:
    """Whether `str(message)` prints text that `text_format.Parse` reads back:
    protobuf 5.29's printer (TensorFlow 2.18 and 2.19 hold protobuf < 6) leaves
    a `"` inside a bytes field unescaped, so a graph with such a string constant
    wrote a `graph.pbtxt` that no parser reads."""
    probe = wrappers_pb2.BytesValue(value=b'a " b')
    try:
        return text_format.Parse(str(probe), wrappers_pb2.BytesValue()) == probe
    except text_format.ParseError:
        return False


_print = str if _str_escapes_quotes() else text_format.MessageToString


tf_internals.drop_write_graph_float_format()
