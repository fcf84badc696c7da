"""What the package keeps for the life of the process, in one place, and how tests start it over.

An Estimator's state is its own (`model_state.ModelState`). A few things
belong to the process instead:

- the warnings said once per process, by key (`warn_once`);
- the event-file writer of each directory: TensorFlow starts a new events
  file per writer, and the original kept one per directory too;
- in a parameter-server cluster, this task's `tf.distribute.Server` and the
  strategy that connected the chief to its tasks (each made once: a server
  cannot be stopped), and how many `train()` calls the chief finished or this
  task served (the tasks' marker files count them).

The shim's installation (`shim/installer.py`: the namespaces it put in
`tf` and `sys.modules`) is the process's too, and stays installed.
`reset()` starts the warnings and the writers over; the cluster's objects
stay, as a process cannot make them again.
"""

import dataclasses

import tensorflow as tf


@dataclasses.dataclass
class ClusterTask:
    """This process's part of a parameter-server cluster."""

    server: object = None  # a worker's or ps task's `tf.distribute.Server`
    chief_strategy: object = None  # the chief's `ParameterServerStrategy`
    rounds_trained: int = 0  # `train()` calls the chief finished
    rounds_served: int = 0  # `train()` calls this worker or ps task served


@dataclasses.dataclass
class ProcessState:
    """Everything `tfestimator_compat` keeps beyond one Estimator."""

    warned: set = dataclasses.field(default_factory=set)
    event_writers: dict = dataclasses.field(default_factory=dict)  # directory -> (writer, made in)
    cluster_task: ClusterTask = dataclasses.field(default_factory=ClusterTask)


STATE = ProcessState()


def warn_once(key) -> bool:
    """True the first time `key` is asked for in this process (since `reset()`)."""
    if key in STATE.warned:
        return False
    STATE.warned.add(key)
    return True


def reset():
    """Forgets the warnings said and closes the event-file writers (tests call it).

    The next write to a directory starts a new events file there, as a new
    process would.
    """
    writers = [writer for writer, _ in STATE.event_writers.values()]
    STATE.event_writers.clear()
    STATE.warned.clear()
    for writer in writers:
        close_writer(writer)


def close_writer(writer):
    """Closes an event-file writer whose directory may be gone (nothing left to flush into)."""
    try:
        writer.close()
    except tf.errors.OpError:
        pass
