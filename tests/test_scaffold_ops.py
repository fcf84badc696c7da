"""Variable initializers and a Scaffold's init, local-init and ready ops, as the original ran them.

The expected numbers and exception types were recorded with TF 2.15 +
tensorflow-estimator 2.15 by `tests/fixtures/scaffold_ops/make_fixture.py`,
whose model_fns these tests run (its output is `original_output.txt` beside it).
"""

import numpy as np
import pytest
import tensorflow as tf
from helpers import fixture_generator

import tfestimator_compat as est

fixture = fixture_generator("scaffold_ops")
input_fn, eval_input_fn = fixture.input_fn, fixture.eval_input_fn
model_fn, with_scaffold = fixture.model_fn, fixture.with_scaffold
not_ready = fixture.not_ready
NAMES = ("w", "g", "c", "global_step")


def train(tmp_path, fn, steps=2):
    estimator = est.Estimator(fn, str(tmp_path))
    estimator.train(input_fn, steps=steps)
    return estimator


def assert_values(estimator, expected):
    found = fixture.values(estimator)
    for name in NAMES:
        np.testing.assert_allclose(found[name], expected[name], rtol=1e-5, err_msg=name)


DEFAULT_TRAINING = {
    "w": [[0.4254879951477051], [0.35191595554351807]],
    "g": 1.0,
    "c": 5.0,
    "global_step": 2,
}


# Three training steps of `model_fn` in the original (c depends on the case).
THREE_STEPS = {"w": [[0.3416091799736023], [0.24266889691352844]], "g": 1.0, "global_step": 3}


def test_initializers_in_a_model_fn_are_ops():
    # The original: all four are Operations, and a train_op may group them.
    kinds = ("var.initializer", "local_variables_initializer", "global_variables_initializer")
    expected = dict.fromkeys((*kinds, "global_step.initializer"), "Operation")
    assert fixture.initializer_types() == expected


def test_a_train_op_that_runs_an_initializer_resets_the_variable(tmp_path):
    # The original: c reset to 3.0, then bumped, at each step (4.0 after 3 steps).
    estimator = train(tmp_path / "reset", model_fn(reset_counter=True), steps=3)
    assert_values(estimator, dict(THREE_STEPS, c=4.0))
    estimator = train(tmp_path / "kept", model_fn(), steps=3)
    assert_values(estimator, dict(THREE_STEPS, c=6.0))


def test_init_op_replaces_the_default_initialization(tmp_path):
    init_op = with_scaffold(init_op=fixture.init_all)
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
    default = with_scaffold(init_op=lambda w, g, c: tf.compat.v1.global_variables_initializer())
    assert_values(train(tmp_path / "default", default), DEFAULT_TRAINING)


def test_local_init_op_runs_after_every_restore(tmp_path):
    def bump_g_and_init_locals(w, g, c):
        return tf.group(g.assign_add(1.0), tf.compat.v1.local_variables_initializer())

    estimator = train(tmp_path, with_scaffold(local_init_op=bump_g_and_init_locals))
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
        ({"init_op": fixture.all_but_global_step}, r"\['global_step'\] have no value"),
        ({"local_init_op": lambda w, g, c: g.assign_add(1.0)}, r"count', '.*total'\] have no"),
        ({"ready_op": not_ready("w")}, r"ready_op reports .* \['w'\]"),
        (
            {
                "ready_for_local_init_op": not_ready("g"),
                "local_init_op": lambda w, g, c: g.assign_add(1.0),
            },
            r"ready_for_local_init_op reports .* \['g'\]",
        ),
    ],
    ids=["init_op_misses_global_step", "local_init_op_misses_locals", "ready_op", "ready_local"],
)
def test_a_model_the_original_found_not_ready_is_refused(tmp_path, scaffold_args, message):
    estimator = est.Estimator(with_scaffold(**scaffold_args), str(tmp_path))
    with pytest.raises(RuntimeError, match=message):
        estimator.train(input_fn, steps=2)
    assert estimator.latest_checkpoint() is None


def test_readiness_is_checked_after_a_restore(tmp_path):
    model_dir = train(tmp_path, model_fn()).model_dir
    assert_values(est.Estimator(model_fn(), model_dir), DEFAULT_TRAINING)
    ready_op = with_scaffold(ready_op=not_ready("w"))
    with pytest.raises(RuntimeError, match=r"ready_op reports .* \['w'\]"):
        est.Estimator(ready_op, model_dir).evaluate(eval_input_fn)
    saver = with_scaffold(saver=fixture.partial_saver)
    with pytest.raises(RuntimeError, match=r"\['c', 'g'\] have no value after restoring"):
        est.Estimator(saver, model_dir).evaluate(eval_input_fn)


def test_init_op_is_fed_and_warm_starting_does_not_change_it(tmp_path):
    # The original: warm-started w is [7, 7] with the default initialization, and
    # stays at the initial value [1, 1] with a custom init_op; the feed reaches init_op.
    def make(scaffold_args, initial):
        def fn(features, labels, mode):
            constant = tf.compat.v1.constant_initializer(initial)
            w = tf.compat.v1.get_variable("w", [2, 1], initializer=constant)
            loss = tf.reduce_mean(tf.matmul(features["x"], w))
            step = tf.compat.v1.train.get_global_step().assign_add(1)
            scaffold = tf.compat.v1.train.Scaffold(**scaffold_args(w)) if scaffold_args else None
            return est.EstimatorSpec(mode, loss=loss, train_op=step, scaffold=scaffold)

        return fn

    source = train(tmp_path / "source", make(None, 7.0), steps=1)
    by_default = est.Estimator(
        make(None, 1.0), str(tmp_path / "a"), warm_start_from=source.model_dir
    )
    by_default.train(input_fn, steps=1)
    np.testing.assert_array_equal(by_default.get_variable_value("w"), [[7.0], [7.0]])
    initializer = make(lambda w: {"init_op": tf.compat.v1.global_variables_initializer()}, 1.0)
    custom = est.Estimator(initializer, str(tmp_path / "b"), warm_start_from=source.model_dir)
    custom.train(input_fn, steps=1)
    np.testing.assert_array_equal(custom.get_variable_value("w"), [[1.0], [1.0]])

    def fed(w):
        value = tf.compat.v1.placeholder(tf.float32, [])
        init_op = tf.group(
            w.assign(tf.fill([2, 1], value)), tf.compat.v1.train.get_global_step().initializer
        )
        return {"init_op": init_op, "init_feed_dict": {value: 4.0}}

    fed_estimator = train(tmp_path / "fed", make(fed, 1.0), steps=1)
    np.testing.assert_array_equal(fed_estimator.get_variable_value("w"), [[4.0], [4.0]])


def test_a_seeded_random_initializer_run_by_init_op_gives_the_default_values(tmp_path):
    # In the original the default init_op was global_variables_initializer(): a
    # Scaffold that sets it explicitly started from the very same seeded values.
    def make(scaffold):
        def fn(features, labels, mode):
            # A random op of the model's own takes an op seed before the variables.
            noise = tf.random.uniform([]) * 0.0
            w = tf.compat.v1.get_variable("w", [2, 3])
            uniform = tf.compat.v1.random_uniform_initializer()
            b = tf.compat.v1.get_variable("b", [3], initializer=uniform)
            predictions = tf.matmul(features["x"], w) + b + noise
            init_op = tf.compat.v1.global_variables_initializer()
            scaffold_ = tf.compat.v1.train.Scaffold(init_op=init_op) if scaffold else None
            return est.EstimatorSpec(mode, predictions=predictions, scaffold=scaffold_)

        return fn

    def predictions(scaffold, name):
        config = est.RunConfig(tf_random_seed=3)
        estimator = est.Estimator(make(scaffold), str(tmp_path / name), config=config)
        return np.array(list(estimator.predict(eval_input_fn)))

    np.testing.assert_array_equal(predictions(True, "custom"), predictions(False, "default"))


def test_initializers_of_distributed_variables_reset_every_copy(tmp_path):
    # The same numbers as the original's single-device run (c reset, then bumped).
    config = est.RunConfig(train_distribute=tf.distribute.MirroredStrategy(["/cpu:0"]))
    estimator = est.Estimator(model_fn(reset_counter=True), str(tmp_path), config=config)
    estimator.train(input_fn, steps=3)
    assert_values(estimator, dict(THREE_STEPS, c=4.0))
