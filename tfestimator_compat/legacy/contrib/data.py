"""`tf.contrib.data`: the dataset transformations that moved to `tf.data.experimental`.

TensorFlow 1.x graduated `tf.contrib.data` into `tf.data.experimental` under
the same names and arguments, which `tf.compat.v1.data.experimental` still
has; the few contrib-only helpers are one-line `tf.data` calls.

Example:

```python
dataset = dataset.apply(tf.contrib.data.parallel_interleave(
    tf.data.TFRecordDataset, cycle_length=4, sloppy=True))
dataset = dataset.apply(tf.contrib.data.map_and_batch(
    parse, batch_size=32, num_parallel_batches=4, drop_remainder=True))
```
"""

from typing import Callable

import tensorflow as tf

_experimental = tf.compat.v1.data.experimental

AUTOTUNE = tf.data.experimental.AUTOTUNE
Counter = _experimental.Counter
CsvDataset = _experimental.CsvDataset
Optional = _experimental.Optional
RandomDataset = _experimental.RandomDataset
Reducer = _experimental.Reducer
SqlDataset = _experimental.SqlDataset
TFRecordWriter = _experimental.TFRecordWriter
bucket_by_sequence_length = _experimental.bucket_by_sequence_length
choose_from_datasets = _experimental.choose_from_datasets
copy_to_device = _experimental.copy_to_device
dense_to_sparse_batch = _experimental.dense_to_sparse_batch
enumerate_dataset = _experimental.enumerate_dataset
get_next_as_optional = _experimental.get_next_as_optional
get_single_element = _experimental.get_single_element
group_by_reducer = _experimental.group_by_reducer
group_by_window = _experimental.group_by_window
ignore_errors = _experimental.ignore_errors
make_batched_features_dataset = _experimental.make_batched_features_dataset
make_csv_dataset = _experimental.make_csv_dataset
make_saveable_from_iterator = _experimental.make_saveable_from_iterator
map_and_batch = _experimental.map_and_batch
parallel_interleave = _experimental.parallel_interleave
prefetch_to_device = _experimental.prefetch_to_device
rejection_resample = _experimental.rejection_resample
sample_from_datasets = _experimental.sample_from_datasets
scan = _experimental.scan
shuffle_and_repeat = _experimental.shuffle_and_repeat
unbatch = _experimental.unbatch
unique = _experimental.unique


def batch_and_drop_remainder(batch_size) -> Callable:
    """A `Dataset.apply` function: batches, dropping a last partial batch."""
    return lambda dataset: dataset.batch(batch_size, drop_remainder=True)


def padded_batch_and_drop_remainder(batch_size, padded_shapes, padding_values=None) -> Callable:
    """A `Dataset.apply` function: padded batches, dropping a last partial batch."""
    return lambda dataset: dataset.padded_batch(
        batch_size, padded_shapes, padding_values, drop_remainder=True
    )


def sloppy_interleave(map_func, cycle_length, block_length=1) -> Callable:
    """`parallel_interleave` that may return elements out of order, for speed."""
    return parallel_interleave(map_func, cycle_length, block_length, sloppy=True)


__all__ = [
    "AUTOTUNE",
    "Counter",
    "CsvDataset",
    "Optional",
    "RandomDataset",
    "Reducer",
    "SqlDataset",
    "TFRecordWriter",
    "batch_and_drop_remainder",
    "bucket_by_sequence_length",
    "choose_from_datasets",
    "copy_to_device",
    "dense_to_sparse_batch",
    "enumerate_dataset",
    "get_next_as_optional",
    "get_single_element",
    "group_by_reducer",
    "group_by_window",
    "ignore_errors",
    "make_batched_features_dataset",
    "make_csv_dataset",
    "make_saveable_from_iterator",
    "map_and_batch",
    "padded_batch_and_drop_remainder",
    "parallel_interleave",
    "prefetch_to_device",
    "rejection_resample",
    "sample_from_datasets",
    "scan",
    "shuffle_and_repeat",
    "sloppy_interleave",
    "unbatch",
    "unique",
]
