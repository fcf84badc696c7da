"""Every canned estimator trains, evaluates and predicts from parsed `tf.train.Example`s.

`tf.io.parse_example` behind a `FIFOQueue` (the input of the original's
`test_input_fn_from_parse_example`, one per canned class) yields features and
labels of unknown rank: the heads must take them.
"""

import numpy as np
import pytest
import tensorflow as tf

_BATCH = 10
_DIMENSION = 2
_FAMILIES = ("Baseline", "Linear", "DNN", "DNNLinearCombined")


def _serialized_examples(classifier):
    data = np.linspace(0.0, 2.0, _BATCH * _DIMENSION, dtype=np.float32).reshape(_BATCH, -1)
    examples = []
    for row in data:
        if classifier:
            label = tf.train.Feature(
                int64_list=tf.train.Int64List(value=np.rint(row[:1]).astype(np.int64))
            )
        else:
            label = tf.train.Feature(float_list=tf.train.FloatList(value=row))
        x = tf.train.Feature(float_list=tf.train.FloatList(value=row))
        example = tf.train.Example(features=tf.train.Features(feature={"x": x, "y": label}))
        examples.append(example.SerializeToString())
    return examples


def _queued(tensors):
    """The tensors through a FIFOQueue run by a queue runner: shapes are lost."""
    keys = sorted(tensors)
    queue = tf.queue.FIFOQueue(capacity=100, dtypes=[tensors[k].dtype for k in keys])
    enqueue = queue.enqueue([tensors[k] for k in keys])
    tf.compat.v1.train.add_queue_runner(tf.compat.v1.train.QueueRunner(queue, [enqueue]))
    return dict(zip(keys, queue.dequeue()))


def _input_fn(classifier, num_epochs=None, with_labels=True):
    label_spec = tf.io.FixedLenFeature([_DIMENSION], tf.float32)
    if classifier:
        label_spec = tf.io.FixedLenFeature([1], tf.int64)
    spec = {"x": tf.io.FixedLenFeature([_DIMENSION], tf.float32), "y": label_spec}

    def input_fn():
        serialized = _serialized_examples(classifier)
        if num_epochs:
            serialized = tf.compat.v1.train.limit_epochs(serialized, num_epochs=num_epochs)
        features = _queued(tf.compat.v1.io.parse_example(serialized, spec))
        labels = features.pop("y")
        assert labels.shape.rank is None
        return features, (labels if with_labels else None)

    return input_fn


def _estimator(api, family, kind, model_dir):
    columns = [tf.feature_column.numeric_column("x", shape=(_DIMENSION,))]
    arguments = {"model_dir": model_dir}
    if kind == "Regressor":
        arguments["label_dimension"] = _DIMENSION
    else:
        arguments["n_classes"] = 3
    if family in ("Linear", "DNN"):
        arguments["feature_columns"] = columns
    if family == "DNN":
        arguments["hidden_units"] = (2, 2)
    if family == "DNNLinearCombined":
        arguments.update(
            linear_feature_columns=columns, dnn_feature_columns=columns, dnn_hidden_units=(2, 2)
        )
    return getattr(api, family + kind)(**arguments)


@pytest.mark.slow
@pytest.mark.parametrize("version", ["v1", "v2"])
@pytest.mark.parametrize("kind", ["Classifier", "Regressor"])
@pytest.mark.parametrize("family", _FAMILIES)
def test_input_fn_from_parse_example(family, kind, version, model_dir):
    api = tf.compat.v1.estimator if version == "v1" else tf.estimator
    classifier = kind == "Classifier"
    estimator = _estimator(api, family, kind, model_dir)
    estimator.train(_input_fn(classifier), steps=2)
    scores = estimator.evaluate(_input_fn(classifier, num_epochs=1))
    assert scores["global_step"] == 2
    assert np.isfinite(scores["loss"])
    predictions = list(estimator.predict(_input_fn(classifier, num_epochs=1, with_labels=False)))
    assert len(predictions) == _BATCH
    key = "class_ids" if classifier else "predictions"
    assert predictions[0][key].shape == ((1,) if classifier else (_DIMENSION,))
