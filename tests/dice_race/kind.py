"""Dice Race's side of the game seam."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from sim.core.kind import GameKind

NAME = "dice-race"
PACKAGE = __name__.rpartition(".")[0]
FACETS = {role: f"{PACKAGE}.{role}" for role in ("runs", "tuning", "report")}


def _load(ref: str, base_dir: Path | None) -> Any:
    from dice_race.die import load_die

    return load_die(ref, base_dir)


def _from_dict(data: Mapping[str, Any], source: str) -> Any:
    from dice_race.die import die_from_dict

    return die_from_dict(data, source)


def _dict(die: Any) -> dict[str, Any]:
    return die.to_dict()


def _rules(data: Mapping[str, Any], base: Any = None, source: str | None = None) -> Any:
    from dice_race.rules import dice_rules

    return dice_rules(data, base=base, source=source)


def _default() -> Any:
    from dice_race.rules import DiceRules

    return DiceRules()


def _check(rules: Any, die: Any, ref: str) -> None:
    """Every rules set plays with every die."""


def _agent(spec: str) -> None:
    from dice_race.play import parse_agent

    parse_agent(spec)


def _game() -> GameKind:
    from dice_race.rules import KEYS
    from dice_race.rules import PLAYERS
    from dice_race.rules import PRESETS

    return GameKind(NAME, "Dice Race", PLAYERS, "die", "d6", _load, _from_dict,
                    _dict, _rules, _default, KEYS, PRESETS, _check,
                    _agent, "dice-race-1", optional_tables=(), facets=FACETS)


GAME = _game()
