"""A model_fn's own "training is done" signal, read by the chunked step loop.

A `SessionRunHook` that stops training sees every step, so the loop runs one
step per call for it. A model_fn that knows from its own variables when it is
done (BoostedTrees, once its trees are grown) instead registers a boolean
tensor with `stop_training_when`: every step fetches it, a chunk of steps ends
after the step it comes out true at, and training ends there, as if a hook
had requested the stop after that step.
"""

import tensorflow as tf

_COLLECTION = "tfestimator_compat_stop_training"
FETCH_KEY = "stop_training"


def stop_training_when(done):
    """Ends training after a step whose `done` (a scalar bool tensor of the model_fn's
    graph, evaluated in the step) is true. Build it after the train op
    (`tf.control_dependencies`) to see the step's own updates."""
    signals = tf.compat.v1.get_collection_ref(_COLLECTION)
    if signals:
        done = tf.logical_or(signals[0], done)
    signals[:] = [done]


def stop_signal(graph):
    """The model_fn's stop tensor in `graph` (a `tf.Graph`), or None."""
    signals = graph.get_collection(_COLLECTION)
    return signals[0] if signals else None
