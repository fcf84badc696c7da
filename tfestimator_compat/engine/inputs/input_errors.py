"""An input that fails while it is read, reported once, as the input's own error.

A Session raised a failing input's error (a missing file, a bad record) from
`session.run`. Here the batches are read inside the step function, so
TensorFlow's message names the step function (`[Op:__inference_multi_step_..]`)
and the package's frames where the iterator was read, once per node that saw
the error; a Session run inside tf.data (`tf1_input_graph`) arrives wrapped
in an `UnknownError` with its traceback. `input_error` keeps the error's class
and its own message, and names the user's input_fn, once.
"""

import inspect
import re

_INPUT_NODES = ("IteratorGetNext", "IteratorGetNextAsOptional", "PyFunc", "Generator")
_NODE = re.compile(r"\s*\[\[\{\{node [^}]*\}\}\]\]")
_NODE_NAME = re.compile(r"\{\{node ([^}]*)\}\}")
_FUNCTION = re.compile(r"\s*\[Op:__inference_[^\]]*\]")


def where(input_fn):
    """`file:line` of the input_fn's definition, or its repr when Python cannot tell."""
    target = inspect.unwrap(getattr(input_fn, "func", input_fn))
    try:
        _, line = inspect.getsourcelines(target)
        return f"{inspect.getsourcefile(target)}:{line}"
    except (OSError, TypeError):
        return repr(input_fn)


def raised_by_the_input(error):
    """Whether an error of the step function came from reading the input."""
    return any(
        node.rsplit("/", 1)[-1] in _INPUT_NODES for node in _NODE_NAME.findall(error.message or "")
    )


def input_error(error, source):
    """`error`'s class with its own message, naming the input_fn at `source`."""
    message = f"{own_message(error.message)}\n(while reading the input of the input_fn at {source})"
    return type(error)(None, None, message)


def own_message(message):
    """The lines of a TensorFlow error message that are its own: no node traces."""
    lines = []
    skipping = False
    for line in (message or "").splitlines():
        stripped = line.strip()
        if stripped.startswith("Detected at node") or stripped == "Graph execution error:":
            skipping = True
            continue
        if skipping and (not stripped or stripped.startswith(("File ", "<stack traces"))):
            continue
        if stripped.startswith(("Traceback (most recent call last)", "Original stack trace")):
            break
        skipping = False
        line = _FUNCTION.sub("", _NODE.sub("", line))
        if line.strip() and line not in lines:
            lines.append(line)
    return "\n".join(lines) or (message or "")
