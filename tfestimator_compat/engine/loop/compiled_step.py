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
`cond`), and wide & deep hashes strings in its step. Auto-clustering compiles
the clusters XLA supports and leaves the rest (stateful random ops too) to
TensorFlow's kernels, so a step never fails for being compiled.

TensorFlow auto-clusters on GPUs when asked; on CPUs only when XLA's flag
`--tf_xla_cpu_global_jit` is in `TF_XLA_FLAGS`. So a `session_config`'s
`ON_1` does what the original's did: clusters on GPUs, and on CPUs only where
the program set that flag (on a 2-core CPU, clustering made the workloads'
training slower: bench/RESULTS.md). The environment variable asks for more
than the original did: it adds the flag, so CPUs cluster too. XLA reads its
flags once, when the process runs its first `tf.function`: set the variable
at the start of the program. Compiling makes each new function's first call
slower; whether steps get faster depends on the model and device.
"""

import contextlib
import os

import tensorflow as tf

ENVIRONMENT_VARIABLE = "TFESTIMATOR_COMPAT_XLA"
CPU_FLAG = "--tf_xla_cpu_global_jit"
_ON = ("1", "true", "yes", "on")
_OFF = ("0", "false", "no", "off", "")
_logging = tf.compat.v1.logging


def _from_environment():
    """What the environment variable asks for: True, False, or None when unset."""
    value = os.environ.get(ENVIRONMENT_VARIABLE)
    if value is None:
        return None
    if value.strip().lower() not in _ON + _OFF:
        raise ValueError(
            f"{ENVIRONMENT_VARIABLE}={value!r}: set it to 1 to compile the Estimator's "
            "steps with XLA or 0 not to. See migration_guide/concepts.md."
        )
    return value.strip().lower() in _ON


def requested(session_config) -> bool:
    """Whether the step functions run auto-clustered: the environment variable
    when set, else `session_config`'s `global_jit_level` (ON_1 or ON_2)."""
    asked = _from_environment()
    if asked is not None:
        return asked
    if session_config is None:
        return False
    level = session_config.graph_options.optimizer_options.global_jit_level
    levels = tf.compat.v1.OptimizerOptions
    return level in (levels.ON_1, levels.ON_2)


def prepare(session_config) -> bool:
    """Whether the compiled step is requested; when the environment variable
    asks, lets XLA cluster on CPUs too.

    Call it before the program runs its first function (an Estimator calls
    it when it is made).
    """
    if not requested(session_config):
        return False
    flags = os.environ.get("TF_XLA_FLAGS", "")
    if _from_environment() and CPU_FLAG not in flags.split():
        os.environ["TF_XLA_FLAGS"] = f"{flags} {CPU_FLAG}".strip()
    _logging.info(
        "Compiling the Estimator's steps with XLA auto-clustering (%s or session_config's "
        "global_jit_level); on a CPU only where TF_XLA_FLAGS holds %s before TensorFlow "
        "runs its first function.",
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
