"""The chunk arithmetic of the step loop, as numbers (no TensorFlow runs here).

Every checkpoint, summary and log must land on exactly its step: these are the
sizes the training loop asks of each call of the step function.
"""

import pytest

from tfestimator_compat.engine.loop import chunks


def test_a_call_with_no_event_ahead_runs_the_longest_chunk():
    assert chunks.steps_for(None, 1.0, max_steps_per_call=1000) == 1000


def test_a_call_stops_exactly_at_the_next_event():
    assert chunks.steps_for(37, 1.0, max_steps_per_call=1000) == 37
    assert chunks.steps_for(5000, 1.0, max_steps_per_call=1000) == 1000


def test_steps_that_advance_the_global_step_twice_run_half_as_many():
    assert chunks.steps_for(10, 2.0, max_steps_per_call=1000) == 5
    # 11 global steps at two per step: 5 steps, never past the event.
    assert chunks.steps_for(11, 2.0, max_steps_per_call=1000) == 5


def test_steps_that_advance_it_by_less_than_one_count_as_one():
    """k-means steps that only pick centers do not advance the global step: a
    call may then reach the event in more calls, never overshoot it."""
    assert chunks.steps_for(10, 0.5, max_steps_per_call=1000) == 10


def test_a_call_runs_at_least_one_step():
    assert chunks.steps_for(0, 1.0, max_steps_per_call=1000) == 1
    assert chunks.steps_for(1, 3.0, max_steps_per_call=1000) == 1


def test_summaries_and_logs_share_a_period_only_when_all_are_due_at_one_period():
    due_now = [(100, 100), (100, 100)]
    assert chunks.shared_period(due_now, 100, False, 1.0) == 100
    assert chunks.shared_period([(100, 100), (100, 50)], 100, False, 1.0) is None
    assert chunks.shared_period([(200, 100), (100, 100)], 100, False, 1.0) is None


def test_hooks_or_uneven_steps_forbid_spanning_periods():
    assert chunks.shared_period([(0, 100)], 0, True, 1.0) is None
    assert chunks.shared_period([(0, 100)], 0, False, 2.0) is None


@pytest.mark.parametrize(
    "steps_per_sec, every, expected",
    [(None, 100, 1), (0.0, 100, 1), (50.0, 100, 1), (1000.0, 100, 10), (250.0, 100, 2)],
)
def test_a_chunk_spans_about_a_second_of_periods(steps_per_sec, every, expected):
    assert chunks.periods_per_call(steps_per_sec, every) == expected


def test_the_next_event_bounds_the_call():
    # Log due at 100 (every 100), now at 40: 60 steps to go; a checkpoint at 90 comes first.
    assert chunks.global_steps_to_next_event(40, [(100, 100)], None, 1, None, 90) == 50
    assert chunks.global_steps_to_next_event(40, [(100, 100)], None, 1, 45, None) == 5


def test_an_event_due_now_lets_the_call_run_one_period():
    """Its first step fetches the event; the call then ends before the next one."""
    assert chunks.global_steps_to_next_event(100, [(100, 100)], None, 1, None, None) == 100


def test_a_shared_period_spans_as_many_periods_as_the_speed_allows():
    assert chunks.global_steps_to_next_event(0, [(0, 10), (0, 10)], 10, 7, 1000, None) == 70
    assert chunks.global_steps_to_next_event(0, [(0, 10)], 10, 7, 25, None) == 25


def test_a_chunk_request_defaults_to_one_step_without_extras():
    request = chunks.ChunkRequest(fetches={"loss": 1})
    assert (request.steps, dict(request.first_step_fetches), request.event_every) == (1, {}, None)
    with pytest.raises(AttributeError):
        request.steps = 2  # frozen: a call's request does not change under it
