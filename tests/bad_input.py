"""Shared pieces of the bad-input tests (`test_bad_input_*.py`): a small valid board, rules
and record to break one thing in, the writers of their files, and the checks every refusal
must pass.

Every refusal must be one clear line naming the file, the offending id or field and the
reason; the command line must exit non-zero with exactly that line on stderr (status 2 and
`action INDEX TYPE: reason` for an illegal action in a replayed record) and never show a
traceback.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from sim.cli.command import main

REPO = Path(__file__).resolve().parents[1]
STANDARD = REPO / "data" / "boards" / "standard.toml"

# Four squares, five lanes, two districts sharing lane L5::
#
#   S1 --L1-- S2
#   |  \  D1  |
#   L4  L5    L2
#   | D2  \   |
#   S4 --L3-- S3
SMALL_BOARD: dict[str, Any] = {
    "name": "small",
    "description": "two triangles",
    "squares": ["S1", "S2", "S3", "S4"],
    "lanes": [
        {"id": "L1", "ends": ["S1", "S2"], "spots": [1, 2]},
        {"id": "L2", "ends": ["S2", "S3"], "spots": [2, 1]},
        {"id": "L3", "ends": ["S3", "S4"], "spots": [3]},
        {"id": "L4", "ends": ["S4", "S1"], "spots": [1, 3]},
        {"id": "L5", "ends": ["S1", "S3"], "spots": [2, 2, 2]},
    ],
    "districts": [
        {"id": "D1", "lanes": ["L1", "L2", "L5"]},
        {"id": "D2", "lanes": ["L3", "L4", "L5"]},
    ],
    "layout": {"squares": {"S1": [0, 1], "S2": [1, 1], "S3": [1, 0], "S4": [0, 0]}},
}
# With the baron on, 4 squares take a bag of 3.
SMALL_RULES: dict[str, Any] = {"customers": {"citizen": 2, "aristocrat": 1}}

BASE_RECORD: dict[str, Any] = {
    "format": "portobello-record/1",
    "board": "standard",
    "rules": {"players": 2},
    "seed": 7,
    "agents": ["random", "random"],
    "actions": [],
}
# On the standard board D01 is bordered by L02 (S01-S08), L03 (S01-S09) and L18 (S08-S09)
# and is adjacent to D12 (across L03) and D02 (across L18) only.
BOBBY = {"type": "place_bobby", "district": "D01"}
TOKEN4 = {"type": "play_token", "value": 4}
END = {"type": "end_turn"}
LINE = ["aristocrat"] * 5 + ["citizen"] * 5

# -- writing files ---------------------------------------------------------------------------
def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)  # a JSON string is a TOML basic string
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(str(k))} = {_toml_value(v)}"
                               for k, v in value.items()) + "}"
    raise TypeError(f"no TOML form for {value!r}")


def to_toml(data: dict[str, Any]) -> str:
    """Enough TOML for these tests: lists of tables become [[arrays]], the rest inline."""
    head: list[str] = []
    tail: list[str] = []
    for key, value in data.items():
        if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            for item in value:
                tail.append(f"\n[[{key}]]")
                tail += [f"{json.dumps(k)} = {_toml_value(v)}" for k, v in item.items()]
        else:
            head.append(f"{json.dumps(key)} = {_toml_value(value)}")
    return "\n".join(head + tail) + "\n"


def small_board(mutate: Callable[[dict[str, Any]], Any] | None = None) -> dict[str, Any]:
    data = copy.deepcopy(SMALL_BOARD)
    if mutate is not None:
        mutate(data)
    return data


def write(path: Path, text: str | bytes) -> Path:
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def record_with(actions: list[Any] | None = None, **changes: Any) -> dict[str, Any]:
    data = copy.deepcopy(BASE_RECORD)
    if actions is not None:
        data["actions"] = actions
    data.update(changes)
    return data


def cli_fails(capsys: pytest.CaptureFixture[str], argv: list[str], status: int) -> str:
    """Run the CLI in-process; it must fail with `status`, print nothing on stdout and
    exactly one line on stderr, which is returned (without its newline)."""
    assert main(argv) == status
    out, err = capsys.readouterr()
    assert out == ""
    assert err.endswith("\n") and err.count("\n") == 1, err
    assert "Traceback" not in err
    return err[:-1]


def check_error(exc: Any, path: Path, field: str | None, reason: str) -> None:
    """The error names the file, the field (or offending id) and the reason, in one line."""
    message = str(exc)
    assert "\n" not in message
    assert exc.source == str(path), message
    assert str(path) in message
    if field is not None:
        assert exc.field == field, message
        assert f": {field}: " in message
    assert reason in exc.reason, message


def write_record(path: Path, data: Any) -> Path:
    """A record file: JSON of `data`, or `data` itself when it is raw text."""
    return write(path, data if isinstance(data, str) else json.dumps(data))


def record_without(key: str) -> dict[str, Any]:
    return {k: v for k, v in BASE_RECORD.items() if k != key}


# -- board mutations ---------------------------------------------------------------------
def add_lane(lid: str, ends: list[str], spots: list[int]) -> Callable[[dict[str, Any]], None]:
    return lambda b: b["lanes"].append({"id": lid, "ends": ends, "spots": spots})


def add_district(did: str, lanes: list[Any]) -> Callable[[dict[str, Any]], None]:
    return lambda b: b["districts"].append({"id": did, "lanes": lanes})


def steps(*parts: Callable[[dict[str, Any]], Any]) -> Callable[[dict[str, Any]], None]:
    def run(b: dict[str, Any]) -> None:
        for step in parts:
            step(b)
    return run


def set_lane(i: int, **changes: Any) -> Callable[[dict[str, Any]], None]:
    return lambda b: b["lanes"][i].update(changes)


def set_district(i: int, **changes: Any) -> Callable[[dict[str, Any]], None]:
    return lambda b: b["districts"][i].update(changes)


def set_top(**changes: Any) -> Callable[[dict[str, Any]], None]:
    return lambda b: b.update(changes)


# -- actions ---------------------------------------------------------------------------
def draw(customer: str | None = None) -> dict[str, Any]:
    return {"type": "draw_customer", **({"customer": customer} if customer else {})}


def stall(lane: str, frm: str | None = None) -> dict[str, Any]:
    return {"type": "place_stall", "lane": lane, **({"from": frm} if frm else {})}


def place(square: str, customer: str | None = None) -> dict[str, Any]:
    return {"type": "place_customer", "square": square,
            **({"customer": customer} if customer else {})}

