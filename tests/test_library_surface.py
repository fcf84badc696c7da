"""What libraries built on tf.estimator import from the original's private modules.

CTR model zoos subclass `canned.head._Head` and build optimizers with
`canned.optimizers.get_optimizer_instance`; Estimator subclasses read and set
`self._model_dir`, `self._config`, `self._session_config`, ...; training
scripts loop on `estimator._load_global_step_from_checkpoint_dir`. Numbers
are compared with tensorflow-estimator 2.15 (`fixtures/library_surface`).
"""

import importlib
import sys

import pytest
import tensorflow as tf


@pytest.mark.parametrize("outer", ["v1", "v2"])
def test_the_compat_namespaces_of_the_compat_namespaces(outer):
    compat = getattr(tf.compat, outer).compat
    assert compat.v1.estimator is tf.compat.v1.estimator
    assert compat.v2.estimator is tf.estimator
    module = importlib.import_module(f"tensorflow.compat.{outer}.compat.v1.estimator")
    assert module.DNNClassifier is tf.compat.v1.estimator.DNNClassifier
    assert sys.modules[f"tensorflow.compat.{outer}.compat.v2.estimator"] is tf.estimator
