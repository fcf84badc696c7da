"""The `tfestimator-compat` command's entry point, which starts without TensorFlow.

`import tfestimator_compat` installs the shim, and so imports TensorFlow: seconds
of start-up. Only `run` needs the shim; `check` parses files, `enable`,
`disable` and `status` write or read two small files, and `--help` and
`--version` print. So this entry point registers the package without running
its `__init__` and imports `tfestimator_compat.command.cli` from it (the
command's modules import no TensorFlow); `run` completes the package's import
just before it starts the program (`cli._import_the_shim`).

It lives outside the package because Python runs a package's `__init__`
before any of its modules. `python -m tfestimator_compat` runs that
`__init__` too, so it pays TensorFlow's start-up for every command.
"""

import importlib.util
import sys
from typing import List
from typing import Optional

PACKAGE = "tfestimator_compat"


def _register_package_uninitialized() -> None:
    """Makes `tfestimator_compat.<module>` importable without running the package's `__init__`."""
    if PACKAGE in sys.modules:
        return
    spec = importlib.util.find_spec(PACKAGE)
    sys.modules[PACKAGE] = importlib.util.module_from_spec(spec)


def main(argv: Optional[List[str]] = None) -> int:
    """Runs `tfestimator-compat ARGS...`; returns the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    _register_package_uninitialized()
    from tfestimator_compat.command import cli

    return cli.main(argv)


if __name__ == "__main__":
    sys.exit(main())
