"""`(features, labels)` as an input_fn returned them, taken apart and put back together.

A Session fed the model_fn whatever the input_fn returned: a dict whose keys
mix ints and strings, a bare tensor, labels of None, an empty dict, NumPy
arrays and Python values. `tf.nest` and `tf.data` refuse some of these (mixed
keys cannot be sorted, an element needs at least one component), so an input
is carried as a flat tuple of its tensors, and `FlatStructure` rebuilds the
user's structure around them, with every non-tensor value left as it was
given: the model_fn gets NumPy arrays as NumPy arrays, as in the original.
"""

import hashlib
import itertools

import numpy as np
import tensorflow as tf

_COMPOSITES = (tf.SparseTensor, tf.RaggedTensor)
_UNIQUE = itertools.count()


def is_tensor(value):
    """Whether `value` is carried by the input pipeline (anything else is a constant)."""
    return isinstance(value, _COMPOSITES) or tf.is_tensor(value)


def _sorted_keys(mapping):
    """Keys in `tf.nest`'s order when they sort; mixed ones by type name, then repr."""
    try:
        return sorted(mapping)
    except TypeError:
        return sorted(mapping, key=lambda key: (type(key).__name__, repr(key)))


def map_leaves(fn, structure, is_leaf=is_tensor):
    """`structure` with `fn` applied to each leaf; dicts keep their keys and order."""
    if is_leaf(structure):
        return fn(structure)
    if isinstance(structure, dict):
        return type(structure)(
            (key, map_leaves(fn, value, is_leaf)) for key, value in structure.items()
        )
    if isinstance(structure, tuple) and hasattr(structure, "_fields"):
        return type(structure)(*(map_leaves(fn, value, is_leaf) for value in structure))
    if isinstance(structure, (tuple, list)):
        return type(structure)(map_leaves(fn, value, is_leaf) for value in structure)
    return structure


def leaves(structure, is_leaf=is_tensor):
    """The leaves of `structure` in a fixed order (dict keys sorted as `tf.nest` does)."""
    if is_leaf(structure):
        return [structure]
    if isinstance(structure, dict):
        return [leaf for key in _sorted_keys(structure) for leaf in leaves(structure[key], is_leaf)]
    if isinstance(structure, (tuple, list)):
        return [leaf for value in structure for leaf in leaves(value, is_leaf)]
    return []


def features_and_labels(result):
    """An input_fn's result as `(features, labels)`: labels are None when it gave features only."""
    if isinstance(result, (tuple, list)):
        if len(result) != 2:
            raise ValueError("input_fn should return (features, labels) as a len 2 tuple.")
        return result[0], result[1]
    return result, None


def flat_tensors(features, labels=None):
    """The batch's tensors, composites taken apart, as the model_fn's function takes them."""
    return [
        component
        for tensor in leaves((features, labels))
        for component in tf.nest.flatten(tensor, expand_composites=True)
    ]


class NestedStructure:
    """Elements of a user's `tf.data.Dataset`: `(features, labels)`, or features alone."""

    def __init__(self, has_labels):
        self.has_labels = has_labels
        self.key = ("nested", has_labels)

    def unpack(self, element):
        return element if self.has_labels else (element, None)


class _Slot:
    """Where the `index`-th tensor of a flat element goes."""

    def __init__(self, index):
        self.index = index

    def __repr__(self):
        return f"<{self.index}>"


class FlatStructure:
    """Elements that are a flat tuple of tensors, put back into the user's structure.

    Args:
        template: `(features, labels)` with each tensor replaced by a `_Slot`.
    """

    def __init__(self, template):
        self._template = template
        self.has_labels = template[1] is not None
        self.key = ("flat", repr(map_leaves(_constant_key, template, _is_constant)))

    @classmethod
    def split(cls, features, labels):
        """The structure of `(features, labels)` and the tensors it holds, in slot order."""
        tensors = []

        def slot(tensor):
            tensors.append(tensor)
            return _Slot(len(tensors) - 1)

        template = map_leaves(slot, (features, labels))
        return cls(template), tensors

    def unpack(self, element):
        """`(features, labels)` of a flat element (a tuple, or its spec)."""
        return map_leaves(lambda slot: element[slot.index], self._template, _is_slot)

    def features_only(self):
        return FlatStructure((self._template[0], None))


def _is_slot(value):
    return isinstance(value, _Slot)


def _is_constant(value):
    return not isinstance(value, (dict, list, tuple, _Slot)) and value is not None


def _constant_key(value):
    """Tells constants apart: traces made with different values must not be shared."""
    if isinstance(value, np.ndarray) and value.dtype != object:
        digest = hashlib.sha1(value.tobytes()).hexdigest()
        return f"array({value.dtype}, {value.shape}, {digest})"
    if isinstance(value, (int, float, str, bytes, bool, np.generic)):
        return repr(value)
    return f"unique({next(_UNIQUE)})"
