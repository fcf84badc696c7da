"""Writes `estimator_modules.json`: the names each module path of the original held.

For every module of tensorflow-estimator 2.15 that programs imported from
(`tensorflow.python.estimator.X` re-exported `tensorflow_estimator.python.estimator.X`),
each public class or function defined there or exported by it is recorded
with its public API name (`v2:estimator.DNNClassifier`, `v1:...`), or with
`module:<its module>` where it had none. Also writes `estimator_private_names.json`:
the private (`_x`) names each module held, so that importing one the shim lacks
names it and the migration guide rather than failing as a typo would.

usage: /work/ref215/bin/python make_estimator_modules.py
"""

import importlib
import inspect
import json
import os

MODULES = (
    "estimator",
    "estimator_lib",
    "model_fn",
    "mode_keys",
    "run_config",
    "training",
    "exporter",
    "extenders",
    "early_stopping",
    "util",
    "export.export",
    "export.export_lib",
    "export.export_output",
    "inputs.inputs",
    "inputs.numpy_io",
    "inputs.pandas_io",
    "canned.baseline",
    "canned.dnn",
    "canned.dnn_linear_combined",
    "canned.head",
    "canned.kmeans",
    "canned.linear",
    "canned.metric_keys",
    "canned.optimizers",
    "canned.parsing_utils",
    "canned.prediction_keys",
    "canned.rnn",
    "head.base_head",
    "head.binary_class_head",
    "head.multi_class_head",
    "head.multi_head",
    "head.multi_label_head",
    "head.regression_head",
    "head.sequential_head",
    "hooks.hooks",
)
PREFIX = "tensorflow_estimator.python.estimator."


def describe(module):
    names = {}
    for name, value in vars(module).items():
        if name.startswith("_") or not (inspect.isclass(value) or inspect.isfunction(value)):
            continue
        v2 = getattr(value, "_estimator_api_names", ())
        v1 = getattr(value, "_estimator_api_names_v1", ())
        if "_estimator_api_names" in vars(value) or "_estimator_api_names_v1" in vars(value):
            names[name] = f"v2:{v2[0]}" if v2 else f"v1:{v1[0]}"
        elif getattr(value, "__module__", "") == module.__name__:
            names[name] = f"module:{module.__name__[len(PREFIX) :]}"
    return dict(sorted(names.items()))


def private_names(module):
    return sorted(
        name
        for name, value in vars(module).items()
        if name.startswith("_") and not name.startswith("__") and not inspect.ismodule(value)
    )


def write(file_name, table):
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), file_name)
    with open(path, "w") as f:
        json.dump(table, f, indent=1)
        f.write("\n")


def main():
    modules = {name: importlib.import_module(PREFIX + name) for name in MODULES}
    write("estimator_modules.json", {name: describe(module) for name, module in modules.items()})
    private = {name: private_names(module) for name, module in modules.items()}
    write("estimator_private_names.json", {name: names for name, names in private.items() if names})


if __name__ == "__main__":
    main()
