import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import pytest  # noqa: E402

import tfestimator_compat  # noqa: E402

tfestimator_compat.install()


@pytest.fixture
def model_dir(tmp_path):
    return str(tmp_path / "model")
