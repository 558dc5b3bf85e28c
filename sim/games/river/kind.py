"""River Market's side of the game seam (`sim.core.kind.GameKind`): what the toolkit asks of
the game, answered by the game's own modules (imported when first asked for)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from sim.core.kind import GameError
from sim.core.kind import GameKind

NAME = "river-market"
PACKAGE = __name__.rpartition(".")[0]
# The modules answering the toolkit by role (`GameKind.facets`).
FACETS = {role: f"{PACKAGE}.{role}" for role in
          ("runs", "tuning", "session", "commands", "report", "view")}
# The version of the code that plays it (`GameKind.play_version`): give it a new value
# whenever a change is meant to change play; the golden games are pinned to it.
PLAY_VERSION = "158bc911d79d833a"


def _cards(ref: str, base_dir: Path | None) -> Any:
    from sim.games.river.cards import load_cards
    from sim.games.river.cards import resolve_cards_path

    path = resolve_cards_path(ref)
    if base_dir is not None and not path.is_absolute() and not path.exists():
        path = base_dir / path
    return load_cards(path if path.exists() else ref)


def _cards_from_dict(data: Mapping[str, Any], source: str) -> Any:
    from sim.games.river.cards import card_set_from_dict

    return card_set_from_dict(data, source=source)


def _cards_dict(cards: Any) -> dict[str, Any]:
    from sim.games.river.cards import card_set_data

    return card_set_data(cards)


def _river_rules(data: Mapping[str, Any], base: Any = None, source: str | None = None) -> Any:
    from sim.games.river.rules import river_rules

    return river_rules(data, base=base, source=source)


def _river_default() -> Any:
    from sim.games.river.rules import RiverRules

    return RiverRules()


def _river_check(rules: Any, cards: Any, ref: str) -> None:
    """Every River Market rules set plays with every valid card set."""


def _river_agent(spec: str) -> None:
    from sim.games.river.play import parse_agent

    try:
        parse_agent(spec)
    except ValueError as exc:
        raise GameError(str(exc), field="agents") from None


def _game() -> GameKind:
    from sim.games.river.rules import KEYS
    from sim.games.river.rules import PLAYERS
    from sim.games.river.rules import PRESETS

    return GameKind(NAME, "River Market", PLAYERS, "cards", "river-market", _cards,
                    _cards_from_dict, _cards_dict, _river_rules, _river_default, KEYS,
                    PRESETS, _river_check, _river_agent, PLAY_VERSION, optional_tables=(),
                    material_words="card set", facets=FACETS)


GAME = _game()
