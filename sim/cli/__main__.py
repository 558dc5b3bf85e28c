"""`python -m sim.cli`: the `portobello` command."""

import sys

from sim.cli import main

sys.exit(main())
