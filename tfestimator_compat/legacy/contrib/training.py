"""`tf.contrib.training`: `HParams`, the hyperparameter holder of TF 1.x model programs.

Estimator tutorials of the TF 1.x era built their `params` as
`tf.contrib.training.HParams(learning_rate=0.1, hidden_units=[64, 32])` and
overrode them from a flag (`hparams.parse("learning_rate=0.3")`). `HParams`
is plain Python: this is TF 1.15's behaviour again, its type checks included
(an int hyperparameter refuses 0.5, a string one refuses 3).

Example:

```python
hparams = tf.contrib.training.HParams(learning_rate=0.1, layers=[64, 32], model="dnn")
hparams.parse("learning_rate=0.3,layers=[128,64]")
estimator = tf.estimator.Estimator(model_fn, params=hparams)
```
"""

import json
import numbers
import re
from typing import Any
from typing import Dict
from typing import Tuple

# One `name=value` or `name[index]=value` or `name=[v1,v2]` clause of `HParams.parse`.
_CLAUSE = re.compile(
    r"(?P<name>[a-zA-Z][\w.]*)(\[\s*(?P<index>\d+)\s*\])?\s*=\s*"
    r"((?P<value>[^,\[]*)|\[(?P<values>[^\]]*)\])($|,\s*)"
)


def _cast(name: str, kind: type, value: Any) -> Any:
    """`value` as a `kind`, refusing the conversions TF 1.x refused."""
    if type(value) is kind or issubclass(kind, type(None)):
        return value
    refused = (
        (issubclass(kind, (str, bytes)) and not isinstance(value, (str, bytes)))
        or issubclass(kind, bool) != isinstance(value, bool)
        or (issubclass(kind, numbers.Integral) and not isinstance(value, numbers.Integral))
        or (issubclass(kind, numbers.Number) and not isinstance(value, numbers.Number))
    )
    if refused:
        raise ValueError(f"Could not cast hparam '{name}' of type '{kind}' from value {value!r}")
    return kind(value)


def _parser(name: str, kind: type, text: str):
    """The function reading one value of hyperparameter `name` in `parse(text)`."""

    def fail(value):
        raise ValueError(
            f"Could not parse hparam '{name}' of type '{kind.__name__}' with value "
            f"'{value}' in {text}"
        )

    def parse(value):
        if kind is bool:
            if value in ("true", "True"):
                return True
            if value in ("false", "False"):
                return False
            try:
                return bool(int(value))
            except ValueError:
                fail(value)
        try:
            return kind(value)
        except ValueError:
            fail(value)

    return parse, fail


def parse_values(text: str, types: Dict[str, type], ignore_unknown: bool = False) -> dict:
    """`"a=1,b=[1,2],c[0]=3"` as `{"a": 1, "b": [1, 2], "c": {0: 3}}`, typed by `types`.

    Raises:
        ValueError: on a malformed clause, an unknown name (unless
            `ignore_unknown`), a value of the wrong type, or a name assigned twice.
    """
    results: Dict[str, Any] = {}
    position = 0
    while position < len(text):
        match = _CLAUSE.match(text, position)
        if not match:
            raise ValueError(f"Malformed hyperparameter value: {text[position:]}")
        position = match.end()
        name, index = match.group("name"), match.group("index")
        if name not in types:
            if ignore_unknown:
                continue
            raise ValueError(f"Unknown hyperparameter type for {name}")
        parse, fail = _parser(name, types[name], text)
        if match.group("value") is not None:
            _assign(results, name, index, parse(match.group("value")), text)
        else:
            if index is not None:
                raise ValueError("Assignment of a list to a list index.")
            if name in results:
                _assigned_twice(name, text)
            items = [item for item in re.split("[ ,]", match.group("values")) if item]
            try:
                results[name] = [parse(item) for item in items]
            except ValueError:
                fail(match.group("values"))
    return results


def _assign(results: dict, name: str, index, value, text: str) -> None:
    if index is None:
        if name in results:
            _assigned_twice(name, text)
        results[name] = value
        return
    slots = results.setdefault(name, {})
    if not isinstance(slots, dict):
        _assigned_twice(name, text)
    if int(index) in slots:
        _assigned_twice(f"{name}[{index}]", text)
    slots[int(index)] = value


def _assigned_twice(name: str, text: str):
    raise ValueError(f"Multiple assignments to variable '{name}' in {text}")


class HParams:
    """Named hyperparameters, each typed by its first value and read as an attribute.

    Args:
        hparam_def: not supported (TF 1.x's `HParamDef` protocol buffer).
        model_structure: kept and returned by `get_model_structure()`.
        **kwargs: the hyperparameters: ints, floats, bools, strings, or
            non-empty lists of one of those.
    """

    def __init__(self, hparam_def=None, model_structure=None, **kwargs):
        if hparam_def is not None:
            raise ValueError(
                "HParams(hparam_def=...) reads a TF 1.x HParamDef protocol buffer, which "
                "TensorFlow 2 no longer defines; build HParams(**values) instead."
            )
        self._hparam_types: Dict[str, Tuple[type, bool]] = {}
        self._model_structure = model_structure
        for name, value in kwargs.items():
            self.add_hparam(name, value)

    def add_hparam(self, name: str, value) -> None:
        """Adds a hyperparameter; its type is `value`'s (a list's first element's)."""
        if getattr(self, name, None) is not None:
            raise ValueError(f"Hyperparameter name is reserved: {name}")
        if isinstance(value, (list, tuple)):
            if not value:
                raise ValueError(f"Multi-valued hyperparameters cannot be empty: {name}")
            self._hparam_types[name] = (type(value[0]), True)
        else:
            self._hparam_types[name] = (type(value), False)
        setattr(self, name, value)

    def set_hparam(self, name: str, value) -> None:
        """Sets an existing hyperparameter, cast to its type (KeyError if it is unknown)."""
        kind, is_list = self._hparam_types[name]
        if isinstance(value, list):
            if not is_list:
                raise ValueError(f"Must not pass a list for single-valued parameter: {name}")
            setattr(self, name, [_cast(name, kind, item) for item in value])
        else:
            if is_list:
                raise ValueError(f"Must pass a list for multi-valued parameter: {name}.")
            setattr(self, name, _cast(name, kind, value))

    def del_hparam(self, name: str) -> None:
        """Removes a hyperparameter; nothing happens if there is none of that name."""
        if hasattr(self, name):
            delattr(self, name)
            del self._hparam_types[name]

    def parse(self, values: str) -> "HParams":
        """Overrides hyperparameters from `"name=value,list=[1,2]"`; see `parse_values`."""
        types = {name: kind for name, (kind, _) in self._hparam_types.items()}
        return self.override_from_dict(parse_values(values, types))

    def override_from_dict(self, values_dict: dict) -> "HParams":
        """Overrides hyperparameters from a dict (KeyError for an unknown name)."""
        for name, value in values_dict.items():
            self.set_hparam(name, value)
        return self

    set_from_map = override_from_dict

    def set_model_structure(self, model_structure) -> None:
        self._model_structure = model_structure

    def get_model_structure(self):
        return self._model_structure

    def to_json(self, indent=None, separators=None, sort_keys=False) -> str:
        """The hyperparameters as a JSON object."""
        return json.dumps(self.values(), indent=indent, separators=separators, sort_keys=sort_keys)

    def parse_json(self, values_json: str) -> "HParams":
        """Overrides hyperparameters from a JSON object."""
        return self.override_from_dict(json.loads(values_json))

    def values(self) -> dict:
        """The hyperparameters as a dict, in the order they were added."""
        return {name: getattr(self, name) for name in self._hparam_types}

    def get(self, key: str, default=None):
        """The hyperparameter `key`, or `default`, which must fit its type when it exists."""
        if key not in self._hparam_types:
            return default
        if default is not None:
            kind, is_list = self._hparam_types[key]
            shown = f"list<{kind}>" if is_list else str(kind)
            message = f"Hparam '{key}' of type '{shown}' is incompatible with default={default}"
            if is_list != isinstance(default, list):
                raise ValueError(message)
            try:
                for item in default if is_list else [default]:
                    _cast(key, kind, item)
            except ValueError as error:
                raise ValueError(f"{message}. {error}") from None
        return getattr(self, key)

    def __contains__(self, key) -> bool:
        return key in self._hparam_types

    def __str__(self) -> str:
        return ",".join(f"{name}={value}" for name, value in self.values().items())

    def __repr__(self) -> str:
        return f"{type(self).__name__}({sorted(self.values().items())})"


__all__ = ["HParams"]
