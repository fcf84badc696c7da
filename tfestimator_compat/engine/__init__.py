"""The engine: how a `model_fn` runs on Keras 3.

Grouped by concern, each a folder:

- `tracing/`: the model_fn traced into a TF1-style graph, once per mode
  (`model_fn_graph`), with TF1 tensors' behaviour, its random ops and seeds;
- `variables/`: where the model_fn's variables live (`variable_store`), how
  they start, which ops write them, partitioned variables and lookup tables;
- `inputs/`: how an input_fn's result becomes a dataset (TF1 graphs, queues
  and iterators included);
- `loop/`: the `keras.Model` whose steps run the traced graph
  (`keras_adapter`), the callbacks that make `fit` loop as the original did,
  and the runner of `SessionRunHook`s;
- `state/`: what is kept on disk: checkpoints in the original's layout, the
  Scaffold's savers, event files, text protos;
- `distributed/`: `TF_CONFIG`, `tf.distribute` strategies, parameter-server
  clusters and the chief's coordinated loop.
- `internals/`: the one boundary to TensorFlow's and Keras's private modules
  and attributes, each under a name that says what it is used for, resolved
  (and so checked) when the package is imported.

`keras_flavours` tells Keras 3 objects from tf_keras ones; `logs` keeps the
package's own TensorFlow calls quiet. The public API (`Estimator`,
`RunConfig`, specs, hooks, exporters) lives at the package root and uses these
modules; nothing here is API, and nothing here imports the API.
"""
