"""EstimatorSpec validates what a model_fn returns, naming the faulty field."""

import pytest
import tensorflow as tf

from tfestimator_compat import EstimatorSpec
from tfestimator_compat import ModeKeys


def in_graph(build):
    """Runs `build` in a TF1 graph, as model_fns run."""
    with tf.Graph().as_default():
        return build()


def test_train_requires_train_op():
    with pytest.raises(ValueError, match="Missing train_op"):
        in_graph(lambda: EstimatorSpec(ModeKeys.TRAIN, loss=tf.constant(1.0)))


def test_train_and_eval_require_loss():
    for mode in (ModeKeys.TRAIN, ModeKeys.EVAL):
        with pytest.raises(ValueError, match="Missing loss"):
            in_graph(lambda mode=mode: EstimatorSpec(mode, train_op=tf.no_op()))


def test_predict_requires_predictions():
    with pytest.raises(ValueError, match="Missing predictions"):
        in_graph(lambda: EstimatorSpec(ModeKeys.PREDICT))


def test_loss_must_be_a_scalar_tensor():
    with pytest.raises(ValueError, match="Loss must be scalar"):
        in_graph(lambda: EstimatorSpec(ModeKeys.EVAL, loss=tf.constant([1.0, 2.0])))
    with pytest.raises(TypeError, match="loss must be Tensor"):
        in_graph(lambda: EstimatorSpec(ModeKeys.EVAL, loss=1.0))


def test_loss_of_shape_one_is_reshaped_to_scalar():
    spec = in_graph(lambda: EstimatorSpec(ModeKeys.EVAL, loss=tf.constant([1.0])))
    assert spec.loss.shape == ()


def test_wrong_types_raise_type_error():
    with pytest.raises(TypeError, match="train_op must be Operation or Tensor"):
        in_graph(lambda: EstimatorSpec(ModeKeys.TRAIN, loss=tf.constant(1.0), train_op="op"))
    with pytest.raises(TypeError, match=r"predictions\[p\] must be Tensor"):
        in_graph(lambda: EstimatorSpec(ModeKeys.PREDICT, predictions={"p": 3}))
    with pytest.raises(TypeError, match="eval_metric_ops must be a dict"):
        in_graph(lambda: EstimatorSpec(ModeKeys.EVAL, loss=tf.constant(1.0), eval_metric_ops=[1]))
    with pytest.raises(TypeError, match="for key: m"):
        in_graph(
            lambda: EstimatorSpec(
                ModeKeys.EVAL, loss=tf.constant(1.0), eval_metric_ops={"m": tf.constant(1.0)}
            )
        )
    with pytest.raises(TypeError, match="All hooks must be SessionRunHook"):
        in_graph(
            lambda: EstimatorSpec(
                ModeKeys.TRAIN, loss=tf.constant(1.0), train_op=tf.no_op(), training_hooks=[1]
            )
        )


def test_tensor_from_another_graph_is_rejected():
    with tf.Graph().as_default():
        foreign = tf.constant(1.0)
    with pytest.raises(ValueError, match="must be from the default graph"):
        in_graph(lambda: EstimatorSpec(ModeKeys.EVAL, loss=foreign))


def eval_spec_with(metric):
    return EstimatorSpec(ModeKeys.EVAL, loss=tf.constant(1.0), eval_metric_ops={"m": metric})


def test_keras_metric_never_updated_is_refused_by_a_spec_built_by_hand():
    def build():
        metric = tf.keras.metrics.Mean()
        return eval_spec_with(metric)

    with pytest.raises(ValueError, match=r"Please call update_state\(...\) on the \"mean\""):
        in_graph(build)


def test_keras_metric_updated_in_another_graph_is_refused():
    with tf.Graph().as_default():
        metric = tf.keras.metrics.Mean()
        metric.update_state(tf.constant(1.0))
    with pytest.raises(ValueError, match="must be from the default graph"):
        in_graph(lambda: eval_spec_with(metric))


def test_keras_metric_variables_become_local_and_metric_variables():
    def build():
        metric = tf.keras.metrics.Mean()
        metric.update_state(tf.constant(1.0))
        eval_spec_with(metric)
        return [v.value for v in metric.variables], {
            key: tf.compat.v1.get_collection(key)
            for key in (
                tf.compat.v1.GraphKeys.LOCAL_VARIABLES,
                tf.compat.v1.GraphKeys.METRIC_VARIABLES,
            )
        }

    variables, collections = in_graph(build)
    for listed in collections.values():
        assert all(any(v is x for x in listed) for v in variables)


def test_predict_gets_default_export_output():
    spec = in_graph(lambda: EstimatorSpec(ModeKeys.PREDICT, predictions={"p": tf.constant([1.0])}))
    assert "serving_default" in spec.export_outputs


def test_replace_keeps_mode():
    def build():
        spec = EstimatorSpec(ModeKeys.EVAL, loss=tf.constant(1.0))
        assert spec._replace(loss=tf.constant(2.0)).mode == ModeKeys.EVAL
        with pytest.raises(ValueError, match="mode of EstimatorSpec cannot be changed"):
            spec._replace(mode=ModeKeys.TRAIN)

    in_graph(build)


def test_mode_keys_have_original_values():
    assert (ModeKeys.TRAIN, ModeKeys.EVAL, ModeKeys.PREDICT) == ("train", "eval", "infer")
