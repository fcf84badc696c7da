"""`TPUEstimator` and `TPUEstimatorSpec`, run on CPUs and GPUs (`use_tpu=False`).

TPU programs (BERT's `run_classifier.py` and its forks) wrote their model_fn
for `TPUEstimator`: batch sizes arrive as `params["batch_size"]`, metrics as
`eval_metrics=(metric_fn, tensors)`, variable initialization from a
pre-trained checkpoint in `scaffold_fn`, summaries in `host_call`. Off TPU the
original turned the `TPUEstimatorSpec` into an `EstimatorSpec` and ran the
plain Estimator; this does the same on top of this package's `Estimator`.
`iterations_per_loop` bounds the training steps run per `tf.function` call.
"""

import collections
import contextlib
import enum
import inspect

import tensorflow as tf

from tfestimator_compat.engine.internals import tensorflow_internals as tf_internals
from tfestimator_compat.engine.tracing import fn_args
from tfestimator_compat.estimator import Estimator
from tfestimator_compat.estimator import verify_model_fn_args
from tfestimator_compat.hooks import check_hooks
from tfestimator_compat.mode_keys import ModeKeys
from tfestimator_compat.spec import EstimatorSpec
from tfestimator_compat.tpu import cross_shard
from tfestimator_compat.tpu.tpu_config import RunConfig
from tfestimator_compat.tpu.tpu_config import check_positive_integer

_BATCH_SIZE_KEY = "batch_size"
_USE_TPU_KEY = "use_tpu"
_RESERVED_PARAMS_KEYS = [_BATCH_SIZE_KEY, "context"]


class ExportSavedModelApiVersion(enum.Enum):
    V1 = 1
    V2 = 2


def _check_host_call(name, host_call):
    """A `(fn, tensors)` pair whose tensors (a list, tuple or dict) fit `fn`."""
    if not isinstance(host_call, (tuple, list)):
        raise ValueError(f"{name} should be tuple or list")
    if len(host_call) != 2:
        raise ValueError(f"{name} should have two elements.")
    fn, tensors = host_call
    if not callable(fn):
        raise TypeError(f"{name}[0] should be callable.")
    if not isinstance(tensors, (tuple, list, dict)):
        raise ValueError(f"{name}[1] should be tuple or list, or dict.")
    if isinstance(tensors, (tuple, list)):
        takes_varargs = any(
            p.kind == p.VAR_POSITIONAL for p in inspect.signature(fn).parameters.values()
        )
        if not takes_varargs and len(tensors) != len(fn_args.fn_args(fn)):
            raise RuntimeError(
                f"In TPUEstimatorSpec.{name}, length of tensors {len(tensors)} does not "
                f"match method args of the function, which takes {len(fn_args.fn_args(fn))}."
            )


def _call_host_fn(host_call):
    fn, tensors = host_call
    return fn(**tensors) if isinstance(tensors, dict) else fn(*tensors)


class TPUEstimatorSpec(
    collections.namedtuple(
        "TPUEstimatorSpec",
        [
            "mode",
            "predictions",
            "loss",
            "train_op",
            "eval_metrics",
            "export_outputs",
            "scaffold_fn",
            "host_call",
            "training_hooks",
            "evaluation_hooks",
            "prediction_hooks",
        ],
    )
):
    """What a TPUEstimator model_fn returns.

    `eval_metrics` is `(metric_fn, tensors)`: `metric_fn(*tensors)` (or
    `**tensors`) returns the `eval_metric_ops`. `host_call` is `(fn, tensors)`,
    run with every training step (typically writing summaries). `scaffold_fn`
    returns a `Scaffold` and is where TPU programs called `init_from_checkpoint`.
    """

    def __new__(
        cls,
        mode,
        predictions=None,
        loss=None,
        train_op=None,
        eval_metrics=None,
        export_outputs=None,
        scaffold_fn=None,
        host_call=None,
        training_hooks=None,
        evaluation_hooks=None,
        prediction_hooks=None,
    ):
        if eval_metrics is not None:
            _check_host_call("eval_metrics", eval_metrics)
        if host_call is not None:
            _check_host_call("host_call", host_call)
        return super().__new__(
            cls,
            mode,
            predictions,
            loss,
            train_op,
            eval_metrics,
            export_outputs,
            scaffold_fn,
            host_call,
            check_hooks(training_hooks),
            check_hooks(evaluation_hooks),
            check_hooks(prediction_hooks),
        )

    def as_estimator_spec(self):
        """The equivalent `EstimatorSpec`, built in the model_fn's graph."""
        eval_metric_ops = _call_host_fn(self.eval_metrics) if self.eval_metrics else None
        hooks = ()
        if self.host_call is not None:
            with _summary_writers_made() as writers:
                ops = _call_host_fn(self.host_call)
            hooks = (_HostCallHook(ops, writers),)
        scaffold = self.scaffold_fn() if self.scaffold_fn else None
        return EstimatorSpec(
            mode=self.mode,
            predictions=self.predictions,
            loss=self.loss,
            train_op=self.train_op,
            eval_metric_ops=eval_metric_ops,
            export_outputs=self.export_outputs,
            scaffold=scaffold,
            training_hooks=self.training_hooks + hooks,
            evaluation_hooks=self.evaluation_hooks + hooks,
            prediction_hooks=self.prediction_hooks + hooks,
        )


@contextlib.contextmanager
def _summary_writers_made():
    """Collects the summary writers created in the block.

    A host_call creates its writer inside the model_fn's graph, where it is
    made eagerly; the writer's resource lives as long as the Python object,
    so the hook keeps the objects for the whole run.
    """
    writers = []

    def recording_init(self, *args, **kwargs):
        original_init(self, *args, **kwargs)
        writers.append(self)

    original_init = tf_internals.replace_summary_writer_init(recording_init)
    try:
        yield writers
    finally:
        tf_internals.replace_summary_writer_init(original_init)


class _HostCallHook(tf.compat.v1.train.SessionRunHook):
    """Runs a host_call's ops with every step, and keeps its summary writers alive."""

    def __init__(self, ops, writers=()):
        self._ops = ops
        self._writers = list(writers)

    def begin(self):
        self._init_ops = tf_internals.summary_writer_initializer_op()
        self._flush_ops = [
            tf_internals.legacy_raw_flush(writer=op.inputs[0]) for op in self._init_ops
        ]

    def after_create_session(self, session, coord):
        session.run(self._init_ops)

    def before_run(self, run_context):
        return tf.compat.v1.train.SessionRunArgs(self._ops)

    def end(self, session):
        session.run(self._flush_ops)
        with tf.init_scope():
            for writer in self._writers:
                writer.flush()


class TPUEstimator(Estimator):
    """An Estimator for TPU programs, run on CPUs and GPUs with `use_tpu=False`.

    `train_batch_size`, `eval_batch_size` and `predict_batch_size` reach the
    input_fn and the model_fn as `params["batch_size"]` in their mode, and
    `params["use_tpu"]` is False. The model_fn may return a `TPUEstimatorSpec`
    or an `EstimatorSpec`.

    Example:

    ```python
    config = tf.compat.v1.estimator.tpu.RunConfig(
        model_dir=model_dir,
        tpu_config=tf.compat.v1.estimator.tpu.TPUConfig(iterations_per_loop=100))
    estimator = tf.compat.v1.estimator.tpu.TPUEstimator(
        model_fn, config=config, use_tpu=False, train_batch_size=32,
        eval_batch_size=8, predict_batch_size=8)
    ```
    """

    def __init__(
        self,
        model_fn=None,
        model_dir=None,
        config=None,
        params=None,
        use_tpu=True,
        train_batch_size=None,
        eval_batch_size=None,
        predict_batch_size=None,
        batch_axis=None,
        eval_on_tpu=True,
        export_to_tpu=True,
        export_to_tpu_v2=False,
        warm_start_from=None,
        embedding_config_spec=None,
        export_saved_model_api_version=ExportSavedModelApiVersion.V1,
    ):
        if config is None or not isinstance(config, RunConfig):
            raise ValueError("`config` must be provided with type `tpu_config.RunConfig`")
        if params is not None and any(key in params for key in _RESERVED_PARAMS_KEYS):
            raise ValueError(
                f"{_RESERVED_PARAMS_KEYS} are reserved keys but existed in params {params}."
            )
        if use_tpu:
            if not tf.config.list_logical_devices("TPU"):
                raise ValueError(
                    "TPUEstimator(use_tpu=True) needs a TPU, and this machine has none. "
                    "Pass use_tpu=False to run the same program on CPUs/GPUs."
                )
            if train_batch_size is None:
                raise ValueError("`train_batch_size` cannot be `None`")
        for name, size in (
            ("train_batch_size", train_batch_size),
            ("eval_batch_size", eval_batch_size),
            ("predict_batch_size", predict_batch_size),
        ):
            if size is not None:
                check_positive_integer(size, name)
        if export_saved_model_api_version not in tuple(ExportSavedModelApiVersion):
            raise ValueError(
                "export_saved_model_api_version should be 1 or 2; got "
                f"{export_saved_model_api_version}."
            )
        if model_fn is None:
            raise ValueError("model_fn must be provided to Estimator.")
        verify_model_fn_args(model_fn, params)
        if not use_tpu:
            cross_shard.install()
        self._tpu_model_fn = model_fn
        self._use_tpu = use_tpu
        self._batch_sizes = {
            ModeKeys.TRAIN: train_batch_size,
            ModeKeys.EVAL: eval_batch_size,
            ModeKeys.PREDICT: predict_batch_size,
        }
        self._export_to_tpu = export_to_tpu
        self._embedding_config_spec = embedding_config_spec
        super().__init__(
            model_fn=self._model_fn_returning_estimator_spec,
            model_dir=model_dir,
            config=config,
            params=dict(params or {}),
            warm_start_from=warm_start_from,
        )

    def _model_fn_returning_estimator_spec(self, features, labels, mode, params, config):
        kwargs = fn_args.model_fn_kwargs(self._tpu_model_fn, labels, mode, params, config)
        spec = self._tpu_model_fn(features=features, **kwargs)
        if isinstance(spec, TPUEstimatorSpec):
            return spec.as_estimator_spec()
        return spec

    def _params_for(self, mode, export=False):
        params = self.params
        if not export and self._batch_sizes.get(mode) is not None:
            params[_BATCH_SIZE_KEY] = self._batch_sizes[mode]
        params[_USE_TPU_KEY] = False
        return params

    def _call_input_fn(self, input_fn, mode):
        if "params" not in fn_args.fn_args(input_fn):
            raise ValueError(
                f"input_fn ({input_fn}) does not include params argument, required by "
                'TPUEstimator to pass batch size as params["batch_size"]'
            )
        return super()._call_input_fn(input_fn, mode)

    def _max_steps_per_call(self):
        steps = self.config.tpu_config.steps_per_loop
        return steps if steps is not None else super()._max_steps_per_call()
