"""The names heads give their evaluation metrics.

`Estimator.evaluate()` returns them as keys, and the summaries under
`model_dir/eval` use them as tags, so they are kept exactly as the original
`tf.estimator` heads wrote them.
"""


class MetricKeys:
    """Metric key strings; those with `%` take a threshold, class id or name."""

    LOSS = "loss"
    LOSS_MEAN = "average_loss"
    LOSS_REGULARIZATION = "regularization_loss"

    ACCURACY = "accuracy"
    PRECISION = "precision"
    RECALL = "recall"
    # The accuracy of always predicting the most frequent class.
    ACCURACY_BASELINE = "accuracy_baseline"
    AUC = "auc"
    AUC_PR = "auc_precision_recall"
    LABEL_MEAN = "label/mean"
    PREDICTION_MEAN = "prediction/mean"

    ACCURACY_AT_THRESHOLD = "accuracy/positive_threshold_%g"
    PRECISION_AT_THRESHOLD = "precision/positive_threshold_%g"
    RECALL_AT_THRESHOLD = "recall/positive_threshold_%g"

    PROBABILITY_MEAN_AT_CLASS = "probability_mean/class%d"
    AUC_AT_CLASS = "auc/class%d"
    AUC_PR_AT_CLASS = "auc_precision_recall/class%d"

    PROBABILITY_MEAN_AT_NAME = "probability_mean/%s"
    AUC_AT_NAME = "auc/%s"
    AUC_PR_AT_NAME = "auc_precision_recall/%s"
