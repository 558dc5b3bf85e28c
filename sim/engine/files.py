"""Reading the files people give the toolkit (boards, rules, records): one place that turns
every way a read can fail into one error naming the file and the reason."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

from sim.engine.errors import PortobelloError

FORMATS = {"toml": (tomllib.loads, tomllib.TOMLDecodeError, "TOML"),
           "json": (json.loads, json.JSONDecodeError, "JSON")}


def read_document(path: str | Path, fmt: str, error: type[PortobelloError],
                  what: str) -> Any:
    """The parsed content of a TOML or JSON file; `error` (naming the file) when it is
    missing (`no such {what} file`), unreadable or not valid `fmt`."""
    parse, decode_error, name = FORMATS[fmt]
    p = Path(path)
    try:
        return parse(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise error(f"no such {what} file", source=str(p)) from None
    except decode_error as exc:
        raise error(f"not valid {name}: {exc}", source=str(p)) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise error(f"cannot read: {exc}", source=str(p)) from None
