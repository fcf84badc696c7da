"""Text-format protos read back as the messages written."""

import numpy as np
import tensorflow as tf
from google.protobuf import text_format

from tfestimator_compat.engine.state import text_protos


def test_a_graph_def_reads_back_equal_with_bytes_strings_and_floats(tmp_path):
    graph = tf.Graph()
    with graph.as_default():
        tf.constant(np.arange(64, dtype=np.float32) / 3.0, name="thirds")  # tensor_content bytes
        tf.constant(['quote " newline \n tab \t', "\xff\x00bytes"], name="strings")
        tf.constant(1e-30, name="tiny")
    path = tmp_path / "nested" / "graph.pbtxt"
    text_protos.write(graph.as_graph_def(), str(path))
    read = text_format.Parse(path.read_text(), tf.compat.v1.GraphDef())
    assert read == graph.as_graph_def()
    assert [node.name for node in read.node] == ["thirds", "strings", "tiny"]
