"""Unit tests of the engine's modules: fast, in this process, real TensorFlow.

A package, so its files may share their module's name with an end-to-end test
(`unit/test_logs.py` beside `test_logs.py`) without clashing in pytest.
"""
