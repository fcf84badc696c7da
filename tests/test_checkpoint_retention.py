"""Resuming training deletes only what the original's saver would have deleted.

The scenarios are `tests/fixtures/checkpoint_retention/make_fixture.py`, run
here on this package; `expected.json` beside it holds the `model.ckpt-N` steps
tensorflow-estimator 2.15 left after each (see that file for how it was
recorded).
"""

import json
import os
import shutil

import pytest
import tensorflow as tf
from helpers import fixture_generator

FIXTURE = os.path.join(os.path.dirname(__file__), "fixtures", "checkpoint_retention")
scenarios = fixture_generator("checkpoint_retention")

with open(os.path.join(FIXTURE, "expected.json")) as f:
    EXPECTED = json.load(f)


@pytest.mark.parametrize("scenario", ["rollback", "keep_all_then_default", "every_n_hours"])
def test_resuming_keeps_the_checkpoints_the_original_kept(scenario, model_dir):
    steps, outcome = scenarios.run(tf.estimator, scenario, model_dir)
    assert (steps, outcome) == (EXPECTED[scenario]["steps"], EXPECTED[scenario]["outcome"])


def test_resuming_a_keep_all_model_dir_written_by_the_original_keeps_all(model_dir):
    shutil.copytree(os.path.join(FIXTURE, "keep_all_215"), model_dir)
    scenarios.resume_with_defaults(tf.estimator, model_dir)
    assert scenarios.steps_left(model_dir) == EXPECTED["keep_all_then_default"]["steps"]


def test_falling_back_from_a_missing_step_deletes_nothing(model_dir):
    """The original raised here; this package falls back to step 10 and trains
    on, and every checkpoint the original kept is still there."""
    steps, outcome = scenarios.run(tf.estimator, "state_names_missing_step", model_dir)
    assert EXPECTED["state_names_missing_step"]["outcome"] == "ValueError"
    assert outcome == "ok"
    assert steps == EXPECTED["state_names_missing_step"]["steps"] + [11]
