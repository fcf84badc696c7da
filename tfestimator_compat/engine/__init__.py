"""The engine: how a `model_fn` runs on Keras 3.

- `model_fn_graph`: the model_fn traced into a TF1-style graph, once per mode;
  `tensor_semantics` gives it TF1 tensors' behaviour;
- `variable_store`, `variable_initializers`, `partitioned_variables`,
  `random_seeds`: where the model_fn's variables live, how they start and how
  they are saved;
- `input_fn`, `input_structure`, `input_errors`, `tf1_input_graph`: how an
  input_fn's result becomes a dataset (TF1 graphs and queues included);
- `keras_adapter`: the `keras.Model` whose steps run the traced graph;
- `training_loop`, `keras_callbacks`, `summaries`, `eager`,
  `keras_optimizers_in_graph`: the loop around it and what it writes;
- `coordinated_training`: the chief's loop of a parameter-server cluster,
  which schedules the same steps onto the workers.

The public API (`Estimator`, `RunConfig`, specs, hooks, exporters) lives at the
package root and uses these modules; nothing here is API.
"""
