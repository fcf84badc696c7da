import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import pytest  # noqa: E402

import tfestimator_compat  # noqa: E402

tfestimator_compat.install()

# The shared checks in helpers.py report their failures as a test's own asserts do.
pytest.register_assert_rewrite("helpers")


@pytest.fixture
def model_dir(tmp_path):
    return str(tmp_path / "model")
