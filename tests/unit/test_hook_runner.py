"""Hooks sorted into SessionRunHooks and Keras callbacks (engine/loop/hook_runner.py).

`hooks=` of train/evaluate/predict may mix both kinds: each runs where its
kind runs, in the order given; anything else is neither.
"""

import keras
import tensorflow as tf

from tfestimator_compat.engine.loop import hook_runner


class _Hook(tf.compat.v1.train.SessionRunHook):
    pass


class _Callback(keras.callbacks.Callback):
    pass


def test_session_run_hooks_and_keras_callbacks_are_told_apart_in_order():
    stop = tf.compat.v1.train.StopAtStepHook(last_step=10)
    mine = _Hook()
    early = keras.callbacks.EarlyStopping()
    custom = _Callback()
    hooks = [early, stop, custom, mine, object()]
    assert hook_runner.session_hooks(hooks) == [stop, mine]
    assert hook_runner.keras_callbacks(hooks) == [early, custom]


def test_no_hooks_are_neither_kind():
    assert hook_runner.session_hooks([]) == []
    assert hook_runner.keras_callbacks(()) == []


def test_the_session_run_types_are_tensorflows():
    assert hook_runner.SessionRunHook is tf.compat.v1.train.SessionRunHook
    args = hook_runner.SessionRunArgs(fetches={"loss": 1})
    assert args.fetches == {"loss": 1} and args.feed_dict is None


def test_the_saver_for_hooks_writes_a_name_based_checkpoint_from_inside_a_graph(tmp_path):
    weights = tf.Variable([1.0, 2.0])
    step = tf.Variable(7, dtype=tf.int64)
    saver = hook_runner.SaverForHooks({"dense/kernel": weights, "global_step": step})
    # Hooks run with the model_fn's graph (a wrapped function's) as the default graph.
    model_fn_graph = tf.compat.v1.wrap_function(lambda: None, signature=[]).graph
    with model_fn_graph.as_default():
        path = saver.save(None, str(tmp_path / "model.ckpt"), global_step=7)
    assert path == str(tmp_path / "model.ckpt-7")
    reader = tf.train.load_checkpoint(path)
    assert reader.get_tensor("dense/kernel").tolist() == [1.0, 2.0]
    assert reader.get_tensor("global_step") == 7
    assert not (tmp_path / "model.ckpt-7.meta").exists()
    assert model_fn_graph.get_operations() == []  # nothing was added to the graph
