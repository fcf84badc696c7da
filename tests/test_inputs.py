"""tf.compat.v1.estimator.inputs: numpy and pandas input_fns that an Estimator reads whole."""

import numpy as np
import pytest
import tensorflow as tf

import tfestimator_compat as est
from tfestimator_compat.inputs import numpy_input_fn
from tfestimator_compat.inputs import pandas_input_fn


def _batches(input_fn):
    """Every batch the Estimator would read from `input_fn`."""
    from tfestimator_compat.engine.inputs.input_fn import call_input_fn

    result = call_input_fn(input_fn, est.ModeKeys.TRAIN, {}, est.RunConfig())
    batches = []
    for element in result.dataset:
        features, labels = result.unpack(element)
        batch = (features, labels) if result.has_labels else features
        batches.append(tf.nest.map_structure(lambda t: t.numpy(), batch))
    return batches


def test_batches_cross_epochs_and_the_last_one_is_smaller():
    input_fn = numpy_input_fn(
        {"a": np.arange(5.0)}, np.arange(5), batch_size=2, num_epochs=2, shuffle=False
    )
    labels = [list(labels) for _, labels in _batches(input_fn)]
    assert labels == [[0, 1], [2, 3], [4, 0], [1, 2], [3, 4]]


def test_shapes_and_dtypes_are_kept():
    x = np.arange(6.0).reshape(3, 2)
    features, labels = numpy_input_fn(x, np.arange(3), shuffle=False)()
    assert features.dtype == tf.float64 and features.shape == (3, 2)
    assert labels.dtype == tf.int64


def test_shuffle_reads_every_example_once_per_epoch_in_all():
    input_fn = numpy_input_fn({"a": np.arange(10)}, batch_size=10, num_epochs=2, shuffle=True)
    read = np.concatenate([batch["a"] for batch in _batches(input_fn)])
    # The original's queue mixed the epochs: a batch may hold a row twice.
    assert sorted(read) == sorted(list(range(10)) * 2)


def _rows(input_fn):
    return np.concatenate([batch["a"] for batch in _batches(input_fn)])


def _circular_span(values, length):
    """The shortest arc of the circle `0..length` that holds every value."""
    points = np.sort(np.asarray(values) % length)
    gaps = np.diff(np.concatenate([points, [points[0] + length]]))
    return length - gaps.max()


def test_shuffle_is_local_as_the_originals_queue_was():
    """The original read the rows in order from a random first row into a queue
    of `queue_capacity` rows, each batch drawn from it at random: the first batch
    of 3000 sorted rows lay within 1000 + 10 rows of its start (2.15 gave
    [851, 778, 1188, ...]). A permutation of all rows would spread it over 3000.
    """
    x = {"a": np.arange(3000)}
    for _ in range(3):
        rows = _rows(numpy_input_fn(x, batch_size=10, num_epochs=1, shuffle=True))
        assert sorted(rows) == list(range(3000))
        assert _circular_span(rows[:10], 3000) <= 1010
        assert list(rows) != sorted(rows)


def test_a_queue_of_one_row_reads_a_rotation_from_a_random_row():
    x = {"a": np.arange(50)}
    starts = set()
    for _ in range(4):
        rows = _rows(numpy_input_fn(x, batch_size=7, num_epochs=1, shuffle=True, queue_capacity=1))
        assert list(rows) == [(rows[0] + i) % 50 for i in range(50)]
        starts.add(int(rows[0]))
    assert len(starts) > 1


def test_a_seeded_run_repeats_its_order_and_an_unseeded_one_does_not():
    from tfestimator_compat.engine.inputs.input_fn import call_input_fn

    def order(seed):
        input_fn = numpy_input_fn({"a": np.arange(500)}, batch_size=500, shuffle=True)
        config = est.RunConfig(tf_random_seed=seed)
        result = call_input_fn(input_fn, est.ModeKeys.TRAIN, {}, config)
        features, _ = result.unpack(next(iter(result.dataset)))
        return list(features["a"].numpy())

    assert order(3) == order(3)
    assert order(None) != order(None)


def test_labels_as_dict_and_no_labels():
    features, labels = numpy_input_fn({"a": np.arange(3)}, {"y": np.arange(3)}, shuffle=False)()
    assert set(labels) == {"y"}
    assert set(numpy_input_fn({"a": np.arange(3)}, shuffle=False)()) == {"a"}


@pytest.mark.parametrize(
    "x, y, error",
    [
        ({"a": np.arange(5.0)}, np.arange(4), "Length of tensors in x and y is mismatched"),
        ({"a": np.arange(5.0)}, {"a": np.arange(5)}, "duplicate keys"),
        ({}, None, "x cannot be an empty dict"),
        ([1, 2, 3], None, "x must be a dict or array"),
    ],
)
def test_invalid_arrays_are_refused_when_called(x, y, error):
    input_fn = numpy_input_fn(x, y, shuffle=False)
    with pytest.raises((ValueError, TypeError), match=error):
        input_fn()


def test_shuffle_must_be_given():
    with pytest.raises(ValueError, match="shuffle must be provided"):
        numpy_input_fn({"a": np.arange(3)})


def test_an_estimator_trains_on_every_batch(model_dir):
    from helpers import classifier_model_fn
    from helpers import linear_data

    x, y = linear_data(64)
    input_fn = numpy_input_fn({"x": x}, y, batch_size=16, num_epochs=2, shuffle=True)
    estimator = est.Estimator(classifier_model_fn, model_dir=model_dir, params={})
    estimator.train(input_fn)
    assert estimator.get_variable_value("global_step") == 8


def test_pandas_input_fn():
    pandas = pytest.importorskip("pandas")
    frame = pandas.DataFrame({"a": [1.0, 2.0, 3.0], "b": [4, 5, 6]}, index=[7, 8, 9])
    target = pandas.Series([0, 1, 0], index=[7, 8, 9])
    features, labels = pandas_input_fn(frame, target, shuffle=False)()
    assert sorted(features) == ["a", "b"]
    assert list(labels.numpy()) == [0, 1, 0]
    with pytest.raises(ValueError, match="Index for x and y are mismatched"):
        pandas_input_fn(frame, pandas.Series([0, 1, 0]), shuffle=False)
