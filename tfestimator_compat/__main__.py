"""`python -m tfestimator_compat run PROGRAM.py [ARGS...]`, as the `tfestimator-compat` command."""

import sys

from tfestimator_compat.command.cli import main

sys.exit(main())
