"""Portobello Market's side of the game seam (`sim.core.kind.GameKind`): what the toolkit
asks of the game, answered by the game's own modules (imported when first asked for, so
naming the game loads no compiler)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from sim.core.kind import GameKind

NAME = "portobello-market"
PACKAGE = __name__.rpartition(".")[0]
# The modules answering the toolkit by role (`GameKind.facets`).
FACETS = {role: f"{PACKAGE}.{role}" for role in
          ("runs", "tuning", "session", "commands", "report", "view")}
# The version of the code that plays it (`GameKind.play_version`): give it a new value
# whenever a change is meant to change play; the golden games are pinned to it.
PLAY_VERSION = "af56db83ac468b68"


def _board(ref: str, base_dir: Path | None) -> Any:
    from sim.games.portobello.board import load_board

    return load_board(ref, base_dir=base_dir)


def _board_from_dict(data: Mapping[str, Any], source: str) -> Any:
    from sim.games.portobello.board import board_from_dict

    return board_from_dict(data, source=source)


def _board_dict(board: Any) -> dict[str, Any]:
    return board.to_dict()


def _portobello_rules(data: Mapping[str, Any], base: Any = None, source: str | None = None
                      ) -> Any:
    from sim.games.portobello.rules import rules_from_dict

    return rules_from_dict(data, base=base, source=source)


def _portobello_default() -> Any:
    from sim.games.portobello.rules import Rules

    return Rules()


def _portobello_check(rules: Any, board: Any, ref: str) -> None:
    rules.check_board(board, source=ref)


def _portobello_agent(spec: str) -> None:
    from sim.games.portobello.agents.registry import parse_spec

    parse_spec(spec)


def _game() -> GameKind:
    from sim.games.portobello.rules import PRESETS
    from sim.games.portobello.rules import RULE_KEYS

    return GameKind(NAME, "Portobello Market", (2, 4), "board", "standard", _board,
                    _board_from_dict, _board_dict, _portobello_rules, _portobello_default,
                    RULE_KEYS, PRESETS, _portobello_check, _portobello_agent, PLAY_VERSION,
                    facets=FACETS)


GAME = _game()
