"""Installing the shim: `tf.estimator` and the other namespaces legacy programs import, the start-up
hook, and what the package needs at import. Imports no TensorFlow at module level.
"""
