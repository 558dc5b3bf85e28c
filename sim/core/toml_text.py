"""TOML text for the files the toolkit writes (rules files, weight sets): values and tables
written so that `tomllib` reads back exactly what was written."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

from sim.games.portobello.rules import Rules


def toml_value(value: Any) -> str:
    """A TOML value: a boolean, integer, finite float, string, list, or an inline table."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"no TOML form for {value!r}")
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)  # a TOML basic string for plain text
    if isinstance(value, list | tuple):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{json.dumps(str(k))} = {toml_value(v)}"
                               for k, v in value.items()) + "}"
    raise TypeError(f"no TOML form for {value!r}")


def toml_table(name: str, table: Mapping[str, Any]) -> list[str]:
    """The lines of a `[name]` table of keys and values (nested mappings inline)."""
    return ["", f"[{name}]", *(f"{k} = {toml_value(v)}" for k, v in table.items())]


def rules_toml(rules: Rules, source: str = "the rulebook's defaults") -> str:
    """The rules as a rules file (TOML): scalar and list switches at the top level, then the
    `customers` and `multipliers` tables; loads back to the same `Rules`."""
    data = rules.to_dict()
    tables = {k: data.pop(k) for k in ("customers", "multipliers") if k in data}
    lines = [f"# portobello rules: {source}.",
             "# A rules file: save it and pass it with --rules FILE (docs/rules.md)."]
    for key, value in data.items():
        lines.append(f"{key} = {toml_value(value)}")
        if key == "players" and rules.stalls_per_player is None:
            lines.append(f"# stalls_per_player = {rules.stalls}  (the rulebook's count for "
                         f"{rules.players} players; set it to fix the count)")
    for name, table in tables.items():
        lines += ["", f"[{name}]", *(f"{k} = {toml_value(v)}" for k, v in table.items())]
    return "\n".join(lines) + "\n"
