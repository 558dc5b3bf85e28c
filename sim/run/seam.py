"""The game seam: what a run needs to know of the game it plays, one `GameKind` per game.

The runner, storage, studies and reports are the same for every game; a game brings its
material (Portobello Market's board, River Market's card set), its rules switches and
presets, its agents, the code that plays it, and its own columns of the run tables. The
shared columns (`sim.run.tables`: game id, seed, players, the material's name, end reason,
rounds, turns, winners; seat, agent, score, rank, win share) are written alike for every
game, so win shares, seat balance, lengths, comparisons, precision and skill labels read
any game's runs.

Portobello Market is the default everywhere, and nothing of its runs changes: its identity
and tables are written exactly as before the seam.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sim.engine.errors import PortobelloError
from sim.engine.errors import quote

PORTOBELLO = "portobello-market"
RIVER = "river-market"


class GameError(PortobelloError):
    """An unknown game, or a feature a game's runs do not have."""


@dataclass(frozen=True)
class GameKind:
    """One game's side of the seam (its functions are module-level, so a kind pickles by
    name: see `kind`)."""

    name: str
    title: str
    players: tuple[int, int]  # the fewest and most players
    material: str  # the spec and manifest key of its material: board or cards
    default_material: str
    load_material: Callable[[str, Path | None], Any]
    material_from_dict: Callable[[Mapping[str, Any], str], Any]
    material_dict: Callable[[Any], dict[str, Any]]
    rules_from_dict: Callable[..., Any]  # (data, base=None, source=None) -> rules
    default_rules: Callable[[], Any]
    rule_keys: tuple[str, ...]
    presets: Mapping[str, Mapping[str, Any]]
    check: Callable[[Any, Any, str], None]  # (rules, material, material_ref)
    check_agent: Callable[[str], None]
    # The version of the code that plays its games, in every run's identity (`play_code`):
    # it changes when play does (the golden games of tests/golden check that it does), not
    # when a file moves, so a run is resumed and topped up by any code that plays alike.
    play_version: str
    # Tables other than games and players a run of this game can keep.
    optional_tables: tuple[str, ...] = ("events", "records")


# -- Portobello Market ---------------------------------------------------------------------
def _board(ref: str, base_dir: Path | None) -> Any:
    from sim.engine.board import load_board

    return load_board(ref, base_dir=base_dir)


def _board_from_dict(data: Mapping[str, Any], source: str) -> Any:
    from sim.engine.board import board_from_dict

    return board_from_dict(data, source=source)


def _board_dict(board: Any) -> dict[str, Any]:
    return board.to_dict()


def _portobello_rules(data: Mapping[str, Any], base: Any = None, source: str | None = None
                      ) -> Any:
    from sim.engine.rules import rules_from_dict

    return rules_from_dict(data, base=base, source=source)


def _portobello_default() -> Any:
    from sim.engine.rules import Rules

    return Rules()


def _portobello_check(rules: Any, board: Any, ref: str) -> None:
    rules.check_board(board, source=ref)


def _portobello_agent(spec: str) -> None:
    from sim.agents.registry import parse_spec

    parse_spec(spec)


# -- River Market ---------------------------------------------------------------------------
def _cards(ref: str, base_dir: Path | None) -> Any:
    from sim.river.cards import load_cards
    from sim.river.cards import resolve_cards_path

    path = resolve_cards_path(ref)
    if base_dir is not None and not path.is_absolute() and not path.exists():
        path = base_dir / path
    return load_cards(path if path.exists() else ref)


def _cards_from_dict(data: Mapping[str, Any], source: str) -> Any:
    from sim.river.cards import card_set_from_dict

    return card_set_from_dict(data, source=source)


def _cards_dict(cards: Any) -> dict[str, Any]:
    from sim.river.cards import card_set_data

    return card_set_data(cards)


def _river_rules(data: Mapping[str, Any], base: Any = None, source: str | None = None) -> Any:
    from sim.river.rules import river_rules

    return river_rules(data, base=base, source=source)


def _river_default() -> Any:
    from sim.river.rules import RiverRules

    return RiverRules()


def _river_check(rules: Any, cards: Any, ref: str) -> None:
    """Every River Market rules set plays with every valid card set."""


def _river_agent(spec: str) -> None:
    from sim.river.play import parse_agent

    try:
        parse_agent(spec)
    except ValueError as exc:
        raise GameError(str(exc), field="agents") from None


@functools.cache
def _kinds() -> dict[str, GameKind]:
    from sim.engine.rules import PRESETS
    from sim.engine.rules import RULE_KEYS
    from sim.river.rules import KEYS
    from sim.river.rules import PLAYERS
    from sim.river.rules import PRESETS as RIVER_PRESETS

    return {
        PORTOBELLO: GameKind(PORTOBELLO, "Portobello Market", (2, 4), "board", "standard",
                             _board, _board_from_dict, _board_dict, _portobello_rules,
                             _portobello_default, RULE_KEYS, PRESETS, _portobello_check,
                             _portobello_agent, "af56db83ac468b68"),
        RIVER: GameKind(RIVER, "River Market", PLAYERS, "cards", "river-market", _cards,
                        _cards_from_dict, _cards_dict, _river_rules, _river_default, KEYS,
                        RIVER_PRESETS, _river_check, _river_agent, "158bc911d79d833a",
                        optional_tables=()),
    }


GAMES = (PORTOBELLO, RIVER)


def kind(name: str) -> GameKind:
    """The game of this name; one clear error for any other."""
    kinds = _kinds()
    if name not in kinds:
        raise GameError(f"unknown game {quote(name)} (games: {', '.join(kinds)})", field="game")
    return kinds[name]


def game_of_spec(data: Mapping[str, Any]) -> GameKind:
    """The game a study or tuning spec names (`game`, Portobello Market by default), its
    material given under the game's own key: a card set (`cards`) is River Market's, a
    board Portobello Market's. GameError naming the field otherwise."""
    name = data.get("game", PORTOBELLO)
    if not isinstance(name, str) or name not in GAMES:
        raise GameError(f"unknown game {name!r} (games: {', '.join(GAMES)})", field="game")
    game = kind(name)
    if game.name == PORTOBELLO and "cards" in data:
        raise GameError("a card set is River Market's: add game = \"river-market\", or give "
                        "a board", field="cards")
    if game.name != PORTOBELLO and "board" in data:
        raise GameError(f"{game.title} has no board: name its card set with cards = \"...\"",
                        field="board")
    return game


def check_tables(game: GameKind, asked: Sequence[str]) -> None:
    """Refuse optional tables a game's runs do not keep (one message naming them)."""
    missing = [t for t in asked if t not in game.optional_tables]
    if missing:
        raise GameError(f"{game.title} runs keep the games and players tables only, not "
                        f"{' or '.join(missing)}", field=missing[0])
