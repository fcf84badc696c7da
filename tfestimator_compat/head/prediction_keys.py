"""The keys of the predictions dict heads return, as `predict()` yields them."""


class PredictionKeys:
    """Prediction key strings."""

    CLASSES = "classes"
    CLASS_IDS = "class_ids"
    ALL_CLASSES = "all_classes"
    ALL_CLASS_IDS = "all_class_ids"
    LOGISTIC = "logistic"
    LOGITS = "logits"
    PREDICTIONS = "predictions"
    PROBABILITIES = "probabilities"
    TOP_K = "top_k"
