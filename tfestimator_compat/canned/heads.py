"""The heads the canned classifiers and regressors build from their arguments."""

from __future__ import annotations

from tfestimator_compat.head import BinaryClassHead
from tfestimator_compat.head import MultiClassHead
from tfestimator_compat.head import RegressionHead
from tfestimator_compat.head import head_utils


def classification_head(n_classes, weight_column, label_vocabulary, loss_reduction):
    """`BinaryClassHead` for 2 classes, `MultiClassHead` otherwise."""
    return head_utils.binary_or_multi_class(
        n_classes,
        BinaryClassHead,
        MultiClassHead,
        weight_column=weight_column,
        label_vocabulary=label_vocabulary,
        loss_reduction=loss_reduction,
    )


def regression_head(label_dimension, weight_column, loss_reduction):
    return RegressionHead(
        label_dimension=label_dimension,
        weight_column=weight_column,
        loss_reduction=loss_reduction,
    )
