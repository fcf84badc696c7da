"""What one call of the step function runs and returns, and how many steps it runs.

Each call of the model's step function runs a chunk of steps in one
`tf.function`. A loop callback hands the model a `ChunkRequest` before the
call and reads a `ChunkResult` after it. The arithmetic that sizes a chunk
so every checkpoint, summary and log lands on exactly its step lives here as
pure functions of numbers (see `loop_callbacks` for the rules they serve).
"""

import dataclasses
import math
from typing import Any
from typing import Iterable
from typing import Mapping
from typing import Optional
from typing import Tuple

# Longest chunk when no event bounds it, so time-based saving stays prompt.
MAX_STEPS_PER_CALL = 1000
# About how long a chunk spanning several summary/log periods may run.
SECONDS_PER_CALL = 1.0


@dataclasses.dataclass(frozen=True)
class ChunkRequest:
    """What the next call of the step function runs.

    Attributes:
        fetches: tensors and ops of the graph that every step runs and returns.
        first_step_fetches: more of them for the call's first step only
            (summaries, logged values and what hooks ask for are due on the
            step a call starts at), and for every `event_every`-th step after it.
        steps: the most steps the call runs (it runs fewer when the input
            ends or the model_fn's stop signal comes out true).
        event_every: every this many steps a step fetches `first_step_fetches`
            too (None: only the first step does).
    """

    fetches: Mapping[str, Any]
    first_step_fetches: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    steps: int = 1
    event_every: Optional[int] = None


@dataclasses.dataclass(frozen=True)
class ChunkResult:
    """What one call of the step function returned.

    Attributes:
        first: the first step's outputs, its `first_step_fetches` included.
        last: the last step's outputs.
        steps_run: how many steps ran.
        events: the `first_step_fetches` of the later event steps, each
            stacked along a first axis (empty when no later step fetched them).
    """

    first: Mapping[str, Any]
    last: Mapping[str, Any]
    steps_run: int
    events: Mapping[str, Any]


def steps_for(global_steps, global_steps_per_step: float, max_steps_per_call: int) -> int:
    """How many steps the next call runs to advance the global step by `global_steps`.

    `global_steps` is None when no event bounds the call. A call must not run
    past an event when steps advance the global step unevenly (k-means steps
    that only choose centers advance it by none, the rest by one): an average
    below one per step counts as one, and the count rounds down. Steps that
    advance it by fewer (accumulating batches) then take a few more calls to
    reach the event, never fewer.
    """
    if global_steps is None:
        return max_steps_per_call
    per_step = max(global_steps_per_step, 1.0)
    return max(1, min(max_steps_per_call, math.floor(global_steps / per_step + 1e-9)))


def shared_period(
    periodic: Iterable[Tuple[int, int]],
    step: int,
    hooks_see_every_step: bool,
    global_steps_per_step: float,
) -> Optional[int]:
    """The period of the summaries and logs when all are due now at one period.

    `periodic` holds `(due step, period)` of each periodic event. Only when
    they share one period and all are due may a chunk span several periods
    (its steps at multiples of the period fetch them). Hooks see each step, so
    with hooks it never does; nor when steps do not advance the global step by
    exactly one each (periods count global steps).
    """
    periodic = list(periodic)
    periods = {period for _, period in periodic}
    due_now = all(due <= step for due, _ in periodic)
    if len(periods) != 1 or not due_now or hooks_see_every_step:
        return None
    return periods.pop() if global_steps_per_step == 1 else None


def periods_per_call(
    steps_per_sec: Optional[float], every: int, seconds_per_call: float = SECONDS_PER_CALL
) -> int:
    """How many event periods the next chunk may span, so a call lasts about `seconds_per_call`."""
    if not steps_per_sec:
        return 1
    return max(1, int(steps_per_sec * seconds_per_call) // every)


def global_steps_to_next_event(
    step: int,
    periodic: Iterable[Tuple[int, int]],
    every: Optional[int],
    periods: int,
    last_step: Optional[int],
    next_checkpoint: Optional[int],
) -> Optional[int]:
    """How far the global step may advance in the next call before an event is due.

    Args:
        step: the global step now.
        periodic: `(due step, period)` of the summaries and the loss log.
        every: their shared period (`shared_period`), or None.
        periods: how many shared periods the call may span (`periods_per_call`).
        last_step: training ends there (None: at the end of the input).
        next_checkpoint: the step a step-based checkpoint is due at, or None.

    Returns None when no event bounds the call. Without a shared period an
    event due now is fetched by the call's first step, and the call ends
    before the next one.
    """
    if every is None:
        bounds = [due - step if due > step else period for due, period in periodic]
    else:
        bounds = [every * periods]
    if last_step is not None:
        bounds.append(last_step - step)
    if next_checkpoint is not None:
        bounds.append(next_checkpoint - step)
    return min(bounds, default=None)
