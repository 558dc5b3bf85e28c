"""`python -m sim.cli`: the `portobello` command."""

import sys

from sim.cli.main import main

sys.exit(main())
