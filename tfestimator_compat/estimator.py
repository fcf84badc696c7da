"""`Estimator`: train, evaluate and predict with a TF1-style `model_fn` on Keras 3.

Each call traces the `model_fn` for its mode (`ModelFnGraph`), or reuses an
earlier call's trace for inputs of the same signature, restores the variables
from `model_dir`'s newest checkpoint (or warm-starts them), and runs the steps
through a `ModelFnModel` with Keras's loop. This class only
orchestrates; the mechanisms live in their own modules.
"""

import copy
import functools
import os
import tempfile

import keras
import numpy as np
import tensorflow as tf

from tfestimator_compat import warm_starting
from tfestimator_compat.engine.distributed import cluster
from tfestimator_compat.engine.distributed import coordinated_training
from tfestimator_compat.engine.distributed import distribution
from tfestimator_compat.engine.distributed import parameter_servers
from tfestimator_compat.engine.distributed import session_config
from tfestimator_compat.engine.inputs.input_fn import call_input_fn
from tfestimator_compat.engine.loop import progress
from tfestimator_compat.engine.loop import step_errors
from tfestimator_compat.engine.loop import stop_signal
from tfestimator_compat.engine.loop.chunks import MAX_STEPS_PER_CALL
from tfestimator_compat.engine.loop.chunks import ChunkRequest
from tfestimator_compat.engine.loop.hook_runner import HookRunner
from tfestimator_compat.engine.loop.hook_runner import SaverForHooks
from tfestimator_compat.engine.loop.hook_runner import keras_callbacks
from tfestimator_compat.engine.loop.hook_runner import session_hooks
from tfestimator_compat.engine.loop.keras_callbacks import KerasCallbacks
from tfestimator_compat.engine.loop.loop_callbacks import EvaluationLoop
from tfestimator_compat.engine.loop.loop_callbacks import TrainingLoop
from tfestimator_compat.engine.model_state import ModelState
from tfestimator_compat.engine.state import checkpoints
from tfestimator_compat.engine.state import event_files
from tfestimator_compat.engine.state import scaffold
from tfestimator_compat.engine.tracing import fn_args
from tfestimator_compat.engine.tracing.eager import in_eager_mode
from tfestimator_compat.engine.tracing.model_fn_graph import ModelFnGraph
from tfestimator_compat.engine.tracing.model_fn_graph import placeholder_inputs
from tfestimator_compat.estimator_internals import EstimatorInternals
from tfestimator_compat.export import graph_saved_model
from tfestimator_compat.export import saved_model as export_lib
from tfestimator_compat.export.saved_model import ReceiverInputs
from tfestimator_compat.hooks import check_hooks
from tfestimator_compat.mode_keys import ModeKeys
from tfestimator_compat.run_config import RunConfig
from tfestimator_compat.run_config import TaskType
from tfestimator_compat.run_config import as_seen_by_task

_logging = tf.compat.v1.logging
# How many vanished checkpoints a call following the newest one gets past.
_RESTORE_ATTEMPTS = 20
_VALID_MODEL_FN_ARGS = {"features", "labels", "mode", "params", "self", "config"}


class Estimator(EstimatorInternals):
    """Trains, evaluates and predicts with a `model_fn`, as `tf.estimator.Estimator`.

    Args:
        model_fn: `model_fn(features, labels, mode, params, config)` (any
            subset but `features`) returning an `EstimatorSpec`.
        model_dir: where checkpoints and summaries go; a temporary directory
            when neither this nor `config.model_dir` is set.
        config: a `RunConfig`.
        params: dict handed to `model_fn` (and `input_fn`s that name `params`).
        warm_start_from: a checkpoint path or directory, a SavedModel
            directory, or `WarmStartSettings`.

    Example:

    ```python
    estimator = Estimator(model_fn, model_dir="/tmp/model", params={"lr": 0.01})
    estimator.train(train_input_fn, max_steps=1000)
    metrics = estimator.evaluate(eval_input_fn)
    for prediction in estimator.predict(predict_input_fn):
        ...
    ```
    """

    def __init__(self, model_fn, model_dir=None, config=None, params=None, warm_start_from=None):
        self._config = _config_with_model_dir(config, model_dir)
        session_config.apply(self._config.session_config)
        if model_fn is None:
            raise ValueError("model_fn must be provided to Estimator.")
        verify_model_fn_args(model_fn, params)
        self._model_fn = model_fn
        self._params = copy.deepcopy(params or {})
        self._warm_start_settings = warm_starting.settings_from(warm_start_from)
        self._model_state = ModelState(self._config, self._warm_start())
        _logging.info("Using config: %s", {k: v for k, v in vars(self._config).items()})

    @property
    def model_dir(self):
        return self._config.model_dir

    @property
    def config(self):
        return copy.deepcopy(self._config)

    @property
    def params(self):
        return copy.deepcopy(self._params)

    @property
    def model_fn(self):
        """The `model_fn`, callable as `model_fn(features, labels, mode, config)`."""

        def public_model_fn(features, labels, mode, config):
            kwargs = fn_args.model_fn_kwargs(self._model_fn, labels, mode, self.params, config)
            return self._model_fn(features=features, **kwargs)

        return public_model_fn

    def eval_dir(self, name=None):
        """Where `evaluate(name=name)` writes its summaries."""
        return os.path.join(self.model_dir, "eval" if not name else "eval_" + name)

    def latest_checkpoint(self):
        """Path prefix of the newest checkpoint in `model_dir`, or None."""
        return checkpoints.latest_checkpoint(self.model_dir)

    def get_variable_names(self):
        """Names of the variables in the newest checkpoint."""
        self._require_checkpoint()
        return [name for name, _ in tf.train.list_variables(self.model_dir)]

    def get_variable_value(self, name):
        """Value of a variable in the newest checkpoint, as numpy."""
        self._require_checkpoint()
        return tf.train.load_variable(self.model_dir, name)

    def _warm_start(self):
        """`warm_start(store, trainable_names)` for the model's state, or None."""
        settings = self._warm_start_settings
        if settings is None:
            return None
        return lambda store, trainable: warm_starting.warm_start(settings, store, trainable)

    def _require_checkpoint(self):
        if not self.latest_checkpoint():
            raise ValueError(f"Could not find trained model in model_dir: {self.model_dir}.")

    @step_errors.raised_from_the_call
    @in_eager_mode
    def train(self, input_fn, hooks=None, steps=None, max_steps=None, saving_listeners=None):
        """Trains until `steps` more steps, `max_steps` in all, or the end of input.

        `steps` counts from the checkpoint training resumes from; `max_steps` is
        absolute, and training is skipped when the checkpoint already reached it.
        """
        if self._config.task_type in (TaskType.EVALUATOR, TaskType.PS):
            raise ValueError(
                "Train has been called wrong configuration: this process is the "
                f"{self._config.task_type!r} task of its TF_CONFIG cluster, which does not "
                "train. Please use tf.estimator.train_and_evaluate, which runs each task's "
                f"role. Current configuration: {self._config}."
            )
        hooks = _check_hooks(hooks)
        listeners = _check_listeners(saving_listeners)
        if steps is not None and max_steps is not None:
            raise ValueError("Can not provide both steps and max_steps.")
        if steps is not None and steps <= 0:
            raise ValueError(f"Must specify steps > 0, given: {steps}")
        if max_steps is not None and max_steps <= 0:
            raise ValueError(f"Must specify max_steps > 0, given: {max_steps}")
        latest = self.latest_checkpoint()
        start_step = checkpoints.global_step_of(latest) if latest else 0
        if max_steps is not None and max_steps <= start_step:
            _logging.info("Skipping training since max_steps has already saved.")
            return self
        last_step = (
            max_steps
            if max_steps is not None
            else (start_step + steps if steps is not None else None)
        )
        loss = self._train(input_fn, hooks, listeners, latest, last_step, steps)
        _logging.info("Loss for final step: %s.", loss)
        return self

    def _train(self, input_fn, hooks, listeners, latest, last_step, steps):
        distribution.check_cluster(self._config)
        if parameter_servers.in_ps_cluster(self._config):
            return self._train_with_parameter_servers(input_fn, hooks, listeners, latest, last_step)
        with distribution.writing_config(self._config) as config:
            self._model_state.start_from(latest)
            inputs = self._call_input_fn(input_fn, ModeKeys.TRAIN)
            return self._train_writing_to(
                config, inputs, hooks, listeners, latest, last_step, steps=steps
            )

    def _train_with_parameter_servers(self, input_fn, hooks, listeners, latest, last_step):
        """Trains as a task of a parameter-server cluster (`parameter_servers`).

        The chief trains with its variables on the `ps` tasks, scheduling the
        steps onto the workers; workers (and ps tasks) serve until it is done.
        Evaluation, prediction and export then run on one machine from the
        checkpoint, as the original's did.
        """
        config = self._config
        if not config.is_chief:
            parameter_servers.serve_until_chief_is_done(config, last_step)
            return None
        strategy = parameter_servers.chief_strategy(config, config.session_creation_timeout_secs)
        coordinator = parameter_servers.chief_coordinator(strategy)
        self._model_state.place_variables_with(strategy)
        try:
            with parameter_servers.tf1_partitioning(strategy):
                params = self._params_for(ModeKeys.TRAIN)
                inputs = coordinated_training.PerWorkerInput(
                    coordinator,
                    input_fn,
                    ModeKeys.TRAIN,
                    params,
                    self.config,
                    functools.partial(as_seen_by_task, self.config),
                )

                def run(model, loop):
                    coordinated_training.train(coordinator, model, loop, inputs)

                loss = self._train_writing_to(
                    config,
                    inputs,
                    hooks,
                    listeners,
                    latest,
                    last_step,
                    coordinated_training.CoordinatedTrainingLoop,
                    run,
                )
            parameter_servers.tell_serving_tasks_chief_is_done(config)
            return loss
        finally:
            self._model_state.fresh_variables()

    def _train_writing_to(
        self,
        config,
        inputs,
        hooks,
        listeners,
        latest,
        last_step,
        loop_class=TrainingLoop,
        run=None,
        steps=None,
    ):
        """Trains on `inputs`, writing checkpoints, summaries and graph to `config.model_dir`.

        `run(model, loop)` runs the steps (Keras `fit` when None). `steps`
        counts from the global step restored, as the original's StopAtStepHook
        did: a checkpoint may keep it under another key than `global_step`.
        """
        state = self._model_state
        graph, model = self._traced(ModeKeys.TRAIN, inputs)
        spec = graph.spec
        saving = bool(config.save_checkpoints_steps or config.save_checkpoints_secs)
        if listeners and not saving:
            raise ValueError(
                "There should be a CheckpointSaverHook to use saving_listeners. "
                "Set save_checkpoints_steps or save_checkpoints_secs in the RunConfig."
            )
        # In the original's order: chief hooks, then train()'s, then the model_fn's;
        # its NaN check came between train()'s and the model_fn's.
        chief_hooks = list(spec.training_chief_hooks) if config.is_chief else []
        all_hooks = chief_hooks + list(hooks) + list(spec.training_hooks)
        runner = HookRunner(
            session_hooks(all_hooks),
            graph,
            inputs.session,
            before_nan_check=len(session_hooks(chief_hooks + list(hooks))),
        )
        # The original's checkpoint saver hook began first, beginning the listeners.
        for listener in listeners:
            listener.begin()
        if saving and config.is_chief:
            _logging.info("Create CheckpointSaverHook.")
        runner.begin()
        with progress.creating_session():
            state.initialize(graph, latest)
        if steps is not None:
            last_step = int(state.store.get("global_step").numpy()) + steps
        state.mark_trained()
        saver = state.checkpoint_saver(graph, config) if saving else None
        savers = graph.graph.get_collection(tf.compat.v1.GraphKeys.SAVERS)
        if not any(isinstance(saver, SaverForHooks) for saver in savers):
            # Once per traced graph: a reused one already has it.
            graph.graph.add_to_collection(
                tf.compat.v1.GraphKeys.SAVERS, SaverForHooks(state.variables_of(graph))
            )
        fetches = {"loss": spec.loss, "train_op": spec.train_op}
        stop = stop_signal.stop_signal(graph.graph)
        if stop is not None:
            fetches[stop_signal.FETCH_KEY] = stop
        loop = loop_class(
            runner=runner,
            base_fetches=fetches,
            global_step=state.store.get("global_step"),
            step_read=graph.global_step_read,
            last_step=last_step,
            saver=saver,
            config=config,
            saving_listeners=listeners,
            graph_def=graph.graph.as_graph_def(),
            summary_op=graph.summary_op,
            max_steps_per_call=self._max_steps_per_call(),
            callbacks=KerasCallbacks(keras_callbacks(all_hooks), model),
            end_of_input=graph.batch_free_train_function(),
        )
        tf.io.gfile.makedirs(config.model_dir)
        # The input's Session opens first: hooks may initialize its iterators
        # (the loop calls their `after_create_session` as training begins).
        with inputs.reading():
            if run is not None:
                run(model, loop)
            else:
                model.fit(inputs.dataset, epochs=1, shuffle=False, verbose=0, callbacks=[loop])
        return loop.loss

    @step_errors.raised_from_the_call
    @in_eager_mode
    def evaluate(self, input_fn, steps=None, hooks=None, checkpoint_path=None, name=None):
        """Evaluates on `steps` batches, or to the end of the input.

        Returns a dict with every metric of `eval_metric_ops`, `loss` (mean of
        the per-batch losses) and `global_step`, and writes it to `eval_dir(name)`.
        """
        hooks = _check_hooks(hooks)
        if steps is not None and steps <= 0:
            raise ValueError(f"Must specify steps > 0, given: {steps}")
        follow_latest = not checkpoint_path
        checkpoint_path = self._checkpoint_for("evaluate", checkpoint_path)
        return self._evaluate(
            input_fn, steps, hooks, checkpoint_path, name, follow_latest=follow_latest
        )

    def _evaluate(
        self, input_fn, steps, hooks, checkpoint_path, name, in_memory=False, follow_latest=False
    ):
        """Evaluates `checkpoint_path`, or the variables as they are when `in_memory`."""
        hooks = _check_hooks(hooks)
        state = self._model_state
        if not in_memory:
            state.start_from(checkpoint_path)
        inputs = self._call_input_fn(input_fn, ModeKeys.EVAL)
        inputs.warn_if_evaluation_never_ends(steps)
        graph, model = self._traced(ModeKeys.EVAL, inputs)
        spec = graph.spec
        # The original quoted the one name and backquoted the other.
        for reserved in ('"loss"', "`global_step`"):
            if reserved[1:-1] in spec.eval_metric_ops:
                raise ValueError(
                    f"Metric with name {reserved} is not allowed, because Estimator "
                    "already defines a default metric with the same name. Rename it in "
                    "the model_fn's eval_metric_ops."
                )
        state.store.reset_local_variables()
        all_hooks = hooks + list(spec.evaluation_hooks)
        runner = HookRunner(session_hooks(all_hooks), graph, inputs.session)
        started = progress.evaluation_started()
        runner.begin()
        with progress.creating_session():
            if in_memory:
                scaffold.check_in_memory(graph)
            else:
                checkpoint_path = state.initialize(graph, checkpoint_path, follow_latest)
        updates = graph.fetchable(graph.metric_update_op)
        callbacks = KerasCallbacks(keras_callbacks(all_hooks), model)
        loop = EvaluationLoop(
            runner=runner,
            base_fetches={"loss": spec.loss, "updates": updates},
            steps=steps,
            callbacks=callbacks,
        )
        model.reset_eval_loss()
        with inputs.reading():
            runner.after_create_session()
            callbacks.test_begin()
            model.evaluate(inputs.dataset, verbose=0, callbacks=[loop])
        results = graph.results(graph.metric_values, graph.value_function(graph.metric_values)())
        results["loss"] = np.float32(model.mean_eval_loss())
        results["global_step"] = np.int64(graph.global_step.numpy())
        progress.evaluation_finished(started)
        event_files.write_eval_results(
            self.eval_dir(name), results, checkpoint_path, graph.graph.as_graph_def
        )
        callbacks.test_end(results)
        return results

    @in_eager_mode
    def _check_in_memory_evaluation(self, input_fn):
        """Traces the EVAL model_fn on `input_fn` and refuses what in-memory
        evaluation cannot apply, as the original did when its hook began."""
        inputs = self._call_input_fn(input_fn, ModeKeys.EVAL)
        # The graph alone: the Keras model around it would resolve the
        # Scaffold's saver first, which a refused one may not survive.
        scaffold.check_in_memory(self._trace(ModeKeys.EVAL, inputs))

    @step_errors.raised_from_the_call
    @in_eager_mode
    def predict(
        self,
        input_fn,
        predict_keys=None,
        hooks=None,
        checkpoint_path=None,
        yield_single_examples=True,
    ):
        """Yields predictions for every batch of the input (a generator).

        With `yield_single_examples` each example of a batch is yielded on its
        own (a dict when predictions are a dict); otherwise whole batches.
        """
        hooks = _check_hooks(hooks)
        follow_latest = not checkpoint_path
        checkpoint_path = self._checkpoint_for("predict", checkpoint_path)
        state = self._model_state
        state.start_from(checkpoint_path)
        inputs = self._call_input_fn(input_fn, ModeKeys.PREDICT)
        inputs = inputs.features_only()
        graph, model = self._traced(ModeKeys.PREDICT, inputs)
        predictions = _extract_keys(graph.spec.predictions, predict_keys)
        all_hooks = hooks + list(graph.spec.prediction_hooks)
        runner = HookRunner(session_hooks(all_hooks), graph, inputs.session)
        runner.begin()
        with progress.creating_session():
            state.initialize(graph, checkpoint_path, follow_latest)
        # The original logged no progress here: a long prediction says it is alive.
        alive = progress.BatchProgress("Prediction")

        def before_batch():
            model.request_chunk(
                ChunkRequest(fetches=dict({"predictions": predictions}, **runner.before_step()))
            )

        callbacks = keras.callbacks.CallbackList(keras_callbacks(all_hooks), model=model)
        callbacks.on_predict_begin()
        model.request_chunk(ChunkRequest(fetches={"predictions": predictions}))
        batches = model.predict_batches(inputs.dataset, before_batch if runner.hooks else None)
        with inputs.reading():
            runner.after_create_session()
            for index, outputs in enumerate(batches):
                stop = runner.after_step(outputs)
                alive.advance(1)
                evaluated = graph.results(predictions, outputs["predictions"])
                callbacks.on_predict_batch_end(index, {"outputs": evaluated})
                if not yield_single_examples:
                    yield evaluated
                else:
                    yield from _single_examples(evaluated)
                if stop:
                    break
        runner.end()
        callbacks.on_predict_end()

    @in_eager_mode
    def export_saved_model(
        self,
        export_dir_base,
        serving_input_receiver_fn,
        assets_extra=None,
        as_text=False,
        checkpoint_path=None,
        experimental_mode=ModeKeys.PREDICT,
    ):
        """Exports the model as a SavedModel for TF Serving; returns its path (bytes).

        The export goes to `export_dir_base/<unix seconds>/` with the serving
        signatures of the `EstimatorSpec.export_outputs` (default: predict
        with all predictions), variables from `checkpoint_path` or the newest
        checkpoint. `experimental_mode` exports the TRAIN or EVAL graph instead,
        with a supervised receiver.
        """
        if not serving_input_receiver_fn and experimental_mode == ModeKeys.PREDICT:
            raise ValueError("An input_receiver_fn must be defined.")
        return self.experimental_export_all_saved_models(
            export_dir_base,
            {experimental_mode: serving_input_receiver_fn},
            assets_extra=assets_extra,
            as_text=as_text,
            checkpoint_path=checkpoint_path,
        )

    @in_eager_mode
    def export_savedmodel(
        self,
        export_dir_base,
        serving_input_receiver_fn,
        assets_extra=None,
        as_text=False,
        checkpoint_path=None,
        strip_default_attrs=False,
    ):
        """The old name of `export_saved_model` (`strip_default_attrs` is accepted)."""
        if not serving_input_receiver_fn:
            raise ValueError("An input_receiver_fn must be defined.")
        return self._export_all_saved_models(
            export_dir_base,
            {ModeKeys.PREDICT: serving_input_receiver_fn},
            assets_extra=assets_extra,
            as_text=as_text,
            checkpoint_path=checkpoint_path,
            strip_default_attrs=strip_default_attrs,
        )

    @in_eager_mode
    def experimental_export_all_saved_models(
        self,
        export_dir_base,
        input_receiver_fn_map,
        assets_extra=None,
        as_text=False,
        checkpoint_path=None,
    ):
        """Exports one SavedModel with a MetaGraph per mode in `input_receiver_fn_map`.

        Modes map to tags: PREDICT -> `serve`, TRAIN -> `train`, EVAL -> `eval`.
        """
        return self._export_all_saved_models(
            export_dir_base,
            input_receiver_fn_map,
            assets_extra=assets_extra,
            as_text=as_text,
            checkpoint_path=checkpoint_path,
        )

    def _export_all_saved_models(
        self,
        export_dir_base,
        input_receiver_fn_map,
        assets_extra=None,
        as_text=False,
        checkpoint_path=None,
        strip_default_attrs=True,
    ):
        """Writes the export: TF1 graphs when it holds TRAIN or EVAL (loaded with the
        TF1 loader to train or evaluate), a TF2 SavedModel for PREDICT alone."""
        if graph_saved_model.needs_graph_export(input_receiver_fn_map):
            return graph_saved_model.export(
                self,
                export_dir_base,
                input_receiver_fn_map,
                assets_extra=assets_extra,
                as_text=as_text,
                checkpoint_path=checkpoint_path,
                strip_default_attrs=strip_default_attrs,
            )
        return export_lib.export(
            self,
            export_dir_base,
            input_receiver_fn_map,
            assets_extra=assets_extra,
            as_text=as_text,
            checkpoint_path=checkpoint_path,
        )

    def _trace_for_export(self, mode, receiver_fn, checkpoint_path):
        """The model_fn traced on a receiver's features, with restored variables."""
        inputs = ReceiverInputs(receiver_fn, mode)
        with progress.calling_model_fn():
            graph = ModelFnGraph(
                self._model_fn,
                mode,
                inputs,
                self._model_state.store,
                self._params_for(mode, export=True),
                self.config,
            )
        self._model_state.restore_from(graph, checkpoint_path)
        return graph, inputs.receiver

    def _params_for(self, mode, export=False):
        """The params the model_fn and input_fn get in `mode` (subclasses add to them)."""
        return self.params

    def _call_input_fn(self, input_fn, mode):
        context = distribution.input_context(self._strategy_for(mode))
        return call_input_fn(input_fn, mode, self._params_for(mode), self.config, context)

    def _strategy_for(self, mode):
        """The strategy whose replicas run the model_fn in `mode`, as in the original:
        `train_distribute` for training, `eval_distribute` for evaluation, none to predict."""
        if mode == ModeKeys.TRAIN:
            strategy = self._config.train_distribute
        elif mode == ModeKeys.EVAL:
            strategy = self._config.eval_distribute
        else:
            return None
        # A parameter-server strategy places the variables; the model_fn runs once.
        return None if cluster.is_ps_strategy(strategy) else strategy

    def _max_steps_per_call(self):
        """The most training steps one call of the step function may run."""
        return MAX_STEPS_PER_CALL

    def _checkpoint_for(self, action, checkpoint_path):
        if checkpoint_path:
            return checkpoint_path
        latest = self.latest_checkpoint()
        if not latest:
            _logging.info(
                "Could not find trained model in model_dir: %s, running initialization to %s.",
                self.model_dir,
                action,
            )
        return latest

    def _traced(self, mode, inputs):
        """The model_fn traced for `mode` on `inputs`, and its Keras model (reused if it can be)."""
        with progress.calling_model_fn():
            return self._model_state.traced(mode, inputs, lambda: self._trace(mode, inputs))

    def _trace(self, mode, inputs):
        return ModelFnGraph(
            self._model_fn,
            mode,
            placeholder_inputs(inputs.features_spec, inputs.labels_spec),
            self._model_state.store,
            self._params_for(mode),
            self.config,
            self._strategy_for(mode),
            first_op_seed=inputs.op_seeds,
            # A parameter server's workers run the steps where this process's
            # counters are not: their random ops keep their kernels.
            restartable_random_ops=not self._model_state.store.on_parameter_servers,
        )


def _config_with_model_dir(config, model_dir):
    if config is None:
        config = RunConfig()
    elif not isinstance(config, RunConfig):
        raise ValueError(f"config must be an instance of `RunConfig`, but provided {config}.")
    model_dir = os.fspath(model_dir) if model_dir is not None else None
    if model_dir is not None and config.model_dir is not None and config.model_dir != model_dir:
        raise ValueError(
            "`model_dir` are set both in constructor and `RunConfig`, but with "
            f"different values. In constructor: '{model_dir}', in `RunConfig`: "
            f"'{config.model_dir}' "
        )
    if model_dir:
        return config.replace(model_dir=model_dir)
    if config.model_dir is None:
        model_dir = tempfile.mkdtemp()
        _logging.warning("Using temporary folder as model directory: %s", model_dir)
        return config.replace(model_dir=model_dir)
    return config


def verify_model_fn_args(model_fn, params):
    args = set(fn_args.fn_args(model_fn))
    if "features" not in args:
        raise ValueError(f"model_fn ({model_fn}) must include features argument.")
    if params is not None and "params" not in args:
        raise ValueError(
            f"model_fn ({model_fn}) does not include params argument, but params "
            f"({params}) is passed to Estimator."
        )
    if params is None and "params" in args:
        _logging.warning(
            "Estimator's model_fn (%s) includes params argument, but params are "
            "not passed to Estimator.",
            model_fn,
        )
    unexpected = sorted(args - _VALID_MODEL_FN_ARGS)
    if unexpected:
        raise ValueError(f"model_fn ({model_fn}) has following not expected args: {unexpected}")


def _check_hooks(hooks):
    return list(check_hooks(hooks, "Hooks must be a SessionRunHook, given: {}"))


def _check_listeners(listeners):
    listeners = list(listeners or [])
    for listener in listeners:
        if not isinstance(listener, tf.compat.v1.train.CheckpointSaverListener):
            raise TypeError(
                f"saving_listeners must be a list of CheckpointSaverListener, given: {listener}"
            )
    return listeners


def _extract_keys(predictions, predict_keys):
    if not predict_keys:
        return predictions
    if not isinstance(predictions, dict):
        raise ValueError("predict_keys argument is not valid in case of non-dict predictions.")
    selected = {key: value for key, value in predictions.items() if key in predict_keys}
    if not selected:
        raise ValueError(
            f"Expected to run at least one output from {list(predictions)}, "
            f"provided {predict_keys}."
        )
    return selected


def _single_examples(evaluated):
    """Splits a batch of predictions into one prediction per example."""
    if not isinstance(evaluated, dict):
        yield from evaluated
        return
    batch_length = None
    for key, value in evaluated.items():
        length = value.shape[0] if np.ndim(value) else None
        if length is None:
            raise ValueError(
                f"Prediction {key!r} is a scalar; with yield_single_examples=True "
                "every prediction needs the batch as its first dimension."
            )
        batch_length = batch_length or length
        if length != batch_length:
            raise ValueError(
                "Batch length of predictions should be same. "
                f"{key} has different batch length than others."
            )
    for index in range(batch_length or 0):
        yield {key: value[index] for key, value in evaluated.items()}
