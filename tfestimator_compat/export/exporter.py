"""Exporters: what `EvalSpec(exporters=...)` runs after each evaluation.

Each exports to `model_dir/export/<name>/<unix seconds>/`. `LatestExporter`
exports every time, `BestExporter` when the evaluation beats the best so far
(recovered from the evaluation event files after a restart), `FinalExporter`
once at the end; the first two keep the newest `exports_to_keep` exports.
"""

import abc
import os

import tensorflow as tf

from tfestimator_compat.engine.state import event_files
from tfestimator_compat.engine.tracing import fn_args
from tfestimator_compat.export import temp_dirs

_logging = tf.compat.v1.logging


class Exporter(abc.ABC):
    """Exports a model after an evaluation in `train_and_evaluate`.

    Subclasses name themselves (`name`, used as the folder under
    `model_dir/export/`) and implement `export`, which gets the evaluated
    checkpoint, its metrics, and whether this is the final evaluation.
    """

    @property
    @abc.abstractmethod
    def name(self):
        """Directory name under `model_dir/export/`; unique within an EvalSpec."""

    @abc.abstractmethod
    def export(self, estimator, export_path, checkpoint_path, eval_result, is_the_final_export):
        """Exports `estimator` at `checkpoint_path`; returns what it exported, or None."""


class _SavedModelExporter(Exporter):
    """Shared by the exporters below: one `export_saved_model` call, then cleanup."""

    def __init__(
        self, name, serving_input_receiver_fn, assets_extra=None, as_text=False, exports_to_keep=5
    ):
        if not name:
            raise ValueError("`name` must be a non-empty string.")
        if exports_to_keep is not None and exports_to_keep <= 0:
            raise ValueError(
                f"`exports_to_keep`, if provided, must be a positive number. Got {exports_to_keep}"
            )
        self._name = name
        self._serving_input_receiver_fn = serving_input_receiver_fn
        self._assets_extra = assets_extra
        self._as_text = as_text
        self._exports_to_keep = exports_to_keep

    @property
    def name(self):
        return self._name

    def _export(self, estimator, export_path, checkpoint_path):
        result = estimator.export_saved_model(
            export_path,
            self._serving_input_receiver_fn,
            assets_extra=self._assets_extra,
            as_text=self._as_text,
            checkpoint_path=checkpoint_path,
        )
        self._remove_old_exports(export_path)
        return result

    def _remove_old_exports(self, export_dir_base):
        """Keeps the `exports_to_keep` newest `<unix seconds>` exports."""
        if self._exports_to_keep is None or not tf.io.gfile.isdir(export_dir_base):
            return
        versions = sorted(
            int(entry)
            for entry in tf.io.gfile.listdir(export_dir_base)
            if entry.rstrip("/").isdigit() and len(entry.rstrip("/")) == 10
        )
        for version in versions[: -self._exports_to_keep]:
            path = os.path.join(export_dir_base, str(version))
            try:
                temp_dirs.remove_export(path)
            except tf.errors.NotFoundError as error:
                _logging.warning("Can not delete %s recursively: %s", path, error)


class LatestExporter(_SavedModelExporter):
    """Exports after every evaluation, keeping the `exports_to_keep` newest."""

    def export(self, estimator, export_path, checkpoint_path, eval_result, is_the_final_export):
        return self._export(estimator, export_path, checkpoint_path)


class FinalExporter(_SavedModelExporter):
    """Exports once, after the final evaluation."""

    def __init__(self, name, serving_input_receiver_fn, assets_extra=None, as_text=False):
        super().__init__(name, serving_input_receiver_fn, assets_extra, as_text, None)

    def export(self, estimator, export_path, checkpoint_path, eval_result, is_the_final_export):
        if not is_the_final_export:
            return None
        _logging.info("Performing the final export in the end of training.")
        return self._export(estimator, export_path, checkpoint_path)


def _loss_smaller(best_eval_result, current_eval_result):
    """The default `compare_fn`: the current evaluation has a smaller `loss`."""
    for which, result in (
        ("best_eval_result", best_eval_result),
        ("current_eval_result", current_eval_result),
    ):
        if not result or "loss" not in result:
            raise ValueError(f"{which} cannot be empty or no loss is found in it.")
    return best_eval_result["loss"] > current_eval_result["loss"]


def _check_compare_fn(compare_fn):
    args = set(fn_args.fn_args(compare_fn))
    for required in ("best_eval_result", "current_eval_result"):
        if required not in args:
            raise ValueError(f"compare_fn ({compare_fn}) must include {required} argument.")
    unexpected = sorted(args - {"best_eval_result", "current_eval_result"})
    if unexpected:
        raise ValueError(f"compare_fn ({compare_fn}) has following not expected args: {unexpected}")


class BestExporter(_SavedModelExporter):
    """Exports when an evaluation beats the best one so far (`compare_fn`).

    The best so far survives a restart: it is read back from the evaluation
    event files (`event_file_pattern`, relative to `model_dir`), so a restarted
    job does not export a model worse than the ones it already exported.
    """

    def __init__(
        self,
        name="best_exporter",
        serving_input_receiver_fn=None,
        event_file_pattern="eval/*.tfevents.*",
        compare_fn=_loss_smaller,
        assets_extra=None,
        as_text=False,
        exports_to_keep=5,
    ):
        super().__init__(name, serving_input_receiver_fn, assets_extra, as_text, exports_to_keep)
        if not compare_fn:
            raise ValueError("`compare_fn` must not be None.")
        _check_compare_fn(compare_fn)
        self._compare_fn = compare_fn
        self._event_file_pattern = event_file_pattern
        self._model_dir = None
        self._best_eval_result = None

    def export(self, estimator, export_path, checkpoint_path, eval_result, is_the_final_export):
        if self._model_dir != estimator.model_dir:
            self._model_dir = estimator.model_dir
            # Called by hand, eval_result may be None (the original exported then).
            current_step = (eval_result or {}).get("global_step")
            self._best_eval_result = self._best_from_events(exclude_step=current_step)
            if not self._has_exports(export_path):
                self._best_eval_result = None
        if self._best_eval_result is not None and not self._compare_fn(
            best_eval_result=self._best_eval_result, current_eval_result=eval_result
        ):
            return None
        _logging.info("Performing best model export.")
        self._best_eval_result = eval_result
        return self._export(estimator, export_path, checkpoint_path)

    def _has_exports(self, export_dir_base):
        return tf.io.gfile.isdir(export_dir_base) and any(
            entry.rstrip("/").isdigit() for entry in tf.io.gfile.listdir(export_dir_base)
        )

    def _best_from_events(self, exclude_step):
        """The best evaluation recorded in the event files, but the current one."""
        if not self._event_file_pattern:
            return None
        best = None
        pattern = os.path.join(self._model_dir, self._event_file_pattern)
        for path in tf.io.gfile.glob(pattern):
            for event in event_files.read_events(path):
                if exclude_step is not None and event.step == exclude_step:
                    continue
                result = {
                    value.tag: value.simple_value
                    for value in event.summary.value
                    if value.HasField("simple_value")
                }
                if result and (best is None or self._compare_fn(best, result)):
                    best = result
        return best
