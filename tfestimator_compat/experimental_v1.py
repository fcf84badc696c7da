"""`tf.compat.v1.estimator.experimental`: `tf.estimator.experimental` and the V1-only names.

The original's V1 namespace had `KMeans` and the DNN and linear logit-fn builders
besides the names both versions share, and not the RNN estimators (V2 only).
"""

from tfestimator_compat.canned.kmeans import KMeansClustering as KMeans  # noqa: F401
from tfestimator_compat.canned.logit_fn import dnn_logit_fn_builder  # noqa: F401
from tfestimator_compat.canned.logit_fn import linear_logit_fn_builder  # noqa: F401
from tfestimator_compat.experimental import *  # noqa: F403
from tfestimator_compat.experimental import __all__ as _shared

_V2_ONLY = ("RNNClassifier", "RNNEstimator")
for _name in _V2_ONLY:
    del globals()[_name]
__all__ = sorted(
    [*(name for name in _shared if name not in _V2_ONLY), "KMeans"]
    + ["dnn_logit_fn_builder", "linear_logit_fn_builder"]
)
