"""`RunConfig.session_config`: the parts of a Session's `ConfigProto` TF2 still has.

The original built a Session per call with the user's `ConfigProto`, so thread
pools, GPU memory growth and device placement followed it. TF2 has one runtime
per process, configured through `tf.config` before it starts (before the first
op runs). An Estimator applies these fields when it is made:

- `intra_op_parallelism_threads`, `inter_op_parallelism_threads` (0: TF's default);
- `gpu_options.allow_growth`;
- `device_count={"GPU": 0}` (no GPU);
- `log_device_placement`.

A field the running runtime can no longer take is logged as a warning that
names it. `graph_options.optimizer_options.global_jit_level` turns on the
compiled step (`engine/loop/compiled_step.py`). TF2 always places ops softly
(`allow_soft_placement`); other fields (other graph options, device filters)
have no TF2 meaning and are left alone.
"""

import functools

import tensorflow as tf

_logging = tf.compat.v1.logging
_threading = tf.config.threading
# ConfigProto field, and how TF2 reads and sets that thread pool's size.
_THREAD_POOLS = (
    (
        "intra_op_parallelism_threads",
        _threading.get_intra_op_parallelism_threads,
        _threading.set_intra_op_parallelism_threads,
    ),
    (
        "inter_op_parallelism_threads",
        _threading.get_inter_op_parallelism_threads,
        _threading.set_inter_op_parallelism_threads,
    ),
)


def apply(session_config):
    """Applies what `session_config` (a `ConfigProto`, or None) sets to the TF2 runtime."""
    if session_config is None:
        return
    for field, get, set_value in _THREAD_POOLS:
        value = getattr(session_config, field)
        if value and get() != value:  # 0 is TF's default
            _set(field, functools.partial(set_value, value))
    if session_config.device_count.get("GPU") == 0:
        _set('device_count={"GPU": 0}', lambda: tf.config.set_visible_devices([], "GPU"))
    if session_config.gpu_options.allow_growth:
        _set("gpu_options.allow_growth", _allow_memory_growth)
    if session_config.log_device_placement:
        tf.debugging.set_log_device_placement(True)


def _allow_memory_growth():
    for gpu in tf.config.list_physical_devices("GPU"):
        tf.config.experimental.set_memory_growth(gpu, True)


def _set(field, setting):
    """Runs `setting()`; a runtime that can no longer take it gets a warning naming `field`."""
    try:
        setting()
    except (RuntimeError, ValueError) as error:
        _logging.warning(
            "session_config.%s cannot be applied: TensorFlow is already running (%s). "
            "Set it before anything runs a TensorFlow op, e.g. make the RunConfig and "
            "Estimator at the start of the program, or call tf.config first.",
            field,
            error,
        )
