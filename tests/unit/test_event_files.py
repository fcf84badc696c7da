"""Event files in the original's format (engine/state/event_files.py).

Written here and read back with `tf.compat.v1.train.summary_iterator`, as
TensorBoard and users' scripts read them: scalars as `simple_value`, the
evaluated checkpoint's path as a string tensor, at the step they belong to.
"""

import glob
import logging
import os
import shutil

import numpy as np
import pytest
import tensorflow as tf
from tensorflow.core.framework import summary_pb2

from tfestimator_compat.engine.state import event_files


def _event_file(directory):
    (path,) = glob.glob(os.path.join(directory, "events.out.tfevents.*"))
    return path


def _values(directory):
    """(step, tag, value) of every summary value written to `directory`."""
    found = []
    for event in event_files.read_events(_event_file(directory)):
        for value in event.summary.value:
            kind = value.WhichOneof("value")
            found.append((event.step, value.tag, getattr(value, kind)))
    return found


def _summary(**scalars):
    summary = summary_pb2.Summary()
    for tag, value in scalars.items():
        summary.value.add(tag=tag, simple_value=value)
    return summary


# --- writing and reading ---


def test_a_summary_is_read_back_at_its_step(tmp_path):
    directory = str(tmp_path)
    event_files.write_summary(directory, _summary(loss=0.5), step=7)
    event_files.write_summary(directory, _summary(loss=0.25).SerializeToString(), step=8)
    assert _values(directory) == [(7, "loss", 0.5), (8, "loss", 0.25)]


def test_one_writer_per_directory(tmp_path):
    assert event_files.writer_for(str(tmp_path)) is event_files.writer_for(str(tmp_path))
    assert event_files.writer_for(str(tmp_path)) is not event_files.writer_for(
        str(tmp_path / "eval")
    )


def test_unflushed_summaries_are_read_once_flushed(tmp_path):
    directory = str(tmp_path)
    event_files.write_summary(directory, _summary(loss=1.0), step=1, flush=False)
    event_files.flush(directory)
    assert _values(directory) == [(1, "loss", 1.0)]


def test_a_corrupted_tail_is_skipped_with_a_warning(tmp_path, caplog):
    directory = str(tmp_path)
    event_files.write_summary(directory, _summary(loss=1.0), step=1)
    path = _event_file(directory)
    with open(path, "ab") as events:
        events.write(b"\x10\x00\x00\x00\x00\x00\x00\x00" + b"corrupted record" * 2)
    with caplog.at_level(logging.WARNING, logger="tensorflow"):
        events = event_files.read_events(path)
    assert [v.tag for e in events for v in e.summary.value] == ["loss"]
    assert any("which is corrupted" in r.getMessage() for r in caplog.records)


def test_the_graph_is_written_for_tensorboard(tmp_path):
    graph = tf.Graph()
    with graph.as_default():
        tf.constant(1.0, name="weight")
    event_files.write_graph(str(tmp_path), graph.as_graph_def())
    events = event_files.read_events(_event_file(str(tmp_path)))
    (graph_def,) = [tf.compat.v1.GraphDef.FromString(e.graph_def) for e in events if e.graph_def]
    assert [node.name for node in graph_def.node] == ["weight"]


# --- dict_to_summary ---


def test_scalars_are_simple_values_sorted_by_key():
    summary = event_files.dict_to_summary({"loss": np.float32(0.5), "accuracy": 1, "auc": 0.75})
    assert [(v.tag, v.simple_value) for v in summary.value] == [
        ("accuracy", 1.0),
        ("auc", 0.75),
        ("loss", 0.5),
    ]


def test_the_global_step_none_and_strings_are_not_summarized():
    summary = event_files.dict_to_summary(
        {"global_step": 3, "missing": None, "note": "text", "loss": 1.0}
    )
    assert [v.tag for v in summary.value] == ["loss"]


def test_arrays_and_booleans_are_tensors():
    summary = event_files.dict_to_summary({"matrix": np.eye(2), "flag": np.bool_(True)})
    tensors = {v.tag: tf.make_ndarray(v.tensor) for v in summary.value}
    assert tensors["matrix"].tolist() == [[1.0, 0.0], [0.0, 1.0]]
    assert tensors["flag"].item() is True


def test_a_serialized_summary_is_written_as_its_values_tagged_by_index():
    image = summary_pb2.Summary()
    image.value.add(tag="anything", simple_value=1.0)
    image.value.add(tag="else", simple_value=2.0)
    summary = event_files.dict_to_summary({"images": image.SerializeToString()})
    assert [(v.tag, v.simple_value) for v in summary.value] == [
        ("images/0", 1.0),
        ("images/1", 2.0),
    ]


@pytest.mark.parametrize(
    "values, warning",
    [
        ({"raw": b"\xff\xff\xff"}, "Skipping summary for raw: its value is bytes"),
        ({"nested": {"a": 1.0}}, "Skipping summary for nested: a nested metric value"),
        ({"pair": (1.0, 2.0)}, "Skipping summary for pair: a nested metric value"),
    ],
)
def test_values_without_a_summary_form_are_skipped_with_a_warning(values, warning, caplog):
    with caplog.at_level(logging.WARNING, logger="tensorflow"):
        summary = event_files.dict_to_summary(values)
    assert list(summary.value) == []
    assert any(r.getMessage().startswith(warning) for r in caplog.records)


def test_dict_to_str_is_sorted_and_leaves_out_bytes():
    text = event_files.dict_to_str({"loss": 0.5, "global_step": 3, "image": b"..."})
    assert text == "global_step = 3, loss = 0.5"


# --- write_eval_results ---


def test_eval_results_are_written_at_their_global_step_with_the_checkpoint_path(tmp_path, caplog):
    directory = str(tmp_path / "eval")
    results = {"accuracy": 0.75, "loss": 0.5, "global_step": 300}
    with caplog.at_level(logging.INFO, logger="tensorflow"):
        event_files.write_eval_results(directory, results, "/model/model.ckpt-300")
    assert _values(directory)[:2] == [(300, "accuracy", 0.75), (300, "loss", 0.5)]
    (_, tag, tensor) = _values(directory)[2]
    assert tag == "checkpoint_path"
    assert tf.make_ndarray(tensor).item() == b"/model/model.ckpt-300"
    assert any(
        r.getMessage()
        == "Saving dict for global step 300: accuracy = 0.75, global_step = 300, loss = 0.5"
        for r in caplog.records
    )


def test_eval_results_without_a_checkpoint_have_no_checkpoint_path(tmp_path):
    directory = str(tmp_path)
    event_files.write_eval_results(directory, {"loss": 1.0, "global_step": np.int64(2)}, None)
    assert _values(directory) == [(2, "loss", 1.0)]


def test_a_directory_removed_and_made_again_gets_a_new_event_file(tmp_path):
    directory = str(tmp_path / "model")
    event_files.write_summary(directory, _summary(loss=1.0), step=1)
    shutil.rmtree(directory)
    os.makedirs(directory)
    event_files.write_summary(directory, _summary(loss=0.5), step=2)
    assert _values(directory) == [(2, "loss", 0.5)]
