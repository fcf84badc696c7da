"""Errors raised inside a step, told with the model_fn's line and the op's message first.

An op that fails as a step runs (a bad reshape, a `tf.debugging.assert_*`)
raises from TensorFlow's function call deep inside Keras's loop. Its message
starts with TensorFlow's "Detected at node ... defined at" block (the frames
of the package that traced the model_fn, or none at all for a pruned graph)
and the op's own message comes last, under some fifty lines. The original's
Session named the op and the line that made it. Here the error keeps its
type (so `except tf.errors.InvalidArgumentError` still catches it), says the
op's message and the line of the program that made the op, and is raised
from the Estimator call the program made, without the package's frames.
"""

import functools
import inspect
import linecache
import os
import re
import sysconfig

import keras
import tensorflow as tf

_NODE = re.compile(r"\{\{node ([^}]+)\}\}")
_FUNCTION_NODE = re.compile(r"\{\{function_node [^}]+\}\}")
_OP_SUFFIX = re.compile(r"\s*\[Op:__inference_[^\]]*\]\s*$")
_TRACE_LINE = re.compile(
    r"^(Graph execution error:|Detected at node .*:|  File |<stack traces unavailable>)"
)
# Frames of this package, TensorFlow, Keras and Python's own modules are not the program's.
_PACKAGE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_NOT_THE_PROGRAMS = tuple(
    os.path.join(directory, "")
    for directory in (
        _PACKAGE,
        os.path.dirname(tf.__file__),
        os.path.dirname(keras.__file__),
        sysconfig.get_paths()["stdlib"],
    )
)
_TOLD = "_tfestimator_compat_told"


def told_from_the_graph(error, graph):
    """`error` (an `OpError` from running `graph`'s ops) re-made to say what failed first."""
    if isinstance(error, tf.errors.OutOfRangeError):
        return error  # the end of the input, which the loops expect
    lines = str(error.message).splitlines()
    while lines and (not lines[0].strip() or _TRACE_LINE.match(lines[0])):
        lines.pop(0)
    message = "\n".join(lines) or str(error.message)
    message = _OP_SUFFIX.sub("", _FUNCTION_NODE.sub("", message))
    made_at = _program_line(graph, _NODE.findall(str(error.message)))
    if made_at is not None:
        message = f"{message}\n  The op was made at {made_at}"
    if type(error) is tf.errors.OpError:
        told = tf.errors.OpError(error.node_def, error.op, message, error.error_code)
    else:
        told = type(error)(error.node_def, error.op, message)
    setattr(told, _TOLD, True)
    return told


def _program_line(graph, node_names):
    """Where the program made the last named node of `graph`, as `file:line in function`."""
    for name in reversed(node_names):
        op = _op_or_enclosing(graph, name)
        if op is None:
            continue
        for frame in reversed(op.traceback):
            if not frame.filename.startswith(_NOT_THE_PROGRAMS):
                code = linecache.getline(frame.filename, frame.lineno).strip()
                where = f"{frame.filename}:{frame.lineno}, in {frame.name}"
                return f"{where}\n    {code}" if code else where
    return None


def _op_or_enclosing(graph, name):
    """The op `name`, or the op whose function holds it (a cond branch's `Assert`)."""
    parts = name.split("/")
    while parts:
        try:
            return graph.get_operation_by_name("/".join(parts))
        except (KeyError, ValueError):
            parts.pop()
    return None


def raised_from_the_call(function):
    """Decorates an Estimator method: a step's error is raised from the program's call."""
    if inspect.isgeneratorfunction(function):

        @functools.wraps(function)
        def generator(*args, **kwargs):
            try:
                return (yield from function(*args, **kwargs))
            except tf.errors.OpError as error:
                if not getattr(error, _TOLD, False):
                    raise
                raise error.with_traceback(None) from None

        return generator

    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        try:
            return function(*args, **kwargs)
        except tf.errors.OpError as error:
            if not getattr(error, _TOLD, False):
                raise
            raise error.with_traceback(None) from None

    return wrapper
