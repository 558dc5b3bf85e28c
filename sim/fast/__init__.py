"""Compiled (numba) fast paths for the simulator: the engine, the random, greedy and
heuristic agents, whole games in batches, and the MCTS search.

Compiled code is cached on disk so that only the first run pays for compilation. numba
checks a cached function against its own source file only, not against the files of the
functions it calls; a change in `engine.py` would leave a stale `play_batch` in the cache.
So the cache lives in a folder named by a hash of every source file of this package:
any change to any of them starts a fresh cache. `NUMBA_CACHE_DIR` set by the user wins.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import numba


def _cache_dir() -> Path:
    here = Path(__file__).parent
    shared = here.parent / "engine"
    digest = hashlib.sha256()
    # The compiled code folds in the shared codes and compiles the action encoding too.
    for path in [*sorted(here.glob("*.py")), shared / "codes.py", shared / "actions.py"]:
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "portobello" / "numba" / digest.hexdigest()[:16]


if not os.environ.get("NUMBA_CACHE_DIR"):
    numba.config.CACHE_DIR = str(_cache_dir())
