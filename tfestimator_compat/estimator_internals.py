"""What libraries built on tf.estimator reached for inside the original's `estimator.py`.

Subclasses of `Estimator` (in CTR model zoos, ranking and AutoML libraries,
course material) read and set its private attributes (`self._model_dir`,
`self._config`, `self._session_config`, ...) and call a few of its private
methods; programs call `estimator._load_global_step_from_checkpoint_dir`.
`EstimatorInternals` gives `Estimator` those attributes with the original's
behaviour, over this package's own state: `_model_dir` and `_config` stay the
one `RunConfig` the Estimator trains with, so a subclass that moves its
`model_dir` after `super().__init__()` moves its checkpoints too, as before.
The rest of the original's private methods raise an error naming the guide.
"""

from __future__ import annotations

import tensorflow as tf

from tfestimator_compat.engine.distributed import session_config as session_config_lib
from tfestimator_compat.shim.api_surface.missing import NotProvidedAttributeError
from tfestimator_compat.shim.api_surface.symbol import guide_link
from tfestimator_compat.spec import EstimatorSpec

_GUIDE = guide_link("private-modules-and-names-libraries-use")
# Private methods of the original Estimator that subclasses used and this package lacks.
_NOT_PROVIDED = frozenset(
    {
        "_get_features_from_input_fn",
        "_get_features_and_labels_from_input_fn",
        "_train_model",
        "_train_model_default",
        "_train_model_distributed",
        "_train_with_estimator_spec",
        "_evaluate_model",
        "_evaluate_build_graph",
        "_evaluate_run",
        "_add_meta_graph_for_mode",
        "_get_replica_device_setter",
        "_convert_train_steps_to_hooks",
        "_actual_eval",
    }
)


def default_session_config():
    """The `ConfigProto` the original's Estimators ran their sessions with by default."""
    config = tf.compat.v1.ConfigProto(allow_soft_placement=True)
    rewrite = config.graph_options.rewrite_options
    rewrite.meta_optimizer_iterations = rewrite.ONE
    return config


def load_global_step_from_checkpoint_dir(checkpoint_dir):
    """The global step of `checkpoint_dir`'s newest checkpoint; 0 where there is none.

    As the original's `estimator._load_global_step_from_checkpoint_dir`, it
    answers 0 for a missing directory or an unreadable checkpoint too, which
    the loops that called it ("train until the step reaches N") relied on.
    """
    try:
        reader = tf.train.load_checkpoint(tf.train.latest_checkpoint(checkpoint_dir))
        return reader.get_tensor(tf.compat.v1.GraphKeys.GLOBAL_STEP)
    except Exception:  # noqa: BLE001 - any failure means "no step yet", as before
        return 0


class EstimatorInternals:
    """The original `Estimator`'s private attributes and methods that subclasses used."""

    @property
    def _config(self):
        try:
            return self.__dict__["_run_config"]
        except KeyError:  # before `__init__` sets it
            raise AttributeError("_config") from None

    @_config.setter
    def _config(self, config):
        """A subclass's new `RunConfig` is the one the next calls use, but for its
        `model_dir`: as in the original, only `_model_dir` moves the files."""
        current = self.__dict__.get("_run_config")
        if current is None:  # `__init__`, which set `_session_config` from it in the original
            self.__dict__.pop("_chosen_session_config", None)
        elif config.model_dir != current.model_dir:
            config = config.replace(model_dir=current.model_dir)
        self._use_config(config)

    def _use_config(self, config):
        self.__dict__["_run_config"] = config
        model_state = self.__dict__.get("_model_state")
        if model_state is not None:  # restores read the model_dir from it
            model_state._config = config

    @property
    def _model_dir(self):
        return self._config.model_dir

    @_model_dir.setter
    def _model_dir(self, model_dir):
        """Moves checkpoints and summaries to `model_dir`, as setting it did in the original."""
        if "_run_config" in self.__dict__:  # else before `super().__init__()`, which sets it
            self._use_config(self._config.replace(model_dir=model_dir))

    @property
    def _session_config(self):
        """`config.session_config`, or the original's default `ConfigProto`."""
        chosen = self.__dict__.get("_chosen_session_config")
        if chosen is not None:
            return chosen
        if self._config.session_config is not None:
            return self._config.session_config
        return default_session_config()

    @_session_config.setter
    def _session_config(self, config):
        """What TF2's runtime still takes of it applies, as `RunConfig.session_config` does."""
        self.__dict__["_chosen_session_config"] = config
        session_config_lib.apply(config)

    @property
    def _device_fn(self):
        return self._config.device_fn

    @property
    def _train_distribution(self):
        return self._config.train_distribute

    @property
    def _eval_distribution(self):
        return self._config.eval_distribute

    def _call_model_fn(self, features, labels, mode, config):
        """Calls the `model_fn` in the current graph, as the original did for subclasses."""
        spec = self.model_fn(features, labels, mode, config)
        if not isinstance(spec, EstimatorSpec):
            raise ValueError("model_fn should return an EstimatorSpec.")
        return spec

    def _create_global_step(self, graph):
        return tf.compat.v1.train.create_global_step(graph)

    def _create_and_assert_global_step(self, graph):
        """The global step of `graph` (a TF1 graph a subclass builds), created here."""
        step = self._create_global_step(graph)
        assert step is tf.compat.v1.train.get_global_step(graph)
        assert step.dtype.is_integer
        return step

    def __getattr__(self, name):
        if name in _NOT_PROVIDED:
            raise NotProvidedAttributeError(
                f"Estimator.{name} was a private method of tensorflow-estimator 2.15 that "
                "tfestimator_compat does not provide: the Estimator no longer builds TF1 "
                f"graphs and sessions for its calls. See {_GUIDE}."
            )
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
