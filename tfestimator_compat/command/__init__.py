"""The `tfestimator-compat` command: `run`, `check`, `enable`/`disable`/`status`, notebooks.

Its modules import no TensorFlow at module level, so `check` and `--help` start fast.
"""
