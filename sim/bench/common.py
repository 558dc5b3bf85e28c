"""What every benchmark shares: its error type and the targets printed next to figures."""

from __future__ import annotations

from sim.core.errors import PortobelloError

TARGET_BYTES_PER_GAME = 100.0  # games + players on disk
TARGET_LOAD_SECONDS = 3.0  # load + summarise a 1,000,000-game run
TARGET_LOAD_MB = 1024.0  # peak memory of that


class BenchError(PortobelloError):
    """Bad input to a benchmark (a missing or damaged run folder, a non-search agent): one
    line on stderr and exit status 2."""

    exit_code = 2
