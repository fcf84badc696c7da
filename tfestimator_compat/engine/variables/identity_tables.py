"""Facts of the package's own about TensorFlow objects, kept beside them rather than on them.

A `weakref.WeakKeyDictionary` cannot key them: a TF2 variable compares
element-wise and refuses `hash()`. `WeakIdentityTable` keys by identity and
forgets an entry when its object goes.
"""

import weakref

_ABSENT = object()


class WeakIdentityTable:
    """Object -> value, by the object's identity, for as long as the object lives."""

    def __init__(self):
        self._entries = {}  # id(object) -> (weak reference to it, value)

    def __setitem__(self, obj, value):
        key = id(obj)
        entries = self._entries

        def forget(reference):
            if entries.get(key, (None,))[0] is reference:
                del entries[key]

        entries[key] = (weakref.ref(obj, forget), value)

    def get(self, obj, default=None):
        """The value kept for `obj`, or `default`."""
        entry = self._entries.get(id(obj))
        if entry is None or entry[0]() is not obj:
            return default
        return entry[1]

    def __contains__(self, obj) -> bool:
        return self.get(obj, _ABSENT) is not _ABSENT
