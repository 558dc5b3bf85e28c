"""Where compiled code is cached: a folder named by a hash of every compiled source of the
games and the shared core, set before anything is compiled.

numba checks a cached function against its own source file only, not against the files of
the functions it calls, so a change in one module would leave stale callers in the cache;
any change to a compiled source starts a fresh cache instead. The sources counted are the
core's modules and every module of the games but their fronts (the modules answering the
toolkit by role, `GameKind.facets`: a game's kind, runs, tuning, session, commands, report
and view), which compiled code never reads. A user's `NUMBA_CACHE_DIR` wins.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import numba

FRONTS = ("kind", "runs", "tuning", "session", "commands", "report", "view")


def _compiled(path: Path) -> bool:
    return not ({path.stem, *path.parent.parts} & set(FRONTS))


def cache_dir() -> Path:
    """The cache folder of the present sources."""
    sim = Path(__file__).resolve().parents[1]
    digest = hashlib.sha256()
    compiled = filter(_compiled, (sim / "games").rglob("*.py"))
    for path in sorted([*(sim / "core").rglob("*.py"), *compiled]):
        digest.update(path.relative_to(sim).as_posix().encode())
        digest.update(path.read_bytes())
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "portobello" / "numba" / digest.hexdigest()[:16]


if not os.environ.get("NUMBA_CACHE_DIR"):
    numba.config.CACHE_DIR = str(cache_dir())
