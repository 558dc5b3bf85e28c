"""Portobello Market's answers to tuning (its "tuning" facet, `GameKind.facet("tuning")`):
what `portobello tune` (rules toward fair seats, `sim.tuning.games.FairnessFacet`) and
`portobello agents tune` (the heuristic's weights by self-play,
`sim.tuning.games.WeightsFacet`) ask of the game.

Fair seats: the seat bonus is `start_scores` (points over a seat's start score, a negative
bonus takes points away); a knob may set any rules switch but the player count, and one
customer pair's multiplier as `multipliers.<pair>`; a setting's games are played by the
engine the agents need (`sim.games.portobello.engines.select_engine`), and recommended
rules are written as a rules file (`sim.core.toml_text.rules_toml`).

Weights: the heuristic's (`sim.games.portobello.agents.evaluate.Weights`), each in a range
a good player could plausibly use (`BOUNDS`); a candidate is played as an explicit
`heuristic:weights=classic,...` spec on the compiled engine, and may be made to beat its own
restricted versions (`GUARDS`, the restriction wrappers).
"""

from __future__ import annotations

from collections.abc import Mapping
from collections.abc import Sequence
from typing import Any

import numpy as np

from sim.core.toml_text import rules_toml
from sim.games.portobello.agents.evaluate import Weights
from sim.games.portobello.agents.registry import time_budget
from sim.games.portobello.agents.restricted import WRAPPERS
from sim.games.portobello.agents.weight_sets import DEFAULT
from sim.games.portobello.rules import DEFAULT_MULTIPLIERS
from sim.games.portobello.rules import RULE_KEYS
from sim.games.portobello.rules import Rules

__all__ = ["BONUS_COLUMN", "BONUS_LEAST", "BONUS_WORDS", "BOUNDS", "DEFAULT_AGENTS", "GUARDS",
           "KNOB_SWITCHES", "SEAT_BONUS", "START", "SWITCH_HINT", "apply_knobs",
           "chosen_weights", "integer_switch", "play_scores", "play_seeds", "resolve_weights",
           "rules_file", "seat_values", "spec_of", "time_budget", "tuning_identity",
           "weights_spec"]

# -- rules toward fair seats (sim.tuning.games.FairnessFacet) ---------------------------------
SEAT_BONUS = "start_scores"
BONUS_WORDS = "bonus points"
BONUS_COLUMN = "start scores"
BONUS_LEAST: int | None = None  # a negative bonus takes points away
MULTIPLIER = "multipliers."  # a knob of one customer pair's multiplier: multipliers.<pair>
_PAIRS = tuple(MULTIPLIER + p for p in DEFAULT_MULTIPLIERS)
KNOB_SWITCHES = (*(k for k in RULE_KEYS if k not in ("players", "multipliers", "start_score")),
                 *_PAIRS)
SWITCH_HINT = (f"a rules switch (not players; start_scores for seat bonuses; {MULTIPLIER}<pair> "
               f"for one multiplier: {', '.join(_PAIRS)})")
DEFAULT_AGENTS = "heuristic"


def seat_values(rules: Rules) -> tuple[int, ...]:
    """Every seat's start score: the base a start-score bonus is added to."""
    return tuple(rules.seat_start_scores)


def integer_switch(switch: str) -> bool:
    """Whether a knob's switch takes low and high: the start scores, the stall count, a
    multiplier and every switch whose default is an integer."""
    default = 0 if switch in (SEAT_BONUS, "stalls_per_player") else DEFAULT_MULTIPLIERS.get(
        switch[len(MULTIPLIER):], getattr(Rules(), switch, None))
    return isinstance(default, int) and not isinstance(default, bool)


def apply_knobs(fixed: Rules, changes: Mapping[str, Any]) -> Rules:
    """The fixed rules with a setting's changes, validated; `multipliers.<pair>` changes are
    folded into the fixed rules' multipliers (left alone when no value differs)."""
    multipliers = dict(fixed.multipliers)
    plain: dict[str, Any] = {}
    for switch, value in changes.items():
        if switch.startswith(MULTIPLIER):
            multipliers[switch[len(MULTIPLIER):]] = int(value)
        else:
            plain[switch] = value
    if multipliers != dict(fixed.multipliers):
        plain["multipliers"] = tuple(multipliers.items())
    return fixed.with_changes(**plain)


def play_seeds(board: Any, rules: Rules, lineup: Sequence[str], seeds: Sequence[int]
               ) -> tuple[np.ndarray, np.ndarray]:
    """Games of these seeds with `lineup` in each, on the engine the agents need: every
    seat's score and each game's rounds."""
    from sim.games.portobello.engines import select_engine

    engine = select_engine(board, rules, list(lineup))
    res = engine.play(list(seeds), [list(lineup)] * len(seeds))
    return np.asarray(res.scores, np.int64), np.asarray(res.rounds, np.int64)


def rules_file(rules: Rules, source: str) -> str:
    """The rules as a rules file (`--rules FILE`), its header naming `source`."""
    return rules_toml(rules, source)


# -- the heuristic's weights (sim.tuning.games.WeightsFacet) ----------------------------------
# Ranges wide enough to hold the classic weights well inside (fill and end are chance
# factors, so at most 1; `rival` below 0.3 would stop watching the others).
BOUNDS: dict[str, tuple[float, float]] = {
    "lane": (0.3, 2.0),
    "fill": (0.3, 1.0),
    "end": (0.3, 1.0),
    "district": (0.0, 2.0),
    "growth": (0.0, 0.6),
    "horizon": (0.5, 8.0),
    "majority": (0.0, 2.0),
    "stall": (0.0, 2.0),
    "tempo": (0.0, 4.0),
    "bobby": (0.0, 1.0),
    "rival": (0.3, 1.5),
}
START = DEFAULT  # the tuned set of the game's player count
GUARDS = WRAPPERS  # the restriction wrappers: no-bobby(...), first-end(...), ...


def resolve_weights(ref: str, players: int) -> dict[str, float]:
    """The weights of a weight set's name or file for `players` players, by name."""
    from sim.games.portobello.agents.weight_sets import resolve

    return resolve(ref, players).weights.as_dict()


def spec_of(weights: Weights | Mapping[str, float], wrapper: str | None = None) -> str:
    """The heuristic agent playing exactly these weights, whatever the shipped sets say (in
    a restriction wrapper when given)."""
    if not isinstance(weights, Weights):
        weights = Weights(**weights)
    body = ",".join(f"{k}={v:g}" for k, v in weights.as_dict().items())
    spec = f"heuristic:weights=classic,{body}"
    return f"{wrapper}({spec})" if wrapper else spec


def weights_spec(weights: Mapping[str, float]) -> str:
    """The agent spec a tuning plays these weights as (`spec_of`)."""
    return spec_of(weights)


def tuning_identity(board: Any, rules: Rules) -> dict[str, Any]:
    """What a weight tuning's games depend on besides seeds and line-ups."""
    return {"board_hash": board.content_hash, "rules": rules.to_dict()}


def play_scores(board: Any, rules: Rules, games: Sequence[tuple[int, list[str]]]
                ) -> np.ndarray:
    """Every seat's final score of these games (seed and line-up each) on the compiled
    engine, a row per game."""
    from sim.games.portobello.engines import CompiledEngine

    specs = sorted({s for _, lineup in games for s in lineup})
    engine = CompiledEngine(board, rules, specs)
    res = engine.play([g for g, _ in games], [lineup for _, lineup in games])
    return np.asarray(res.scores, np.int64)


def chosen_weights(tuning: Any) -> Weights:
    """The weights a finished tuning's final evaluation chose (`sim.tuning.search.Tuning`)."""
    final = tuning.final
    assert final is not None
    return Weights(**final["finalists"][final["chosen"]]["weights"])
