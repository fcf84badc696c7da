"""`tf.compat.v1.estimator.experimental`: `tf.estimator.experimental` and the V1-only names.

The original's V1 namespace had `KMeans` and the DNN and linear logit-fn builders
besides the names both versions share, and not the RNN estimators (V2 only).
"""

from tfestimator_compat import experimental
from tfestimator_compat.shim import lazy

_V2_ONLY = ("RNNClassifier", "RNNEstimator")

# Where each name is defined, imported when the name is first read.
_SOURCES = {
    **{name: experimental.__name__ for name in experimental.__all__ if name not in _V2_ONLY},
    "KMeans": "tfestimator_compat.canned.kmeans:KMeansClustering",
    "dnn_logit_fn_builder": "tfestimator_compat.canned.logit_fn",
    "linear_logit_fn_builder": "tfestimator_compat.canned.logit_fn",
}

__all__ = sorted(_SOURCES)

__getattr__, __dir__ = lazy.attributes(__name__, _SOURCES)
