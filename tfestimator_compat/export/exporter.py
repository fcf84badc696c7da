"""`Exporter`: what `EvalSpec(exporters=...)` accepts."""

import abc


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
