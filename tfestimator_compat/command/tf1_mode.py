"""`tfestimator-compat run --tf1`: programs written for TensorFlow 1.x, unchanged.

A TF 1.x program says `import tensorflow as tf` and means what TensorFlow 2
calls `tf.compat.v1`, in graph mode: `tf.placeholder`, `tf.Session`,
`tf.layers`, `tf.logging`, `tf.app.run`, `tf.gfile`, `tf.estimator.inputs`.
`tf1_imports()` gives exactly that to the program's own imports: while it is
active, `import tensorflow` (and `from tensorflow import ...`) executed by
code outside TensorFlow, Keras and this package yields `TF1Module`, a view of
`tf.compat.v1` with the shim's `estimator` and `layers`. Libraries keep the
real `tensorflow`. `tf.contrib`, which TensorFlow 2 dropped, is the shim's
(`tfestimator_compat.legacy.contrib`): the pieces estimator programs used, and an
error naming any other contrib name and its replacement.
"""

import builtins
import contextlib
import sys
import types
from typing import Iterator

import tensorflow as tf

from tfestimator_compat.engine import logs
from tfestimator_compat.legacy import contrib

# Importers whose `import tensorflow` keeps the real module: they are written for TF 2.
_LIBRARIES = ("keras", "tf_keras", "tensorboard", "tfestimator_compat", "absl")


class TF1Module(types.ModuleType):
    """`tensorflow` as a TF 1.x program knew it: `tf.compat.v1`, with the shim installed.

    `tf.contrib` is the shim's. `tf.compat` is TensorFlow 2's (`tf.compat.v1`,
    `tf.compat.v2`), as in TF 1.15.
    A name `tf.compat.v1` lacks falls back to TensorFlow's own module and its
    imported submodules, so `tensorflow.python...` still resolves.
    """

    def __init__(self):
        super().__init__("tensorflow", "TensorFlow 1.x API: tf.compat.v1, with tf.estimator.")
        self.__dict__["compat"] = tf.compat
        self.__dict__["contrib"] = contrib.namespace()
        self.__dict__["__version__"] = tf.__version__

    def __getattr__(self, name: str):
        v1 = sys.modules.get("tensorflow.compat.v1", tf.compat.v1)
        for source in (v1, tf):
            try:
                return getattr(source, name)
            except AttributeError:
                pass
        submodule = sys.modules.get(f"tensorflow.{name}")
        if submodule is None:
            raise AttributeError(f"module 'tensorflow' (TF 1.x API) has no attribute {name!r}")
        return submodule

    def __dir__(self):
        return sorted(set(dir(tf.compat.v1)) | set(self.__dict__))


def _from_program(importer_globals) -> bool:
    """True for an import executed by the program (or a module of its own)."""
    if not importer_globals:
        return True
    top = str(importer_globals.get("__name__") or "").partition(".")[0]
    return not (top.startswith("tensorflow") or top in _LIBRARIES)


def _contrib_import(parts, fromlist):
    """What `import tensorflow.contrib[.X]` (`from ... import` with `fromlist`) yields.

    The modules are `tfestimator_compat.legacy.contrib` namespaces, found without
    `sys.modules`; a name they lack fails here, with the message naming its
    replacement, rather than as Python's bare "cannot import name".
    """
    name = ".".join(parts)
    if len(parts) > 3:
        raise ImportError(contrib.missing_message(".".join(parts[2:])), name=name)
    try:
        target = contrib.namespace(parts[2] if len(parts) == 3 else "")
        for item in fromlist or ():
            if item != "*":
                getattr(target, item)
    except AttributeError as error:
        raise ImportError(str(error), name=name) from None
    return target


@contextlib.contextmanager
def tf1_imports() -> Iterator[TF1Module]:
    """Within: TF 1.x behaviour, and the program's `import tensorflow` gives `TF1Module`.

    Also turns off TF2 behaviour (`tf.compat.v1.disable_v2_behavior()`: graph
    mode, v1 shapes and variables), as TF 1.x had it. That stays off after the
    block: TensorFlow cannot turn eager execution back on once a graph ran.

    Example:

    ```python
    with tf1_imports():
        runpy.run_path("tf1_program.py", run_name="__main__")
    ```
    """
    module = TF1Module()
    real_import = builtins.__import__

    def tf1_import(name, globals=None, locals=None, fromlist=(), level=0):
        if level or not name.startswith("tensorflow") or not _from_program(globals):
            return real_import(name, globals, locals, fromlist, level)
        parts = name.split(".")
        if parts[0] != "tensorflow":
            return real_import(name, globals, locals, fromlist, level)
        if parts[1:2] == ["contrib"]:
            target = _contrib_import(parts, fromlist)
            return target if fromlist else module
        if len(parts) == 1:
            real_import(name, globals, locals, fromlist, level)
            return module
        imported = real_import(name, globals, locals, fromlist, level)
        return imported if fromlist else module

    # TF 1.x printed no notice for it: the program did not ask for this call.
    with logs.internal_tf_calls():
        tf.compat.v1.disable_v2_behavior()
    builtins.__import__ = tf1_import
    try:
        yield module
    finally:
        builtins.__import__ = real_import
