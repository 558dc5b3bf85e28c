"""Bad board files (SPEC §2): one thing broken in a small valid board, refused in one line
naming the file, the field or id and the reason, by the loader and by `portobello board
check` (exit status 1). Shared pieces: `bad_input.py`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from bad_input import SMALL_RULES
from bad_input import add_district
from bad_input import add_lane
from bad_input import check_error
from bad_input import cli_fails
from bad_input import set_district
from bad_input import set_lane
from bad_input import set_top
from bad_input import small_board
from bad_input import steps
from bad_input import to_toml
from bad_input import write

from sim.cli.command import main
from sim.core.errors import BoardError
from sim.core.errors import RulesError
from sim.games.portobello.board import load_board
from sim.games.portobello.rules import Rules
from sim.games.portobello.rules import load_rules

# (id, mutation of the small board, expected field, expected piece of the reason)
BOARD_CASES: list[tuple[str, Callable[[dict[str, Any]], Any], str, str]] = [
    # unknown or duplicate ids
    ("duplicate-square", lambda b: b["squares"].append("S2"), "squares",
     "duplicate square id S2"),
    ("duplicate-lane", add_lane("L3", ["S1", "S2"], [1]), "lane L3", "duplicate lane id L3"),
    ("duplicate-district", add_district("D2", ["L1"]), "district D2",
     "duplicate district id D2"),
    ("lane-ends-at-unknown-square", set_lane(0, ends=["S1", "S9"]), "lane L1",
     "lane L1 ends at unknown square 'S9'"),
    ("district-lists-unknown-lane", set_district(1, lanes=["L3", "L4", "L5", "L9"]),
     "district D2", "district D2 lists unknown lane 'L9'"),
    ("district-lists-lane-twice", set_district(0, lanes=["L1", "L2", "L5", "L1"]), "district D1",
     "district D1 lists lane L1 twice"),
    ("layout-unknown-square", set_top(layout={"squares": {"S7": [0, 0]}}), "layout.squares",
     "layout names unknown square 'S7'"),
    ("layout-unknown-district", set_top(layout={"districts": {"D7": [0, 0]}}),
     "layout.districts", "layout names unknown district 'D7'"),
    # lanes
    ("lane-without-spots", set_lane(2, spots=[]), "lane L3", "lane L3 has no spots"),
    ("spot-value-zero", set_lane(2, spots=[0]), "lane L3",
     "lane L3 has a spot value 0 that is not a positive integer"),
    ("spot-value-negative", set_lane(1, spots=[2, -1]), "lane L2",
     "lane L2 has a spot value -1 that is not a positive integer"),
    ("spot-value-float", set_lane(1, spots=[2, 1.5]), "lane L2", "spot value 1.5"),
    ("spot-value-string", set_lane(1, spots=[2, "1"]), "lane L2", "spot value '1'"),
    ("spot-value-bool", set_lane(1, spots=[2, True]), "lane L2", "spot value True"),
    ("lane-ends-at-same-square", set_lane(0, ends=["S1", "S1"]), "lane L1",
     "lane L1 has both ends at the same square S1"),
    ("lane-with-three-ends", set_lane(0, ends=["S1", "S2", "S3"]), "lane L1",
     "lane L1 must have exactly two ends, got 3"),
    # a list inside `ends` or a district's `lanes` once escaped as a TypeError traceback
    ("lane-end-not-a-string", set_lane(0, ends=[["S1"], "S2"]), "lane L1",
     "lane L1 ends at unknown square ['S1']"),
    ("district-lane-not-a-string", set_district(0, lanes=[["L1"], "L2", "L5"]), "district D1",
     "district D1 lists unknown lane ['L1']"),
    # lanes and districts
    ("lane-in-three-districts", add_district("D3", ["L5"]), "lane L5",
     "lane L5 is in more than two districts (D1, D2, D3)"),
    ("lane-in-no-district", add_lane("L6", ["S2", "S4"], [1]), "lane L6",
     "lane L6 is in no district"),
    ("district-without-lanes", add_district("D3", []), "district D3",
     "district D3 has no lanes"),
    ("districts-share-two-lanes", set_district(1, lanes=["L3", "L4", "L5", "L1"]),
     "district D1", "districts D1 and D2 share more than one lane (L1, L5)"),
    ("district-graph-not-connected",
     steps(add_lane("L6", ["S2", "S4"], [1]), add_district("D3", ["L6"])), "district D3",
     "the district graph is not connected: district D3 cannot be reached from D1"),
    ("too-few-squares", set_top(squares=["S1"]), "squares",
     "a board needs at least two squares"),
    ("no-lanes", set_top(lanes=[]), "lanes", "a board needs at least one lane"),
    ("no-districts", set_top(districts=[]), "districts", "a board needs at least one district"),
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
    ("name-not-a-string", set_top(name=5), "name", "'name' must be a str, got 5"),
    ("description-not-a-string", set_top(description=["x"]), "description",
     "'description' must be a string"),
    ("squares-not-a-list", set_top(squares="S1 S2 S3 S4"), "squares", "'squares' must be a list"),
    ("square-id-not-a-string", set_top(squares=["S1", "S2", "S3", 4]), "squares",
     "square id 4 is not a non-empty string"),
    ("lanes-not-a-list", set_top(lanes={"L1": ["S1", "S2"]}), "lanes", "'lanes' must be a list"),
    ("lane-not-a-table", set_top(lanes=["L1"]), "lanes[0]", "a lane must be a table"),
    ("lane-id-not-a-string", set_lane(0, id=1), "lanes[0]", "'id' must be a str, got 1"),
    ("ends-not-a-list", set_lane(0, ends="S1-S2"), "lane L1", "'ends' must be a list"),
    ("spots-not-a-list", set_lane(0, spots=3), "lane L1", "'spots' must be a list, got 3"),
    ("district-lanes-not-a-list", set_district(0, lanes="L1"), "district D1",
     "'lanes' must be a list"),
    ("layout-not-a-table", set_top(layout=[1, 2]), "layout", "'layout' must be a table"),
    ("layout-bad-coordinates", set_top(layout={"squares": {"S1": [0, "up"]}}), "layout.squares",
     "layout of S1 must be [x, y] numbers"),
    ("unknown-board-field", set_top(colour="red"), "colour", "unknown field 'colour'"),
    ("unknown-lane-field", set_lane(0, owner="me"), "lanes[0]", "unknown field 'owner'"),
    ("unknown-district-field", set_district(0, name="x"), "districts[0]", "unknown field 'name'"),
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

