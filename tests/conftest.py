import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import pytest  # noqa: E402

import tfestimator_compat  # noqa: E402
from tfestimator_compat.engine import process_state  # noqa: E402

tfestimator_compat.install()

# The shared checks in helpers.py report their failures as a test's own asserts do.
pytest.register_assert_rewrite("helpers")


@pytest.fixture(autouse=True)
def fresh_process_state():
    """Each test starts as a new process would: no warning said yet, no event writer open."""
    process_state.reset()
    yield
    process_state.reset()


@pytest.fixture
def model_dir(tmp_path):
    return str(tmp_path / "model")
