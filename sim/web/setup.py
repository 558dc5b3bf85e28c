"""A new game as the browser asks for it, checked field by field: board, rules (a preset, a
rules file, switches), player count, the person's seat, each other seat's agent, seed. Every
problem is a `SetupError` naming the field, answered as a 4xx.

Files: a board is a shipped one or, like a rules file, a TOML file in the folder the server
was started with (`portobello serve --files DIR`), named relative to it; no other file on
the machine can be read through the page, and an error about a file never quotes what the
file holds."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sim.core.errors import PortobelloError
from sim.core.errors import quote
from sim.games.portobello.board import BOARDS_DIR
from sim.games.portobello.board import Board
from sim.games.portobello.board import load_board
from sim.games.portobello.rules import Rules
from sim.games.portobello.rules import load_rules
from sim.games.portobello.rules import preset
from sim.games.portobello.rules import rules_from_dict
from sim.web.limits import served_spec

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


def int_field(data: Mapping[str, Any], key: str, default: int, lo: int, hi: int) -> int:
    """A request's integer field, checked to lie from `lo` to `hi`."""
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


_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"")


def _unquoted(exc: PortobelloError, name: str, shown: str) -> SetupError:
    """An error about a file, without any value the file holds: the field it names and
    the rule, the value cut off (`shown` stands for the file)."""
    reason = re.split(r",? got ", exc.reason)[0]
    reason = _QUOTED.sub("(a value of the file)", reason)
    where = f"{exc.field}: " if exc.field else ""
    return SetupError(f"{shown}: {where}{reason}", field=name)


def file_names(files_dir: Path | None) -> list[str]:
    """The TOML files the page may name: those in `files_dir` (and its subfolders)."""
    if files_dir is None or not files_dir.is_dir():
        return []
    root = files_dir.resolve()
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*.toml")
                  if p.is_file() and root in p.resolve().parents)


def _served_file(name: str, files_dir: Path | None, field: str) -> Path:
    """The file `name` in the server's folder; anything else is refused."""
    if files_dir is None:
        raise SetupError("this server reads no files: start it with --files DIR to offer "
                         "the rules and board files of DIR", field=field)
    root = files_dir.resolve()
    path = (root / name).resolve()
    if root not in path.parents or name not in file_names(files_dir):
        raise SetupError(f"must be one of the files this server offers (from --files; "
                         f"{len(file_names(files_dir))} there)", field=field)
    return path


def _rules(data: Mapping[str, Any], players: int, files_dir: Path | None) -> Rules:
    """The preset, then the rules file, then the switches, then the player count."""
    try:
        rules = preset(_str(data, "preset", "standard") or "standard")
    except PortobelloError as exc:
        raise _field(exc, "preset") from None
    name = _str(data, "rules_file", None)
    if name is not None:
        path = _served_file(name, files_dir, "rules_file")
        try:
            rules = load_rules(path, base=rules, quote_content=False)
        except PortobelloError as exc:
            raise _unquoted(exc, "rules_file", name) from None
    switches = switch_table(data)
    try:
        rules = rules_from_dict({**switches, "players": players}, base=rules,
                                source="switches")
    except PortobelloError as exc:
        raise SetupError(exc.message, field="switches") from None
    return rules


def switch_table(data: Mapping[str, Any]) -> Mapping[str, Any]:
    """The request's `switches`: an object of rules switches, the player count apart."""
    switches = data.get("switches", {}) or {}
    if not isinstance(switches, Mapping):
        raise SetupError("must be an object of rules switches", field="switches")
    if "players" in switches:
        raise SetupError("give the player count as players, not as a switch", field="switches")
    return switches


def _board(name: str, files_dir: Path | None) -> tuple[Board, str]:
    """A shipped board by name, or a board file the server offers; with its reference."""
    if "/" not in name and "\\" not in name and (BOARDS_DIR / f"{name}.toml").is_file():
        try:
            return load_board(name, quote_content=False), name
        except PortobelloError as exc:
            raise _field(exc, "board") from None
    if not name.endswith(".toml"):
        raise SetupError(f"no shipped board named {quote(name)} (shipped boards: "
                         f"{', '.join(sorted(p.stem for p in BOARDS_DIR.glob('*.toml')))}"
                         f"{'; or a board file of --files' if files_dir else ''})",
                         field="board")
    path = _served_file(name, files_dir, "board")
    try:
        return load_board(path, quote_content=False), str(path)
    except PortobelloError as exc:
        raise _unquoted(exc, "board", name) from None


def game_setup(data: Any, files_dir: Path | None = None) -> GameSetup:
    """Check a new-game request (a JSON object) and build what the game needs; files are
    read only from `files_dir`."""
    if not isinstance(data, Mapping):
        raise SetupError("the request must be a JSON object", field="body")
    unknown = sorted(set(data) - set(FIELDS))
    if unknown:
        raise SetupError(f"unknown field (fields: {', '.join(FIELDS)})", field=unknown[0])
    players = int_field(data, "players", 2, 2, 8)
    human = int_field(data, "seat", 0, 0, players - 1)
    seed = int_field(data, "seed", 0, 0, MAX_SEED)
    board, board_ref = _board(_str(data, "board", "standard") or "standard", files_dir)
    rules = _rules(data, players, files_dir)
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
            served_spec(spec)
        except PortobelloError as exc:
            raise SetupError(f"seat {seat}: {exc.reason}", field="agents") from None
    specs[human] = "human"
    return specs
