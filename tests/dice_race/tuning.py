"""Dice Race's answers to tuning (`sim.tuning.games.FairnessFacet`): its seat bonus is
`start` (extra starting points by seat); no heuristic weights to tune."""

from __future__ import annotations

from collections.abc import Mapping
from collections.abc import Sequence
from typing import Any

import numpy as np

from dice_race.play import play_batch
from dice_race.rules import DiceRules
from dice_race.rules import dice_rules
from sim.core.toml_text import toml_value

SEAT_BONUS = "start"
BONUS_WORDS = "extra points"
BONUS_COLUMN = "extra points"
BONUS_LEAST: int | None = 0
KNOB_SWITCHES = ("target", "max_turns", "start")
SWITCH_HINT = "a Dice Race rules switch (target, max_turns; start for seat bonuses)"
DEFAULT_AGENTS = "steady"


def seat_values(rules: DiceRules) -> tuple[int, ...]:
    return tuple(rules.seat_start())


def integer_switch(switch: str) -> bool:
    return True


def apply_knobs(fixed: DiceRules, changes: Mapping[str, Any]) -> DiceRules:
    return dice_rules(dict(changes), base=fixed)


def play_seeds(die: Any, rules: DiceRules, lineup: Sequence[str], seeds: Sequence[int]
               ) -> tuple[np.ndarray, np.ndarray]:
    batch = play_batch(die, rules, seeds, [list(lineup)] * len(seeds))
    return batch.scores, -(-batch.turns // rules.players)


def rules_file(rules: DiceRules, source: str) -> str:
    return "\n".join([f"# Dice Race rules: {source}.",
                      *(f"{k} = {toml_value(v)}" for k, v in
                        rules.to_dict(changed_only=True).items())]) + "\n"
