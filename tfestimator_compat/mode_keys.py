"""The three modes a `model_fn` is called in."""


class ModeKeys:
    """Standard names for the modes of an Estimator.

    The values are the strings the original `tf.estimator.ModeKeys` used, so a
    `model_fn` that compares `mode == "train"` keeps working.
    """

    TRAIN = "train"
    EVAL = "eval"
    PREDICT = "infer"
