"""Killing a real `portobello` process part-way, for the resume tests."""

from __future__ import annotations

import signal
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path


def kill_after_shards(args: Sequence[str], out: Path, shards: int,
                      timeout: float = 120.0) -> int:
    """Start `args`, SIGKILL it once `out` holds `shards` finished shards (a shard is
    finished when its checksum file is written) or the timeout passed; returns how many
    were finished when it died."""
    proc = subprocess.Popen(list(args))
    deadline = time.time() + timeout
    while time.time() < deadline:
        if len(list((out / "checksums").glob("part-*.json"))) >= shards:
            break
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    return len(list((out / "checksums").glob("part-*.json")))
