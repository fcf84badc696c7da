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
import os
import sys
from typing import Optional
from typing import Sequence

from tfestimator_compat.command import kernel_launcher

MISSING_EXTRA = (
    "running a notebook on a Jupyter kernel needs nbclient, nbformat and ipykernel: "
    "pip install 'tfestimator-compat[notebook]' (or pip install nbclient ipykernel)"
)


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
    `sys.exit(n)` ends it with status n, as a program would.
    """
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    notebook = _read(path)
    client = NotebookClient(
        notebook,
        km=_kernel_manager(tf1),
        timeout=None,
        resources={"metadata": {"path": os.path.dirname(os.path.abspath(path))}},
    )
    status = 0
    os.environ[kernel_launcher.NOTEBOOK_ARGV] = json.dumps([path, *args])
    with client.setup_kernel():
        for index, cell in enumerate(notebook.cells):
            if cell.cell_type != "code" or not cell.source.strip():
                continue
            try:
                client.execute_cell(cell, index)
            except CellExecutionError as error:
                _echo(cell)
                if error.ename == "SystemExit":
                    status = _exit_status(error.evalue)
                    break
                print(error, file=sys.stderr)
                first_line = next(line for line in cell.source.splitlines() if line.strip())
                print(
                    f"tfestimator-compat: {path}: cell {index + 1} failed: {first_line.strip()}",
                    file=sys.stderr,
                )
                status = 1
                break
            _echo(cell)
    if output:
        nbformat.write(notebook, output)
    return status


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
