"""TOML text for the files the toolkit writes (rules files, weight sets): values and tables
written so that `tomllib` reads back exactly what was written."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any


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
