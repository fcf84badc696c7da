"""What `tfestimator-compat check` knows about the APIs a legacy program uses.

Every public name of `tf.estimator` and `tf.compat.v1.estimator` in
tensorflow-estimator 2.15, and every TF1 name that TensorFlow >= 2.16 with
Keras 3 lost, maps to a `Symbol`: its canonical name, whether this project's
shim runs it (one of `STATUSES`), the native TF2/Keras replacement, and the
section of `migration_guide/` that explains the move.

`classify(path)` takes a dotted path as a program wrote it with its aliases
resolved (`tf.estimator.DNNClassifier`, `tf.placeholder` under a plain
`import tensorflow as tf`, `tf.compat.v1.layers.dense`, `keras.layers.X`,
`tensorflow_estimator.python.estimator.canned`) and returns the `Symbol` that
applies, or None for what TensorFlow 2.21 still has.

Statuses say what the shim provides today (tests compare them with the
installed namespaces). The data is plain tables, so a status or a replacement
changes in one line, and nothing here imports TensorFlow: `check` starts
without it (`source_names` reads what TensorFlow-importing modules define).

Example:

```python
classify("tf.estimator.ModeKeys.TRAIN").name      # "tf.estimator.ModeKeys"
classify("tf.placeholder").status                 # "supported-with-run --tf1"
classify("tf.nn.relu")                            # None
```
"""

import re
from typing import Optional
from typing import Tuple

from tfestimator_compat.legacy import contrib
from tfestimator_compat.shim.api_surface import estimator_modules
from tfestimator_compat.shim.api_surface.estimator_names import DROPPED_ESTIMATOR_SYMBOLS
from tfestimator_compat.shim.api_surface.estimator_names import ESTIMATOR_METHODS
from tfestimator_compat.shim.api_surface.estimator_names import ESTIMATOR_MODULES
from tfestimator_compat.shim.api_surface.estimator_names import ESTIMATOR_ONLY_METHODS
from tfestimator_compat.shim.api_surface.estimator_names import ESTIMATOR_SYMBOLS
from tfestimator_compat.shim.api_surface.estimator_names import ESTIMATOR_V1
from tfestimator_compat.shim.api_surface.estimator_names import ESTIMATOR_V2
from tfestimator_compat.shim.api_surface.estimator_names import LIBRARY_NAME_MISSING
from tfestimator_compat.shim.api_surface.estimator_names import PACKAGE
from tfestimator_compat.shim.api_surface.estimator_names import PRIVATE_ESTIMATOR
from tfestimator_compat.shim.api_surface.estimator_names import UNKNOWN_ESTIMATOR_NAME
from tfestimator_compat.shim.api_surface.keras_names import KERAS
from tfestimator_compat.shim.api_surface.keras_names import REMOVED_V2
from tfestimator_compat.shim.api_surface.keras_names import TF_KERAS_ONLY
from tfestimator_compat.shim.api_surface.symbol import GUIDE_PAGE
from tfestimator_compat.shim.api_surface.symbol import NOT_SUPPORTED
from tfestimator_compat.shim.api_surface.symbol import STATUSES
from tfestimator_compat.shim.api_surface.symbol import SUPPORTED
from tfestimator_compat.shim.api_surface.symbol import SUPPORTED_WITH_TF1
from tfestimator_compat.shim.api_surface.symbol import Symbol
from tfestimator_compat.shim.api_surface.symbol import guide_link
from tfestimator_compat.shim.api_surface.tf1_names import TF1_LAYER_CLASSES
from tfestimator_compat.shim.api_surface.tf1_names import TF1_LOST
from tfestimator_compat.shim.api_surface.tf1_names import TF1_NATIVE
from tfestimator_compat.shim.api_surface.tf1_names import TF1_ONLY_NAMES

__all__ = [
    "ESTIMATOR_ONLY_METHODS",
    "DROPPED_ESTIMATOR_SYMBOLS",
    "ESTIMATOR_SYMBOLS",
    "ESTIMATOR_V2",
    "GUIDE_PAGE",
    "NOT_SUPPORTED",
    "STATUSES",
    "SUPPORTED",
    "SUPPORTED_WITH_TF1",
    "Symbol",
    "TF1_ONLY_NAMES",
    "classify",
    "estimator_class",
    "estimator_member",
    "known_paths",
]

# The classes whose instances are estimators, by the last part of their name.
_ESTIMATOR_CLASS = re.compile(r"(Estimator|Classifier|Regressor|KMeans)$")


def _longest_prefix(table, dotted: str) -> Optional[Tuple[str, object]]:
    """The entry of `table` whose key is the longest dotted prefix of `dotted`."""
    parts = dotted.split(".") if dotted else []
    for end in range(len(parts), -1, -1):
        key = ".".join(parts[:end])
        if key in table:
            return key, table[key]
    return None


def _under(path: str, root: str) -> Optional[str]:
    """`path` relative to `root` ("" for root itself), or None when outside it."""
    if path == root:
        return ""
    if path.startswith(root + "."):
        return path[len(root) + 1 :]
    return None


def estimator_class(name: str) -> Optional[str]:
    """The estimator class that calling the API with canonical `name` makes, or None.

    `name` itself for an estimator class; `tf.estimator.Estimator` for `model_to_estimator`.
    """
    leaf = name.rpartition(".")[2]
    if leaf == "model_to_estimator":
        return f"{ESTIMATOR_V2}.Estimator"
    if name in ESTIMATOR_SYMBOLS and _ESTIMATOR_CLASS.search(leaf):
        return name
    return None


def estimator_member(class_name: str, member: str) -> Optional[Symbol]:
    """The `Symbol` of `member` (a method or property) of an estimator made by `class_name`."""
    row = ESTIMATOR_METHODS.get(member)
    if row is None:
        return None
    status, replacement = row
    return Symbol(f"{class_name}.{member}", status, replacement, guide_link("estimator-methods"))


def _estimator(path: str) -> Symbol:
    root = ESTIMATOR_V2 if _under(path, ESTIMATOR_V2) is not None else ESTIMATOR_V1
    owner, _, member = path.rpartition(".")
    if estimator_class(owner) == owner and estimator_member(owner, member) is not None:
        return estimator_member(owner, member)
    dropped = _longest_prefix(DROPPED_ESTIMATOR_SYMBOLS, path)
    if dropped is not None:
        return dropped[1]
    key, symbol = _longest_prefix(ESTIMATOR_SYMBOLS, path)
    if key == path or _under(key, root) not in ESTIMATOR_MODULES:
        return symbol
    # A name the module did not have. TF 1.x programs wrote tf.estimator.inputs.* with a plain
    # `import tensorflow`: a v1 name, which `run --tf1` gives them.
    if root == ESTIMATOR_V2:
        v1_path = ESTIMATOR_V1 + path[len(ESTIMATOR_V2) :]
        v1_key, v1_symbol = _longest_prefix(ESTIMATOR_SYMBOLS, v1_path)
        if v1_key == v1_path or _under(v1_key, ESTIMATOR_V1) not in ESTIMATOR_MODULES:
            if v1_symbol.status != SUPPORTED:
                return v1_symbol
            return Symbol(
                v1_symbol.name,
                SUPPORTED_WITH_TF1,
                f"{v1_symbol.name} (a TF1 name: tf.estimator lacks it); "
                f"native: {v1_symbol.replacement}",
                v1_symbol.guide,
            )
    status, anchor, replacement = UNKNOWN_ESTIMATOR_NAME
    return Symbol(path, status, replacement, guide_link(anchor))


def _keras(path: str) -> Optional[Symbol]:
    for root in ("keras", "tf.keras", "tf.compat.v1.keras"):
        relative = _under(path, root)
        if relative is not None:
            found = _longest_prefix(KERAS, relative)
            if found is None:
                return None
            key, (status, anchor, replacement) = found
            if root == "keras" and key.startswith(TF_KERAS_ONLY):
                status = NOT_SUPPORTED
                replacement = (
                    f"tf.keras.{key}: the shim adds it to tf.keras, not to the standalone "
                    f"keras package; natively, {replacement}"
                )
            return Symbol(f"{root}.{key}", status, replacement, guide_link(anchor))
    return None


def _contrib(relative: str, root: str) -> Symbol:
    """What `run --tf1` does for a contrib name: the shim's `tf.contrib` has it, or not.

    Only the program's `tf.contrib` is the shim's; `tf.compat.v1` stays TensorFlow's
    own module, so a `tf.compat.v1.contrib` name gets the `tf.contrib` spelling as advice.
    """
    name = f"{root}.{relative}" if relative else root
    native = contrib.replacement(relative)
    if not contrib.provides(relative):
        return Symbol(name, NOT_SUPPORTED, native, contrib.GUIDE)
    provided = "tf.contrib" + (f".{relative}" if relative else "")
    if root != "tf.contrib":
        advice = f"{native}; or {provided} under run --tf1, from `import tensorflow as tf`"
        return Symbol(name, NOT_SUPPORTED, advice, contrib.GUIDE)
    advice = f"{provided} under run --tf1; native: {native}"
    return Symbol(name, SUPPORTED_WITH_TF1, advice, contrib.GUIDE)


def _tf1_lost(relative: str) -> Optional[Symbol]:
    found = _longest_prefix(TF1_LOST, relative)
    if found is None:
        return None
    key, (status, anchor, replacement) = found
    if key == "layers":
        member = relative.split(".")[1] if "." in relative else ""
        if member in TF1_LAYER_CLASSES:
            replacement = f"keras.layers.{TF1_LAYER_CLASSES[member]}"
            if member in ("dropout", "batch_normalization"):
                replacement += " (pass training= when calling it)"
        elif member and member[0].isupper():
            replacement = f"keras.layers.{member}"
    return Symbol(f"tf.compat.v1.{relative}", status, replacement, guide_link(anchor))


def _tf1_only(relative: str) -> Optional[Symbol]:
    found = _longest_prefix(TF1_ONLY_NAMES, relative)
    if found is None:
        return None
    lost = _tf1_lost(relative)
    if lost is not None and lost.status == NOT_SUPPORTED:
        return lost
    _, same_function = found
    hint = _longest_prefix(TF1_NATIVE, relative)
    native = hint[1] if hint is not None else same_function
    if lost is not None:
        native = lost.replacement
    replacement = f"tf.compat.v1.{relative}" + (f"; native: {native}" if native else "")
    return Symbol(
        f"tf.compat.v1.{relative}",
        SUPPORTED_WITH_TF1,
        replacement,
        guide_link("tf1-names-under-import-tensorflow"),
    )


def _removed_v2(relative: str) -> Optional[Symbol]:
    found = _longest_prefix(REMOVED_V2, relative)
    if found is None:
        return None
    return Symbol(
        f"tf.{relative}",
        NOT_SUPPORTED,
        f"gone with Keras 3; {found[1]}",
        guide_link("removed-keras-2-apis"),
    )


def classify(path: str) -> Optional[Symbol]:
    """The `Symbol` for a resolved dotted path, or None when TF 2.21 still has it.

    Args:
        path: the name as the program wrote it with aliases resolved, rooted at
            `tf` (TF2 `import tensorflow`), `tf.compat.v1`, `keras`,
            `tensorflow_estimator` or `tensorflow.python`.
    """
    for prefix in estimator_modules.PREFIXES:
        relative = _under(path, prefix)
        if relative is not None:
            return _estimator_module(path, prefix, relative)
    if _under(path, "tensorflow_estimator") is not None:
        if _under(path, "tensorflow_estimator.python") is None:
            return PACKAGE
        status, anchor, replacement = PRIVATE_ESTIMATOR
        return Symbol(path, status, replacement, guide_link(anchor))
    if _under(path, ESTIMATOR_V2) is not None or _under(path, ESTIMATOR_V1) is not None:
        return _estimator(path)
    keras_symbol = _keras(path)
    if keras_symbol is not None or _under(path, "keras") is not None:
        return keras_symbol
    for root in ("tf.contrib", "tf.compat.v1.contrib"):
        relative = _under(path, root)
        if relative is not None:
            return _contrib(relative, root)
    relative = _under(path, "tf.compat.v1")
    if relative is not None:
        return _tf1_lost(relative)
    relative = _under(path, "tf")
    if relative:
        return _tf1_only(relative) or _removed_v2(relative)
    return None


def _estimator_module(path: str, prefix: str, relative: str) -> Symbol:
    """A module path of the original (`tensorflow.python.estimator.model_fn`) or a name in it."""
    names = estimator_modules.original_names()
    packages = {".".join(m.split(".")[:end]) for m in names for end in range(1, m.count(".") + 2)}
    parts = relative.split(".") if relative else []
    for end in range(len(parts), -1, -1):
        module = ".".join(parts[:end])
        if module and module not in packages:
            continue
        if end == len(parts):
            return Symbol(
                path,
                SUPPORTED,
                f"the public tf.estimator names it held; the shim registers {prefix}.* as aliases",
                guide_link("estimator-package-imports"),
            )
        name = parts[end]
        if name.startswith("_") or name in estimator_modules.library_names().get(module, {}):
            return _library_name(f"{prefix}.{module}.{name}", module, name)
        origin = names.get(module, {}).get(name)
        if origin is not None and estimator_modules.provides(module, name):
            return Symbol(
                f"{prefix}.{module}.{name}",
                SUPPORTED,
                _public_spelling(origin),
                guide_link("estimator-package-imports"),
            )
        break
    status, anchor, replacement = PRIVATE_ESTIMATOR
    return Symbol(path, status, replacement, guide_link(anchor))


def _library_name(path: str, module: str, name: str) -> Symbol:
    """A private name of the original's modules (`canned.head._Head`), or another
    that libraries imported and the generated table cannot place."""
    status, anchor, replacement = LIBRARY_NAME_MISSING
    if estimator_modules.provides(module, name):
        status, replacement = SUPPORTED, "the shim's equivalent, under the original's name"
    return Symbol(path, status, replacement, guide_link(anchor))


def _public_spelling(origin: str) -> str:
    """`tf.estimator.DNNClassifier` for the origin `v2:estimator.DNNClassifier`."""
    kind, _, public = origin.partition(":")
    if kind == "v2":
        return f"tf.{public}"
    if kind == "v1":
        return f"tf.compat.v1.{public}"
    return "the public tf.estimator name it maps to"


def known_paths() -> Tuple[str, ...]:
    """One path per entry of the tables above, e.g. for listing or testing them all."""
    paths = list(ESTIMATOR_SYMBOLS) + list(DROPPED_ESTIMATOR_SYMBOLS)
    paths += ["tensorflow_estimator", "tensorflow_estimator.python.estimator"]
    paths += [
        f"{prefix}.{module}"
        for prefix in estimator_modules.PREFIXES
        for module in estimator_modules.original_names()
    ]
    paths += [f"{ESTIMATOR_V2}.Estimator.{member}" for member in ESTIMATOR_METHODS]
    paths += [f"tf.keras.{name}" for name in KERAS]
    paths += [f"tf.contrib.{name}" if name else "tf.contrib" for name in contrib.known_names()]
    paths += [f"tf.compat.v1.{name}" for name in TF1_LOST]
    paths += [f"tf.{name}" for name in TF1_ONLY_NAMES]
    paths += [f"tf.{name}" for name in REMOVED_V2]
    return tuple(paths)
