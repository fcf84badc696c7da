"""`tf.estimator.export`: exporters run by `train_and_evaluate` after evaluations."""

from tfestimator_compat.export.exporter import Exporter

__all__ = ["Exporter"]
