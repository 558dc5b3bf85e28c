"""The one registry of games: the game packages the toolkit plays, each exporting its
`GameKind` as `GAME`. A new game is one package and one line in `BUILT_IN`; a game kept
elsewhere (the small game of the tests) is named in `PORTOBELLO_GAMES` (module names
separated by commas), which worker processes inherit.

The registry names the packages by module path only, and imports them when first asked, so
the toolkit that asks it never imports a game itself.
"""

from __future__ import annotations

import functools
import importlib
import os
from collections.abc import Mapping
from typing import Any

from sim.core.errors import quote
from sim.core.kind import GameError
from sim.core.kind import GameKind
from sim.core.kind import check_tables

# The first is the default game of every command and spec.
BUILT_IN = (
    "sim.games.portobello",
    "sim.games.river",
)
EXTRA = "PORTOBELLO_GAMES"

__all__ = ["GameError", "GameKind", "check_tables", "default_game", "game_names",
           "game_of_spec", "kind", "kinds"]


@functools.cache
def _kinds(extra: str) -> dict[str, GameKind]:
    found: dict[str, GameKind] = {}
    for module in (*BUILT_IN, *(m.strip() for m in extra.split(",") if m.strip())):
        try:
            game = importlib.import_module(module).GAME
        except (ImportError, AttributeError) as exc:
            raise GameError(f"game package {quote(module)} cannot be loaded ({exc})",
                            field=EXTRA) from None
        found[game.name] = game
    return found


def kinds() -> dict[str, GameKind]:
    """Every registered game by name, the default first."""
    return _kinds(os.environ.get(EXTRA, ""))


def game_names() -> tuple[str, ...]:
    return tuple(kinds())


def default_game() -> str:
    """The game a command or spec plays when it names none."""
    return next(iter(kinds()))


def kind(name: str) -> GameKind:
    """The game of this name; one clear error for any other."""
    found = kinds()
    if name not in found:
        raise GameError(f"unknown game {quote(name)} (games: {', '.join(found)})", field="game")
    return found[name]


def game_of_spec(data: Mapping[str, Any]) -> GameKind:
    """The game a study or tuning spec names (`game`, the default game if none), its material
    given under the game's own key (`board`, `cards`, ...): another game's material key is
    refused, naming the field and the game it belongs to."""
    name = data.get("game", default_game())
    if not isinstance(name, str) or name not in kinds():
        raise GameError(f"unknown game {name!r} (games: {', '.join(kinds())})", field="game")
    game = kind(name)
    mine = game.material_words or game.material
    for other in kinds().values():
        if other.material == game.material or other.material not in data:
            continue
        theirs = other.material_words or other.material
        if "game" not in data:  # the default game's spec with another game's material
            raise GameError(f"a {theirs} is {other.title}'s: add game = \"{other.name}\", or "
                            f"give a {mine}", field=other.material)
        raise GameError(f"{game.title} has no {theirs}: name its {mine} with "
                        f"{game.material} = \"...\"", field=other.material)
    return game
