"""River Market's golden tables: hashes of small runs per agent line-up, preset and player
count, recorded when River Market's play got its version (`python tests/river_golden.py`)
and required unchanged since, so a refactor that alters play is caught."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from river_golden import CELLS
from river_golden import GOLDEN
from river_golden import cell_digest

RECORDED = {(c["lineup"], c["preset"], c["players"]): c["hash"]
            for c in json.loads(GOLDEN.read_text())["cells"]}


def test_every_cell_is_recorded() -> None:
    assert set(RECORDED) == set(CELLS)


@pytest.mark.parametrize(("name", "pname", "players"), CELLS,
                         ids=[f"{c[0]}-{c[1]}-{c[2]}p" for c in CELLS])
def test_river_tables_match_the_golden_hashes(name: str, pname: str, players: int,
                                              tmp_path: Path) -> None:
    assert cell_digest(name, pname, players, tmp_path / "run") == RECORDED[name, pname, players]
