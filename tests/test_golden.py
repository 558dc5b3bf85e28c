"""Golden action logs: hashes of whole games per agent line-up, rules preset and player
count, recorded when the generator became the counter-based SplitMix64 one (run format
portobello-run/2, commit 105878e) and required unchanged since.

The differential tests (tests/differential.py, every game replayed on the oracle in
tests/oracle) catch a change that makes the engine disagree with an independent reading of
the rules; these catch a change that alters both alike (the way python-chess keeps perft
counts). Every cell with a compiled row is checked on the compiled engine; the step engine
(`StepEngine`, games played decision by decision through `Game`) is checked on every cell
of the standard and known-order presets here, and on all of them with
`PORTOBELLO_GOLDEN=full` (`make golden`).
"""

from __future__ import annotations

import json
import os

import pytest
from golden_cells import CELLS
from golden_cells import GOLDEN
from golden_cells import cell_seeds
from golden_cells import digest

from sim.games.portobello.board import load_board
from sim.games.portobello.engines import CompiledEngine
from sim.games.portobello.engines import StepEngine
from sim.games.portobello.engines import supports
from sim.games.portobello.rules import preset

BOARD = load_board("standard")
RECORDED = {(c["lineup"], c["preset"], c["players"]): c for c in
            json.loads(GOLDEN.read_text())["cells"]}
FULL = os.environ.get("PORTOBELLO_GOLDEN") == "full"


def test_every_cell_is_recorded() -> None:
    assert set(RECORDED) == {(name, pname, n) for name, pname, n, _, _ in CELLS}
    for name, pname, n, lineup, games in CELLS:
        cell = RECORDED[name, pname, n]
        assert (cell["agents"], cell["games"]) == (lineup, games)


@pytest.mark.parametrize(("name", "pname", "players", "lineup", "games"), CELLS,
                         ids=[f"{c[0]}-{c[1]}-{c[2]}p" for c in CELLS])
def test_action_logs_match_the_golden_hashes(name: str, pname: str, players: int,
                                             lineup: list[str], games: int) -> None:
    rules = preset(pname).with_changes(players=players)
    seeds = cell_seeds(name, pname, players, games)
    want = RECORDED[name, pname, players]["hash"]
    checked = False
    if supports(lineup):
        res = CompiledEngine(BOARD, rules, lineup).play(seeds, [lineup] * games, keep_log=True)
        assert digest(res.logs or []) == want, "compiled engine"
        checked = True
    if FULL or pname in ("standard", "known-order") or not checked:
        res = StepEngine(BOARD, rules).play(seeds, [lineup] * games, keep_log=True)
        assert digest(res.logs or []) == want, "step engine"
