"""The engine against the oracle (`tests/oracle`, an independent reading of the rules): over
2,000 random games across both readings of every rules switch, the further readings of the
switches with more than two, and 2, 3 and 4 players, each game of the compiled engine is
replayed action by action on the oracle and the whole state must be equal after every
action, the legal actions equal before each. The boards at the size limits and hypothesis'
random boards go through the same replay (`tests/differential.py`, `tests/test_limits.py`).
"""

from __future__ import annotations

import pytest
from oracle.replay import replay_agrees
from oracle.variants import MORE_VARIANTS
from oracle.variants import VARIANTS

from sim.games.portobello.board import load_board
from sim.games.portobello.engines import CompiledEngine
from sim.games.portobello.rules import Rules
from sim.run.loop import derive_seed

STANDARD = load_board("standard")
GAMES = 42  # per variant and player count: 48 rules, 2,016 games
SPECS = ["random", "random:move_chance=0.7,max_moves=4", "no-bobby(random)",
         "first-end(random)", "no-district(random)", "random:move_chance=0.05,max_moves=1"]
ALL = {**VARIANTS, **MORE_VARIANTS}


def _rules(variant: str) -> list[Rules]:
    """The variant's rules at each player count it allows (those that fix one: that one)."""
    given = ALL[variant]
    if "players" in given or "start_scores" in given:
        return [Rules(**given)]
    return [Rules(**{**given, "players": p}) for p in (2, 3, 4)]


def _games(rules: Rules, variant: str) -> tuple[list[int], list[list[str]]]:
    n = rules.players
    seeds = [derive_seed("oracle", variant, n, i) for i in range(GAMES)]
    lineups = [[SPECS[(i + p) % len(SPECS)] for p in range(n)] for i in range(GAMES)]
    return seeds, lineups


@pytest.mark.parametrize("variant", sorted(ALL))
def test_every_state_of_random_games_agrees_with_the_oracle(variant: str) -> None:
    compared = 0
    for rules in _rules(variant):
        seeds, lineups = _games(rules, variant)
        specs = sorted({s for lineup in lineups for s in lineup})
        played = CompiledEngine(STANDARD, rules, specs).play(seeds, lineups, keep_log=True)
        assert played.logs is not None
        for i, (seed, log) in enumerate(zip(seeds, played.logs, strict=True)):
            compared += replay_agrees(STANDARD, rules, seed, log, events=i < 3,
                                      where=f"{variant}, {rules.players} players, game {i}")
    # Every game was replayed to its end: at least one state per action of each game.
    assert compared > GAMES * len(_rules(variant)) * 50


def test_the_variants_cover_two_thousand_games_and_every_switch() -> None:
    """Guard: enough games, and a new rules switch joins the oracle's variants."""
    from sim.games.portobello.rules import RULE_KEYS

    assert set(VARIANTS) - {"defaults"} == set(RULE_KEYS)
    assert sum(len(_rules(v)) for v in ALL) * GAMES >= 2000
