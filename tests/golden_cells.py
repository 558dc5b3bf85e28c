"""The cells of the golden action logs: agent line-ups x presets x player counts, with the
seeds of their games (see tests/golden/record.py, tests/test_golden.py)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path

from sim.run.loop import derive_seed

GOLDEN = Path(__file__).parent / "golden" / "action_logs.json"
SEED = 20261201
PRESETS = ("standard", "known-order", "spanish", "german", "negative-scores")
# name: (agents, seat by seat, repeated to the player count; games per cell). The cells
# recorded before the heuristic had weight sets pin `weights=classic`, the weights it then
# played, so they still guard the same games.
LINEUPS: dict[str, tuple[list[str], int]] = {
    "random": (["random"], 12),
    "greedy": (["greedy"], 4),
    "heuristic": (["heuristic:weights=classic"], 4),
    "tuned": (["heuristic"], 4),  # the tuned set of each player count
    "mixed": (["heuristic:weights=classic", "greedy", "random",
               "no-bobby(heuristic:weights=classic)"], 4),
    "restricted": (["first-end(heuristic:weights=classic)", "no-district(greedy)",
                    "no-customers(random)", "random:move_chance=0.1,max_moves=1"], 4),
    "fastmcts": (["fastmcts:iterations=40,weights=classic", "greedy",
                  "heuristic:weights=classic", "random"], 2),
    # The learned agent with the models shipped for each player count (recorded later).
    "expert": (["expert"], 2),
}
CELLS = [(name, pname, n, [base[s % len(base)] for s in range(n)], games)
         for name, (base, games) in LINEUPS.items() for pname in PRESETS for n in (2, 3, 4)]


def cell_seeds(name: str, pname: str, players: int, games: int) -> list[int]:
    return [derive_seed(SEED, name, pname, players, i) for i in range(games)]


def digest(logs: Sequence[Sequence[int]]) -> str:
    """A short hash of a cell's action logs, game by game."""
    h = hashlib.sha256()
    for log in logs:
        h.update(json.dumps(list(log), separators=(",", ":")).encode())
        h.update(b"\n")
    return h.hexdigest()[:20]
