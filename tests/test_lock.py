"""The one-writer lock of a run folder, raced by many processes at once.

Each racer waits for a common start, tries to take the lock, and while it holds it appends
its enter and leave times to a log; no two holding intervals may overlap, in any trial, and
the lock is never left behind. The trials start from a free folder and from a stale lock
file left by a process that no longer exists (the case two racers used to both take over).
"""

from __future__ import annotations

import itertools
import multiprocessing as mp
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from sim.run.config import RunError
from sim.run.store import LOCK_NAME
from sim.run.store import run_lock

RACERS = 8
TRIALS = 6


def _racer(folder: str, log: str, start: float) -> None:
    while time.time() < start:
        time.sleep(0.0005)
    try:
        with run_lock(Path(folder)):
            enter = time.monotonic()
            time.sleep(0.03)
            leave = time.monotonic()
            with open(log, "a") as f:
                f.write(f"{enter} {leave}\n")
    except RunError:
        pass


def _race(folder: Path, log: Path) -> list[tuple[float, float]]:
    ctx = mp.get_context("fork")
    start = time.time() + 0.3
    procs = [ctx.Process(target=_racer, args=(str(folder), str(log), start))
             for _ in range(RACERS)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(30)
        assert p.exitcode == 0
    if not log.exists():
        return []
    return sorted(tuple(map(float, line.split())) for line in log.read_text().splitlines())


@pytest.mark.parametrize("stale", [False, True])
def test_racing_processes_never_hold_the_lock_together(tmp_path: Path, stale: bool) -> None:
    for trial in range(TRIALS):
        folder, log = tmp_path / f"run{trial}", tmp_path / f"log{trial}"
        folder.mkdir()
        if stale:
            dead = subprocess.Popen([sys.executable, "-c", "pass"])
            dead.wait()
            (folder / LOCK_NAME).write_text(f"{os.uname().nodename} {dead.pid}")
        held = _race(folder, log)
        assert held, "someone must get the lock"
        for (_, leave), (enter, _) in itertools.pairwise(held):
            assert enter >= leave, f"two holders at once in trial {trial}: {held}"
        assert not (folder / LOCK_NAME).exists()


def test_a_second_writer_is_told_who_holds_it(tmp_path: Path) -> None:
    held_by = rf"lock held by \S+ {os.getpid()}"
    with run_lock(tmp_path), pytest.raises(RunError, match=held_by), run_lock(tmp_path):
        pass
