"""The cells of River Market's golden tables: agent line-ups x presets x player counts, each
a small run whose games and players tables are hashed (see tests/test_river_golden.py and
`python tests/river_golden.py`, which records them)."""

from __future__ import annotations

import hashlib
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from analysis.load import load_run
from sim.games.registry import kind
from sim.games.river.kind import NAME as RIVER
from sim.run.config import RunConfig
from sim.run.runner import Run

GOLDEN = Path(__file__).parent / "golden" / "river_tables.json"
SEED = 20261206
LINEUPS = {"random": ["random"], "greedy": ["greedy"], "heuristic": ["heuristic"],
           "mixed": ["heuristic", "random", "greedy"], "search": ["search:iterations=20"]}
GAMES = {"random": 40, "greedy": 20, "heuristic": 20, "mixed": 20, "search": 2}
CELLS = [(name, pname, n) for name in LINEUPS for pname in ("standard", "short")
         for n in (2, 3, 5)]


def cell_digest(name: str, pname: str, players: int, out: Path) -> str:
    """A short hash of one cell's games and players tables (every column but the run's id,
    rows in game and seat order)."""
    game = kind(RIVER)
    base = LINEUPS[name]
    rules = game.rules_from_dict({**game.presets[pname], "players": players})
    config = RunConfig(board=game.load_material(game.default_material, None),
                       board_ref=game.default_material, rules=rules,
                       agents=tuple(base[s % len(base)] for s in range(players)),
                       games=GAMES[name], seed=SEED, shard_size=GAMES[name], game=RIVER)
    Run(config, out).execute(jobs=1, quiet=True)
    run = load_run(out)
    h = hashlib.sha256()
    for frame in (run.games().collect().sort("game_id"),
                  run.players().collect().sort("game_id", "seat")):
        rows = frame.drop("run_id", strict=False).to_dicts()
        h.update(json.dumps(rows, sort_keys=True, default=str).encode())
    return h.hexdigest()[:20]


def main() -> None:
    from play_pins import check_recording
    from play_pins import pin

    before = json.loads(GOLDEN.read_text())["cells"] if GOLDEN.exists() else []
    cells = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, pname, n in CELLS:
            cells.append({"lineup": name, "preset": pname, "players": n,
                          "hash": cell_digest(name, pname, n, Path(tmp) / f"{name}-{pname}-{n}")})
            print(cells[-1], flush=True)
    version = kind(RIVER).play_version
    check_recording(RIVER, version, before, cells)
    GOLDEN.write_text(json.dumps({"seed": SEED, "cells": cells}, indent=1) + "\n")
    pin(RIVER, version, GOLDEN)


if __name__ == "__main__":
    main()
