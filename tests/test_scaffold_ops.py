"""Variable initializers and a Scaffold's init, local-init and ready ops, as the original ran them.

The expected numbers and exception types were recorded with TF 2.15 +
tensorflow-estimator 2.15 by `tests/fixtures/scaffold_ops/original.py`, which
runs the same model_fns (its output is `original_output.txt` beside it).
"""

import numpy as np
import pytest
import tensorflow as tf

import tfestimator_compat as est

X = np.arange(16, dtype=np.float32).reshape(8, 2) / 10
Y = (X[:, :1] > 0.7).astype(np.float32)
NAMES = ("w", "g", "c", "global_step")


def input_fn():
    return tf.data.Dataset.from_tensor_slices(({"x": X}, Y)).batch(4).repeat()


def eval_input_fn():
    return tf.data.Dataset.from_tensor_slices(({"x": X}, Y)).batch(4)


def model_fn(scaffold_args=None, reset_counter=False):
    """w (trainable), g (a non-trainable global the logits add), c (a counter
    the train_op bumps, reset by its initializer first when `reset_counter`)."""

    def fn(features, labels, mode):
        w = tf.compat.v1.get_variable("w", [2, 1], initializer=tf.compat.v1.ones_initializer())
        constant = tf.compat.v1.constant_initializer
        g = tf.compat.v1.get_variable("g", [], initializer=constant(1.0), trainable=False)
        c = tf.compat.v1.get_variable("c", [], initializer=constant(3.0), trainable=False)
        logits = tf.matmul(features["x"], w) + g

        def scaffold():
            # Made last, so that initializers it groups see every variable.
            return tf.compat.v1.train.Scaffold(**scaffold_args(w, g, c)) if scaffold_args else None

        if mode == est.ModeKeys.PREDICT:
            return est.EstimatorSpec(mode, predictions=logits, scaffold=scaffold())
        loss = tf.reduce_mean(tf.square(logits - labels))
        step = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(
            loss, tf.compat.v1.train.get_global_step()
        )
        with tf.control_dependencies([c.initializer] if reset_counter else []):
            bump = c.assign_add(1.0)
        metrics = {"g": tf.compat.v1.metrics.mean(g)}
        return est.EstimatorSpec(
            mode,
            loss=loss,
            train_op=tf.group(step, bump),
            scaffold=scaffold(),
            eval_metric_ops=metrics,
        )

    return fn


def values(estimator):
    return {name: estimator.get_variable_value(name).tolist() for name in NAMES}


def train(tmp_path, fn, steps=2):
    estimator = est.Estimator(fn, str(tmp_path))
    estimator.train(input_fn, steps=steps)
    return estimator


def assert_values(estimator, expected):
    found = values(estimator)
    for name in NAMES:
        np.testing.assert_allclose(found[name], expected[name], rtol=1e-5, err_msg=name)


def all_but_global_step(w, g, c):
    return tf.group(w.assign([[3.0], [-2.0]]), g.assign(5.0), c.assign(0.0))


def with_init_op(make_init_op):
    return model_fn(lambda w, g, c: {"init_op": make_init_op(w, g, c)})


DEFAULT_TRAINING = {
    "w": [[0.4254879951477051], [0.35191595554351807]],
    "g": 1.0,
    "c": 5.0,
    "global_step": 2,
}


def test_initializers_in_a_model_fn_are_ops(tmp_path):
    seen = {}

    def fn(features, labels, mode):
        w = tf.compat.v1.get_variable("w", [2, 1])
        tf.compat.v1.metrics.mean(w)
        global_step = tf.compat.v1.train.get_global_step()
        seen["var.initializer"] = w.initializer
        seen["local"] = tf.compat.v1.local_variables_initializer()
        seen["global"] = tf.compat.v1.global_variables_initializer()
        seen["global_step.initializer"] = global_step.initializer
        train_op = tf.group(global_step.assign_add(1), tf.compat.v1.local_variables_initializer())
        return est.EstimatorSpec(mode, loss=tf.reduce_sum(w), train_op=train_op)

    train(tmp_path, fn, steps=1)
    assert {key: type(value).__name__ for key, value in seen.items()} == dict.fromkeys(
        seen, "Operation"
    )


def test_a_train_op_that_runs_an_initializer_resets_the_variable(tmp_path):
    # The original: c reset to 3.0, then bumped, at each step (4.0 after 3 steps).
    estimator = train(tmp_path / "reset", model_fn(reset_counter=True), steps=3)
    expected = {"w": [[0.3416091799736023], [0.24266889691352844]], "g": 1.0, "global_step": 3}
    assert_values(estimator, dict(expected, c=4.0))
    estimator = train(tmp_path / "kept", model_fn(), steps=3)
    assert_values(estimator, dict(expected, c=6.0))


def test_init_op_replaces_the_default_initialization(tmp_path):
    init_op = with_init_op(
        lambda w, g, c: tf.group(
            all_but_global_step(w, g, c), tf.compat.v1.train.get_global_step().initializer
        )
    )
    expected = {
        "w": [[1.7901639938354492], [-3.3928520679473877]],
        "g": 5.0,
        "c": 2.0,
        "global_step": 2,
    }
    assert_values(train(tmp_path / "train", init_op), expected)
    # With a checkpoint, the init_op no longer runs: training goes on from it.
    estimator = est.Estimator(init_op, str(tmp_path / "train"))
    estimator.train(input_fn, steps=1)
    assert estimator.get_variable_value("c") == 3.0
    # predict without a checkpoint initializes with it too.
    predictions = est.Estimator(init_op, str(tmp_path / "predict")).predict(eval_input_fn)
    np.testing.assert_allclose(
        np.ravel(list(predictions)), [4.8, 5.0, 5.2, 5.4, 5.6, 5.8, 6.0, 6.2], rtol=1e-6
    )
    default = with_init_op(lambda w, g, c: tf.compat.v1.global_variables_initializer())
    assert_values(train(tmp_path / "default", default), DEFAULT_TRAINING)


def test_local_init_op_runs_after_every_restore(tmp_path):
    fn = model_fn(
        lambda w, g, c: {
            "local_init_op": tf.group(g.assign_add(1.0), tf.compat.v1.local_variables_initializer())
        }
    )
    estimator = train(tmp_path, fn)
    assert_values(
        estimator,
        {"w": [[0.18252795934677124], [0.07219606637954712]], "g": 2.0, "c": 5.0, "global_step": 2},
    )
    assert estimator.evaluate(eval_input_fn)["g"] == 3.0
    predictions = np.ravel(list(estimator.predict(eval_input_fn)))[:2]
    np.testing.assert_allclose(predictions, [3.0072195529937744, 3.058164358139038], rtol=1e-5)
    estimator.train(input_fn, steps=1)
    assert_values(
        estimator,
        {
            "w": [[-0.0050375014543533325], [-0.17704211175441742]],
            "g": 3.0,
            "c": 6.0,
            "global_step": 3,
        },
    )


@pytest.mark.parametrize(
    "scaffold_args, message",
    [
        # The original: "Init operations did not make model ready for local_init".
        ({"init_op": all_but_global_step}, r"\['global_step'\] have no value"),
        ({"local_init_op": lambda w, g, c: g.assign_add(1.0)}, r"count', '.*total'\] have no"),
        ({"ready_op": lambda w, g, c: tf.constant(["w"])}, r"ready_op reports .* \['w'\]"),
        (
            {
                "ready_for_local_init_op": lambda w, g, c: tf.constant(["g"]),
                "local_init_op": lambda w, g, c: g.assign_add(1.0),
            },
            r"ready_for_local_init_op reports .* \['g'\]",
        ),
    ],
    ids=["init_op_misses_global_step", "local_init_op_misses_locals", "ready_op", "ready_local"],
)
def test_a_model_the_original_found_not_ready_is_refused(tmp_path, scaffold_args, message):
    fn = model_fn(lambda w, g, c: {key: make(w, g, c) for key, make in scaffold_args.items()})
    estimator = est.Estimator(fn, str(tmp_path))
    with pytest.raises(RuntimeError, match=message):
        estimator.train(input_fn, steps=2)
    assert estimator.latest_checkpoint() is None


def test_readiness_is_checked_after_a_restore(tmp_path):
    model_dir = train(tmp_path, model_fn()).model_dir
    assert_values(est.Estimator(model_fn(), model_dir), DEFAULT_TRAINING)
    ready_op = model_fn(lambda w, g, c: {"ready_op": tf.constant(["w"])})
    with pytest.raises(RuntimeError, match=r"ready_op reports .* \['w'\]"):
        est.Estimator(ready_op, model_dir).evaluate(eval_input_fn)
    saver = model_fn(
        lambda w, g, c: {
            "saver": tf.compat.v1.train.Saver([w, tf.compat.v1.train.get_global_step()])
        }
    )
    with pytest.raises(RuntimeError, match=r"\['c', 'g'\] have no value after restoring"):
        est.Estimator(saver, model_dir).evaluate(eval_input_fn)
