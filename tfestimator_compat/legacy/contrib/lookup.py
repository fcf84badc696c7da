"""`tf.contrib.lookup`: TF1 vocabulary tables, initialized by `tf.tables_initializer()`.

The contrib functions were thin wrappers, with `mapping` for what TensorFlow
later called `vocabulary_list`, over the table builders that
`tensorflow.python.ops.lookup_ops` still has. In graph mode they make
TF1 tables: a table is filled when `tf.tables_initializer()` runs, as before.

Example:

```python
table = tf.contrib.lookup.index_table_from_tensor(
    tf.constant(["a", "b"]), num_oov_buckets=1)
ids = table.lookup(tf.constant(["a", "c"]))  # [0, 2] once the table is initialized
```
"""

import tensorflow as tf
from tensorflow.python.ops import lookup_ops

FastHashSpec = lookup_ops.FastHashSpec
HashTable = lookup_ops.HashTable
HasherSpec = lookup_ops.HasherSpec
IdTableWithHashBuckets = lookup_ops.IdTableWithHashBuckets
InitializableLookupTableBase = lookup_ops.InitializableLookupTableBase
KeyValueTensorInitializer = lookup_ops.KeyValueTensorInitializer
LookupInterface = lookup_ops.LookupInterface
MutableDenseHashTable = lookup_ops.MutableDenseHashTable
MutableHashTable = lookup_ops.MutableHashTable
StrongHashSpec = lookup_ops.StrongHashSpec
TextFileIdTableInitializer = lookup_ops.TextFileIdTableInitializer
TextFileIndex = lookup_ops.TextFileIndex
TextFileInitializer = lookup_ops.TextFileInitializer
TextFileStringTableInitializer = lookup_ops.TextFileStringTableInitializer
index_table_from_file = lookup_ops.index_table_from_file
index_to_string_table_from_file = lookup_ops.index_to_string_table_from_file


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
    return lookup_ops.index_table_from_tensor(
        mapping, num_oov_buckets, default_value, hasher_spec, dtype, name
    )


def index_to_string_table_from_tensor(mapping, default_value="UNK", name=None):
    """A table from positions in `mapping` back to its strings; others get `default_value`."""
    if mapping is None:
        raise ValueError("index_to_string_table_from_tensor needs a mapping: a 1-D string tensor.")
    return lookup_ops.index_to_string_table_from_tensor(mapping, default_value, name)


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
