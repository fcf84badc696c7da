"""`tf.compat.v1.estimator.experimental.KMeans`: k-means clustering as an Estimator.

Full-batch Lloyd iterations or mini-batch k-means, seeded from random input
points, k-means++ (TensorFlow's `KmeansPlusPlusInitialization` kernel), given
centers or a callable, with squared Euclidean or cosine distance. Each step
assigns points to their nearest center with TensorFlow's `NearestNeighbors`
kernel, so the numbers are the original's, and the checkpoint keeps its
variables: `clusters`, `initialized`, and for mini-batch training the counts
(`Variable`) and, with `mini_batch_steps_per_iteration > 1`,
`clusters_updated` and `update_in_steps`.

The original chose the initial centers in a session hook before the first
step, reading input batches until all centers were chosen. Here the first
steps of training do that instead: while the centers are not all chosen, a
step picks centers from its batch and does not advance the global step. The
same batches go to initialization and then to training, so the centers and
checkpoints come out the same; only the loss logged and summarized for the
first step is that of the initialization batch (the same value when every
batch is the full data set). When training runs to the end of the input, the
global step advances once more, as in the original, whose last run of the
train op found no batch but had already run the step's increment, which
needs none (`ModelFnGraph.batch_free_train_function`): the KMeans guide's
`limit_epochs(points, num_epochs=n)` trains to global step n.
"""

from __future__ import annotations

import numpy as np
import tensorflow as tf

from tfestimator_compat.estimator import Estimator
from tfestimator_compat.export import PredictOutput
from tfestimator_compat.mode_keys import ModeKeys
from tfestimator_compat.spec import EstimatorSpec

__all__ = ["KMeansClustering"]

SQUARED_EUCLIDEAN_DISTANCE = "squared_euclidean"
COSINE_DISTANCE = "cosine"
RANDOM_INIT = "random"
KMEANS_PLUS_PLUS_INIT = "kmeans_plus_plus"
# Added to the point counts of full-batch updates, so empty clusters divide by it.
_EMPTY_CLUSTER_EPSILON = 1e-6


def _points(features, feature_columns):
    """The input points as one `(n, d)` matrix.

    A dict of features is turned into columns by `feature_columns`, or, without
    them, its tensors are joined side by side in the order of their keys.
    """
    if not isinstance(features, dict):
        return features
    if feature_columns:
        return tf.compat.v1.feature_column.input_layer(features, feature_columns)
    return tf.concat([features[key] for key in sorted(features)], axis=1)


def _rows(centers):
    """How many centers a read of a center variable holds, counted when it runs.

    `tf.shape` of the read would do, but Grappler's constant folding takes the
    shape from the training update's assignment (`k` rows) even though the
    variable was made with `validate_shape=False`, and would answer `k` before
    any center was chosen. A serialized round trip hides the shape from it.
    """
    opaque = tf.io.parse_tensor(tf.io.serialize_tensor(centers), centers.dtype)
    return tf.shape(opaque)[0]


class _Variables:
    """The clustering state, made with the original's names and in its order."""

    def __init__(self, num_clusters, use_mini_batch, steps_per_iteration):
        empty = np.zeros([0], np.float32)
        self.clusters = tf.compat.v1.Variable(
            empty, name="clusters", validate_shape=False, shape=tf.TensorShape(None)
        )
        self.initialized = tf.compat.v1.Variable(False, name="initialized")
        self.updated = self.clusters
        self.update_in_steps = None
        self.counts = None
        if use_mini_batch and steps_per_iteration > 1:
            self.updated = tf.compat.v1.Variable(
                empty, name="clusters_updated", validate_shape=False, shape=tf.TensorShape(None)
            )
            self.update_in_steps = tf.compat.v1.Variable(
                np.int64(steps_per_iteration), name="update_in_steps"
            )
            self.counts = tf.compat.v1.Variable(np.zeros([num_clusters], np.int64), name="Variable")
        elif use_mini_batch:
            self.counts = tf.compat.v1.Variable(np.ones([num_clusters], np.int64), name="Variable")

    def assign_centers(self, centers):
        """Writes the chosen centers to both copies; returns them as written."""
        written = self.clusters.assign(centers, read_value=True)
        if self.updated is not self.clusters:
            written = self.updated.assign(written, read_value=True)
        return written


class _KMeansGraph:
    """The ops of one model_fn call: distances, assignments, initialization, updates."""

    def __init__(self, points, num_clusters, params, variables):
        self.params = params
        self.variables = variables
        self.num_clusters = num_clusters
        self.cosine = params.distance_metric == COSINE_DISTANCE
        self.raw_points = points
        self.points = tf.math.l2_normalize(points, axis=1) if self.cosine else points

    def centers_kept_normalized(self):
        """Whether cosine training keeps the centers unit length (the sync copies
        and full-batch updates normalize them; plain mini-batch updates do not)."""
        params = self.params
        return self.cosine and (
            not params.use_mini_batch or params.mini_batch_steps_per_iteration > 1
        )

    def assign(self, centers):
        """`(all_distances, distance to nearest, index of nearest)` for each point."""
        if self.cosine and not self.centers_kept_normalized():
            centers = tf.math.l2_normalize(centers, axis=1)
        if self.cosine:
            all_distances = 1 - tf.matmul(self.points, centers, transpose_b=True)
            # Nearest by Euclidean distance between unit vectors, which is twice the cosine one.
            if not self.centers_kept_normalized():
                centers = tf.math.l2_normalize(centers, axis=1)
        else:
            all_distances = (
                tf.reduce_sum(tf.square(self.points), 1, keepdims=True)
                - 2 * tf.matmul(self.points, centers, transpose_b=True)
                + tf.transpose(tf.reduce_sum(tf.square(centers), 1, keepdims=True))
            )
        indices, distances = tf.raw_ops.NearestNeighbors(
            points=self.points, centers=centers, k=tf.constant(1, tf.int64)
        )
        if self.cosine:
            distances *= 0.5
        # One neighbor per point: rows of one value, flattened (the kernel's
        # outputs carry no static shape).
        return all_distances, tf.reshape(distances, [-1]), tf.reshape(indices, [-1])

    # Initialization.

    def initialize(self):
        """Adds centers chosen from this batch; returns the loss against them."""
        variables = self.variables
        current = variables.clusters.read_value()
        chosen = _rows(current)
        remaining = self.num_clusters - chosen
        with tf.control_dependencies([tf.debugging.assert_positive(remaining)]):
            new_centers = self._choose(remaining)
        if self.cosine:
            new_centers = tf.math.l2_normalize(new_centers, axis=1)
        centers = tf.cond(
            tf.equal(chosen, 0),
            lambda: new_centers,
            lambda: tf.concat([current, new_centers], 0),
        )
        written = variables.assign_centers(centers)
        done = tf.equal(self.num_clusters - _rows(written), 0)
        mark = tf.cond(done, lambda: variables.initialized.assign(True), lambda: done)
        with tf.control_dependencies([mark]):
            _, distances, _ = self.assign(tf.identity(written))
        return tf.reduce_sum(distances)

    def _choose(self, remaining):
        params = self.params
        initial = params.initial_clusters
        count = tf.shape(self.raw_points)[0]
        if isinstance(initial, str) and initial == RANDOM_INIT:
            return tf.cond(
                count <= remaining,
                lambda: tf.identity(self.raw_points),
                lambda: self._random_points(remaining, count),
            )
        if isinstance(initial, str):
            enough = tf.debugging.assert_greater_equal(count, remaining)
            with tf.control_dependencies([enough]):
                return tf.raw_ops.KmeansPlusPlusInitialization(
                    points=self.points,
                    num_to_sample=tf.cast(remaining, tf.int64),
                    seed=params.op_seed,
                    num_retries_per_sample=params.kmeans_plus_plus_num_retries,
                )
        if callable(initial):
            return initial([self.raw_points], remaining)
        initial = tf.convert_to_tensor(initial)
        with tf.control_dependencies([tf.debugging.assert_equal(remaining, tf.shape(initial)[0])]):
            return tf.identity(initial)

    def _random_points(self, remaining, count):
        indices = tf.random.uniform(
            tf.reshape(remaining, [-1]),
            minval=0,
            maxval=tf.cast(count, tf.int64),
            seed=self.params.op_seed,
            dtype=tf.int64,
        )
        return tf.gather(self.raw_points, indices)

    # Training.

    def train(self):
        """One Lloyd iteration or mini-batch step; returns the loss before it."""
        variables = self.variables
        synced = self._sync_copies() if self.params.use_mini_batch else tf.no_op()
        with tf.control_dependencies([synced]):
            _, distances, nearest = self.assign(variables.clusters.read_value())
        loss = tf.reduce_sum(distances)
        if self.params.use_mini_batch:
            update = self._mini_batch_update(nearest)
        else:
            update = self._full_batch_update(nearest)
        with tf.control_dependencies([update]):
            return tf.identity(loss)

    def _full_batch_update(self, nearest):
        sums = tf.math.unsorted_segment_sum(self.points, nearest, self.num_clusters)
        ones = tf.ones(tf.reshape(tf.shape(self.points)[0], [-1]))
        counts = tf.math.unsorted_segment_sum(tf.reshape(ones, [-1, 1]), nearest, self.num_clusters)
        centers = sums / (tf.cast(counts, sums.dtype) + _EMPTY_CLUSTER_EPSILON)
        if self.centers_kept_normalized():
            centers = tf.math.l2_normalize(centers, axis=1)
        return self.variables.clusters.assign(centers)

    def _sync_copies(self):
        """Every `mini_batch_steps_per_iteration` steps, the updated copy becomes the
        centers and the counts start again; a no-op with one step per iteration."""
        variables = self.variables
        if variables.update_in_steps is None:
            return tf.no_op()
        steps = self.params.mini_batch_steps_per_iteration

        def sync():
            with tf.control_dependencies([variables.update_in_steps.assign(steps - 1)]):
                updated = variables.updated.read_value()
                if self.cosine:
                    updated = tf.math.l2_normalize(updated, axis=1)
                with tf.control_dependencies([variables.clusters.assign(updated)]):
                    with tf.control_dependencies(
                        [variables.counts.assign(tf.zeros_like(variables.counts))]
                    ):
                        return tf.identity(variables.update_in_steps.read_value())

        return tf.cond(
            variables.update_in_steps <= 0,
            sync,
            lambda: variables.update_in_steps.assign_sub(1, read_value=True),
        )

    def _mini_batch_update(self, nearest):
        """Moves each center to the running mean of the points assigned to it."""
        variables = self.variables
        ids, positions = tf.unique(tf.reshape(nearest, [-1]))
        unique_count = tf.size(ids)
        old_centers = tf.gather(variables.updated, ids)
        added = tf.math.unsorted_segment_sum(
            tf.ones_like(positions, dtype=tf.int64), positions, unique_count
        )
        # The original ordered nothing between adding to the counts and reading
        # them, so its runs differ now and then; counting first is what most of
        # its runs did (measured with tensorflow-estimator 2.15), and is repeatable.
        counted = variables.counts.scatter_add(tf.IndexedSlices(added, ids))
        with tf.control_dependencies([counted]):
            old_counts = tf.gather(variables.counts, ids)
        rows = tf.concat(
            [tf.reshape(unique_count, [1]), tf.ones([tf.rank(self.points) - 1], tf.int32)], 0
        )
        moves = tf.math.unsorted_segment_sum(self.points, positions, unique_count)
        moves -= tf.cast(tf.reshape(added, rows), self.points.dtype) * old_centers
        rate = tf.math.reciprocal(tf.cast(old_counts + added, self.points.dtype))
        moves *= tf.reshape(rate, rows)
        return tf.group(counted, variables.updated.scatter_add(tf.IndexedSlices(moves, ids)))


class _LossRelativeChangeHook(tf.compat.v1.train.SessionRunHook):
    """Stops training once the loss changes by less than `tolerance`, relatively.

    Steps that only chose initial centers do not count.
    """

    def __init__(self, loss, trained, tolerance):
        self._fetches = {"loss": loss, "trained": trained}
        self._tolerance = tolerance
        self._previous = None

    def before_run(self, run_context):
        return tf.compat.v1.train.SessionRunArgs(self._fetches)

    def after_run(self, run_context, run_values):
        if not run_values.results["trained"]:
            return
        loss = run_values.results["loss"]
        if self._previous:
            change = abs(loss - self._previous) / (1 + abs(self._previous))
            if change < self._tolerance:
                run_context.request_stop()
        self._previous = loss


class _Params:
    """The constructor's choices, as the model_fn reads them."""

    def __init__(self, **kwargs):
        self.__dict__.update(kwargs)
        self.op_seed = None


def _num_clusters(num_clusters, initial_clusters):
    """How many centers there are: those of `initial_clusters` when it holds them."""
    if isinstance(initial_clusters, str) or callable(initial_clusters):
        count = tf.get_static_value(num_clusters) if tf.is_tensor(num_clusters) else num_clusters
        if count is None:
            raise ValueError("num_clusters must be a number, or a tensor of known value.")
        return int(count)
    rows = tf.convert_to_tensor(initial_clusters).shape[0]
    if rows is None:
        raise ValueError("initial_clusters must have a known number of rows (centers).")
    return int(rows)


def _kmeans_model_fn(features, mode, config, params):
    params.op_seed = tf.compat.v1.get_seed(params.seed)[0]
    points = _points(features, params.feature_columns)
    num_clusters = _num_clusters(params.num_clusters, params.initial_clusters)
    variables = _Variables(
        num_clusters, params.use_mini_batch, params.mini_batch_steps_per_iteration
    )
    graph = _KMeansGraph(points, num_clusters, params, variables)
    global_step = tf.compat.v1.train.get_global_step()
    hooks = []
    if mode == ModeKeys.TRAIN:
        trained = variables.initialized.read_value()
        loss = tf.cond(trained, graph.train, graph.initialize)
        step = global_step.assign_add(tf.cast(trained, global_step.dtype))
        train_op = tf.group(loss, step)
        if params.relative_tolerance is not None:
            hooks.append(_LossRelativeChangeHook(loss, trained, params.relative_tolerance))
    else:
        all_distances, distances, nearest = graph.assign(variables.clusters.read_value())
        # Each point has one distance per center (the variable itself has no static shape).
        all_distances = tf.ensure_shape(all_distances, [None, num_clusters])
        loss = tf.reduce_sum(distances)
        train_op = None
    tf.compat.v1.summary.scalar("loss/raw", loss)
    predictions = None
    export_outputs = None
    if mode != ModeKeys.TRAIN:
        predictions = {
            KMeansClustering.ALL_DISTANCES: all_distances,
            KMeansClustering.CLUSTER_INDEX: nearest,
        }
        export_outputs = {
            KMeansClustering.ALL_DISTANCES: PredictOutput(all_distances),
            KMeansClustering.CLUSTER_INDEX: PredictOutput(nearest),
            tf.saved_model.DEFAULT_SERVING_SIGNATURE_DEF_KEY: PredictOutput(nearest),
        }
    eval_metric_ops = None
    if mode == ModeKeys.EVAL:
        eval_metric_ops = {KMeansClustering.SCORE: tf.compat.v1.metrics.mean(loss)}
    return EstimatorSpec(
        mode=mode,
        predictions=predictions,
        loss=loss,
        train_op=train_op,
        eval_metric_ops=eval_metric_ops,
        training_hooks=hooks,
        export_outputs=export_outputs,
    )


class KMeansClustering(Estimator):
    """Clusters points with k-means: full-batch Lloyd iterations or mini-batches.

    With `use_mini_batch=False` each step is one Lloyd iteration over its
    batch, so the `input_fn` must give the whole data set as each batch. With
    mini-batches each step moves the centers toward the running mean of the
    points assigned to them; with `mini_batch_steps_per_iteration=n` the
    moves collect in a copy that replaces the centers every `n` steps.

    Args:
        num_clusters: how many clusters (ignored when `initial_clusters` holds
            the centers).
        model_dir: where checkpoints and summaries go.
        initial_clusters: `RANDOM_INIT` (points of the input chosen at random,
            from as many batches as it takes), `KMEANS_PLUS_PLUS_INIT` (k-means++
            on the first batch, which must hold at least `num_clusters` points),
            an array or tensor of centers, or a callable `f(inputs, k)` that
            returns up to `k` centers from the list of input batches.
        distance_metric: `SQUARED_EUCLIDEAN_DISTANCE` or `COSINE_DISTANCE`.
        seed: seed of the random choices when the `RunConfig` gives no
            `tf_random_seed` (the graph seed takes precedence, as in TF1).
        use_mini_batch: mini-batch k-means rather than full-batch.
        mini_batch_steps_per_iteration: steps between syncs of the updated copy.
        kmeans_plus_plus_num_retries: extra candidates drawn per k-means++ pick.
        relative_tolerance: stop training when the loss changes by less than this.
        config: a `RunConfig`.
        feature_columns: columns that turn a dict of features into points; by
            default the features are joined in the order of their keys.

    Example:

    ```python
    kmeans = tf.compat.v1.estimator.experimental.KMeans(num_clusters=3, use_mini_batch=False)
    input_fn = lambda: tf.data.Dataset.from_tensors(points).repeat()
    kmeans.train(input_fn, steps=10)
    centers = kmeans.cluster_centers()
    labels = list(kmeans.predict_cluster_index(input_fn_once))
    ```
    """

    SQUARED_EUCLIDEAN_DISTANCE = SQUARED_EUCLIDEAN_DISTANCE
    COSINE_DISTANCE = COSINE_DISTANCE
    RANDOM_INIT = RANDOM_INIT
    KMEANS_PLUS_PLUS_INIT = KMEANS_PLUS_PLUS_INIT
    SCORE = "score"
    CLUSTER_INDEX = "cluster_index"
    ALL_DISTANCES = "all_distances"
    CLUSTER_CENTERS_VAR_NAME = "clusters"

    def __init__(
        self,
        num_clusters,
        model_dir=None,
        initial_clusters=RANDOM_INIT,
        distance_metric=SQUARED_EUCLIDEAN_DISTANCE,
        seed=None,
        use_mini_batch=True,
        mini_batch_steps_per_iteration=1,
        kmeans_plus_plus_num_retries=2,
        relative_tolerance=None,
        config=None,
        feature_columns=None,
    ):
        if isinstance(initial_clusters, str) and initial_clusters not in (
            RANDOM_INIT,
            KMEANS_PLUS_PLUS_INIT,
        ):
            raise ValueError(
                f"initial_clusters {initial_clusters!r} is not a known initialization; "
                f"use {RANDOM_INIT!r}, {KMEANS_PLUS_PLUS_INIT!r}, centers or a callable."
            )
        if distance_metric not in (SQUARED_EUCLIDEAN_DISTANCE, COSINE_DISTANCE):
            raise ValueError(
                f"distance_metric {distance_metric!r} is not supported; use "
                f"{SQUARED_EUCLIDEAN_DISTANCE!r} or {COSINE_DISTANCE!r}."
            )
        self._distance_metric = distance_metric
        params = _Params(
            num_clusters=num_clusters,
            initial_clusters=initial_clusters,
            distance_metric=distance_metric,
            seed=seed,
            use_mini_batch=use_mini_batch,
            mini_batch_steps_per_iteration=int(mini_batch_steps_per_iteration),
            kmeans_plus_plus_num_retries=kmeans_plus_plus_num_retries,
            relative_tolerance=relative_tolerance,
            feature_columns=feature_columns,
        )

        def model_fn(features, mode, config):
            return _kmeans_model_fn(features, mode, config, params)

        super().__init__(model_fn=model_fn, model_dir=model_dir, config=config)

    def _predictions_of(self, input_fn, key):
        for prediction in self.predict(input_fn=input_fn, predict_keys=[key]):
            yield prediction[key]

    def predict_cluster_index(self, input_fn):
        """Yields the index of the nearest center of each input point."""
        yield from self._predictions_of(input_fn, self.CLUSTER_INDEX)

    def score(self, input_fn):
        """The sum of the distances from the points of the first batch to their
        nearest centers (unlike scikit-learn's `score`, not negated)."""
        return self.evaluate(input_fn=input_fn, steps=1)[self.SCORE]

    def transform(self, input_fn):
        """Yields each point's distances to all centers: Euclidean (the square root
        of the squared distances) or cosine, by the distance metric."""
        for distances in self._predictions_of(input_fn, self.ALL_DISTANCES):
            if self._distance_metric == SQUARED_EUCLIDEAN_DISTANCE:
                yield np.sqrt(distances)
            else:
                yield distances

    def cluster_centers(self):
        """The centers, as saved in the newest checkpoint."""
        return self.get_variable_value(self.CLUSTER_CENTERS_VAR_NAME)
