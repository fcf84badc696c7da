"""`tf.contrib.lookup`: TF1 vocabulary tables, initialized by `tf.tables_initializer()`.

The contrib functions were thin wrappers, with `mapping` for what TensorFlow
later called `vocabulary_list`, over the table builders that TensorFlow's
private `lookup_ops` still has (reached through `engine/internals`). In graph mode they make
TF1 tables: a table is filled when `tf.tables_initializer()` runs, as before.

Example:

```python
table = tf.contrib.lookup.index_table_from_tensor(
    tf.constant(["a", "b"]), num_oov_buckets=1)
ids = table.lookup(tf.constant(["a", "c"]))  # [0, 2] once the table is initialized
```
"""

import tensorflow as tf

from tfestimator_compat.engine.internals import tensorflow_internals as tf_internals

FastHashSpec = tf_internals.FastHashSpec
HashTable = tf_internals.HashTable
HasherSpec = tf_internals.HasherSpec
IdTableWithHashBuckets = tf_internals.IdTableWithHashBuckets
InitializableLookupTableBase = tf_internals.InitializableLookupTableBase
KeyValueTensorInitializer = tf.lookup.KeyValueTensorInitializer
LookupInterface = tf_internals.LookupInterface
MutableDenseHashTable = tf_internals.MutableDenseHashTable
MutableHashTable = tf.lookup.experimental.MutableHashTable
StrongHashSpec = tf_internals.StrongHashSpec
TextFileIdTableInitializer = tf_internals.TextFileIdTableInitializer
TextFileIndex = tf.lookup.TextFileIndex
TextFileInitializer = tf.lookup.TextFileInitializer
TextFileStringTableInitializer = tf_internals.TextFileStringTableInitializer
index_table_from_file = tf_internals.index_table_from_file
index_to_string_table_from_file = tf_internals.index_to_string_table_from_file


def index_table_from_tensor(
    mapping,
    num_oov_buckets=0,
    default_value=-1,
    hasher_spec=FastHashSpec,
    dtype=tf.string,
    name=None,
):
    """A table from the strings (or integers) of `mapping` to their positions.

    Keys outside `mapping` get `default_value`, or with `num_oov_buckets` a
    hash bucket after the vocabulary.
    """
    if mapping is None:
        raise ValueError("index_table_from_tensor needs a mapping: the 1-D tensor of keys.")
    return tf_internals.index_table_from_tensor(
        mapping, num_oov_buckets, default_value, hasher_spec, dtype, name
    )


def index_to_string_table_from_tensor(mapping, default_value="UNK", name=None):
    """A table from positions in `mapping` back to its strings; others get `default_value`."""
    if mapping is None:
        raise ValueError("index_to_string_table_from_tensor needs a mapping: a 1-D string tensor.")
    return tf_internals.index_to_string_table_from_tensor(mapping, default_value, name)


def string_to_index(tensor, mapping, default_value=-1, name=None) -> tf.Tensor:
    """`tensor`'s strings as their positions in `mapping` (needs `tf.tables_initializer()`)."""
    table = index_table_from_tensor(mapping, default_value=default_value, name=name)
    return table.lookup(tensor)


def index_to_string(tensor, mapping, default_value="UNK", name=None) -> tf.Tensor:
    """`tensor`'s positions as the strings of `mapping` (needs `tf.tables_initializer()`)."""
    table = index_to_string_table_from_tensor(mapping, default_value=default_value, name=name)
    return table.lookup(tensor)


__all__ = [
    "FastHashSpec",
    "HashTable",
    "HasherSpec",
    "IdTableWithHashBuckets",
    "InitializableLookupTableBase",
    "KeyValueTensorInitializer",
    "LookupInterface",
    "MutableDenseHashTable",
    "MutableHashTable",
    "StrongHashSpec",
    "TextFileIdTableInitializer",
    "TextFileIndex",
    "TextFileInitializer",
    "TextFileStringTableInitializer",
    "index_table_from_file",
    "index_table_from_tensor",
    "index_to_string",
    "index_to_string_table_from_file",
    "index_to_string_table_from_tensor",
    "string_to_index",
]
