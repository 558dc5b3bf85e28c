"""A run's `play_code` is its game's play version, pinned to the game's golden games: the
version stays when code moves, and changes whenever play does (see tests/play_pins.py)."""

from __future__ import annotations

import pytest
from golden_cells import GOLDEN
from play_pins import golden_digest
from play_pins import pinned
from river_golden import GOLDEN as RIVER_GOLDEN

from sim.games.portobello.kind import NAME as PORTOBELLO
from sim.games.registry import game_names
from sim.games.river.kind import NAME as RIVER
from sim.run.config import play_code

GOLDENS = {PORTOBELLO: GOLDEN, RIVER: RIVER_GOLDEN}


@pytest.mark.parametrize("game", game_names())
def test_each_game_has_its_play_version_pinned_to_its_golden_games(game: str) -> None:
    """The golden tests check that play reproduces the golden games; this checks that those
    games were recorded under the play version runs are stamped with now."""
    assert pinned()[game] == {"version": play_code(game), "golden": golden_digest(GOLDENS[game])}


def test_a_runs_identity_holds_the_play_version() -> None:
    from sim.games.registry import kind
    from sim.run.config import RunConfig

    game = kind(PORTOBELLO)
    config = RunConfig(board=game.load_material("standard", None), board_ref="standard",
                       rules=game.default_rules(), agents=("random", "random"), games=2, seed=1)
    assert config.identity()["play_code"] == game.play_version
