"""Bad input everywhere a user can give it: board files (SPEC §2), rules files and game
records (SPEC §3), and the command line.

Every refusal must be one clear line naming the file, the offending id or field and the
reason; the command line must exit non-zero with exactly that line on stderr (status 2 and
`action INDEX TYPE: reason` for an illegal action in a replayed record) and never show a
traceback.

Each case is built from a small valid board, rules or record with one thing broken. Library
calls and the in-process `sim.cli.main` cover every case; a few real subprocesses (run
concurrently, see `cli_runs`) check the actual exit path.
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from sim.cli.main import main
from sim.engine.board import load_board
from sim.engine.errors import BoardError, IllegalActionError, RecordError, RulesError
from sim.engine.records import replay_file
from sim.engine.rules import Rules, load_rules

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


# -- board files -----------------------------------------------------------------------------
def _add_lane(lid: str, ends: list[str], spots: list[int]) -> Callable[[dict[str, Any]], None]:
    return lambda b: b["lanes"].append({"id": lid, "ends": ends, "spots": spots})


def _add_district(did: str, lanes: list[Any]) -> Callable[[dict[str, Any]], None]:
    return lambda b: b["districts"].append({"id": did, "lanes": lanes})


def _seq(*steps: Callable[[dict[str, Any]], Any]) -> Callable[[dict[str, Any]], None]:
    def run(b: dict[str, Any]) -> None:
        for step in steps:
            step(b)
    return run


def _lane(i: int, **changes: Any) -> Callable[[dict[str, Any]], None]:
    return lambda b: b["lanes"][i].update(changes)


def _district(i: int, **changes: Any) -> Callable[[dict[str, Any]], None]:
    return lambda b: b["districts"][i].update(changes)


def _top(**changes: Any) -> Callable[[dict[str, Any]], None]:
    return lambda b: b.update(changes)


# (id, mutation of the small board, expected field, expected piece of the reason)
BOARD_CASES: list[tuple[str, Callable[[dict[str, Any]], Any], str, str]] = [
    # unknown or duplicate ids
    ("duplicate-square", lambda b: b["squares"].append("S2"), "squares",
     "duplicate square id S2"),
    ("duplicate-lane", _add_lane("L3", ["S1", "S2"], [1]), "lane L3", "duplicate lane id L3"),
    ("duplicate-district", _add_district("D2", ["L1"]), "district D2",
     "duplicate district id D2"),
    ("lane-ends-at-unknown-square", _lane(0, ends=["S1", "S9"]), "lane L1",
     "lane L1 ends at unknown square 'S9'"),
    ("district-lists-unknown-lane", _district(1, lanes=["L3", "L4", "L5", "L9"]),
     "district D2", "district D2 lists unknown lane 'L9'"),
    ("district-lists-lane-twice", _district(0, lanes=["L1", "L2", "L5", "L1"]), "district D1",
     "district D1 lists lane L1 twice"),
    ("layout-unknown-square", _top(layout={"squares": {"S7": [0, 0]}}), "layout.squares",
     "layout names unknown square 'S7'"),
    ("layout-unknown-district", _top(layout={"districts": {"D7": [0, 0]}}),
     "layout.districts", "layout names unknown district 'D7'"),
    # lanes
    ("lane-without-spots", _lane(2, spots=[]), "lane L3", "lane L3 has no spots"),
    ("spot-value-zero", _lane(2, spots=[0]), "lane L3",
     "lane L3 has a spot value 0 that is not a positive integer"),
    ("spot-value-negative", _lane(1, spots=[2, -1]), "lane L2",
     "lane L2 has a spot value -1 that is not a positive integer"),
    ("spot-value-float", _lane(1, spots=[2, 1.5]), "lane L2", "spot value 1.5"),
    ("spot-value-string", _lane(1, spots=[2, "1"]), "lane L2", "spot value '1'"),
    ("spot-value-bool", _lane(1, spots=[2, True]), "lane L2", "spot value True"),
    ("lane-ends-at-same-square", _lane(0, ends=["S1", "S1"]), "lane L1",
     "lane L1 has both ends at the same square S1"),
    ("lane-with-three-ends", _lane(0, ends=["S1", "S2", "S3"]), "lane L1",
     "lane L1 must have exactly two ends, got 3"),
    # a list inside `ends` or a district's `lanes` once escaped as a TypeError traceback
    ("lane-end-not-a-string", _lane(0, ends=[["S1"], "S2"]), "lane L1",
     "lane L1 ends at unknown square ['S1']"),
    ("district-lane-not-a-string", _district(0, lanes=[["L1"], "L2", "L5"]), "district D1",
     "district D1 lists unknown lane ['L1']"),
    # lanes and districts
    ("lane-in-three-districts", _add_district("D3", ["L5"]), "lane L5",
     "lane L5 is in more than two districts (D1, D2, D3)"),
    ("lane-in-no-district", _add_lane("L6", ["S2", "S4"], [1]), "lane L6",
     "lane L6 is in no district"),
    ("district-without-lanes", _add_district("D3", []), "district D3",
     "district D3 has no lanes"),
    ("districts-share-two-lanes", _district(1, lanes=["L3", "L4", "L5", "L1"]),
     "district D1", "districts D1 and D2 share more than one lane (L1, L5)"),
    ("district-graph-not-connected",
     _seq(_add_lane("L6", ["S2", "S4"], [1]), _add_district("D3", ["L6"])), "district D3",
     "the district graph is not connected: district D3 cannot be reached from D1"),
    ("too-few-squares", _top(squares=["S1"]), "squares",
     "a board needs at least two squares"),
    ("no-lanes", _top(lanes=[]), "lanes", "a board needs at least one lane"),
    ("no-districts", _top(districts=[]), "districts", "a board needs at least one district"),
    # missing fields
    ("missing-name", lambda b: b.pop("name"), "name", "missing field 'name'"),
    ("missing-squares", lambda b: b.pop("squares"), "squares", "missing field 'squares'"),
    ("missing-lanes", lambda b: b.pop("lanes"), "lanes", "missing field 'lanes'"),
    ("missing-districts", lambda b: b.pop("districts"), "districts",
     "missing field 'districts'"),
    ("missing-lane-id", lambda b: b["lanes"][1].pop("id"), "lanes[1]", "missing field 'id'"),
    ("missing-lane-ends", lambda b: b["lanes"][1].pop("ends"), "lane L2",
     "missing field 'ends'"),
    ("missing-lane-spots", lambda b: b["lanes"][1].pop("spots"), "lane L2",
     "missing field 'spots'"),
    ("missing-district-id", lambda b: b["districts"][1].pop("id"), "districts[1]",
     "missing field 'id'"),
    ("missing-district-lanes", lambda b: b["districts"][1].pop("lanes"), "district D2",
     "missing field 'lanes'"),
    # wrong types and unknown fields
    ("name-not-a-string", _top(name=5), "name", "'name' must be a str, got 5"),
    ("description-not-a-string", _top(description=["x"]), "description",
     "'description' must be a string"),
    ("squares-not-a-list", _top(squares="S1 S2 S3 S4"), "squares", "'squares' must be a list"),
    ("square-id-not-a-string", _top(squares=["S1", "S2", "S3", 4]), "squares",
     "square id 4 is not a non-empty string"),
    ("lanes-not-a-list", _top(lanes={"L1": ["S1", "S2"]}), "lanes", "'lanes' must be a list"),
    ("lane-not-a-table", _top(lanes=["L1"]), "lanes[0]", "a lane must be a table"),
    ("lane-id-not-a-string", _lane(0, id=1), "lanes[0]", "'id' must be a str, got 1"),
    ("ends-not-a-list", _lane(0, ends="S1-S2"), "lane L1", "'ends' must be a list"),
    ("spots-not-a-list", _lane(0, spots=3), "lane L1", "'spots' must be a list, got 3"),
    ("district-lanes-not-a-list", _district(0, lanes="L1"), "district D1",
     "'lanes' must be a list"),
    ("layout-not-a-table", _top(layout=[1, 2]), "layout", "'layout' must be a table"),
    ("layout-bad-coordinates", _top(layout={"squares": {"S1": [0, "up"]}}), "layout.squares",
     "layout of S1 must be [x, y] numbers"),
    ("unknown-board-field", _top(colour="red"), "colour", "unknown field 'colour'"),
    ("unknown-lane-field", _lane(0, owner="me"), "lanes[0]", "unknown field 'owner'"),
    ("unknown-district-field", _district(0, name="x"), "districts[0]", "unknown field 'name'"),
]


@pytest.mark.parametrize("case", BOARD_CASES, ids=[c[0] for c in BOARD_CASES])
def test_bad_board(case: tuple[str, Callable[[dict[str, Any]], Any], str, str],
                   tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    name, mutate, field, reason = case
    path = write(tmp_path / f"{name}.toml", to_toml(small_board(mutate)))
    with pytest.raises(BoardError) as info:
        load_board(path)
    check_error(info.value, path, field, reason)
    line = cli_fails(capsys, ["board", "check", str(path)], 1)
    assert line == f"portobello: error: {info.value}"


RAW_BOARD_CASES: list[tuple[str, str | bytes, str]] = [
    ("not-toml", 'name = "small"\nsquares = ["S1", "S2"\n', "not valid TOML"),
    ("duplicate-toml-key", 'name = "a"\nname = "b"\n', "not valid TOML"),
    ("empty-file", "", "missing field 'name'"),
    ("not-utf8", b'name = "\xff"\n', "cannot read"),
]


@pytest.mark.parametrize("case", RAW_BOARD_CASES, ids=[c[0] for c in RAW_BOARD_CASES])
def test_unreadable_board(case: tuple[str, str | bytes, str], tmp_path: Path,
                          capsys: pytest.CaptureFixture[str]) -> None:
    name, text, reason = case
    path = write(tmp_path / f"{name}.toml", text)
    with pytest.raises(BoardError) as info:
        load_board(path)
    check_error(info.value, path, None, reason)
    cli_fails(capsys, ["board", "check", str(path)], 1)


def test_missing_board_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "nowhere.toml"
    with pytest.raises(BoardError) as info:
        load_board(path)
    check_error(info.value, path, None, "no such board file (shipped boards: standard")
    cli_fails(capsys, ["board", "check", str(path)], 1)


def test_ids_with_newlines_stay_on_one_line(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path / "newline.toml",
                 to_toml(small_board(lambda b: b["squares"].extend(["X\nY", "X\nY"]))))
    with pytest.raises(BoardError) as info:
        load_board(path)
    assert "\n" not in str(info.value)
    assert "duplicate square id X\\nY" in str(info.value)
    cli_fails(capsys, ["board", "check", str(path)], 1)


def test_small_board_is_valid(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The base of every case above is itself valid (so each case breaks one thing)."""
    board_path = write(tmp_path / "small.toml", to_toml(small_board()))
    rules_path = write(tmp_path / "small-rules.toml", to_toml(SMALL_RULES))
    board = load_board(board_path)
    load_rules(rules_path).check_board(board)
    assert main(["board", "check", str(board_path), "--rules", str(rules_path)]) == 0
    out, err = capsys.readouterr()
    assert "is valid" in out and err == ""


def test_bag_must_fit_the_board(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Default rules put 10 customers in the bag; with the baron on, 4 squares take 3."""
    path = write(tmp_path / "small.toml", to_toml(small_board()))
    board = load_board(path)
    with pytest.raises(RulesError) as info:
        Rules().check_board(board, source=str(path))
    check_error(info.value, path, "customers",
                "with the baron on, the bag must hold exactly squares - 1 = 3 customers for "
                "board small, but it holds 10")
    line = cli_fails(capsys, ["board", "check", str(path)], 1)
    assert line == f"portobello: error: {info.value}"
    # Without the baron a bag of up to 4 fits, a bag of 10 still does not.
    with pytest.raises(RulesError, match="holds 10 customers but board small has only 4"):
        Rules(baron=False).check_board(board)
    Rules(baron=False, customers=(("citizen", 2), ("aristocrat", 2))).check_board(board)


# -- rules files -----------------------------------------------------------------------------
# (id, rules file content, expected field, expected piece of the reason)
RULES_CASES: list[tuple[str, dict[str, Any], str, str]] = [
    ("unknown-key", {"players": 2, "colour": "red"}, "colour", "unknown rules key 'colour'"),
    ("one-player", {"players": 1}, "players", "must be an integer of at least 2, got 1"),
    ("five-players-without-stalls", {"players": 5}, "players",
     "5 players need an explicit stalls_per_player"),
    ("players-not-an-integer", {"players": "3"}, "players", "got '3'"),
    ("players-float", {"players": 3.0}, "players", "got 3.0"),
    ("stalls-zero", {"stalls_per_player": 0}, "stalls_per_player",
     "must be a positive integer, got 0"),
    ("customer-order-enum", {"customer_order": "random"}, "customer_order",
     "must be one of drawn, known, got 'random'"),
    ("bobby-placer-enum", {"bobby_placer": "middle"}, "bobby_placer",
     "must be one of first, last, got 'middle'"),
    ("bobby-tie-enum", {"bobby_tie": "nobody"}, "bobby_tie",
     "must be one of pay_co_leaders, pay_bank, got 'nobody'"),
    ("neutral-token-zero", {"neutral_stack": [3, 0]}, "neutral_stack",
     "token values must be positive integers, got [3, 0]"),
    ("player-token-negative", {"player_tokens": [2, -3, 4]}, "player_tokens",
     "token values must be positive integers"),
    ("district-token-zero", {"district_tokens": [0]}, "district_tokens",
     "token values must be positive integers"),
    ("district-token-not-a-player-token", {"district_tokens": [5]}, "district_tokens",
     "5 is not one of the player tokens [2, 3, 4]"),
    ("no-player-tokens", {"player_tokens": [], "district_tokens": []}, "player_tokens",
     "a player needs at least one token"),
    ("neutral-stack-not-a-list", {"neutral_stack": 3}, "neutral_stack",
     "must be a list, got 3"),
    ("multiplier-incomplete-pair", {"multipliers": {"citizen": 2}}, "multipliers",
     "unknown customer pair 'citizen'"),
    ("multiplier-half-pair", {"multipliers": {"citizen-": 2}}, "multipliers",
     "unknown customer pair 'citizen-'"),
    ("multiplier-unknown-pair", {"multipliers": {"citizen-duke": 2}}, "multipliers",
     "unknown customer pair 'citizen-duke'"),
    ("multiplier-baron-baron", {"multipliers": {"baron-baron": 5}}, "multipliers",
     "unknown customer pair 'baron-baron'"),
    ("multiplier-negative", {"multipliers": {"aristocrat-citizen": -2}}, "multipliers",
     "citizen-aristocrat must be a non-negative integer, got -2"),
    ("multiplier-not-a-number", {"multipliers": {"citizen-citizen": "one"}}, "multipliers",
     "citizen-citizen must be a non-negative integer, got 'one'"),
    ("multipliers-not-a-table", {"multipliers": [1, 2, 3]}, "multipliers",
     "must be a table keyed by pair names"),
    ("sequence-with-drawn-order",
     {"customer_order": "drawn", "customer_sequence": ["citizen", "aristocrat"]},
     "customer_sequence", "implies known order; it cannot be combined with customer_order"),
    ("sequence-unknown-customer", {"customer_sequence": ["citizen", "duke"]},
     "customer_sequence", "entry 1 is 'duke'"),
    ("sequence-baron-not-last", {"customer_sequence": ["baron", "citizen"]},
     "customer_sequence", "entry 0 is 'baron'"),
    ("sequence-baron-but-baron-off", {"baron": False, "customer_sequence": ["citizen", "baron"]},
     "customer_sequence", "ends with the baron but the baron is off"),
    ("sequence-not-a-list", {"customer_sequence": "citizen"}, "customer_sequence",
     "must be a list, got 'citizen'"),
    ("customers-negative", {"customers": {"citizen": -1}}, "customers",
     "citizen count must be a non-negative integer, got -1"),
    ("customers-unknown-kind", {"customers": {"duke": 1}}, "customers",
     "must give counts for exactly citizen and aristocrat"),
    ("customers-not-a-table", {"customers": [5, 5]}, "customers", "must be a table"),
    ("baron-not-a-bool", {"baron": "yes"}, "baron", "must be true or false, got 'yes'"),
    ("negative-scores-not-a-bool", {"negative_scores": 1}, "negative_scores",
     "must be true or false, got 1"),
    ("max-rounds-zero", {"max_rounds": 0}, "max_rounds", "must be a positive integer, got 0"),
    ("start-score-not-an-integer", {"start_score": "10"}, "start_score",
     "must be an integer, got '10'"),
]


@pytest.mark.parametrize("case", RULES_CASES, ids=[c[0] for c in RULES_CASES])
def test_bad_rules(case: tuple[str, dict[str, Any], str, str], tmp_path: Path,
                   capsys: pytest.CaptureFixture[str]) -> None:
    name, data, field, reason = case
    path = write(tmp_path / f"{name}.toml", to_toml(data))
    with pytest.raises(RulesError) as info:
        load_rules(path)
    check_error(info.value, path, field, reason)
    line = cli_fails(capsys, ["board", "check", "standard", "--rules", str(path)], 1)
    assert line == f"portobello: error: {info.value}"


@pytest.mark.parametrize("text, reason", [
    ("players = \n", "not valid TOML"),
    ("players = 2\nplayers = 3\n", "not valid TOML"),
    ("[multipliers\n", "not valid TOML"),
], ids=["no-value", "duplicate-key", "broken-table"])
def test_rules_not_toml(text: str, reason: str, tmp_path: Path,
                        capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path / "rules.toml", text)
    with pytest.raises(RulesError) as info:
        load_rules(path)
    check_error(info.value, path, None, reason)
    cli_fails(capsys, ["rules", "show", "--rules", str(path)], 1)


def test_missing_rules_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "nowhere.toml"
    with pytest.raises(RulesError) as info:
        load_rules(path)
    check_error(info.value, path, None, "no such rules file")
    cli_fails(capsys, ["board", "check", "standard", "--rules", str(path)], 1)


# -- records that cannot be read -------------------------------------------------------------
def _without(key: str) -> dict[str, Any]:
    return {k: v for k, v in BASE_RECORD.items() if k != key}


# (id, record content (a JSON value, or raw text), expected field, expected piece of reason)
RECORD_CASES: list[tuple[str, Any, str | None, str]] = [
    ("not-json", "{'format': 'portobello-record/1'}", None, "not valid JSON"),
    ("truncated-json", json.dumps(BASE_RECORD)[:-5], None, "not valid JSON"),
    ("not-an-object", [BASE_RECORD], None, "a record must be a JSON object"),
    ("wrong-format", record_with(format="portobello-record/0"), "format",
     "format must be 'portobello-record/1', got 'portobello-record/0'"),
    ("missing-format", _without("format"), "format", "got None"),
    ("missing-actions", _without("actions"), "actions", "missing field 'actions'"),
    ("actions-not-a-list", record_with(actions={"0": END}), "actions", "must be a list"),
    ("missing-board", _without("board"), "board", "missing field 'board'"),
    ("board-not-a-string", record_with(board=["standard"]), "board",
     "must be a board name or path"),
    ("seed-string", record_with(seed="7"), "seed", "must be an integer, got '7'"),
    ("seed-float", record_with(seed=7.5), "seed", "must be an integer, got 7.5"),
    ("seed-bool", record_with(seed=True), "seed", "must be an integer, got True"),
    ("agents-not-a-list", record_with(agents="random"), "agents",
     "must be a list of agent names"),
    ("unknown-board", record_with(board="nosuch"), "board",
     "board 'nosuch': "),
    ("board-file-missing", record_with(board="boards/nowhere.toml"), "board",
     "no such board file"),
    ("board-file-bad", record_with(board="bad-board.toml"), "board",
     "board 'bad-board.toml': "),
    ("rules-not-an-object", record_with(rules=["players", 2]), "rules", "must be an object"),
    ("rules-unknown-key", record_with(rules={"players": 2, "speed": 3}), "rules",
     "speed: unknown rules key 'speed'"),
    ("rules-one-player", record_with(rules={"players": 1}), "rules",
     "players: must be an integer of at least 2, got 1"),
    ("rules-sequence-with-drawn", record_with(rules={"customer_order": "drawn",
                                                     "customer_sequence": LINE}),
     "rules", "customer_sequence: a customer_sequence implies known order"),
    ("rules-bag-does-not-fit-board", record_with(rules={"customers": {"citizen": 4}}),
     "rules", "customers: with the baron on, the bag must hold exactly squares - 1 = 10"),
    ("rules-line-does-not-fit-board", record_with(rules={"customer_sequence": LINE[:-1]}),
     "rules", "customer_sequence: with the baron on, the bag must hold exactly squares - 1 = "
              "10 customers for board standard, but it holds 9"),
]


def write_record(path: Path, data: Any) -> Path:
    return write(path, data if isinstance(data, str) else json.dumps(data))


@pytest.mark.parametrize("case", RECORD_CASES, ids=[c[0] for c in RECORD_CASES])
def test_bad_record(case: tuple[str, Any, str | None, str], tmp_path: Path,
                    capsys: pytest.CaptureFixture[str]) -> None:
    name, data, field, reason = case
    # A broken board next to the record, for records that name it by relative path.
    write(tmp_path / "bad-board.toml", to_toml(small_board(lambda b: b["squares"].append("S1"))))
    path = write_record(tmp_path / f"{name}.json", data)
    with pytest.raises(RecordError) as info:
        replay_file(path)
    check_error(info.value, path, field, reason)
    if name == "board-file-bad":
        assert "duplicate square id S1" in str(info.value)
        assert str(tmp_path / "bad-board.toml") in str(info.value)
    line = cli_fails(capsys, ["replay", str(path), "--json"], 1)
    assert line == f"portobello: error: {info.value}"


def test_missing_record_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "nowhere.json"
    with pytest.raises(RecordError) as info:
        replay_file(path)
    check_error(info.value, path, None, "no such record file")
    cli_fails(capsys, ["replay", str(path)], 1)


# -- records with an illegal action ----------------------------------------------------------
def _draw(customer: str | None = None) -> dict[str, Any]:
    return {"type": "draw_customer", **({"customer": customer} if customer else {})}


def _stall(lane: str, frm: str | None = None) -> dict[str, Any]:
    return {"type": "place_stall", "lane": lane, **({"from": frm} if frm else {})}


def _place(square: str, customer: str | None = None) -> dict[str, Any]:
    return {"type": "place_customer", "square": square,
            **({"customer": customer} if customer else {})}


# (id, actions, extra rules, index and type of the illegal action, expected reason)
ILLEGAL_CASES: list[tuple[str, list[Any], dict[str, Any], str, str]] = [
    ("stall-lane-not-bordering-bobby", [BOBBY, TOKEN4, _stall("L07", "S03")], {},
     "action 2 place_stall", "lane L07 does not border the Bobby's district D01"),
    ("customer-on-occupied-square",
     [BOBBY, TOKEN4, _draw("citizen"), _place("S01"), _place("S01", "aristocrat")], {},
     "action 4 place_customer", "square S01 is not empty"),
    ("customer-on-occupied-square-two-steps",
     [BOBBY, TOKEN4, _place("S05", "citizen"), _draw("aristocrat"), _place("S05")], {},
     "action 4 place_customer", "square S05 is not empty"),
    ("unknown-action-type", [BOBBY, {"type": "teleport", "district": "D02"}], {},
     "action 1 teleport", "unknown action type 'teleport'"),
    ("action-without-type", [BOBBY, {"district": "D02"}], {},
     "action 1 unknown", "unknown action type None"),
    ("action-not-an-object", [BOBBY, "end_turn"], {},
     "action 1 unknown", "an action must be a JSON object"),
    ("unknown-action-field", [BOBBY, TOKEN4, {"type": "end_turn", "seat": 0}], {},
     "action 2 end_turn", "unknown field 'seat'"),
    ("unknown-lane", [BOBBY, TOKEN4, _stall("L99", "S01")], {},
     "action 2 place_stall", "unknown lane 'L99'"),
    ("unknown-square", [BOBBY, TOKEN4, _place("S99", "citizen")], {},
     "action 2 place_customer", "unknown square 'S99'"),
    ("unknown-district", [{"type": "place_bobby", "district": "D99"}], {},
     "action 0 place_bobby", "unknown district 'D99'"),
    ("lane-id-not-a-string", [BOBBY, TOKEN4, {"type": "place_stall", "lane": 7}], {},
     "action 2 place_stall", "lane must be an id string, got 7"),
    ("move-bobby-not-adjacent", [BOBBY, TOKEN4, {"type": "move_bobby", "district": "D06"}], {},
     "action 2 move_bobby", "district D06 is not adjacent to the Bobby's district D01"),
    ("second-token-in-a-turn", [BOBBY, TOKEN4, _stall("L02", "S01"),
                                {"type": "play_token", "value": 3}], {},
     "action 3 play_token", "a token was already played this turn"),
    ("draw-then-end-turn", [BOBBY, TOKEN4, _draw("citizen"), END], {},
     "action 3 end_turn", "the drawn customer must be placed on a square first"),
    ("draw-then-stall", [BOBBY, TOKEN4, _draw(), _stall("L02", "S01")], {},
     "action 3 place_stall", "the drawn customer must be placed on a square first"),
    ("draw-then-move-bobby", [BOBBY, TOKEN4, _draw("aristocrat"),
                              {"type": "move_bobby", "district": "D02"}], {},
     "action 3 move_bobby", "the drawn customer must be placed on a square first"),
    ("draw-then-draw", [BOBBY, TOKEN4, _draw("aristocrat"), _draw("citizen")], {},
     "action 3 draw_customer", "the drawn customer must be placed on a square first"),
    ("draw-contradicts-known-line", [BOBBY, TOKEN4, _draw("citizen")],
     {"customer_sequence": LINE},
     "action 2 draw_customer", "the next customer in the line is aristocrat, not citizen"),
    ("shorthand-contradicts-known-line", [BOBBY, TOKEN4, _place("S04", "citizen")],
     {"customer_sequence": LINE},
     "action 2 place_customer", "the next customer in the line is aristocrat, not citizen"),
    ("place-contradicts-draw", [BOBBY, TOKEN4, _draw("citizen"), _place("S04", "aristocrat")],
     {}, "action 3 place_customer", "the drawn customer is citizen, not aristocrat"),
    ("draw-the-baron", [BOBBY, TOKEN4, _draw("baron")], {},
     "action 2 draw_customer", "customer must be citizen or aristocrat, got 'baron'"),
    ("bag-has-no-more-aristocrats", [BOBBY, TOKEN4, _draw("aristocrat")],
     {"customers": {"citizen": 10, "aristocrat": 0}},
     "action 2 draw_customer", "no aristocrat left in the bag"),
    ("token-before-bobby", [TOKEN4], {},
     "action 0 play_token", "the Bobby must be placed before the first turn"),
    ("bobby-placed-twice", [BOBBY, BOBBY], {},
     "action 1 place_bobby", "the Bobby is already on the board"),
    ("end-turn-before-token", [BOBBY, END], {},
     "action 1 end_turn", "the turn must begin with play_token or score_district"),
    ("stall-before-token", [BOBBY, _stall("L02", "S01")], {},
     "action 1 place_stall", "the turn must begin with play_token or score_district"),
    ("token-not-held", [BOBBY, {"type": "play_token", "value": 7}], {},
     "action 1 play_token", "no face-up own token of value 7"),
    ("neutral-token-not-held", [BOBBY, {"type": "play_token", "value": 3, "neutral": True}],
     {}, "action 1 play_token", "no face-up neutral token of value 3"),
    ("token-value-not-an-integer", [BOBBY, {"type": "play_token", "value": "4"}], {},
     "action 1 play_token", "'value' must be an integer, got '4'"),
    ("token-value-missing", [BOBBY, {"type": "play_token"}], {},
     "action 1 play_token", "missing field 'value'"),
    ("score-with-token-3", [BOBBY, {"type": "score_district", "value": 3, "district": "D02"}],
     {}, "action 1 score_district", "a token of value 3 cannot score a district"),
    ("score-district-twice",
     [BOBBY, {"type": "score_district", "value": 2, "district": "D02"},
      {"type": "score_district", "value": 4, "district": "D02"}], {},
     "action 2 score_district", "district D02 has already been scored"),
    ("stall-without-from-on-empty-lane", [BOBBY, TOKEN4, _stall("L02")], {},
     "action 2 place_stall", "lane L02 is empty, so 'from' must name the end square"),
    ("stall-from-a-square-off-the-lane", [BOBBY, TOKEN4, _stall("L02", "S05")], {},
     "action 2 place_stall", "square S05 is not an end of lane L02"),
    ("stall-from-the-other-end", [BOBBY, TOKEN4, _stall("L02", "S01"), _stall("L02", "S08")],
     {}, "action 3 place_stall", "lane L02 is built from S01, not S08"),
    ("too-many-actions", [BOBBY, {"type": "play_token", "value": 2}, _stall("L02", "S01"),
                          _stall("L02"), _stall("L02")], {},
     "action 4 place_stall", "no actions left this turn"),
]


@pytest.mark.parametrize("case", ILLEGAL_CASES, ids=[c[0] for c in ILLEGAL_CASES])
def test_illegal_action(case: tuple[str, list[Any], dict[str, Any], str, str], tmp_path: Path,
                        capsys: pytest.CaptureFixture[str]) -> None:
    name, actions, rules, where, reason = case
    data = record_with(actions, rules={"players": 2, **rules})
    path = write_record(tmp_path / f"{name}.json", data)
    with pytest.raises(IllegalActionError) as info:
        replay_file(path)
    message = str(info.value)
    assert message.startswith(f"{where}: "), message
    assert reason in message
    assert "\n" not in message
    # Every action before the illegal one is legal: the record cut just before it replays.
    index = int(where.split()[1])
    ok = write_record(tmp_path / "prefix.json", record_with(actions[:index],
                                                            rules=data["rules"]))
    replay_file(ok)
    # The command line prints exactly SPEC's line, status 2, nothing on stdout.
    assert cli_fails(capsys, ["replay", str(path), "--json"], 2) == message


# -- the real command line -------------------------------------------------------------------
def _cli_cases(tmp: Path) -> dict[str, tuple[list[str], int, str]]:
    """id -> (arguments, expected status, expected piece of the stderr line)."""
    def board(name: str, mutate: Callable[[dict[str, Any]], Any] | None = None) -> str:
        return str(write(tmp / f"{name}.toml", to_toml(small_board(mutate))))

    def rules(name: str, data: dict[str, Any]) -> str:
        return str(write(tmp / f"{name}.toml", to_toml(data)))

    def record(name: str, data: Any) -> str:
        return str(write_record(tmp / f"{name}.json", data))

    small = board("small")
    return {
        "check-standard": (["board", "check", str(STANDARD)], 0, ""),
        "check-small-with-rules": (["board", "check", small, "--rules",
                                    rules("small-rules", SMALL_RULES)], 0, ""),
        "check-not-toml": (["board", "check", str(write(tmp / "broken.toml", "name = \n"))],
                           1, "not valid TOML"),
        "check-duplicate-lane": (["board", "check", board("dup", _add_lane("L2", ["S1", "S3"],
                                                                           [1]))],
                                 1, "duplicate lane id L2"),
        "check-lane-end-not-a-string": (["board", "check",
                                         board("listend", _lane(0, ends=[["S1"], "S2"]))],
                                        1, "ends at unknown square"),
        "check-not-connected": (["board", "check", board("apart", _seq(
            _add_lane("L6", ["S2", "S4"], [1]), _add_district("D3", ["L6"])))],
                                1, "district D3 cannot be reached from D1"),
        "check-bag-does-not-fit": (["board", "check", small], 1, "squares - 1 = 3"),
        "check-missing-file": (["board", "check", str(tmp / "nowhere.toml")], 1,
                               "no such board file"),
        "rules-unknown-key": (["board", "check", "standard", "--rules",
                               rules("colour", {"colour": "red"})], 1, "unknown rules key"),
        "rules-five-players": (["board", "check", "standard", "--rules",
                                rules("five", {"players": 5})], 1, "stalls_per_player"),
        "rules-not-toml": (["rules", "show", "--rules",
                            str(write(tmp / "rules-broken.toml", "players = [\n"))],
                           1, "not valid TOML"),
        "replay-not-json": (["replay", record("notjson", "{nope"), "--json"], 1,
                            "not valid JSON"),
        "replay-wrong-format": (["replay", record("fmt", record_with(format="pm/1")), "--json"],
                                1, "format must be 'portobello-record/1'"),
        "replay-unknown-board": (["replay", record("nob", record_with(board="nosuch")),
                                  "--json"], 1, "no shipped board named 'nosuch'"),
        "replay-bad-rules": (["replay", record("badrules", record_with(rules={"players": 9})),
                              "--json"], 1, "stalls_per_player"),
        "replay-stall-not-bordering": (
            ["replay", record("stall", record_with([BOBBY, TOKEN4, _stall("L07", "S03")])),
             "--json"],
            2, "action 2 place_stall: lane L07 does not border the Bobby's district D01"),
        "replay-move-not-adjacent": (
            ["replay", record("move", record_with(
                [BOBBY, TOKEN4, {"type": "move_bobby", "district": "D06"}])), "--json"],
            2, "action 2 move_bobby: district D06 is not adjacent to the Bobby's district D01"),
        "replay-draw-then-end": (
            ["replay", record("drawend", record_with([BOBBY, TOKEN4, _draw("citizen"), END]))],
            2, "action 3 end_turn: the drawn customer must be placed on a square first"),
        "replay-known-line": (
            ["replay", record("line", record_with([BOBBY, TOKEN4, _draw("citizen")],
                                                  rules={"customer_sequence": LINE})),
             "--json"],
            2, "action 2 draw_customer: the next customer in the line is aristocrat, not "
               "citizen"),
        "replay-unknown-type": (
            ["replay", record("type", record_with([BOBBY, {"type": "jump"}])), "--json"],
            2, "action 1 jump: unknown action type 'jump'"),
        "replay-valid": (["replay", record("valid", record_with(
            [BOBBY, TOKEN4, _stall("L02", "S01"), _draw("citizen"), _place("S05"), END])),
                          "--json"], 0, ""),
        "bench-unknown-agent": (["bench", "--agents", "nosuch", "--games", "1"], 1,
                                "unknown agent 'nosuch'"),
        "bench-zero-games": (["bench", "--games", "0"], 2, "--games: must be at least 1"),
    }


def _run(args: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "sim.cli", *args], capture_output=True,
                          text=True, cwd=REPO, timeout=120, check=False)


# Listed here so that pytest can name the cases before the files exist.
CLI_IDS = [
    "check-standard", "check-small-with-rules", "check-not-toml", "check-duplicate-lane",
    "check-lane-end-not-a-string", "check-not-connected", "check-bag-does-not-fit",
    "check-missing-file", "rules-unknown-key", "rules-five-players", "rules-not-toml",
    "replay-not-json", "replay-wrong-format", "replay-unknown-board", "replay-bad-rules",
    "replay-stall-not-bordering", "replay-move-not-adjacent", "replay-draw-then-end",
    "replay-known-line", "replay-unknown-type", "replay-valid", "bench-unknown-agent",
    "bench-zero-games",
]


@pytest.fixture(scope="module")
def cli_runs(tmp_path_factory: pytest.TempPathFactory
             ) -> dict[str, tuple[list[str], int, str, subprocess.CompletedProcess[str]]]:
    """Every subprocess case, run concurrently once for the module."""
    cases = _cli_cases(tmp_path_factory.mktemp("cli"))
    assert sorted(cases) == sorted(CLI_IDS)
    with ThreadPoolExecutor(max_workers=8) as pool:
        procs = dict(zip(cases, pool.map(_run, [args for args, _, _ in cases.values()]),
                         strict=True))
    return {k: (*cases[k], procs[k]) for k in cases}


@pytest.mark.parametrize("case_id", CLI_IDS)
def test_cli_subprocess(case_id: str, cli_runs: dict[str, Any]) -> None:
    args, status, expected, proc = cli_runs[case_id]
    shown = f"{args}\nstatus {proc.returncode}\nstdout {proc.stdout!r}\nstderr {proc.stderr!r}"
    assert "Traceback" not in proc.stdout + proc.stderr, shown
    assert proc.returncode == status, shown
    if status == 0:
        assert proc.stderr == "", shown
        assert proc.stdout.strip(), shown
        if case_id == "replay-valid":
            out = json.loads(proc.stdout)
            assert out["finished"] is False and out["round"] == 1
            assert set(out) >= {"scores", "winners", "finished", "end_reason",
                                "scored_lanes", "round", "events"}
        return
    assert proc.stdout == "", shown
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and proc.stderr.endswith("\n"), shown
    if status == 2 and case_id.startswith("replay-"):
        # An illegal action: SPEC's line exactly, no program-name prefix.
        assert lines[0] == expected, shown
    else:
        assert expected in lines[0], shown
