"""River Market's answers to tuning (its "tuning" facet, `GameKind.facet("tuning")`): what
`portobello tune` of a spec with `game = "river-market"` (rules toward fair seats,
`sim.tuning.games.FairnessFacet`) and `portobello agents tune --game river-market` (the
heuristic's weights by self-play, `sim.tuning.games.WeightsFacet`) ask of the game.

Fair seats: the seat bonus is `seat_coins` (extra starting Coins over a seat's extra Coins
under the fixed rules, none by default; never negative, Coins cannot be); a knob may set any
rules switch but the player count, its integer switches (`houses`, `start_coins`,
`hand_limit`, ...) by low and high; a setting's games are played in River Market's compiled
batches, as a run's shards play them, their length in turns around the table; recommended
rules are written as a River Market rules file.

Weights: the heuristic's (`sim.games.river.agents.WEIGHTS`) in `BOUNDS`, played as
`heuristic:weights=greedy,...` with every weight given; a tuning starts from the greedy
agent's weights, and River Market's agents have no restricted versions.
"""

from __future__ import annotations

from collections.abc import Mapping
from collections.abc import Sequence
from typing import Any

import numpy as np

from sim.core.toml_text import toml_value
from sim.games.river.kind import NAME
from sim.games.river.rules import KEYS
from sim.games.river.rules import RANGES
from sim.games.river.rules import RiverRules
from sim.games.river.rules import river_rules
from sim.games.river.weight_sets import GREEDY

__all__ = ["BONUS_COLUMN", "BONUS_LEAST", "BONUS_WORDS", "BOUNDS", "DEFAULT_AGENTS", "GUARDS",
           "KNOB_SWITCHES", "SEAT_BONUS", "START", "SWITCH_HINT", "apply_knobs",
           "integer_switch", "play_scores", "play_seeds", "resolve_weights", "rules_file",
           "seat_values", "tuning_identity", "weights_spec"]

# -- rules toward fair seats (sim.tuning.games.FairnessFacet) ---------------------------------
SEAT_BONUS = "seat_coins"
BONUS_WORDS = "extra Coins"
BONUS_COLUMN = "extra Coins"
BONUS_LEAST: int | None = 0  # a bonus adds Coins, it cannot take any away
_SWITCHES = tuple(k for k in KEYS if k != "players")
KNOB_SWITCHES = _SWITCHES
SWITCH_HINT = ("a River Market rules switch (not players; seat_coins for seat bonuses: "
               + ", ".join(_SWITCHES) + ")")
DEFAULT_AGENTS = "greedy"


def seat_values(rules: RiverRules) -> tuple[int, ...]:
    """Every seat's extra Coins under the rules (none unless they give some)."""
    return tuple((list(rules.seat_coins) + [0] * rules.players)[:rules.players])


def integer_switch(switch: str) -> bool:
    """Whether a knob's switch takes low and high: the extra Coins and the ranged
    switches."""
    return switch == SEAT_BONUS or switch in RANGES


def apply_knobs(fixed: RiverRules, changes: Mapping[str, Any]) -> RiverRules:
    """The fixed rules with a setting's changes, validated as a rules file's are."""
    return river_rules(changes, base=fixed)


def play_seeds(cards: Any, rules: RiverRules, lineup: Sequence[str], seeds: Sequence[int]
               ) -> tuple[np.ndarray, np.ndarray]:
    """Games of these seeds with `lineup` in each, in the compiled batches: every seat's
    score and each game's rounds (turns around the table). The tables of a setting are built
    once a worker, the last setting's kept (a setting's tasks follow one another)."""
    from sim.games.river.play import RES_SCORES
    from sim.games.river.play import RES_TURNS
    from sim.games.river.play import play as play_batch
    from sim.games.river.tables import cached_tables

    n = rules.players
    out = play_batch(cached_tables(cards, rules), np.asarray(seeds, np.uint64),
                     [list(lineup)] * len(seeds))
    return out[:, RES_SCORES:RES_SCORES + n].astype(np.int64), -(-out[:, RES_TURNS] // n)


def rules_file(rules: RiverRules, source: str) -> str:
    """The rules as a rules file (TOML): the switches that differ from the rulebook's, and
    the player count; `river_rules` reads back the same rules."""
    lines = [f"# River Market rules: {source}.",
             "# A rules file: pass it with --game river-market --rules FILE "
             "(docs/river-market.md)."]
    for key, value in rules.to_dict(changed_only=True).items():
        if value is not None:  # houses None: the rulebook's count, the default
            lines.append(f"{key} = {toml_value(value)}")
    return "\n".join(lines) + "\n"


# -- the heuristic's weights (sim.tuning.games.WeightsFacet) ----------------------------------
# A Good or a Coin is worth at most about a point (a Booth's cost is about three resources
# for one to four points); a house still to place may be worth keeping or worth spending
# (placing the last one brings the end); a kind of Good held, a Booth's owner bonuses and a
# Helper's ability to come are worth a few points at most; `rival` weighs the best other
# player's worth, from ignoring it to half of it.
BOUNDS: dict[str, tuple[float, float]] = {
    "good": (0.0, 1.0),
    "coin": (0.0, 1.0),
    "house": (-1.0, 2.0),
    "kinds": (0.0, 1.0),
    "booth": (0.0, 3.0),
    "helper": (0.0, 3.0),
    "rival": (0.0, 0.5),
}
START = GREEDY  # the greedy agent's weights
GUARDS: dict[str, Any] = {}  # no restricted versions of River Market's agents


def resolve_weights(ref: str, players: int) -> dict[str, float]:
    """The weights of a weight set's name or file, by name (the same at every player
    count)."""
    from sim.games.river.agents import WEIGHTS
    from sim.games.river.weight_sets import resolve

    return dict(zip(WEIGHTS, resolve(ref), strict=True))


def weights_spec(weights: Mapping[str, float]) -> str:
    """The heuristic playing exactly these weights, whatever the shipped sets say (every
    weight given, over the greedy set)."""
    body = ",".join(f"{k}={weights[k]:g}" for k in BOUNDS)
    return f"heuristic:weights=greedy,{body}"


def tuning_identity(cards: Any, rules: RiverRules) -> dict[str, Any]:
    """What a weight tuning's games depend on besides seeds and line-ups."""
    return {"game": NAME, "cards": cards.name, "cards_hash": cards.content_hash,
            "rules": rules.to_dict()}


def play_scores(cards: Any, rules: RiverRules, games: Sequence[tuple[int, list[str]]]
                ) -> np.ndarray:
    """Every seat's final score of these games (seed and line-up each) in the compiled
    batches, a row per game."""
    from sim.games.river.play import RES_SCORES
    from sim.games.river.play import play
    from sim.games.river.tables import cached_tables

    tables = cached_tables(cards, rules)
    out = play(tables, np.array([g for g, _ in games], np.uint64),
               [lineup for _, lineup in games])
    return np.asarray(out[:, RES_SCORES:], np.int64)
