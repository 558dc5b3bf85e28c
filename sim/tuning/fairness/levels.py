"""The agents of a tuning spec (`sim.tuning.fairness.spec`): one agent spec for every seat
(or one per seat at a single player count), or several levels of play, cheapest first, that
the tuning races (`sim.tuning.fairness.race`) within `search.margin`; each checked now as an
agent of the game, with the file, the field and the reason. `TuningError`, the error of
every check of a spec, lives here, beneath the spec's other checks.
"""

from __future__ import annotations

from collections.abc import Mapping
from collections.abc import Sequence
from typing import Any

from sim.core.errors import PortobelloError
from sim.core.specs import split_specs
from sim.games.registry import kind
from sim.tuning.fairness.knobs import GameKnobs
from sim.tuning.games import time_budget


class TuningError(PortobelloError):
    """A tuning spec or tuning folder that cannot be used (names file, field and reason)."""


def spec_error(source: str, fld: str | None, reason: str) -> TuningError:
    """The error of a spec's field: the file, the field and the reason."""
    return TuningError(reason, source=source, field=fld)


def lineup_at(agents: str, n: int) -> tuple[str, ...]:
    """The line-up of an agent spec at `n` players: its one spec in every seat, or its
    specs seat by seat."""
    specs = split_specs(agents)
    return tuple(specs * n if len(specs) == 1 else specs)


def check_agents(value: Any, players: Sequence[int], source: str, fld: str,
                 game: GameKnobs) -> str:
    """An agent spec string (one spec for every seat, or one per seat at a single player
    count), every spec parsed now as an agent of the game; a time budget is refused (the
    games would depend on the machine)."""
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        value = ",".join(value)
    if not isinstance(value, str) or not value.strip():
        raise spec_error(source, fld, f"must be an agent spec such as "
                                      f"\"{game.default_agents}\", got {value!r}")
    specs = split_specs(value)
    if len(specs) != 1 and any(len(specs) != n for n in players):
        raise spec_error(source, fld, f"{len(specs)} agent specs for players = "
                                      f"{list(players)}: give one spec for every seat, or one "
                                      "per seat at a single player count")
    for s in specs:
        try:
            kind(game.game).check_agent(s)
        except PortobelloError as exc:
            raise spec_error(source, fld, exc.reason) from None
        timed = time_budget(game.game, s)
        if timed:
            raise spec_error(source, fld, f"{s} has a time budget ({timed}): the games would "
                                          "depend on the machine's speed; give iterations= "
                                          "instead")
    return value


def check_levels(value: Any, players: Sequence[int], source: str, game: GameKnobs
                 ) -> tuple[str, ...]:
    """The spec's `agents`: one agent spec, or a list of levels of play, cheapest first, each
    an agent spec as `check_agents` takes it (a list of one is that spec). A level listed
    twice is refused: the same games would be played twice."""
    if not isinstance(value, list):
        return (check_agents(value, players, source, "agents", game),)
    if not value:
        raise spec_error(source, "agents", "an empty list: give one agent spec, or several "
                                           "levels of play, cheapest first")
    levels: list[str] = []
    for i, level in enumerate(value):
        fld = f"agents[{i}]"
        if not isinstance(level, str):
            raise spec_error(source, fld, f"must be an agent spec such as "
                                          f"\"{game.default_agents}\", got {level!r}")
        levels.append(check_agents(level, players, source, fld, game))
        same = [j for j, other in enumerate(levels[:-1])
                if split_specs(other) == split_specs(level)]
        if same:
            raise spec_error(source, fld, f"{level!r} is listed twice (agents[{same[0]}] "
                                          "too): give each level of play once")
    return tuple(levels)


def check_margin(search: Mapping[str, Any], levels: Sequence[str], source: str) -> float:
    """`search.margin`: the worst seat gap (a win share) a setting may have at a level and
    still race on to the dearer ones; only a spec of several levels races."""
    if "margin" not in search:
        return 0.0
    value = search["margin"]
    if len(levels) < 2:
        raise spec_error(source, "search.margin", "racing needs several levels of play: give "
                                                  "agents = [cheapest, ..., dearest]")
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value < 0.5:
        raise spec_error(source, "search.margin", "must be a win share from 0 to below 0.5 "
                                                  "(the largest seat gap still wanted), got "
                                                  f"{value!r}")
    return float(value)
