"""Legacy namespaces: `tf.compat.v1.layers`, the Keras 2 pieces that Keras 3 dropped, `tf.contrib`.

`layers_v1`, `keras2` and `contrib`; the shim installs them where legacy programs look for them.
"""
