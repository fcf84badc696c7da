"""`tf.compat.v1.layers.experimental`: Keras-style variable management for TF1 layers.

Inside `keras_style_scope()`, or everywhere after `set_keras_style()`, a TF1
layer created owns its variables as a Keras layer does: it never reuses
variables an enclosing `variable_scope(reuse=...)` holds, its variables are
named after the layer (`dense_1/kernel`, `out/kernel`, `out_1/kernel`), and
`scope=` / `reuse=` arguments (so also the functional forms' `name=`, which
named a scope) are refused with a `ValueError`, as in TF 1.x.

Example:

```python
with tf.compat.v1.layers.experimental.keras_style_scope():
    first, second = tf.compat.v1.layers.Dense(4), tf.compat.v1.layers.Dense(4)
    # Two sets of variables, even inside `variable_scope(..., reuse=True)`.
```
"""

import contextlib

_state = {"keras_style": False}

__all__ = ["keras_style_scope", "set_keras_style"]


@contextlib.contextmanager
def keras_style_scope():
    """TF1 layers created inside manage their variables Keras-style."""
    before = _state["keras_style"]
    _state["keras_style"] = True
    try:
        yield
    finally:
        _state["keras_style"] = before


def set_keras_style():
    """TF1 layers created from now on, in the whole program, manage their variables
    Keras-style; there is no way back."""
    _state["keras_style"] = True


def in_keras_style() -> bool:
    """Whether a TF1 layer created now manages its variables Keras-style."""
    return _state["keras_style"]


def refuse(argument: str, value) -> None:
    """Raises for a `scope` or `reuse` argument given to a Keras-style layer."""
    if value is not None:
        raise ValueError(
            f"A Keras-style TF1 layer (keras_style_scope / set_keras_style) takes no "
            f"{argument} argument; it got {argument}={value!r}. Drop it, or create the "
            "layer outside the Keras-style scope."
        )
