"""The `temp-<timestamp>` folders an export writes before it is complete.

An export is written under `temp-<ts>` and renamed to `<ts>` when finished
(as the original did), so a killed export never looks finished. The original
left the `temp-*` folder of a killed export behind for good; here each one
records which process owns it, and the next export into the same base folder
removes the ones whose owner is gone. A folder is never taken from a process
that may still be writing it: one whose owner is on another machine is only
removed once it has not changed for a day.

Removing an old export goes the same way backwards: it is renamed to a
`temp-*` folder first, so a kill in the middle of deleting its files never
leaves a `<ts>` folder that looks finished but cannot be loaded.
"""

import contextlib
import os
import socket
import time

import tensorflow as tf

from tfestimator_compat.engine.internals import tensorflow_internals as tf_internals

_OWNER_FILE = "tfestimator_compat.owner"
_FOREIGN_AGE_SECS = 24 * 3600


@contextlib.contextmanager
def export_folder(export_dir_base):
    """Yields `(export_dir, temp_dir)`: the export is written into `temp_dir`,
    which becomes `export_dir` when the block ends, and is removed if it raises.

    The temp folders of killed exports under `export_dir_base` go first.
    """
    tf.io.gfile.makedirs(os.fsdecode(export_dir_base))
    remove_abandoned(export_dir_base)
    export_dir, temp_dir = claim(export_dir_base)
    try:
        yield export_dir, temp_dir
        release(temp_dir)
        tf.io.gfile.rename(temp_dir, export_dir)
    except BaseException:
        if tf.io.gfile.exists(temp_dir):
            tf.io.gfile.rmtree(temp_dir)
        raise


def claim(export_dir_base):
    """A new `(export_dir, temp_dir)` pair under `export_dir_base`, the temp folder created.

    Neither may exist yet: two exports started in the same second (another
    process's, still writing) must not share a temp folder. This process is
    recorded as the temp folder's owner.
    """
    while True:
        export_dir = tf_internals.get_timestamped_export_dir(export_dir_base)  # bytes, as TF's
        temp_dir = os.fsdecode(tf_internals.get_temp_export_dir(export_dir))
        if not tf.io.gfile.exists(temp_dir):
            break
        time.sleep(1)  # timestamps are in seconds
    tf.io.gfile.makedirs(temp_dir)
    _record_owner(temp_dir)
    return export_dir, temp_dir


def remove_export(export_dir):
    """Deletes a finished export; at no moment is it a `<ts>` folder that cannot load."""
    base, version = os.path.split(os.fsdecode(export_dir).rstrip("/"))
    _record_owner(export_dir)
    doomed = os.path.join(base, f"temp-{version}-removed")
    if tf.io.gfile.exists(doomed):  # a killed removal's; its owner is gone
        tf.io.gfile.rmtree(doomed)
    tf.io.gfile.rename(export_dir, doomed)
    tf.io.gfile.rmtree(doomed)


def _record_owner(folder):
    with tf.io.gfile.GFile(os.path.join(folder, _OWNER_FILE), "w") as owner:
        owner.write(f"{socket.gethostname()} {os.getpid()}\n")


def record_owner(temp_dir):
    """Records this process as the owner of `temp_dir` again, after `release`."""
    _record_owner(temp_dir)


def release(temp_dir):
    """Removes the owner record, so the finished export holds only the SavedModel."""
    tf.io.gfile.remove(os.path.join(temp_dir, _OWNER_FILE))


def remove_abandoned(export_dir_base):
    """Removes the `temp-*` folders under `export_dir_base` whose export was killed."""
    for temp_dir in tf.io.gfile.glob(os.path.join(os.fsdecode(export_dir_base), "temp-*")):
        if _abandoned(temp_dir):
            tf.compat.v1.logging.info(
                "Removing %s, left by an export that did not finish.", temp_dir
            )
            tf.io.gfile.rmtree(temp_dir)


def _abandoned(temp_dir):
    owner_file = os.path.join(temp_dir, _OWNER_FILE)
    if not tf.io.gfile.exists(owner_file):
        return False  # not ours (the original's, or another tool's): leave it
    try:
        with tf.io.gfile.GFile(owner_file) as owner:
            host, pid = owner.read().split()
        if host == socket.gethostname():
            return not _process_alive(int(pid))
        age = time.time() - tf.io.gfile.stat(owner_file).mtime_nsec / 1e9
        return age > _FOREIGN_AGE_SECS
    except (ValueError, tf.errors.OpError):
        return False  # half-written or already removed by its owner


def _process_alive(pid):
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
