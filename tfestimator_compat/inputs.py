"""`tf.compat.v1.estimator.inputs`: input_fns over numpy arrays and pandas DataFrames.

The original fed arrays through queues and queue runners. Here the input_fn
builds a `tf.data` pipeline (shuffled as the queue shuffled, repeated, batched
across epoch boundaries as the queue did) and returns `(features, labels)` tensors
from a TF1 one-shot iterator, so it composes as before: an input_fn may call
it and change the tensors it returns. The Estimator reads every batch of it
(see `engine/inputs/input_fn.py`).
"""

import random
from typing import Any
from typing import Callable
from typing import Optional

import numpy as np
import tensorflow as tf

from tfestimator_compat.engine.tracing.random_seeds import taking_no_op_seeds


def numpy_input_fn(
    x: Any,
    y: Any = None,
    batch_size: int = 128,
    num_epochs: Optional[int] = 1,
    shuffle: Optional[bool] = None,
    queue_capacity: int = 1000,
    num_threads: int = 1,
) -> Callable[[], Any]:
    """Returns an input_fn that reads batches of numpy arrays.

    Args:
        x: an array (a single feature) or a dict of arrays (named features),
            all with the same first dimension.
        y: None, an array, or a dict of arrays, for the labels.
        batch_size: examples per batch; the last batch of the last epoch may
            be smaller.
        num_epochs: passes over the data; None repeats forever.
        shuffle: required; whether to shuffle the examples: read in order from
            a random first row, each batch drawn at random from the next
            `queue_capacity` rows, as the original's shuffling queue did.
        queue_capacity: the rows a shuffled batch is drawn from.
        num_threads: kept for compatibility; one reader keeps the order.

    Returns:
        An input_fn returning `(features, labels)`, or `features` when `y` is None.

    Example:

    ```python
    input_fn = tf.compat.v1.estimator.inputs.numpy_input_fn(
        {"x": train_x}, train_y, batch_size=32, num_epochs=None, shuffle=True
    )
    estimator.train(input_fn, steps=1000)
    ```
    """
    del num_threads
    if not isinstance(shuffle, bool):
        raise ValueError(
            "shuffle must be provided and explicitly set as boolean (it is recommended "
            f"to set it as True for training); got {shuffle}"
        )

    def input_fn():
        features = _arrays(x, "x")
        labels = None if y is None else _arrays(y, "y")
        _check_lengths(features, labels)
        if isinstance(features, dict) and isinstance(labels, dict):
            shared = set(features) & set(labels)
            if shared:
                raise ValueError(
                    f"{len(shared)} duplicate keys are found in both x and y: {shared}"
                )
        element = features if labels is None else (features, labels)
        length = len(tf.nest.flatten(element)[0])
        dataset = _row_order(length, num_epochs, shuffle, queue_capacity)
        dataset = dataset.batch(batch_size)
        columns = tf.nest.map_structure(tf.constant, element)
        dataset = dataset.map(
            lambda rows: tf.nest.map_structure(lambda column: tf.gather(column, rows), columns)
        )
        # The original's queue took an op seed only to shuffle (`random_seeds`).
        with taking_no_op_seeds():
            iterator = tf.compat.v1.data.make_one_shot_iterator(dataset)
        return iterator.get_next()

    return input_fn


def pandas_input_fn(
    x: Any,
    y: Any = None,
    batch_size: int = 128,
    num_epochs: Optional[int] = 1,
    shuffle: Optional[bool] = None,
    queue_capacity: int = 1000,
    num_threads: int = 1,
    target_column: str = "target",
) -> Callable[[], Any]:
    """Returns an input_fn that reads batches of a pandas DataFrame.

    Features are a dict with one tensor per column of `x`; labels are a tensor
    when `y` is a Series, a dict when it is a DataFrame.

    Args:
        x: a `pandas.DataFrame`.
        y: None, a `pandas.Series` or a `pandas.DataFrame`, indexed like `x`.
        batch_size: examples per batch.
        num_epochs: passes over the data; None repeats forever.
        shuffle: required; whether to shuffle the examples (as `numpy_input_fn`).
        queue_capacity: the rows a shuffled batch is drawn from.
        num_threads: kept for compatibility.
        target_column: a name for a Series `y`; it must not be a column of `x`.

    Returns:
        An input_fn returning `(features, labels)`, or `features` when `y` is None.
    """
    if not isinstance(shuffle, bool):
        raise ValueError(
            "shuffle must be provided and explicitly set as boolean (it is recommended "
            f"to set it as True for training); got {shuffle}"
        )
    features = {str(column): x[column].to_numpy() for column in x.columns}
    labels = None
    if y is not None:
        if target_column in x.columns:
            raise ValueError(
                f"Cannot use name {target_column} for target column: DataFrame "
                "already has a column with that name."
            )
        if not np.array_equal(x.index, y.index):
            raise ValueError(
                f"Index for x and y are mismatched.\nIndex for x: {x.index}\n"
                f"Index for y: {y.index}\n"
            )
        if hasattr(y, "columns"):
            labels = {str(column): y[column].to_numpy() for column in y.columns}
        else:
            labels = y.to_numpy()
    return numpy_input_fn(
        features, labels, batch_size, num_epochs, shuffle, queue_capacity, num_threads
    )


def _row_order(length, num_epochs, shuffle, queue_capacity):
    """The rows' indices in the order the original's shuffling queue gave them.

    The original read the rows in order from a random first row, wrapping
    around for every epoch, into a `RandomShuffleQueue` of `queue_capacity`
    rows from which each batch drew at random: a local shuffle across epoch
    boundaries, not a permutation of the data. Sorted data trains as it did.
    """
    if not shuffle:
        return tf.data.Dataset.range(length).repeat(num_epochs)
    # The queue's one op seed. The original drew the first row from the OS
    # even under a `tf_random_seed`; a seeded run starts from a row of its seed.
    graph_seed, op_seed = tf.compat.v1.get_seed(None)
    draw = random.SystemRandom() if graph_seed is None else random.Random(f"{graph_seed}/{op_seed}")
    start = draw.randrange(length) if length else 0
    rows = tf.data.Dataset.range(start, start + length).map(lambda row: row % length)
    return rows.repeat(num_epochs).shuffle(max(int(queue_capacity), 1), seed=op_seed)


def _arrays(value, argument):
    if isinstance(value, dict):
        if not value:
            raise ValueError(f"{argument} cannot be an empty dict")
        return {key: np.asarray(array) for key, array in value.items()}
    if isinstance(value, np.ndarray):
        return value
    raise TypeError(f"{argument} must be a dict or array; got {type(value).__name__}")


def _check_lengths(features, labels):
    lengths = {len(array) for array in tf.nest.flatten(features)}
    if labels is not None:
        lengths |= {len(array) for array in tf.nest.flatten(labels)}
    if len(lengths) > 1:
        raise ValueError(
            "Length of tensors in x and y is mismatched. All elements in x and y "
            "must have the same length.\n"
            f"Shapes in x: {tf.nest.map_structure(np.shape, features)}\n"
            f"Shapes in y: {None if labels is None else tf.nest.map_structure(np.shape, labels)}"
        )
