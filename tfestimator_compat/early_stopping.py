"""Early-stopping hooks of `tf.estimator.experimental`, driven by evaluation results.

The chief's hook reads the evaluation events in `eval_dir` every
`run_every_secs` (or `run_every_steps`), and when the predicate holds it sets
the `signal_early_stopping/STOP` variable and stops; other workers' hooks stop
when they see that variable set.
"""

import collections
import operator
import os

import tensorflow as tf

from tfestimator_compat.engine.state import event_files

_logging = tf.compat.v1.logging


def read_eval_metrics(eval_dir):
    """Global step -> {metric name: value}, from the event files in `eval_dir`."""
    metrics = collections.defaultdict(dict)
    for event in _events(eval_dir):
        values = {
            value.tag: value.simple_value
            for value in event.summary.value
            if value.HasField("simple_value")
        }
        if values:
            metrics[event.step].update(values)
    return collections.OrderedDict(sorted(metrics.items()))


def _events(eval_dir):
    if not tf.io.gfile.exists(eval_dir):
        return
    for path in tf.io.gfile.glob(os.path.join(eval_dir, "*.tfevents.*")):
        yield from event_files.read_events(path)


def _stop_variable():
    with tf.compat.v1.variable_scope(
        "signal_early_stopping", values=[], reuse=tf.compat.v1.AUTO_REUSE
    ):
        return tf.compat.v1.get_variable(
            "STOP",
            shape=[],
            dtype=tf.bool,
            initializer=tf.compat.v1.initializers.constant(False),
            collections=[tf.compat.v1.GraphKeys.GLOBAL_VARIABLES],
            trainable=False,
        )


class _StopOnPredicateHook(tf.compat.v1.train.SessionRunHook):
    """Checks `should_stop_fn` on a timer; sets the stop variable and stops."""

    def __init__(self, should_stop_fn, run_every_secs=60, run_every_steps=None):
        if not callable(should_stop_fn):
            raise TypeError("`should_stop_fn` must be callable.")
        self._should_stop_fn = should_stop_fn
        self._timer = tf.compat.v1.train.SecondOrStepTimer(
            every_secs=run_every_secs, every_steps=run_every_steps
        )

    def begin(self):
        self._global_step = tf.compat.v1.train.get_global_step()
        self._stop_op = tf.compat.v1.assign(_stop_variable(), True)

    def before_run(self, run_context):
        return tf.compat.v1.train.SessionRunArgs(self._global_step)

    def after_run(self, run_context, run_values):
        step = run_values.results
        if self._timer.should_trigger_for_step(step):
            self._timer.update_last_triggered_step(step)
            if self._should_stop_fn():
                _logging.info("Requesting early stopping at global step %d", step)
                run_context.session.run(self._stop_op)
                run_context.request_stop()


class _CheckForStoppingHook(tf.compat.v1.train.SessionRunHook):
    """Stops a non-chief worker once the chief has set the stop variable."""

    def begin(self):
        self._stop_variable = _stop_variable()

    def before_run(self, run_context):
        return tf.compat.v1.train.SessionRunArgs(self._stop_variable)

    def after_run(self, run_context, run_values):
        if run_values.results:
            _logging.info("Early stopping requested, suspending run.")
            run_context.request_stop()


def make_early_stopping_hook(estimator, should_stop_fn, run_every_secs=60, run_every_steps=None):
    """A hook that stops training when `should_stop_fn()` returns True.

    Example:

    ```python
    hook = make_early_stopping_hook(estimator, lambda: time.time() > deadline)
    estimator.train(input_fn, hooks=[hook])
    ```
    """
    from tfestimator_compat.estimator import Estimator

    if not isinstance(estimator, Estimator):
        raise TypeError(
            f"`estimator` must have type `tf.estimator.Estimator`. Got: {type(estimator)}"
        )
    if run_every_secs is not None and run_every_steps is not None:
        raise ValueError("Only one of `run_every_secs` and `run_every_steps` can be set.")
    if estimator.config.is_chief:
        return _StopOnPredicateHook(should_stop_fn, run_every_secs, run_every_steps)
    return _CheckForStoppingHook()


def _threshold_hook(
    estimator, metric_name, threshold, higher_is_better, eval_dir, min_steps, **timer
):
    eval_dir = eval_dir or estimator.eval_dir()
    better = operator.gt if higher_is_better else operator.lt
    relation = "greater than" if higher_is_better else "less than"

    def crossed():
        for step, metrics in read_eval_metrics(eval_dir).items():
            if step < min_steps:
                continue
            value = metrics[metric_name]
            if better(value, threshold):
                _logging.info(
                    'At step %s, metric "%s" has value %s which is %s the configured '
                    "threshold (%s) for early stopping.",
                    step,
                    metric_name,
                    value,
                    relation,
                    threshold,
                )
                return True
        return False

    return make_early_stopping_hook(estimator, crossed, **timer)


def _no_improvement_hook(
    estimator, metric_name, max_steps, higher_is_better, eval_dir, min_steps, **timer
):
    eval_dir = eval_dir or estimator.eval_dir()
    better = operator.gt if higher_is_better else operator.lt
    direction = "increase" if higher_is_better else "decrease"

    def stalled():
        best, best_step = None, None
        for step, metrics in read_eval_metrics(eval_dir).items():
            if step < min_steps:
                continue
            value = metrics[metric_name]
            if best is None or better(value, best):
                best, best_step = value, step
            if step - best_step >= max_steps:
                _logging.info(
                    'No %s in metric "%s" for %s steps, which is greater than or '
                    "equal to max steps (%s) configured for early stopping.",
                    direction,
                    metric_name,
                    step - best_step,
                    max_steps,
                )
                return True
        return False

    return make_early_stopping_hook(estimator, stalled, **timer)


def stop_if_higher_hook(
    estimator,
    metric_name,
    threshold,
    eval_dir=None,
    min_steps=0,
    run_every_secs=60,
    run_every_steps=None,
):
    """Stops training once an evaluation's `metric_name` is above `threshold`."""
    return _threshold_hook(
        estimator,
        metric_name,
        threshold,
        True,
        eval_dir,
        min_steps,
        run_every_secs=run_every_secs,
        run_every_steps=run_every_steps,
    )


def stop_if_lower_hook(
    estimator,
    metric_name,
    threshold,
    eval_dir=None,
    min_steps=0,
    run_every_secs=60,
    run_every_steps=None,
):
    """Stops training once an evaluation's `metric_name` is below `threshold`."""
    return _threshold_hook(
        estimator,
        metric_name,
        threshold,
        False,
        eval_dir,
        min_steps,
        run_every_secs=run_every_secs,
        run_every_steps=run_every_steps,
    )


def stop_if_no_increase_hook(
    estimator,
    metric_name,
    max_steps_without_increase,
    eval_dir=None,
    min_steps=0,
    run_every_secs=60,
    run_every_steps=None,
):
    """Stops training when `metric_name` has not increased for that many steps."""
    return _no_improvement_hook(
        estimator,
        metric_name,
        max_steps_without_increase,
        True,
        eval_dir,
        min_steps,
        run_every_secs=run_every_secs,
        run_every_steps=run_every_steps,
    )


def stop_if_no_decrease_hook(
    estimator,
    metric_name,
    max_steps_without_decrease,
    eval_dir=None,
    min_steps=0,
    run_every_secs=60,
    run_every_steps=None,
):
    """Stops training when `metric_name` has not decreased for that many steps."""
    return _no_improvement_hook(
        estimator,
        metric_name,
        max_steps_without_decrease,
        False,
        eval_dir,
        min_steps,
        run_every_secs=run_every_secs,
        run_every_steps=run_every_steps,
    )
