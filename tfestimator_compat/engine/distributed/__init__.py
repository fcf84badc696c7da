"""Clusters: `TF_CONFIG`, `tf.distribute` strategies, parameter servers and their sessions."""
