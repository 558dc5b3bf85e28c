"""What every game's new-game request shares, checked field by field: whole numbers in a
range, text, a table of rules switches, one agent spec per seat, and the files the server
offers. Every problem is a `SetupError` naming the field, answered as a 4xx. Each game's
session facet (`sim.web.games`) checks its own request with these.

Files: a game's material or rules file is a TOML file in the folder the server was started
with (`portobello serve --files DIR`), named relative to it; no other file on the machine
can be read through the page (`served_file`), and an error about a file never quotes what
the file holds (`unquoted_error`)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from sim.core.errors import PortobelloError
from sim.core.errors import quote

MAX_SEED = 2**63 - 1


class SetupError(PortobelloError):
    """A new-game request that does not describe a game (the field and the reason)."""


def int_field(data: Mapping[str, Any], key: str, default: int, lo: int, hi: int) -> int:
    """A request's integer field, checked to lie from `lo` to `hi`."""
    value = data.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool):
        raise SetupError(f"must be an integer, got {quote(value)}", field=key)
    if not lo <= value <= hi:
        raise SetupError(f"must be between {lo} and {hi}, got {value}", field=key)
    return value


def str_field(data: Mapping[str, Any], key: str, default: str | None) -> str | None:
    """A request's text field (`default` when absent or empty)."""
    value = data.get(key, default)
    if value is None or value == "":
        return default
    if not isinstance(value, str):
        raise SetupError(f"must be a string, got {quote(value)}", field=key)
    return value


def check_fields(data: Any, fields: tuple[str, ...]) -> Mapping[str, Any]:
    """The request as a JSON object of known fields only (the first unknown one named)."""
    if not isinstance(data, Mapping):
        raise SetupError("the request must be a JSON object", field="body")
    unknown = sorted(set(data) - set(fields))
    if unknown:
        raise SetupError(f"unknown field (fields: {', '.join(fields)})", field=unknown[0])
    return data


def field_error(exc: PortobelloError, name: str) -> SetupError:
    """A lower layer's error, re-addressed to the request field it came from."""
    return SetupError(exc.message if exc.source else exc.reason, field=name)


_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"")


def unquoted_error(exc: PortobelloError, name: str, shown: str) -> SetupError:
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


def served_file(name: str, files_dir: Path | None, field: str) -> Path:
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


def switch_table(data: Mapping[str, Any]) -> Mapping[str, Any]:
    """The request's `switches`: an object of rules switches, the player count apart."""
    switches = data.get("switches", {}) or {}
    if not isinstance(switches, Mapping):
        raise SetupError("must be an object of rules switches", field="switches")
    if "players" in switches:
        raise SetupError("give the player count as players, not as a switch", field="switches")
    return switches


def seat_specs(value: Any, players: int) -> list[str]:
    """The request's `agents`: one spec for every seat, or a list of one per seat (the
    person's entry is the game's to replace)."""
    if isinstance(value, str):
        specs = [value] * players
    elif isinstance(value, list) and all(isinstance(v, str) for v in value):
        specs = list(value)
    else:
        raise SetupError("must be an agent spec or a list of one per seat", field="agents")
    if len(specs) != players:
        raise SetupError(f"{len(specs)} agent specs for {players} players: give one per seat",
                         field="agents")
    return specs
