"""A new game as the browser asks for it, checked field by field: board, rules (a preset, a
rules file on this machine, switches), player count, the person's seat, each other seat's
agent, seed. Every problem is a `SetupError` naming the field, answered as a 4xx."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sim.agents.registry import parse_spec
from sim.engine.board import Board
from sim.engine.board import load_board
from sim.engine.board import resolve_board_path
from sim.engine.errors import PortobelloError
from sim.engine.errors import quote
from sim.engine.rules import Rules
from sim.engine.rules import load_rules
from sim.engine.rules import preset
from sim.engine.rules import rules_from_dict

FIELDS = ("board", "preset", "rules_file", "switches", "players", "seat", "agents", "seed")
MAX_SEED = 2**63 - 1


class SetupError(PortobelloError):
    """A new-game request that does not describe a game (the field and the reason)."""


@dataclass(frozen=True)
class GameSetup:
    """A checked new game: what `Session` is built from."""

    board: Board
    board_ref: str
    rules: Rules
    human: int
    specs: list[str]
    seed: int


def _int(data: Mapping[str, Any], key: str, default: int, lo: int, hi: int) -> int:
    value = data.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool):
        raise SetupError(f"must be an integer, got {quote(value)}", field=key)
    if not lo <= value <= hi:
        raise SetupError(f"must be between {lo} and {hi}, got {value}", field=key)
    return value


def _str(data: Mapping[str, Any], key: str, default: str | None) -> str | None:
    value = data.get(key, default)
    if value is None or value == "":
        return default
    if not isinstance(value, str):
        raise SetupError(f"must be a string, got {quote(value)}", field=key)
    return value


def _field(exc: PortobelloError, name: str) -> SetupError:
    """A lower layer's error, re-addressed to the request field it came from."""
    return SetupError(exc.message if exc.source else exc.reason, field=name)


def _rules(data: Mapping[str, Any], players: int) -> Rules:
    """The preset, then the rules file, then the switches, then the player count."""
    try:
        rules = preset(_str(data, "preset", "standard") or "standard")
    except PortobelloError as exc:
        raise _field(exc, "preset") from None
    path = _str(data, "rules_file", None)
    if path is not None:
        try:
            rules = load_rules(path, base=rules)
        except PortobelloError as exc:
            raise _field(exc, "rules_file") from None
    switches = data.get("switches", {}) or {}
    if not isinstance(switches, Mapping):
        raise SetupError("must be an object of rules switches", field="switches")
    if "players" in switches:
        raise SetupError("give the player count as players, not as a switch", field="switches")
    try:
        rules = rules_from_dict({**switches, "players": players}, base=rules,
                                source="switches")
    except PortobelloError as exc:
        raise SetupError(exc.message, field="switches") from None
    return rules


def game_setup(data: Any) -> GameSetup:
    """Check a new-game request (a JSON object) and build what the game needs."""
    if not isinstance(data, Mapping):
        raise SetupError("the request must be a JSON object", field="body")
    unknown = sorted(set(data) - set(FIELDS))
    if unknown:
        raise SetupError(f"unknown field (fields: {', '.join(FIELDS)})", field=unknown[0])
    players = _int(data, "players", 2, 2, 8)
    human = _int(data, "seat", 0, 0, players - 1)
    seed = _int(data, "seed", 0, 0, MAX_SEED)
    board_name = _str(data, "board", "standard") or "standard"
    try:
        board = load_board(board_name, quote_content=False)
    except PortobelloError as exc:
        raise _field(exc, "board") from None
    path = resolve_board_path(board_name)
    board_ref = board_name if path.parent.name == "boards" and path.stem == board_name \
        else str(Path(path).resolve())
    rules = _rules(data, players)
    try:
        rules.check_board(board)
    except PortobelloError as exc:
        raise SetupError(exc.reason, field="board") from None
    specs = _agents(data.get("agents", "random"), players, human)
    return GameSetup(board=board, board_ref=board_ref, rules=rules, human=human,
                     specs=specs, seed=seed)


def _agents(value: Any, players: int, human: int) -> list[str]:
    """One agent spec per seat (the person's entry is ignored): one spec for every bot, or
    a list with one per seat."""
    if isinstance(value, str):
        specs = [value] * players
    elif isinstance(value, list) and all(isinstance(v, str) for v in value):
        specs = list(value)
    else:
        raise SetupError("must be an agent spec or a list of one per seat", field="agents")
    if len(specs) != players:
        raise SetupError(f"{len(specs)} agent specs for {players} players: give one per seat",
                         field="agents")
    for seat, spec in enumerate(specs):
        if seat == human:
            continue
        try:
            parse_spec(spec)
        except PortobelloError as exc:
            raise SetupError(f"seat {seat}: {exc.reason}", field="agents") from None
    specs[human] = "human"
    return specs
