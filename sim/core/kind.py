"""The game seam: what the toolkit asks of a game, one `GameKind` per game.

The runner, storage, studies, tuning, reports and the play server are the same for every
game; a game brings its material (a board, a card set), its rules switches and presets, its
agents, how it plays a batch of games, its own columns of the run tables and the rest this
class lists. The shared columns (`sim.core.tables`) are written alike for every game, so
win shares, seat balance, lengths, comparisons, precision and skill labels read any game's
runs. Each game's package exports its kind as `GAME`; `sim.games.registry` finds them.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from types import ModuleType
from typing import Any

from sim.core.errors import PortobelloError


class GameError(PortobelloError):
    """An unknown game, or a feature a game's runs do not have."""


@dataclass(frozen=True)
class GameKind:
    """One game's side of the seam (its functions are module-level, so a kind pickles by
    name: see `sim.games.registry.kind`)."""

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
    # Its material in words ("card set"), where the key ("cards") does not read as one.
    material_words: str = ""
    # The modules of the game that answer the rest, by role (imported when first asked,
    # `facet`): "runs" (playing a batch of games and its tables), "tuning", "session" (the
    # play page), "commands" (what the command line asks beyond this class), "report" (the
    # report sections the game offers), "view" (the game viewer). Each toolkit area defines
    # what it asks of its role's module; a game without one lacks that feature.
    facets: Mapping[str, str] = field(default_factory=dict)

    def has(self, role: str) -> bool:
        return role in self.facets

    def facet(self, role: str) -> ModuleType:
        """The game's module for `role`; GameError naming the game if it has none."""
        if role not in self.facets:
            raise GameError(f"{self.title} has no {role} (its features: "
                            f"{', '.join(self.facets) or 'none'})", field="game")
        module = self.facets[role]
        try:
            return importlib.import_module(module)
        except ModuleNotFoundError as exc:
            if exc.name is None or not module.startswith(exc.name):
                raise
            raise GameError(f"{self.title}'s {role} module {module} is missing (the game's "
                            "kind lists it)", field="game") from None


def check_tables(game: GameKind, asked: Sequence[str]) -> None:
    """Refuse optional tables a game's runs do not keep (one message naming them)."""
    missing = [t for t in asked if t not in game.optional_tables]
    if missing:
        raise GameError(f"{game.title} runs keep the games and players tables only, not "
                        f"{' or '.join(missing)}", field=missing[0])
