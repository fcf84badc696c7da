"""Protocol buffers of TensorFlow's that its public API does not export (`tensorflow.core.*`).

Those it does export are used from there (`tf.compat.v1.Summary`,
`tf.compat.v1.ConfigProto`, `tf.compat.v1.GraphDef`, ...). Resolved when this
module is imported (`resolver.internal`); `tests/test_internals.py` checks them.
"""

from tfestimator_compat.engine.internals.resolver import internal

# The `saved_model.pb` message: `SavedModel()`, with `meta_graphs` (MetaGraphDefs)
# and the usual `ParseFromString` / `SerializeToString`.
SavedModel = internal("tensorflow.core.protobuf.saved_model_pb2", "SavedModel")
_DataType = internal("tensorflow.core.framework.types_pb2", "DataType")


def data_type_enum(name) -> int:
    """The `DataType` enum value named `name` (`"DT_FLOAT"` -> 1), as checkpoint
    index entries name them; ValueError for an unknown name."""
    return _DataType.Value(name)
