"""What the package keeps for the life of the process, and how tests start it over."""

import os

import tensorflow as tf

from tfestimator_compat.engine import process_state
from tfestimator_compat.engine.state import event_files


def _event_files(directory):
    return sorted(name for name in os.listdir(directory) if name.startswith("events.out"))


def test_a_warning_is_said_once_per_key_until_reset():
    assert process_state.warn_once("a")
    assert not process_state.warn_once("a")
    assert process_state.warn_once(("b", "source.py:3"))
    process_state.reset()
    assert process_state.warn_once("a")


def test_one_writer_per_directory_until_reset_then_a_new_events_file(tmp_path):
    directory = str(tmp_path / "model")
    first = event_files.writer_for(directory)
    assert event_files.writer_for(directory) is first
    summary = tf.compat.v1.Summary(value=[tf.compat.v1.Summary.Value(tag="x", simple_value=1.0)])
    event_files.write_summary(directory, summary, step=1)
    assert len(_event_files(directory)) == 1
    process_state.reset()
    assert process_state.STATE.event_writers == {}
    assert event_files.writer_for(directory) is not first
    event_files.write_summary(directory, summary, step=2)
    assert len(_event_files(directory)) == 2


def test_a_reset_keeps_the_cluster_task():
    """A `tf.distribute.Server` cannot be stopped: a reset must not make a second one."""
    task = process_state.STATE.cluster_task
    task.rounds_served += 1
    process_state.reset()
    assert process_state.STATE.cluster_task is task and task.rounds_served >= 1
    task.rounds_served -= 1
