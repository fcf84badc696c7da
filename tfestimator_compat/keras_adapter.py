"""A `keras.Model` whose train, test and predict steps run a traced `model_fn`.

The model owns no layers: the variables belong to the Estimator's
`VariableStore` and the computation is a function pruned from the
`ModelFnGraph`. Each step calls that function on the batch with a set of
fetches (the loss, the train op, metric updates, what hooks asked for); Keras
supplies the loop, `steps_per_execution`, callbacks and data handling.
"""

import keras
import tensorflow as tf


class ModelFnModel(keras.Model):
    """Runs a `ModelFnGraph` as Keras steps.

    Args:
        graph: the `ModelFnGraph` of one mode.
        has_labels: whether dataset elements are `(features, labels)`.
    """

    def __init__(self, graph, has_labels):
        super().__init__(name="model_fn")
        self._graph = graph
        self._has_labels = has_labels
        self._fetches = {}
        self._step_fn = None
        self._made_functions = {}
        self.last_outputs = None
        with tf.init_scope():
            self._loss_total = tf.Variable(0.0, trainable=False, name="eval_loss_total")
            self._loss_batches = tf.Variable(0.0, trainable=False, name="eval_loss_batches")
        self.built = True

    def set_fetches(self, fetches):
        """What each step runs and returns: a dict of tensors and ops of the graph."""
        self._fetches = dict(fetches)
        self._step_fn = self._graph.function(self._fetches)

    def _call_graph(self, data):
        if self._has_labels:
            features, labels = data
        else:
            features, labels = data, None
        outputs = self._step_fn(*self._graph.flat_inputs(features, labels))
        return {key: value for key, value in outputs.items() if value is not None}

    def train_step(self, data):
        return self._call_graph(data)

    def test_step(self, data):
        outputs = self._call_graph(data)
        if "loss" in outputs:
            self._loss_total.assign_add(tf.cast(outputs["loss"], tf.float32))
            self._loss_batches.assign_add(1.0)
        return outputs

    def predict_step(self, data):
        return self._call_graph(data)

    def reset_eval_loss(self):
        self._loss_total.assign(0.0)
        self._loss_batches.assign(0.0)

    def mean_eval_loss(self):
        """Mean of the per-batch losses, as the original's `metrics.mean(loss)`."""
        batches = self._loss_batches.numpy()
        return self._loss_total.numpy() / batches if batches else float("nan")

    def _remember_outputs(self, keras_function):
        """Wraps a Keras step function so callbacks can read the raw outputs.

        Keras hands callbacks logs converted to floats; hooks need the fetched
        values as they are, so the last outputs stay on the model.
        """

        def run(iterator):
            outputs = keras_function(iterator)
            self.last_outputs = outputs
            return {"loss": outputs["loss"]} if "loss" in outputs else {}

        return run

    def _cached(self, kind, make):
        key = (kind, tuple(sorted(self._fetches)), self.steps_per_execution)
        key += tuple(id(value) for _, value in sorted(self._fetches.items()))
        if key not in self._made_functions:
            self._made_functions[key] = (make(), dict(self._fetches))
        return self._made_functions[key][0]

    def make_train_function(self, force=False):
        def make():
            self.train_function = None
            super(ModelFnModel, self).make_train_function(force=True)
            return self._remember_outputs(self.train_function)

        self.train_function = self._cached("train", make)
        return self.train_function

    def make_test_function(self, force=False):
        def make():
            self.test_function = None
            super(ModelFnModel, self).make_test_function(force=True)
            return self._remember_outputs(self.test_function)

        self.test_function = self._cached("test", make)
        return self.test_function

    def make_predict_function(self, force=False):
        def make():
            self.predict_function = None
            super(ModelFnModel, self).make_predict_function(force=True)
            return self.predict_function

        self.predict_function = self._cached("predict", make)
        return self.predict_function

    def predict_batches(self, dataset):
        """Yields the fetched predictions of each batch, one call per batch."""
        predict = self.make_predict_function()
        for batch in dataset:
            yield predict([batch])
