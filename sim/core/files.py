"""Reading the files people give the toolkit (boards, rules, records): one place that turns
every way a read can fail into one error naming the file and the reason."""

from __future__ import annotations

import json
import re
import stat
import tomllib
from pathlib import Path
from typing import Any

from sim.core.errors import PortobelloError

# Digits of an integer read from a file or a request: no field takes more (a seed is below
# 2**63, 19 digits), and converting a huge one costs time (Python refuses over 4,300).
MAX_DIGITS = 40


class LongNumber:
    """An integer of more than `MAX_DIGITS` digits, kept unconverted as its length: the
    check of the field it sits in refuses it (it is no int), naming the field."""

    __slots__ = ("digits",)

    def __init__(self, digits: int) -> None:
        self.digits = digits

    def __repr__(self) -> str:
        return f"a number of {self.digits:,} digits (too long for any field)"


def seed_out_of_range(value: Any) -> str | None:
    """Why `value`, a record's seed, is out of range (a number longer than `MAX_DIGITS`
    digits, which is what `--seed` takes, so no record the toolkit writes has one), or
    None (the field's own check refuses what is no integer)."""
    if isinstance(value, LongNumber):
        return (f"out of range: a seed has at most {MAX_DIGITS} digits, got one of "
                f"{value.digits:,} digits")
    return None


def _bounded_int(text: str) -> int | LongNumber:
    digits = len(text.lstrip("-"))
    return int(text) if digits <= MAX_DIGITS else LongNumber(digits)


def parse_json(text: str | bytes) -> Any:
    """JSON as the toolkit reads it from files and requests: integers bounded before they
    are converted (`LongNumber` beyond `MAX_DIGITS`). Raises ValueError when malformed and
    RecursionError when nested too deeply."""
    return json.loads(text, parse_int=_bounded_int)


_TABLE = re.compile(r"^\s*\[+\s*([^\]]+?)\s*\]+")
_KEY = re.compile(r"^\s*([^=\s][^=]*?)\s*=(.*)$")
_STRINGS = re.compile(r"'[^']*'" + r'|"(?:[^"\\]|\\.)*"')
_LONG = re.compile(r"[0-9][0-9_]{" + str(MAX_DIGITS) + ",}")


def long_number_field(text: str) -> tuple[str, int] | None:
    """The dotted key of the first TOML value holding an integer of more than `MAX_DIGITS`
    digits, and its digits (tomllib converts before any check could), or None."""
    table = ""
    for line in text.splitlines():
        header = _TABLE.match(line)
        if header:
            table = header.group(1).replace('"', "").replace(" ", "")
            continue
        pair = _KEY.match(line)
        found = _LONG.search(_STRINGS.sub("", pair.group(2))) if pair else None
        if pair and found:
            key = pair.group(1).strip().replace('"', "")
            digits = sum(c.isdigit() for c in found.group(0))
            return (f"{table}.{key}" if table else key), digits
    return None


def parse_toml(text: str) -> Any:
    """TOML as the toolkit reads it: an integer Python will not convert (over 4,300
    digits) raises LongNumberError naming its key (shorter ones are refused by the check of
    their field)."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        raise
    except ValueError:
        found = long_number_field(text)
        if found is None:
            raise
        raise LongNumberError(*found) from None


class LongNumberError(ValueError):
    """A TOML value with an integer far too long for any field (its dotted key)."""

    def __init__(self, field: str, digits: int) -> None:
        self.field = field
        self.digits = digits
        super().__init__(f"{field}: {LongNumber(digits)!r}")


FORMATS = {"toml": (parse_toml, tomllib.TOMLDecodeError, "TOML"),
           "json": (parse_json, json.JSONDecodeError, "JSON")}


MAX_BYTES = {"board": 4 << 20, "rules": 1 << 20, "record": 256 << 20, "study": 4 << 20,
             "tuning": 4 << 20, "weights": 1 << 20, "model": 16 << 20}


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
    p = regular_file(path, error, what)
    try:
        text = p.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise error("cannot read: not UTF-8 text", source=str(p)) from None
    except OSError as exc:
        raise error(f"cannot read: {exc.strerror or exc}", source=str(p)) from None
    return parse_document(text, fmt, error, str(p), quote_content=quote_content)


def parse_document(text: str, fmt: str, error: type[PortobelloError], source: str, *,
                   quote_content: bool = True) -> Any:
    """The parsed content of TOML or JSON text read from `source`; `error` naming it (and
    the field, for a number too long for any field) when it is not valid `fmt`."""
    parse, decode_error, name = FORMATS[fmt]
    try:
        return parse(text)
    except LongNumberError as exc:
        raise error(f"got {LongNumber(exc.digits)!r}", source=source,
                    field=exc.field) from None
    except decode_error as exc:
        detail = f": {exc}" if quote_content else ""
        raise error(f"not valid {name}{detail}", source=source) from None
    except RecursionError:
        raise error(f"not valid {name}: nested too deeply", source=source) from None
    except ValueError:  # an integer Python will not convert, where no key was found for it
        raise error(f"not valid {name}: it holds a number too long for any field",
                    source=source) from None
