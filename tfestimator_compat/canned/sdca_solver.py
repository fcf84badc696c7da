"""One SDCA step over a linear model's variables, on TensorFlow's SDCA kernels.

Stochastic dual coordinate ascent keeps, for every example it has seen, a
dual variable and the example's last primal and dual losses: the example
state, in a hash table keyed by the fingerprint (`SdcaFprint`) of the
example's id. Each step looks up the batch's states, runs one
`SdcaOptimizerV2` pass over the batch, stores the new states and adds the
weight deltas to "unshrunk" copies of the weights. The model's own weights
are then set from those copies, shrunk by the L1 proximal step.

Names and layout are the original's, so 2.15 checkpoints resume:
- the copies are variables named `<weights' TF1 op name>_unshrunk` (one per
  part of a partitioned variable), made under the model_fn's name scope;
- the table is `num_table_shards` dense hash tables saved as
  `ShardedMutableHashTable-<i>-of-<n>-keys` and `-values`, keys
  `int64 [buckets, 2]`, values `float32 [buckets, 4]` (dual, primal loss,
  dual loss, example weight), an example going to shard `|key[0]| mod n`.
"""

from __future__ import annotations

import dataclasses

import tensorflow as tf

from tfestimator_compat.canned import summaries
from tfestimator_compat.engine.variables import variable_store

TABLE_NAME = "ShardedMutableHashTable"
_STATE_SIZE = 4
_EMPTY_KEY = (0, 0)
_DELETED_KEY = (1, 1)


@dataclasses.dataclass
class SparseFeature:
    """A categorical column's batch: `(example index, feature id, value)` triples."""

    example_indices: tf.Tensor
    feature_indices: tf.Tensor
    feature_values: tf.Tensor


@dataclasses.dataclass
class Options:
    loss_type: str
    symmetric_l1_regularization: float
    symmetric_l2_regularization: float
    num_loss_partitions: int
    num_table_shards: int | None
    adaptive: bool


class SDCAStep:
    """The SDCA training step of a linear model, built in the current graph.

    Args:
        sparse_features: a `SparseFeature` per categorical column.
        sparse_weights: each column's weights, as the list of its parts.
        dense_features: a `[batch, width]` tensor per dense column (the bias's
            column of ones last).
        dense_weights: each dense column's weights, as the list of its parts.
        labels: `[batch]` float labels.
        example_weights: `[batch]` float weights.
        example_ids: `[batch]` string ids.
        options: the `LinearSDCA`'s settings and the loss.
        slot_names: the name of each weights part's unshrunk copy, by part.
    """

    def __init__(
        self,
        sparse_features,
        sparse_weights,
        dense_features,
        dense_weights,
        labels,
        example_weights,
        example_ids,
        options,
        slot_names,
    ):
        l2 = options.symmetric_l2_regularization
        if l2 <= 0.0:
            raise ValueError("symmetric_l2_regularization should be positive.")
        if l2 <= 1.0:
            tf.compat.v1.logging.warning(
                "symmetric_l2_regularization for SDCA should typically be larger than for "
                "online optimization methods. Recommended value is of the order of the "
                "average L2 norm of the training examples."
            )
        if options.symmetric_l1_regularization < 0.0:
            raise ValueError("symmetric_l1_regularization should be non-negative.")
        self._options = options
        self._sparse_features = sparse_features
        self._sparse_weights = sparse_weights
        self._dense_features = dense_features
        self._dense_weights = dense_weights
        self._labels = labels
        self._example_weights = example_weights
        self._example_ids = example_ids
        self._sparse_slots = [_slots(parts, slot_names) for parts in sparse_weights]
        self._dense_slots = [_slots(parts, slot_names) for parts in dense_weights]
        self._table = ExampleStateTable(options.num_table_shards)
        self.summary_reads = [
            self.approximate_duality_gap(),
            tf.cast(self._table.size(), tf.float32),
        ]
        with tf.name_scope(""):
            tf.compat.v1.summary.scalar(
                summaries.tag_for("linear", "approximate_duality_gap"), self.summary_reads[0]
            )
            tf.compat.v1.summary.scalar(
                summaries.tag_for("linear", "examples_seen"), self._table.size()
            )

    def minimize(self, global_step):
        """The train op: one SDCA pass over the batch, then the global step plus one."""
        options = self._options
        with tf.name_scope("sdca/minimize"):
            keys = tf.raw_ops.SdcaFprint(input=tf.convert_to_tensor(self._example_ids))
            states = self._table.lookup(keys)
            batch_ids, gathered = [], []
            for feature, slots in zip(self._sparse_features, self._sparse_slots):
                ids = tf.cast(tf.unique(tf.cast(feature.feature_indices, tf.int32))[0], tf.int64)
                batch_ids.append(ids)
                gathered.append(_PartedIds(ids, slots))
            new_states, sparse_deltas, dense_deltas = tf.raw_ops.SdcaOptimizerV2(
                sparse_example_indices=[f.example_indices for f in self._sparse_features],
                sparse_feature_indices=[f.feature_indices for f in self._sparse_features],
                sparse_feature_values=[f.feature_values for f in self._sparse_features],
                dense_features=[_joined(f) for f in self._dense_features],
                example_weights=self._example_weights,
                example_labels=self._labels,
                sparse_indices=batch_ids,
                sparse_weights=[ids.gather() for ids in gathered],
                dense_weights=[_joined(slots) for slots in self._dense_slots],
                example_state_data=states,
                loss_type=options.loss_type,
                l1=float(options.symmetric_l1_regularization),
                l2=float(options.symmetric_l2_regularization),
                num_loss_partitions=options.num_loss_partitions,
                num_inner_iterations=1,
                adaptive=options.adaptive,
            )
            with tf.control_dependencies([new_states]):
                updates = [self._table.insert(keys, new_states)]
                for ids, delta in zip(gathered, sparse_deltas):
                    updates += ids.scatter_add(delta)
                for slots, delta in zip(self._dense_slots, dense_deltas):
                    sizes = [slot.shape[0] for slot in slots]
                    for slot, part in zip(slots, tf.split(delta, sizes)):
                        updates.append(slot.assign_add(part))
            with tf.control_dependencies(updates):
                return global_step.assign_add(1).op

    def update_weights(self, train_op, reads=()):
        """Sets the weights from their unshrunk copies after `train_op`, shrunk
        towards zero by `l1 / l2` when there is L1 regularization.

        `reads` (the logits, summaries of the weights) are computed first, so
        a step's loss is that of the weights it started with.
        """
        options = self._options
        shrinkage = options.symmetric_l1_regularization / options.symmetric_l2_regularization
        updates = []
        with tf.control_dependencies([train_op, *reads]):
            for weights, slots in zip(
                self._sparse_weights + self._dense_weights, self._sparse_slots + self._dense_slots
            ):
                for part, slot in zip(weights, slots):
                    value = slot.read_value()
                    if options.symmetric_l1_regularization > 0:
                        value = tf.sign(value) * tf.maximum(0.0, tf.abs(value) - shrinkage)
                    updates.append(part.assign(value))
        return tf.group(*updates)

    def approximate_duality_gap(self):
        """(primal + dual losses of the examples seen + regularization) / their weight."""
        options = self._options
        with tf.name_scope("sdca/approximate_duality_gap"):
            totals = tf.add_n(
                [
                    tf.reduce_sum(tf.cast(values, tf.float64), 0)
                    for values in self._table.exported_values()
                ]
            )
            weights = [
                tf.cast(part, tf.float64)
                for parts in self._sparse_weights + self._dense_weights
                for part in parts
            ]
            l1 = options.symmetric_l1_regularization * tf.add_n(
                [tf.reduce_sum(tf.abs(w)) for w in weights]
            )
            l2 = options.symmetric_l2_regularization * tf.add_n(
                [tf.reduce_sum(tf.square(w)) for w in weights]
            )
            return (totals[1] + totals[2] + l1 + l2) / totals[3]


class ExampleStateTable:
    """The example states, in `num_shards` checkpointed dense hash tables."""

    def __init__(self, num_shards):
        num_shards = 1 if num_shards is None else num_shards
        if num_shards < 1:
            raise IndexError(f"num_table_shards must be at least 1. Given: {num_shards}")
        store = variable_store.current()
        self._shards = []
        for index in range(num_shards):
            name = f"{TABLE_NAME}-{index + 1}-of-{num_shards}"
            self._shards.append(store.table(name, lambda name=name: _dense_hash_table(name)))

    def _shard_of(self, keys):
        return tf.cast(tf.math.floormod(tf.abs(keys[:, 0]), len(self._shards)), tf.int32)

    def size(self):
        return tf.add_n([shard.size() for shard in self._shards])

    def lookup(self, keys):
        if len(self._shards) == 1:
            return self._shards[0].lookup(keys)
        shard_of = self._shard_of(keys)
        count = len(self._shards)
        found = [
            shard.lookup(part)
            for shard, part in zip(self._shards, tf.dynamic_partition(keys, shard_of, count))
        ]
        positions = tf.dynamic_partition(tf.range(tf.shape(keys)[0]), shard_of, count)
        return tf.dynamic_stitch(positions, found)

    def insert(self, keys, values):
        if len(self._shards) == 1:
            return self._shards[0].insert(keys, values)
        shard_of = self._shard_of(keys)
        count = len(self._shards)
        key_parts = tf.dynamic_partition(keys, shard_of, count)
        value_parts = tf.dynamic_partition(values, shard_of, count)
        return tf.group(
            *[shard.insert(k, v) for shard, k, v in zip(self._shards, key_parts, value_parts)]
        )

    def exported_values(self):
        return [shard.export()[1] for shard in self._shards]


def _dense_hash_table(name):
    return tf.lookup.experimental.DenseHashTable(
        key_dtype=tf.int64,
        value_dtype=tf.float32,
        default_value=[0.0] * _STATE_SIZE,
        empty_key=list(_EMPTY_KEY),
        deleted_key=list(_DELETED_KEY),
        name=name,
    )


def _slots(parts, slot_names):
    """The unshrunk copies of a variable's parts, starting at zero as the original's did."""
    slots = []
    # Named in full from the top-level name scope.
    with tf.name_scope(""):
        for part in parts:
            shape = part.shape.as_list()
            slots.append(
                tf.Variable(
                    initial_value=lambda shape=shape: tf.zeros(shape, tf.float32),
                    name=slot_names[id(part)],
                    dtype=tf.float32,
                )
            )
    return slots


def _joined(parts):
    """A variable's parts (or a tensor) as one tensor, joined along the first axis."""
    if isinstance(parts, list):
        return parts[0].read_value() if len(parts) == 1 else tf.concat(parts, axis=0)
    return parts


class _PartedIds:
    """The feature ids of a batch within a (possibly partitioned) weights variable.

    A partitioned variable's rows are split as a TF1 fixed-size partitioner
    splits them: the first `total % parts` parts hold one row more.
    """

    def __init__(self, ids, slots):
        self._ids = ids
        self._slots = slots
        if len(slots) == 1:
            return
        count = len(slots)
        total = tf.constant(sum(slot.shape[0] for slot in slots), tf.int64)
        per_part = total // count
        extras = total % count
        part = tf.maximum(ids // (per_part + 1), (ids - extras) // per_part)
        within = tf.where(part < extras, ids % (per_part + 1), (ids - extras) % per_part)
        self._part = tf.cast(part, tf.int32)
        self._within = tf.dynamic_partition(within, self._part, count)

    def gather(self):
        """The copies' rows of the batch's ids, in the ids' order."""
        if len(self._slots) == 1:
            return tf.gather(self._slots[0], self._ids)
        count = len(self._slots)
        rows = [tf.gather(slot, within) for slot, within in zip(self._slots, self._within)]
        positions = tf.dynamic_partition(tf.range(tf.shape(self._ids)[0]), self._part, count)
        return tf.dynamic_stitch(positions, rows)

    def scatter_add(self, delta):
        """Ops adding `delta` (one row per id) to the copies' rows."""
        if len(self._slots) == 1:
            return [self._slots[0].scatter_add(tf.IndexedSlices(delta, self._ids))]
        deltas = tf.dynamic_partition(delta, self._part, len(self._slots))
        return [
            slot.scatter_add(tf.IndexedSlices(part_delta, within))
            for slot, within, part_delta in zip(self._slots, self._within, deltas)
        ]
