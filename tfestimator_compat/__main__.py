import sys

from tfestimator_compat.cli import main

sys.exit(main())
