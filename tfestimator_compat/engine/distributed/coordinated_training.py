"""The chief's training loop in a parameter-server cluster: steps scheduled onto the workers.

Keras `fit` cannot drive a `ParameterServerStrategy` here, so this loop
stands in for it around the same pieces the single-process loop uses: the
`ModelFnModel`'s multi-step function (chunks of steps in one `tf.function`)
and the `TrainingLoop` callback, which sizes each chunk so checkpoints,
summaries, logs, hooks and `max_steps` land on their steps. Each chunk is
split between the workers through the `ClusterCoordinator`; the workers run
their shares at the same time, each on the batches of its own input
pipeline, and every step adds one to the shared global step on the
parameter servers (asynchronous training: a step does not wait for the
other workers' steps). The chief waits for the whole chunk before the
callback looks at the global step, so events land where they are due.
"""

import contextlib

import tensorflow as tf

from tfestimator_compat.engine.distributed import cluster as cluster_lib
from tfestimator_compat.engine.inputs.input_fn import call_input_fn
from tfestimator_compat.engine.internals import tensorflow_internals as tf_internals
from tfestimator_compat.engine.loop.loop_callbacks import TrainingLoop


class PerWorkerInput:
    """The `input_fn` traced once per worker into that worker's own input pipeline.

    The chief calls the `input_fn` once per worker, inside a function that
    the worker then runs to make its dataset and iterator. There the
    `input_fn` gets what the original's task running that pipeline gave
    its own: its `RunConfig` (`task_type`, `task_id`,
    `global_id_in_cluster`, ...), and, where the program passed a strategy,
    an `input_context` with `num_input_pipelines` = the number of workers
    and `input_pipeline_id` = the worker's place among them, where a chief
    that trains comes first (as the original's TF1 strategy numbered them:
    the chief 0, worker i i + 1). Without a strategy the original passed no
    `input_context`: an `input_fn` that takes one gets a single pipeline's,
    and reads its whole input, as each of the original's tasks did. The
    first worker's function, traced here, tells the structure the model_fn
    is traced for.

    Args:
        coordinator: the `ClusterCoordinator`.
        input_fn, mode, params, config: as `call_input_fn` takes them
            (`config` is the chief's).
        config_of_task: `(task_type, task_id)` -> the `RunConfig` that task
            made from its own `TF_CONFIG`.
    """

    def __init__(self, coordinator, input_fn, mode, params, config, config_of_task):
        workers = tf_internals.coordinator_workers(coordinator)
        devices = tf_internals.coordinator_worker_devices(coordinator)
        pipeline_ids = _pipeline_ids(devices)
        traced = {}

        def iterator_function(index):
            context = None
            if config.train_distribute is not None:
                context = tf.distribute.InputContext(
                    num_input_pipelines=len(workers),
                    input_pipeline_id=pipeline_ids[index],
                    num_replicas_in_sync=1,
                )
            task_config = config_of_task(*_task(devices[index], config))

            def make_iterator():
                inputs = call_input_fn(input_fn, mode, params, task_config, context)
                queues = tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.QUEUE_RUNNERS)
                if inputs.reads_through_a_session or queues:
                    raise ValueError(
                        f"The input_fn at {inputs.source} reads its input through a "
                        "Session (queues, readers or queue runners), which runs only in "
                        "the chief's process; on parameter servers every worker runs its "
                        "own input pipeline. Return a tf.data.Dataset from the input_fn "
                        "(migration_guide/cluster.md#parameter-servers)."
                    )
                traced.setdefault("inputs", inputs)
                traced.setdefault("element_spec", inputs.dataset.element_spec)
                return iter(inputs.dataset)

            # As in one process, the input_fn runs as written (no autograph).
            return tf.function(make_iterator, autograph=False).get_concrete_function()

        functions = [iterator_function(index) for index in range(len(workers))]
        inputs = traced["inputs"]
        self.num_pipelines = len(workers)
        self.structure = inputs.structure
        self.input_fn = input_fn
        self.op_seeds = inputs.op_seeds
        self._element_spec = traced["element_spec"]
        spec = tf.data.IteratorSpec(self._element_spec)
        remote = []
        for worker, function in zip(workers, functions):
            value = worker.create_resource(function)
            tf_internals.set_remote_value_type_spec(value, spec)
            remote.append(value)
        self.iterator = tf_internals.PerWorkerDistributedIterator(tuple(remote))

    # What `Estimator._traced` reads of an input.
    endless = False
    # Hooks run no input ops here: each worker's input lives in its own process.
    session = None

    @property
    def unpack(self):
        return self.structure.unpack

    @property
    def features_spec(self):
        return self.structure.unpack(self._element_spec)[0]

    @property
    def labels_spec(self):
        return self.structure.unpack(self._element_spec)[1]

    @property
    def trace_key(self):
        return ("per_worker", self.structure.key, repr(self._element_spec))

    def reading(self):
        return contextlib.nullcontext()


def _task(device, config):
    """The cluster task (type, index) whose device `device` is, as its `TF_CONFIG`
    names it: the chief's job is `config`'s own (`chief`, or a legacy `master`)."""
    spec = tf.DeviceSpec.from_string(device)
    if spec.job == cluster_lib.CHIEF:
        return config.task_type, spec.task
    return spec.job, spec.task


def _pipeline_ids(devices):
    """Each worker's `input_pipeline_id`: the chief's first, then the workers' in order."""
    chief = f"/job:{cluster_lib.CHIEF}/"
    order = sorted(
        devices, key=lambda device: (not device.startswith(chief), devices.index(device))
    )
    return [order.index(device) for device in devices]


class CoordinatedTrainingLoop(TrainingLoop):
    """`TrainingLoop` for scheduled chunks: every summary and log is due at a chunk's
    first step, so a chunk never spans several of their periods (the workers'
    steps interleave, and only the first step of a chunk is one step)."""

    def _shared_period(self, periodic):
        return None


def train(coordinator, model, loop, inputs):
    """Runs `loop` (a `CoordinatedTrainingLoop` set up for `model`) to its end.

    Each call the loop asks for is split into at most one share per worker
    (`inputs`, a `PerWorkerInput`, has a pipeline for each), shares
    scheduled through `coordinator`; the first share's first step fetches
    what the loop asked of a call's first step. Training ends when the loop
    stops it (`max_steps`, a hook, a listener) or when a worker's input ends.
    """
    loop.set_model(model)
    model.stop_training = False
    loop.on_train_begin()
    while not model.stop_training:
        loop.on_train_batch_begin(0)
        multi_step = model.train_multi_step()
        ran, input_ended = _run_call(
            coordinator, model, multi_step, inputs.iterator, inputs.num_pipelines
        )
        if ran:
            loop.on_train_batch_end(0)
        if input_ended or not ran:
            break
    loop.on_train_end()


def _shares(steps, num_workers):
    """`steps` split as evenly as can be into at most `num_workers` positive parts."""
    parts = min(steps, num_workers)
    return [steps // parts + (1 if index < steps % parts else 0) for index in range(parts)]


def _run_call(coordinator, model, multi_step, iterator, num_workers):
    """Schedules one call's steps; returns how many ran and whether an input ended."""
    # Only a share's first step fetches the events (`CoordinatedTrainingLoop`).
    scheduled = [
        coordinator.schedule(multi_step, args=(iterator, tf.constant(share), tf.constant(share)))
        for share in _shares(model.chunk_request.steps, num_workers)
    ]
    input_ended, cancelled = False, None
    try:
        coordinator.join()
    except tf.errors.OutOfRangeError:
        input_ended = True  # a worker read its input to the end
    except tf.errors.CancelledError as error:
        # One share's end of input cancels the others, and which of the two errors
        # the coordinator reports first is a race: the shares tell.
        cancelled = error
    results = []
    for value in scheduled:
        try:
            results.append(value.get())
        except tf.errors.OutOfRangeError:
            input_ended = True
        except tf.errors.CancelledError:
            pass  # cancelled because another share's input ended
    if cancelled is not None and not input_ended:
        raise cancelled
    results = [result for result in results if int(result[2])]
    if not results:
        return 0, True
    ran = sum(int(result[2]) for result in results)
    first, _, _, events = results[0]
    model.record_call(first, results[-1][1], ran, events)
    return ran, input_ended
