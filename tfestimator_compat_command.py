"""The `tfestimator-compat` command's entry point, which starts `check` without TensorFlow.

`import tfestimator_compat` installs the shim, and so imports TensorFlow: seconds
of start-up. `check` only parses files, and `--help` only prints, so for them
this entry point registers the package without running its `__init__` and
imports `tfestimator_compat.command.cli` from it; the modules `check` reads (`check`,
`api_surface`, `auto_activation`) import no TensorFlow. Every other command
imports the package as usual, so `run` and `enable` see the shim installed.

It lives outside the package because Python runs a package's `__init__`
before any of its modules. `python -m tfestimator_compat` runs that
`__init__` too, so it pays TensorFlow's start-up even for `check`.
"""

import importlib.util
import sys
from typing import List
from typing import Optional

PACKAGE = "tfestimator_compat"
# First arguments whose command needs no shim.
_WITHOUT_SHIM = frozenset(["check", "-h", "--help"])


def needs_shim(argv: List[str]) -> bool:
    """False for `check` and for help, which must not wait for TensorFlow."""
    return bool(argv) and argv[0] not in _WITHOUT_SHIM


def _register_package_uninitialized() -> None:
    """Makes `tfestimator_compat.<module>` importable without running the package's `__init__`."""
    if PACKAGE in sys.modules:
        return
    spec = importlib.util.find_spec(PACKAGE)
    sys.modules[PACKAGE] = importlib.util.module_from_spec(spec)


def main(argv: Optional[List[str]] = None) -> int:
    """Runs `tfestimator-compat ARGS...`; returns the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if not needs_shim(argv):
        _register_package_uninitialized()
    from tfestimator_compat.command import cli

    return cli.main(argv)


if __name__ == "__main__":
    sys.exit(main())
