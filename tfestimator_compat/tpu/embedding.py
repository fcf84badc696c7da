"""`tf.compat.v1.estimator.tpu.experimental.EmbeddingConfigSpec` (construction only).

TPU embedding tables need a TPU; off TPU the spec is accepted and kept, so
programs that build one still construct their TPUEstimator.
"""

import collections


class EmbeddingConfigSpec(
    collections.namedtuple(
        "EmbeddingConfigSpec",
        [
            "feature_columns",
            "optimization_parameters",
            "clipping_limit",
            "pipeline_execution_with_tensor_core",
            "experimental_gradient_multiplier_fn",
            "feature_to_config_dict",
            "table_to_config_dict",
            "partition_strategy",
            "profile_data_directory",
        ],
    )
):
    """The TPU embedding configuration of a TPUEstimator."""

    def __new__(
        cls,
        feature_columns=None,
        optimization_parameters=None,
        clipping_limit=None,
        pipeline_execution_with_tensor_core=False,
        experimental_gradient_multiplier_fn=None,
        feature_to_config_dict=None,
        table_to_config_dict=None,
        partition_strategy="div",
        profile_data_directory=None,
    ):
        if (feature_columns is None) == (feature_to_config_dict is None):
            raise ValueError(
                "Exactly one of `feature_columns` and `feature_to_config_dict` must be set."
            )
        if partition_strategy not in ("div", "mod"):
            raise ValueError(f"Invalid partition_strategy {partition_strategy}.")
        return super().__new__(
            cls,
            feature_columns,
            optimization_parameters,
            clipping_limit,
            pipeline_execution_with_tensor_core,
            experimental_gradient_multiplier_fn,
            feature_to_config_dict,
            table_to_config_dict,
            partition_strategy,
            profile_data_directory,
        )
