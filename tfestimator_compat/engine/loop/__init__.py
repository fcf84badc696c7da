"""The step loop: the `keras.Model` whose steps run the traced model_fn, and what runs around it.

`keras_adapter` is the model; `loop_callbacks` make `fit` and `evaluate` loop as the original did;
`hook_runner` runs `SessionRunHook`s; `keras_callbacks` runs Keras callbacks given as hooks."""
