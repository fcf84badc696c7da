"""The opt-in compiled step: XLA auto-clustering of an Estimator's step functions.

Off by default. A TF1 program asked for XLA through its session's
`ConfigProto`: `graph_options.optimizer_options.global_jit_level = ON_1` (or
`ON_2`) in `RunConfig(session_config=...)` turned on auto-clustering for the
Estimator's sessions. Here that setting, or the environment variable
`TFESTIMATOR_COMPAT_XLA=1`, turns on auto-clustering while the Estimator's
train, evaluate and predict functions run; `TFESTIMATOR_COMPAT_XLA=0` turns it
off whatever the `session_config` says.

Why auto-clustering and not `tf.function(jit_compile=True)`: a step function
holds ops XLA cannot compile (string ops of feature columns, lookup tables,
summaries, `py_func`), and `jit_compile=True` fails on the whole function when
one op cannot be compiled: on the CNN and BERT workloads of
`bench/workloads.py` it failed on the step's gated summary values (a string
`cond`), and wide & deep hashes strings in its step. Auto-clustering compiles the clusters XLA supports and leaves the
rest to TensorFlow's kernels, so a step never fails for being compiled. XLA
does not cluster stateful random ops, so dropout draws the numbers it draws
uncompiled.

TensorFlow auto-clusters on GPUs when asked; on CPUs only when XLA's flag
`--tf_xla_cpu_global_jit` is in `TF_XLA_FLAGS` (the original's `ON_1` did
nothing on a CPU without it). The switch adds that flag, which XLA reads
once, when the process runs its first `tf.function`: set the switch before
that (the environment variable at start, or the Estimator made first), or
set `TF_XLA_FLAGS` yourself. Compiling costs time on the first call of each
new function (a first `train()` about twice as long on the BERT workload),
and whether steps get faster depends on the model and device: see
bench/RESULTS.md and migration_guide/concepts.md.
"""

import contextlib
import os

import tensorflow as tf

ENVIRONMENT_VARIABLE = "TFESTIMATOR_COMPAT_XLA"
CPU_FLAG = "--tf_xla_cpu_global_jit"
_ON = ("1", "true", "yes", "on")
_OFF = ("0", "false", "no", "off", "")
_logging = tf.compat.v1.logging


def requested(session_config) -> bool:
    """Whether the step functions run auto-clustered: the environment variable
    when set, else `session_config`'s `global_jit_level` (ON_1 or ON_2)."""
    value = os.environ.get(ENVIRONMENT_VARIABLE)
    if value is not None:
        value = value.strip().lower()
        if value not in _ON + _OFF:
            raise ValueError(
                f"{ENVIRONMENT_VARIABLE}={os.environ[ENVIRONMENT_VARIABLE]!r}: set it to 1 to "
                "compile the Estimator's steps with XLA or 0 not to. See "
                "migration_guide/concepts.md."
            )
        return value in _ON
    if session_config is None:
        return False
    level = session_config.graph_options.optimizer_options.global_jit_level
    levels = tf.compat.v1.OptimizerOptions
    return level in (levels.ON_1, levels.ON_2)


def prepare(session_config) -> bool:
    """Lets XLA cluster on CPUs too when the compiled step is requested.

    Returns whether it is requested. Call it before the program runs its
    first function (an Estimator calls it when it is made).
    """
    if not requested(session_config):
        return False
    flags = os.environ.get("TF_XLA_FLAGS", "")
    if CPU_FLAG not in flags.split():
        os.environ["TF_XLA_FLAGS"] = f"{flags} {CPU_FLAG}".strip()
    _logging.info(
        "Compiling the Estimator's steps with XLA auto-clustering (%s or session_config's "
        "global_jit_level). On a CPU it takes effect only when TF_XLA_FLAGS holds %s before "
        "TensorFlow runs its first function.",
        ENVIRONMENT_VARIABLE,
        CPU_FLAG,
    )
    return True


@contextlib.contextmanager
def autoclustering(enabled: bool):
    """Runs the body with TensorFlow's auto-clustering on, when `enabled`.

    The setting is read when a function is called, so functions called in the
    body are clustered and the program's own functions, called outside it, are
    not.
    """
    if not enabled:
        yield
        return
    previous = tf.config.optimizer.get_jit()
    tf.config.optimizer.set_jit("autoclustering")
    try:
        yield
    finally:
        tf.config.optimizer.set_jit(previous or False)
