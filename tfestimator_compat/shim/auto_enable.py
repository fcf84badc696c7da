"""`tfestimator-compat enable` / `disable` / `status`: the start-up hook in site-packages.

`enable` writes two files into a site directory (the environment's
site-packages by default):

- `_tfestimator_compat_startup.py`, a copy of `startup.py`: standard library
  only, so it works before any package is imported;
- `tfestimator_compat_autoactivate.pth`, one line that imports it at start-up
  and names this package's directory: once `pip uninstall` has removed that
  directory, the next interpreter to start removes both files.

Python runs `.pth` lines that start with `import` for every interpreter of the
environment, so plain `python old.py` and Jupyter kernels activate the shim
when they import TensorFlow. The hook is a copy, not an import of this
package, because importing `tfestimator_compat` imports TensorFlow.
"""

import os
import sysconfig
from pathlib import Path
from typing import List
from typing import Optional

PTH_NAME = "tfestimator_compat_autoactivate.pth"
MODULE_NAME = "_tfestimator_compat_startup"


def default_site_dir() -> str:
    """The environment's site-packages: where `pip install` puts pure-Python packages."""
    return sysconfig.get_paths()["purelib"]


def hook_files(site_dir: Optional[str] = None) -> List[Path]:
    """The `.pth` file and the hook module, in `site_dir`."""
    directory = Path(site_dir or default_site_dir())
    return [directory / PTH_NAME, directory / f"{MODULE_NAME}.py"]


def _expected_contents() -> List[str]:
    # The package's folder: once it is gone (uninstalled), the hook removes itself.
    package_dir = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    pth_line = f"import {MODULE_NAME}; {MODULE_NAME}.install({package_dir!r})\n"
    source = Path(__file__).with_name("startup.py").read_text(encoding="utf-8")
    return [pth_line, source]


def enable(site_dir: Optional[str] = None) -> List[Path]:
    """Writes the hook files (again, if they differ); returns their paths."""
    directory = Path(site_dir or default_site_dir())
    directory.mkdir(parents=True, exist_ok=True)
    paths = hook_files(str(directory))
    # The module first: a .pth line naming a missing module would fail at every start-up.
    for path, contents in reversed(list(zip(paths, _expected_contents()))):
        if not path.exists() or path.read_text(encoding="utf-8") != contents:
            temporary = path.with_name(path.name + ".tmp")
            temporary.write_text(contents, encoding="utf-8")
            os.replace(temporary, path)
    return paths


def disable(site_dir: Optional[str] = None) -> List[Path]:
    """Removes the hook files; returns the paths that were there."""
    removed = []
    for path in hook_files(site_dir):
        if path.exists():
            path.unlink()
            removed.append(path)
    return removed


def status(site_dir: Optional[str] = None) -> str:
    """ "enabled", "disabled", or "outdated" (written by another version of the package)."""
    paths = hook_files(site_dir)
    present = [path.exists() for path in paths]
    if not any(present):
        return "disabled"
    if not all(present):
        return "outdated"
    written = [path.read_text(encoding="utf-8") for path in paths]
    return "enabled" if written == _expected_contents() else "outdated"
