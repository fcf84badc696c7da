"""The one boundary between the package and TensorFlow's and Keras's internals.

Every private TensorFlow or Keras module the package uses (`tensorflow.python.*`,
`tensorflow.core.*`, `keras.src.*`, tf_keras's internals) and every private
attribute of a TensorFlow or Keras object it reads or sets goes through here,
and nowhere else: `tensorflow_internals` (TensorFlow's Python internals),
`tensorflow_protos` (protocol buffers TensorFlow does not export) and
`keras_internals` (Keras's). Each internal has a name that says what the
package uses it for, and what the package assumes of it.

The names are resolved (`resolver.internal`) when these modules are imported,
which `import tfestimator_compat` does: a TensorFlow release that moved or
dropped one fails there, with an `ImportError` naming what is missing and the
versions installed, rather than deep inside a user's run.
`tests/test_internals.py` checks each name against the installed TensorFlow
and Keras, and `tests/test_layout.py` that nothing outside this folder
reaches a private module.
"""
