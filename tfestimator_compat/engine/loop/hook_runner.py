"""`SessionRunHook`s, run around the Keras steps of a traced `model_fn`.

`HookRunner` gives each hook the lifecycle a `MonitoredSession` gave it:
`begin()` with the model_fn's graph as the default graph (so hooks can look up
tensors and make ops), `after_create_session()`, `before_run()` /
`after_run()` around every step with the values it asked for, and `end()`. A
hook's `request_stop()` ends the loop after that step.
"""

import contextlib

import tensorflow as tf

from tfestimator_compat.engine import keras_flavours
from tfestimator_compat.engine import logs
from tfestimator_compat.engine.inputs.input_structure import map_leaves
from tfestimator_compat.engine.state import checkpoints
from tfestimator_compat.engine.tracing.tensor_semantics import tf1_tensor_semantics

SessionRunHook = tf.compat.v1.train.SessionRunHook
SessionRunArgs = tf.compat.v1.train.SessionRunArgs
SessionRunContext = tf.compat.v1.train.SessionRunContext
SessionRunValues = tf.compat.v1.train.SessionRunValues


def session_hooks(hooks):
    """The `SessionRunHook`s among `hooks` (the rest are Keras callbacks)."""
    return [hook for hook in hooks if isinstance(hook, SessionRunHook)]


def keras_callbacks(hooks):
    """The Keras callbacks among `hooks`."""
    return [hook for hook in hooks if keras_flavours.is_callback(hook)]


class GraphSession:
    """What hooks receive as `session`: runs fetches that need no input batch.

    `run()` evaluates tensors of the model_fn's graph from the current variable
    values, as `session.run` outside a step did (`FinalOpsHook`,
    `CheckpointSaverHook.after_create_session`, a Scaffold's `init_fn`).

    The original ran the input_fn in the same graph and Session, so hooks
    also ran the input's ops: an initializable iterator's initializer fed
    NumPy arrays (the "IteratorInitializerHook" pattern). Fetches of the
    input_fn's graph go to `input_session`, the Session the batches are
    read from (`InputFnResult.session`), except the tensors the input_fn
    returned: a step fetches those (`in_step`).
    """

    def __init__(self, model_fn_graph, input_session=None):
        self._model_fn_graph = model_fn_graph
        self._input_session = input_session
        self.graph = model_fn_graph.graph
        self._batch_tensors = _batch_tensors(model_fn_graph, input_session)

    def in_step(self, fetches):
        """`fetches` with the tensors the input_fn returned as the step's batch.

        In the original a hook's `SessionRunArgs(features["x"])` was fetched
        by the run that consumed the batch; run on the input's Session here,
        it would read a batch of its own, which the model never sees.
        """
        if not self._batch_tensors:
            return fetches
        return map_leaves(lambda fetch: self._batch_tensors.get(id(fetch), fetch), fetches)

    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        """Runs `fetches`, fed `feed_dict` ({tensor or name: value}) as a Session fed them.

        A feed may be any tensor of the model_fn's graph, a placeholder such
        as a TF1 Saver's file name; the input batch is not available here.
        Fetches and feeds of the input_fn's graph run on the input's Session.
        """
        if self.of_input(fetches, feed_dict):
            return self._input_session.run(fetches, feed_dict)
        graph = self._model_fn_graph
        fetchable = graph.fetchable(fetches)
        feeds = [
            graph.graph.as_graph_element(key) if isinstance(key, str) else key
            for key in (feed_dict or {})
        ]
        with tf.init_scope():  # hooks run with the graph as default; this runs eagerly
            values = [
                tf.convert_to_tensor(value, dtype=feed.dtype)
                for feed, value in zip(feeds, (feed_dict or {}).values())
            ]
            outputs = graph.function(fetchable, feeds=feeds)(*values)
        return graph.results(fetches, outputs)

    def of_input(self, fetches, feed_dict=None):
        """Whether `fetches` and `feed_dict` are of the input_fn's graph (never both graphs)."""
        if self._input_session is None:
            return False
        elements = tf.nest.flatten(fetches) + list(feed_dict or {})
        graphs = {getattr(element, "graph", None) for element in elements} - {None}
        if self._input_session.graph not in graphs:
            return False
        if len(graphs) > 1:
            raise ValueError(
                "A hook's session.run mixes ops of the input_fn with ops of the model_fn. "
                "Here the input_fn runs in a graph and Session of its own: run the "
                "input's ops (an iterator's initializer) in a session.run of their own."
            )
        return True


def _batch_tensors(model_fn_graph, input_session):
    """Id of each tensor the input_fn returned -> the model_fn's input it feeds."""
    returned = getattr(input_session, "batch_leaves", None)
    if returned is None or model_fn_graph.num_replicas != 1:
        return {}
    tensors = {}
    for part, model_part in zip(returned, model_fn_graph.batch_leaves):
        if len(part) == len(model_part):
            tensors.update((id(tensor), feed) for tensor, feed in zip(part, model_part))
    return tensors


class SaverForHooks:
    """The Saver a user's `CheckpointSaverHook` finds in the SAVERS collection.

    Hooks run with the model_fn's graph as the default graph, where a Saver
    would build graph ops; this one saves the name-based checkpoint eagerly.
    """

    saver_def = None

    def __init__(self, variables):
        self._saver = checkpoints.name_based_saver(variables, save_relative_paths=True)

    def save(self, sess, save_path, global_step=None, write_meta_graph=True, **kwargs):
        with tf.init_scope():
            return self._saver.save(
                None, save_path, global_step=global_step, write_meta_graph=False
            )


class _Coordinator:
    """The coordinator hooks see; stopping goes through `request_stop`."""

    def __init__(self):
        self.stop_requested = False

    def request_stop(self, ex=None):
        self.stop_requested = True

    def should_stop(self):
        return self.stop_requested


class HookRunner:
    """Drives `SessionRunHook`s around the steps run from a `ModelFnGraph`.

    Args:
        hooks: the hooks, in the order they run.
        model_fn_graph: the `ModelFnGraph` the steps come from.
        input_session: runs the ops of the input_fn's graph (`GraphSession`),
            or None when the input_fn made no graph.
        before_nan_check: how many of the first `hooks` see a training step's
            results before its NaN loss check (all when None). The original
            checked with a `NanTensorHook` placed after the hooks given to
            `train()` and before the `EstimatorSpec`'s own.
    """

    def __init__(self, hooks, model_fn_graph, input_session=None, before_nan_check=None):
        self._hooks = list(hooks)
        self.before_nan_check = len(self._hooks) if before_nan_check is None else before_nan_check
        self._graph = model_fn_graph
        self._session = GraphSession(model_fn_graph, input_session)
        self._coordinator = _Coordinator()
        self._requests = []
        self._contexts = []
        self._input_results = {}

    @property
    def hooks(self):
        return self._hooks

    @property
    def session(self):
        return self._session

    @property
    def stop_requested(self):
        return self._coordinator.stop_requested

    def begin(self):
        """Each hook's `begin`, before the variables are restored or initialized,
        as the original called it before making its Session: what a hook adds to
        the graph is there when they are."""
        with self._graph.extending(), _around_hooks():
            for hook in self._hooks:
                hook.begin()

    def after_create_session(self):
        """Each hook's `after_create_session`, once the variables have their
        values (and the first checkpoint is saved), before the first step."""
        with self._graph.extending(), _around_hooks():
            for hook in self._hooks:
                hook.after_create_session(self._session, self._coordinator)

    def before_step(self):
        """Asks each hook what to fetch in the next step; returns those fetches."""
        self._requests, self._contexts = [], []
        fetches = {}
        with self._graph.graph.as_default(), _around_hooks():
            self._ask_hooks(fetches)
        return fetches

    def _ask_hooks(self, fetches):
        self._input_results = {}
        for index, hook in enumerate(self._hooks):
            context = SessionRunContext(original_args=SessionRunArgs([]), session=self._session)
            request = hook.before_run(context)
            self._contexts.append(context)
            self._requests.append(request)
            if request is None or request.fetches is None and not request.feed_dict:
                continue
            in_step = self._session.in_step(request.fetches)
            if self._session.of_input(in_step, request.feed_dict):
                # Ops of the input_fn's graph run on its Session, before this step.
                self._input_results[index] = self._session.run(request.fetches, request.feed_dict)
                continue
            if request.feed_dict:
                raise ValueError(
                    f"{type(hook).__name__} feeds values into the step (feed_dict); "
                    "feeding is not supported. Read inputs in the input_fn instead."
                )
            if in_step is not None:
                fetches[f"hook_{index}"] = self._graph.fetchable(in_step)

    def after_step(self, outputs, which=slice(None)):
        """Hands each hook (those `which` selects) its results; returns True when
        a hook asked to stop."""
        with self._graph.graph.as_default(), _around_hooks():
            self._tell_hooks(outputs, range(len(self._hooks))[which])
        return self._coordinator.stop_requested

    def _tell_hooks(self, outputs, indices):
        for index in indices:
            hook = self._hooks[index]
            request = self._requests[index]
            results = self._input_results.get(index)
            if f"hook_{index}" in outputs:
                results = self._graph.results(request.fetches, outputs[f"hook_{index}"])
            values = SessionRunValues(
                results=results,
                options=request.options if request is not None else None,
                run_metadata=tf.compat.v1.RunMetadata(),
            )
            hook.after_run(self._contexts[index], values)
            if self._contexts[index].stop_requested:
                self._coordinator.request_stop()

    def end(self):
        with self._graph.graph.as_default(), _around_hooks():
            for hook in self._hooks:
                hook.end(self._session)


@contextlib.contextmanager
def _around_hooks():
    """What each call of the hooks runs in: TF1 tensors, no notices about the traced graph."""
    with tf1_tensor_semantics(), logs.meta_graphs_of_traced_graphs():
        yield
