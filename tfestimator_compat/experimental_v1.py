"""`tf.compat.v1.estimator.experimental`: `tf.estimator.experimental` and the V1-only names.

The original's V1 namespace had `KMeans` and the DNN and linear logit-fn builders
besides the names both versions share.
"""

from tfestimator_compat.canned.kmeans import KMeansClustering as KMeans  # noqa: F401
from tfestimator_compat.canned.logit_fn import dnn_logit_fn_builder  # noqa: F401
from tfestimator_compat.canned.logit_fn import linear_logit_fn_builder  # noqa: F401
from tfestimator_compat.experimental import *  # noqa: F403
from tfestimator_compat.experimental import __all__ as _shared

__all__ = sorted([*_shared, "KMeans", "dnn_logit_fn_builder", "linear_logit_fn_builder"])
