"""Mutable lookup tables a model_fn makes, kept in the Estimator's store.

A `tf.lookup.experimental.MutableHashTable` or `DenseHashTable` made in a TF1
graph lived as long as the Session, and was saved with the variables
(`<name>-keys`, `<name>-values`) unless made with `checkpoint=False`. Made in
a trace, its resource would live for one call of the step function: each
call would start from an empty table, nothing would be saved, and `predict`
would serve the default value. While a model_fn is traced, these classes make
their tables through the store (`VariableStore.table`): once, eagerly, so
every step, every later trace and every mode use the same table.
"""

import contextlib
import contextvars
import inspect

import tensorflow as tf

_CLASSES = (tf.lookup.experimental.MutableHashTable, tf.lookup.experimental.DenseHashTable)
# Set while the store makes a table: that construction is the real one.
_making = contextvars.ContextVar("making_a_stored_table", default=False)


@contextlib.contextmanager
def kept_in(store, unique):
    """Routes the construction of mutable tables to `store` for the duration.

    Args:
        store: the `VariableStore` that keeps the tables.
        unique: `name -> name` suffixed as TF1 suffixed a name already taken
            in this trace (`counts`, `counts_1`, ...).
    """
    originals = {cls: cls.__init__ for cls in _CLASSES}
    for cls, original in originals.items():
        cls.__init__ = _stored_init(store, cls, original, unique)
    try:
        yield
    finally:
        for cls, original in originals.items():
            cls.__init__ = original


def _stored_init(store, cls, original, unique):
    signature = inspect.signature(original)

    def init(self, *args, **kwargs):
        if _making.get():
            original(self, *args, **kwargs)
            return
        arguments = signature.bind(self, *args, **kwargs)
        arguments.apply_defaults()

        def make():
            token = _making.set(True)
            try:
                return cls(*args, **kwargs)
            finally:
                _making.reset(token)

        name = unique(arguments.arguments["name"])
        kept = store.table(name, make, checkpoint=arguments.arguments["checkpoint"])
        # This object becomes another view of the kept table (same resource).
        self.__dict__.update(kept.__dict__)

    return init
