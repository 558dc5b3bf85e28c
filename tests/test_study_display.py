"""What `portobello study` shows on a terminal: one progress bar for the whole study, each
cell's line printed on a line of its own above it, nothing wider than the terminal."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import struct
import subprocess
import sys
import termios
from pathlib import Path

import pytest

from analysis.study.run import above_bar
from sim.run.execution import progress_bar

ROOT = Path(__file__).resolve().parent.parent
COLUMNS = 100
SPEC = """name = "shown"
players = [2, 3]
agents = "random"
seed = 5
shard_size = 20
games = 80
[[variants]]
name = "standard"
[[variants]]
name = "known"
preset = "known-order"
"""


def terminal_run(args: list[str], columns: int) -> str:
    """Run `args` with stderr on a pseudo-terminal `columns` wide (as a user's shell would
    give it); returns everything drawn there."""
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 40, columns, 0, 0))
    env = {**os.environ, "COLUMNS": str(columns)}
    proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=follower, env=env, cwd=ROOT)
    os.close(follower)
    drawn = bytearray()
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the terminal closes when the command ends
            break
        if not chunk:
            break
        drawn += chunk
    os.close(leader)
    assert proc.wait(timeout=300) == 0, drawn.decode(errors="replace")
    return drawn.decode()


def test_study_lines_stand_above_one_bar_within_the_terminal(tmp_path: Path) -> None:
    spec = tmp_path / "shown.toml"
    spec.write_text(SPEC)
    drawn = terminal_run([sys.executable, "-m", "sim.cli", "study", str(spec), "--out",
                          str(tmp_path / "study"), "--no-report", "--jobs", "1"], COLUMNS)
    pieces = re.split(r"[\r\n]+", drawn)
    assert max(len(p) for p in pieces) <= COLUMNS, max(pieces, key=len)
    bars = [p for p in pieces if p.startswith("games:")]
    assert bars and all("|" in p for p in bars)
    for key in ("standard-2p", "standard-3p", "known-2p", "known-3p"):
        said = [p for p in pieces if key + ":" in p]
        assert said == [f"{key}: 80 games, agents random in every seat"], said


def test_long_lines_are_wrapped_above_the_bar(monkeypatch: pytest.MonkeyPatch) -> None:
    """A cell line wider than the terminal is folded onto indented lines, not cut."""
    monkeypatch.setenv("COLUMNS", "60")
    bar = progress_bar(10, workers=1)
    said: list[str] = []
    above_bar(bar, said.append)("known-4p: " + ", ".join(["heuristic:weights=classic"] * 4))
    bar.close()
    lines = said[0].split("\n")
    assert len(lines) > 1 and all(len(line) < 60 for line in lines)
    assert all(line.startswith("    ") for line in lines[1:])
    assert " ".join(line.strip() for line in lines).count("heuristic:weights=classic") == 4
