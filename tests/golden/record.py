"""Record the golden action-log hashes (tests/golden/action_logs.json).

Run this only when a change is meant to change how games are played, and say so in the
commit: the file guards behaviour across refactors, so a hash that changes by accident is
a bug. `python tests/golden/record.py` rewrites the file from the step engine (games played
decision by decision through `Game`) and checks the compiled engine against it;
`record.py NAME...` re-records only the cells of those line-ups (a new line-up, or one whose
play was meant to change) and keeps the others. A recorded cell changes only under a new
play version (`GameKind.play_version`): the file is pinned to it (tests/play_pins.py).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from golden_cells import CELLS
from golden_cells import GOLDEN
from golden_cells import SEED
from golden_cells import cell_seeds
from golden_cells import digest
from play_pins import check_recording
from play_pins import pin

from sim.games.portobello.board import load_board
from sim.games.portobello.engines import CompiledEngine
from sim.games.portobello.engines import StepEngine
from sim.games.portobello.engines import supports
from sim.games.portobello.kind import NAME as PORTOBELLO
from sim.games.portobello.rules import preset
from sim.games.registry import kind


def main(only: list[str]) -> None:
    board = load_board("standard")
    before = json.loads(GOLDEN.read_text())["cells"] if GOLDEN.exists() else []
    kept = {}
    if only:
        kept = {(c["lineup"], c["preset"], c["players"]): c for c in before}
    cells = []
    for name, pname, n, lineup, games in CELLS:
        old = kept.get((name, pname, n))
        if only and name not in only and old is not None:
            cells.append(old)
            continue
        rules = preset(pname).with_changes(players=n)
        seeds = cell_seeds(name, pname, n, games)
        ref = StepEngine(board, rules).play(seeds, [lineup] * games, keep_log=True)
        h = digest(ref.logs or [])
        if supports(lineup):
            fast = CompiledEngine(board, rules, lineup).play(seeds, [lineup] * games,
                                                             keep_log=True)
            assert digest(fast.logs or []) == h, (name, pname, n)
        cells.append({"lineup": name, "agents": lineup, "preset": pname, "players": n,
                      "games": games, "hash": h})
        print(name, pname, n, h, flush=True)
    version = kind(PORTOBELLO).play_version
    check_recording(PORTOBELLO, version, before, cells)
    GOLDEN.write_text(json.dumps({"seed": SEED, "board": "standard", "cells": cells},
                                 indent=1) + "\n")
    pin(PORTOBELLO, version, GOLDEN)


if __name__ == "__main__":
    main(sys.argv[1:])
