"""Entry point: ``python -m constructions.crasp`` (see :mod:`constructions.crasp.cli`)."""

import sys

from constructions.crasp.cli import main

sys.exit(main())
