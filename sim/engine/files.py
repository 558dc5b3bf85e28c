"""Reading the files people give the toolkit (boards, rules, records): one place that turns
every way a read can fail into one error naming the file and the reason."""

from __future__ import annotations

import json
import stat
import tomllib
from pathlib import Path
from typing import Any

from sim.engine.errors import PortobelloError

FORMATS = {"toml": (tomllib.loads, tomllib.TOMLDecodeError, "TOML"),
           "json": (json.loads, json.JSONDecodeError, "JSON")}


MAX_BYTES = {"board": 4 << 20, "rules": 1 << 20, "record": 256 << 20, "study": 4 << 20,
             "tuning": 4 << 20, "weights": 1 << 20}


# Pseudo file systems whose files look regular (size 0) but hold the machine's state.
SYSTEM_ROOTS = ("/proc", "/sys", "/dev")


def _under(path: Path, root: str) -> bool:
    try:
        resolved = path.resolve()
    except OSError:
        return False
    return resolved == Path(root) or Path(root) in resolved.parents


def regular_file(path: str | Path, error: type[PortobelloError], what: str) -> Path:
    """`path` when it names a regular file of a sane size for a `what` file; otherwise
    `error` at once (a folder, a device such as /dev/zero, a FIFO such as /dev/stdin would
    make a reader fail late, hang or exhaust memory)."""
    p = Path(path)
    system = next((root for root in SYSTEM_ROOTS if _under(p, root)), None)
    if system is not None:
        raise error(f"is not a regular file (a system file under {system}); a {what} file is "
                    "expected", source=str(p))
    try:
        info = p.stat()
    except FileNotFoundError:
        raise error(f"no such {what} file", source=str(p)) from None
    except OSError as exc:
        raise error(f"cannot read: {exc.strerror or exc}", source=str(p)) from None
    if not stat.S_ISREG(info.st_mode):
        kind = "a folder" if stat.S_ISDIR(info.st_mode) else "not a regular file"
        raise error(f"is {kind}; a {what} file is expected", source=str(p))
    limit = MAX_BYTES.get(what, 16 << 20)
    if info.st_size > limit:
        raise error(f"is {info.st_size:,} bytes, more than a {what} file may be "
                    f"({limit:,})", source=str(p))
    return p


def read_document(path: str | Path, fmt: str, error: type[PortobelloError],
                  what: str, *, quote_content: bool = True) -> Any:
    """The parsed content of a TOML or JSON file; `error` (naming the file) when it is
    missing (`no such {what} file`), not a regular file of a sane size, unreadable, nested
    too deeply or not valid `fmt`. With `quote_content` off the error says nothing of what
    the file holds (for files named by someone else's record)."""
    parse, decode_error, name = FORMATS[fmt]
    p = regular_file(path, error, what)
    try:
        return parse(p.read_text(encoding="utf-8"))
    except decode_error as exc:
        detail = f": {exc}" if quote_content else ""
        raise error(f"not valid {name}{detail}", source=str(p)) from None
    except RecursionError:
        raise error(f"not valid {name}: nested too deeply", source=str(p)) from None
    except UnicodeDecodeError:
        raise error("cannot read: not UTF-8 text", source=str(p)) from None
    except OSError as exc:
        raise error(f"cannot read: {exc.strerror or exc}", source=str(p)) from None
