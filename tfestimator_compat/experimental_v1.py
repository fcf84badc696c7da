"""`tf.compat.v1.estimator.experimental`: `tf.estimator.experimental` and the V1-only names.

The original's V1 namespace had `KMeans` besides the names both versions share.
"""

from tfestimator_compat.canned.kmeans import KMeansClustering as KMeans  # noqa: F401
from tfestimator_compat.experimental import *  # noqa: F403
from tfestimator_compat.experimental import __all__ as _shared

__all__ = sorted([*_shared, "KMeans"])
