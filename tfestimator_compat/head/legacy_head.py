"""`_Head`: the interface TF1's heads shared, which libraries subclassed for their own heads.

tensorflow-estimator kept its TF1 heads in `canned/head.py` behind a private
base class, `_Head`. Libraries built on tf.estimator (CTR model zoos, ranking
and ensembling libraries) subclassed it and wrote `create_estimator_spec`
themselves, so the base class itself did little: it names the interface and
turns a subclass's `_create_tpu_estimator_spec` into an `EstimatorSpec`.
As in the original, nothing is enforced when a subclass is defined (its
`abc.ABCMeta` was a Python 2 spelling that Python 3 ignores): a missing piece
raises `NotImplementedError` when it is called.
"""

from __future__ import annotations

import collections

import tensorflow as tf

# The signature keys TF1's heads exported under.
DEFAULT_SERVING_KEY = tf.saved_model.DEFAULT_SERVING_SIGNATURE_DEF_KEY
CLASSIFY_SERVING_KEY = "classification"
REGRESS_SERVING_KEY = "regression"
PREDICT_SERVING_KEY = "predict"

LossSpec = collections.namedtuple(
    "LossSpec", ["training_loss", "unreduced_loss", "weights", "processed_labels"]
)
LossSpec.__doc__ = """What `_Head.create_loss` returns: the reduced training loss, the
per-example loss, the example weights and the labels as the head processed them."""


def summary_key(head_name: str | None, key: str) -> str:
    """`key/head_name`, or `key` for an unnamed head: how TF1's heads named metrics."""
    return f"{key}/{head_name}" if head_name else key


class Head:
    """The TF1 head interface: `name`, `logits_dimension`, `create_loss`, `create_estimator_spec`.

    A subclass implements `create_estimator_spec` (or `_create_tpu_estimator_spec`,
    whose `TPUEstimatorSpec` this class converts) and calls it from a `model_fn`.

    Example:

    ```python
    class MeanSquaredHead(_Head):
        name = "mse"
        logits_dimension = 1

        def create_estimator_spec(self, features, mode, logits, labels=None,
                                  train_op_fn=None, **kwargs):
            loss = tf.compat.v1.losses.mean_squared_error(labels, logits)
            return tf.estimator.EstimatorSpec(
                mode, predictions=logits, loss=loss, train_op=train_op_fn(loss))
    ```
    """

    @property
    def name(self):
        """The head's name, which suffixes its metric keys (`summary_key`)."""
        raise NotImplementedError("Calling an abstract method.")

    @property
    def logits_dimension(self):
        """The size of the logits' last dimension."""
        raise NotImplementedError("Calling an abstract method.")

    def create_loss(self, features, mode, logits, labels):
        """A `LossSpec` for `logits` against `labels`."""
        raise NotImplementedError("Calling an abstract method.")

    def create_estimator_spec(
        self,
        features,
        mode,
        logits,
        labels=None,
        optimizer=None,
        train_op_fn=None,
        regularization_losses=None,
    ):
        """The `EstimatorSpec` of the subclass's `_create_tpu_estimator_spec`."""
        try:
            spec = self._create_tpu_estimator_spec(
                features, mode, logits, labels, optimizer, train_op_fn, regularization_losses
            )
        except NotImplementedError:
            raise NotImplementedError(
                "Subclasses of _Head must implement `create_estimator_spec()` or "
                "_create_tpu_estimator_spec()."
            ) from None
        return spec.as_estimator_spec()

    def _create_tpu_estimator_spec(
        self,
        features,
        mode,
        logits,
        labels=None,
        optimizer=None,
        train_op_fn=None,
        regularization_losses=None,
    ):
        raise NotImplementedError("TPUEstimatorSpec not available for this model head.")
