"""An input that fails while it is read, reported as its own error (engine/inputs/input_errors.py).

The error keeps its class and its own words, loses the step function's node
traces, and names the user's input_fn once.
"""

import functools
import inspect

import pytest
import tensorflow as tf

from tfestimator_compat.engine.inputs import input_errors


def _an_input_fn():
    return {"x": [1.0]}, [0]


def _error_of(fn):
    with pytest.raises(tf.errors.OpError) as raised:
        fn()
    return raised.value


def _reading_a_missing_file(tmp_path):
    iterator = iter(tf.data.TFRecordDataset(str(tmp_path / "missing.tfrecord")))

    @tf.function
    def step():
        return next(iterator)

    return _error_of(step)


def _gathering_out_of_range():
    @tf.function(input_signature=[tf.TensorSpec([None], tf.int32)])
    def step(x):
        return tf.gather(x, [5])

    return _error_of(lambda: step(tf.constant([1, 2])))


# --- where ---


def test_where_is_the_file_and_line_of_the_input_fns_definition():
    line = inspect.getsourcelines(_an_input_fn)[1]
    assert input_errors.where(_an_input_fn) == f"{__file__}:{line}"


def test_where_sees_through_partials_and_wrappers():
    line = inspect.getsourcelines(_an_input_fn)[1]

    @functools.wraps(_an_input_fn)
    def wrapper():
        return _an_input_fn()

    assert input_errors.where(functools.partial(_an_input_fn)) == f"{__file__}:{line}"
    assert input_errors.where(wrapper) == f"{__file__}:{line}"


def test_where_is_the_repr_when_python_cannot_tell():
    assert input_errors.where(len) == repr(len)


# --- raised_by_the_input ---


def test_an_error_reading_the_iterator_is_raised_by_the_input(tmp_path):
    assert input_errors.raised_by_the_input(_reading_a_missing_file(tmp_path))


def test_an_error_of_another_op_is_not_raised_by_the_input():
    assert not input_errors.raised_by_the_input(_gathering_out_of_range())


@pytest.mark.parametrize(
    "node, expected",
    [
        ("IteratorGetNext", True),
        ("while/body/_1/IteratorGetNextAsOptional", True),
        ("input/PyFunc", True),
        ("Generator", True),
        ("model/dense/MatMul", False),
    ],
)
def test_the_input_is_recognized_by_the_last_part_of_the_node_name(node, expected):
    error = tf.errors.InvalidArgumentError(None, None, f"bad\n\t [[{{{{node {node}}}}}]]")
    assert input_errors.raised_by_the_input(error) is expected


def test_an_error_without_a_node_is_not_the_inputs():
    assert not input_errors.raised_by_the_input(tf.errors.UnknownError(None, None, None))


# --- input_error ---


def test_the_input_error_keeps_the_class_and_its_own_message_and_names_the_input_fn(tmp_path):
    error = input_errors.input_error(_reading_a_missing_file(tmp_path), "input.py:12")
    assert type(error) is tf.errors.NotFoundError
    assert error.message == (
        f"{tmp_path / 'missing.tfrecord'}; No such file or directory\n"
        "(while reading the input of the input_fn at input.py:12)"
    )


# --- own_message ---


def test_own_message_drops_the_node_trace_and_the_step_functions_name():
    message = (
        "Graph execution error:\n\n"
        "Detected at node IteratorGetNext defined at (most recent call last):\n"
        '  File "/pkg/loop.py", line 8, in <module>\n\n'
        '  File "/pkg/step.py", line 6, in step\n\n'
        "<stack traces unavailable>\n"
        "data.csv; No such file or directory\n"
        "\t [[{{node IteratorGetNext}}]] [Op:__inference_multi_step_123]"
    )
    assert input_errors.own_message(message) == "data.csv; No such file or directory"


def test_own_message_keeps_each_line_once():
    message = (
        "Field 3 is not a float\n\t [[{{node DecodeCSV}}]]\n"
        "Field 3 is not a float\n\t [[{{node DecodeCSV}}]]"
    )
    assert input_errors.own_message(message) == "Field 3 is not a float"


def test_own_message_stops_at_a_wrapped_traceback():
    message = (
        "ValueError: bad record\n"
        "Traceback (most recent call last):\n"
        '  File "input.py", line 3, in parse\n'
        "ValueError: bad record"
    )
    assert input_errors.own_message(message) == "ValueError: bad record"


def test_own_message_of_nothing_but_traces_is_the_message_itself():
    message = "\t [[{{node IteratorGetNext}}]]"
    assert input_errors.own_message(message) == message
    assert input_errors.own_message(None) == ""
