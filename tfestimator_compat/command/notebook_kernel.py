"""Running a notebook on a real Jupyter kernel, as "Restart & Run All" does.

Needs the `notebook` extra (`pip install tfestimator-compat[notebook]`:
nbclient, nbformat, ipykernel). The kernel is this Python with the shim
active (`kernel_launcher`), started in the notebook's directory, so magics,
`%matplotlib inline`, shell escapes and plots work as in Jupyter. Each cell's
text output is echoed to the console as it finishes; `output` writes the
executed notebook, figures included. The first failing cell stops the run,
naming the cell (counting every cell from 1) and its first line.
"""

import json
import logging
import os
import sys
import tempfile
from typing import Optional
from typing import Sequence

from tfestimator_compat.command import kernel_launcher

MISSING_EXTRA = (
    "running a notebook on a Jupyter kernel needs nbclient, nbformat and ipykernel: "
    "pip install 'tfestimator-compat[notebook]' (or pip install nbclient ipykernel)"
)
_START_TRIES = 3
_PORT_CLASH = "Address already in use"
# nbclient logs a failed start itself; `run_notebook` says it once, in its own words.
_QUIET = logging.getLogger("tfestimator_compat.notebook_kernel")
_QUIET.addHandler(logging.NullHandler())
_QUIET.propagate = False


def available() -> bool:
    """Whether nbclient, nbformat and ipykernel can be imported."""
    try:
        import ipykernel  # noqa: F401
        import nbclient  # noqa: F401
        import nbformat  # noqa: F401
    except ImportError:
        return False
    return True


def run_notebook(
    path: str, args: Sequence[str] = (), output: Optional[str] = None, tf1: bool = False
) -> int:
    """Executes every cell of the notebook at `path` on a fresh kernel; returns the exit status.

    A cell that raises stops the run with status 1; one that calls
    `sys.exit(n)` ends it with status n, as a program would. A kernel that
    does not start, or dies, is reported in one line, with status 1.
    """
    import nbformat
    from nbclient import NotebookClient

    notebook = _read(path)
    client = NotebookClient(
        notebook,
        timeout=None,
        resources={"metadata": {"path": os.path.dirname(os.path.abspath(path))}},
        log=_QUIET,
    )
    os.environ[kernel_launcher.NOTEBOOK_ARGV] = json.dumps([path, *args])
    # The kernel's own stdout and stderr: what reaches a cell comes back as its outputs.
    with tempfile.TemporaryFile() as kernel_log:
        try:
            _start_kernel(client, tf1, kernel_log)
        except KernelFailed as error:
            print(
                f"tfestimator-compat: {path}: the Jupyter kernel did not start: {error}",
                file=sys.stderr,
            )
            return 1
        with client.setup_kernel(cleanup_kc=True):
            status = _run_cells(client, notebook, path, kernel_log)
    if output:
        nbformat.write(notebook, output)
    return status


class KernelFailed(Exception):
    """The kernel process ended, or never answered; the message says why, in one line."""


def _start_kernel(client, tf1, kernel_log):
    """Starts a kernel and waits until it answers, again on new ports after a port clash.

    Jupyter picks free ports, closes them and hands them to the kernel, which
    binds them a moment later: another process can take one in between.
    """
    for _ in range(_START_TRIES):
        kernel_log.seek(0)
        kernel_log.truncate()
        client.km = _kernel_manager(tf1)
        try:
            client.start_new_kernel(stdout=kernel_log, stderr=kernel_log)
            client.start_new_kernel_client()
            return
        except (OSError, RuntimeError) as error:
            reason = _failure(kernel_log) or str(error)
        if _PORT_CLASH not in reason:
            raise KernelFailed(reason)
    raise KernelFailed(f"{reason} ({_START_TRIES} tries, each on new ports)")


def _run_cells(client, notebook, path, kernel_log):
    from nbclient.exceptions import CellExecutionError
    from nbclient.exceptions import DeadKernelError

    for index, cell in enumerate(notebook.cells):
        if cell.cell_type != "code" or not cell.source.strip():
            continue
        first_line = next(line for line in cell.source.splitlines() if line.strip()).strip()
        try:
            client.execute_cell(cell, index)
        except DeadKernelError as error:
            _echo(cell)
            reason = _failure(kernel_log) or str(error)
            print(
                f"tfestimator-compat: {path}: the kernel died in cell {index + 1} "
                f"({first_line}): {reason}",
                file=sys.stderr,
            )
            return 1
        except CellExecutionError as error:
            _echo(cell)
            if error.ename == "SystemExit":
                return _exit_status(error.evalue)
            print(error, file=sys.stderr)
            print(
                f"tfestimator-compat: {path}: cell {index + 1} failed: {first_line}",
                file=sys.stderr,
            )
            return 1
        _echo(cell)
    return 0


def _failure(kernel_log) -> str:
    """The line of the kernel's output that says why it ended: its last exception's."""
    kernel_log.seek(0)
    lines = kernel_log.read().decode("utf-8", "replace").splitlines()
    kernel_log.seek(0, os.SEEK_END)
    header = "Traceback (most recent call last):"
    if header in lines:
        after = lines[len(lines) - lines[::-1].index(header) :]
        return next((line for line in after if line and not line[0].isspace()), "")
    return next((line.strip() for line in reversed(lines) if line.strip()), "")


def _read(path):
    """The notebook, with the fields Jupyter fills in itself (cell metadata, outputs) added."""
    import nbformat

    with open(path, encoding="utf-8") as file:
        document = json.load(file)
    if document.get("nbformat", 4) >= 4:
        document.setdefault("metadata", {})
        for cell in document.get("cells", []):
            cell.setdefault("metadata", {})
            if cell.get("cell_type") == "code":
                cell.setdefault("outputs", [])
                cell.setdefault("execution_count", None)
    return nbformat.reads(json.dumps(document), as_version=4)


def _exit_status(value):
    """The status `sys.exit(value)` gives a program, from the kernel's text of `value`."""
    value = (value or "").strip()
    if value in ("", "None"):
        return 0
    try:
        return int(value)
    except ValueError:
        print(value, file=sys.stderr)
        return 1


def _kernel_manager(tf1):
    from jupyter_client import KernelManager
    from jupyter_client.kernelspec import KernelSpec
    from jupyter_client.kernelspec import KernelSpecManager

    spec = KernelSpec(
        argv=kernel_launcher.kernel_argv(tf1),
        display_name="Python (tfestimator-compat)",
        language="python",
    )

    class ShimKernelSpecs(KernelSpecManager):
        def get_kernel_spec(self, kernel_name):
            return spec

    return KernelManager(kernel_name="tfestimator-compat", kernel_spec_manager=ShimKernelSpecs())


def _echo(cell):
    """Prints a cell's text outputs, as the console fallback does."""
    for output in cell.get("outputs", []):
        if output.output_type == "stream":
            stream = sys.stderr if output.name == "stderr" else sys.stdout
            stream.write(output.text)
        elif output.output_type == "execute_result":
            text = output.get("data", {}).get("text/plain")
            if text is not None:
                print(f"Out[{output.execution_count}]: {text}")
    sys.stdout.flush()
