"""Runs a TF 1.x example on the ORIGINAL TensorFlow 2.15 + tensorflow-estimator 2.15.

usage: <python with tensorflow 2.15 and tensorflow-estimator 2.15> \
    examples/reference/run_original_tf215.py PROGRAM.py RESULTS.json [PROGRAM_ARGS...]

The program is run unchanged, as `__main__` with `runpy`, after:

- `tf.compat.v1.disable_v2_behavior()` (graph mode, v1 shapes and variables),
  as TensorFlow 1.x behaved;
- making the program's own `import tensorflow` (only imports executed by the
  `__main__` module) give `TF1`: TF 2.15's `tf.compat.v1` (which includes the
  original `tf.compat.v1.estimator`, with `.tpu`) plus `TF1.contrib`, the
  minimal `tf.contrib` stand-in below. TensorFlow and tensorflow-estimator
  themselves keep the real `tensorflow`.

The program prints one line `<MARKER> {json}`; its JSON, with the program's
sha256 and the versions used, is written to RESULTS.json.

`tf.contrib` stand-in, built only from TF 2.15's own APIs:

- `contrib.data.map_and_batch` is `tf.data.experimental.map_and_batch`, which is
  where TF 1.13 moved `tf.contrib.data.map_and_batch` (the contrib name was an
  alias of it from then on).
- `contrib.tpu` is `tf.compat.v1.estimator.tpu` (TPUEstimator,
  TPUEstimatorSpec, RunConfig, TPUConfig, InputPipelineConfig: the classes
  `tf.contrib.tpu` re-exported from tensorflow_estimator in TF 1.13-1.15) plus
  `tf.compat.v1.tpu.CrossShardOptimizer` (contrib re-exported it from
  tensorflow/python/tpu).
- `contrib.cluster_resolver.TPUClusterResolver` is
  `tf.distribute.cluster_resolver.TPUClusterResolver`, the class contrib
  re-exported.
- `contrib.layers.layer_norm` is `_layer_norm` below: TF 1.15's
  `tf.contrib.layers.layer_norm` (tensorflow/contrib/layers/python/layers/
  layers.py) restated with `tf.compat.v1` calls: variable scope `scope` or
  `LayerNorm`, model variables `beta` (zeros) and `gamma` (ones) shaped
  `inputs.shape[begin_params_axis:]`, moments over `begin_norm_axis:`,
  `tf.nn.batch_normalization` with variance epsilon 1e-12 (1e-3 for float16).
"""

import builtins
import contextlib
import hashlib
import io
import json
import os
import runpy
import sys
import types

import tensorflow as tf

MARKER = "BERT_TINY_RESULTS "


def _layer_norm(
    inputs,
    center=True,
    scale=True,
    activation_fn=None,
    reuse=None,
    variables_collections=None,
    outputs_collections=None,
    trainable=True,
    begin_norm_axis=1,
    begin_params_axis=-1,
    scope=None,
):
    """`tf.contrib.layers.layer_norm` as TF 1.15 had it (see the module docstring)."""
    v1 = tf.compat.v1
    with v1.variable_scope(scope, "LayerNorm", [inputs], reuse=reuse):
        inputs = tf.convert_to_tensor(inputs)
        inputs_shape = inputs.shape
        inputs_rank = inputs_shape.ndims
        if inputs_rank is None:
            raise ValueError(f"Inputs {inputs.name} has undefined rank.")
        dtype = inputs.dtype.base_dtype
        if begin_norm_axis < 0:
            begin_norm_axis = inputs_rank + begin_norm_axis
        if begin_params_axis >= inputs_rank or begin_norm_axis >= inputs_rank:
            raise ValueError(
                f"begin_params_axis ({begin_params_axis}) and begin_norm_axis "
                f"({begin_norm_axis}) must be < rank(inputs) ({inputs_rank})"
            )
        params_shape = inputs_shape[begin_params_axis:]
        if not params_shape.is_fully_defined():
            raise ValueError(
                f"Inputs {inputs.name}: shape(inputs)[{begin_params_axis}:] "
                f"is not fully defined: {inputs_shape}"
            )

        def model_variable(name, initializer):
            # contrib's variables.model_variable: GLOBAL_VARIABLES + MODEL_VARIABLES.
            collections = [v1.GraphKeys.GLOBAL_VARIABLES, v1.GraphKeys.MODEL_VARIABLES]
            if isinstance(variables_collections, dict):
                collections += list(variables_collections.get(name, []))
            elif variables_collections:
                collections += list(variables_collections)
            return v1.get_variable(
                name,
                shape=params_shape,
                dtype=dtype,
                initializer=initializer,
                collections=collections,
                trainable=trainable,
            )

        beta = model_variable("beta", v1.zeros_initializer()) if center else None
        gamma = model_variable("gamma", v1.ones_initializer()) if scale else None
        norm_axes = list(range(begin_norm_axis, inputs_rank))
        mean, variance = tf.nn.moments(inputs, norm_axes, keepdims=True)
        variance_epsilon = 1e-12 if dtype != tf.float16 else 1e-3
        outputs = tf.nn.batch_normalization(
            inputs, mean, variance, offset=beta, scale=gamma, variance_epsilon=variance_epsilon
        )
        outputs.set_shape(inputs_shape)
        if activation_fn is not None:
            outputs = activation_fn(outputs)
        if outputs_collections:
            for collection in outputs_collections:
                v1.add_to_collection(collection, outputs)
        return outputs


def _module(name, **attributes):
    module = types.ModuleType(name)
    module.__dict__.update(attributes)
    return module


def _contrib():
    estimator_tpu = tf.compat.v1.estimator.tpu
    tpu = _module(
        "tensorflow.contrib.tpu",
        **{name: getattr(estimator_tpu, name) for name in dir(estimator_tpu) if name[0] != "_"},
    )
    tpu.CrossShardOptimizer = tf.compat.v1.tpu.CrossShardOptimizer
    return _module(
        "tensorflow.contrib",
        data=_module("tensorflow.contrib.data", map_and_batch=tf.data.experimental.map_and_batch),
        layers=_module("tensorflow.contrib.layers", layer_norm=_layer_norm),
        tpu=tpu,
        cluster_resolver=_module(
            "tensorflow.contrib.cluster_resolver",
            TPUClusterResolver=tf.distribute.cluster_resolver.TPUClusterResolver,
        ),
    )


class TF1(types.ModuleType):
    """`tensorflow` as the TF 1.x program sees it: `tf.compat.v1` plus `contrib`."""

    def __init__(self):
        super().__init__("tensorflow")
        self.__dict__["contrib"] = _contrib()
        self.__dict__["compat"] = tf.compat
        self.__dict__["__version__"] = tf.__version__

    def __getattr__(self, name):
        return getattr(tf.compat.v1, name)


@contextlib.contextmanager
def _tf1_imports():
    module = TF1()
    real_import = builtins.__import__

    def tf1_import(name, globals=None, locals=None, fromlist=(), level=0):
        if name == "tensorflow" and not level and (globals or {}).get("__name__") == "__main__":
            real_import(name, globals, locals, fromlist, level)
            return module
        return real_import(name, globals, locals, fromlist, level)

    builtins.__import__ = tf1_import
    try:
        yield
    finally:
        builtins.__import__ = real_import


class _Tee(io.TextIOBase):
    def __init__(self, stream):
        self._stream = stream
        self.lines = []
        self._partial = ""

    def write(self, text):
        self._stream.write(text)
        self._partial += text
        *complete, self._partial = self._partial.split("\n")
        self.lines.extend(complete)
        return len(text)

    def flush(self):
        self._stream.flush()


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    program, results_path, program_args = argv[1], argv[2], argv[3:]
    with open(program, "rb") as file:
        sha256 = hashlib.sha256(file.read()).hexdigest()
    tf.compat.v1.disable_v2_behavior()
    tee = _Tee(sys.stdout)
    saved_argv = sys.argv
    sys.argv = [program, *program_args]
    status = 0
    try:
        with _tf1_imports(), contextlib.redirect_stdout(tee):
            runpy.run_path(program, run_name="__main__")
    except SystemExit as exit_:
        status = exit_.code or 0
    finally:
        sys.argv = saved_argv
    if status:
        print(f"{program} exited with status {status}", file=sys.stderr)
        return 1
    found = [line[len(MARKER) :] for line in tee.lines if line.startswith(MARKER)]
    if len(found) != 1:
        print(f"expected one {MARKER.strip()} line, found {len(found)}", file=sys.stderr)
        return 1
    import tensorflow_estimator

    results = json.loads(found[0])
    # Where this run exported to: a path of this machine, not a result.
    results.pop("export_dir", None)
    record = {
        "program": os.path.relpath(os.path.abspath(program), os.getcwd()),
        "program_sha256": sha256,
        "program_args": [arg for arg in program_args if not arg.startswith("--output_dir")],
        "tensorflow": tf.__version__,
        "tensorflow_estimator": getattr(
            tensorflow_estimator, "__version__", _distribution_version("tensorflow-estimator")
        ),
        "results": results,
    }
    with open(results_path, "w") as file:
        json.dump(record, file, indent=2, sort_keys=True)
        file.write("\n")
    print(f"wrote {results_path}")
    return 0


def _distribution_version(name):
    from importlib import metadata

    return metadata.version(name)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
