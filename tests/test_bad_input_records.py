"""Bad game records (SPEC §3): records that cannot be read (exit status 1) and records with
an illegal action, whose refusal is SPEC's line `action INDEX TYPE: reason` exactly (exit
status 2), by `replay_file` and by `portobello replay`. Shared pieces: `bad_input.py`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from bad_input import BASE_RECORD
from bad_input import BOBBY
from bad_input import END
from bad_input import LINE
from bad_input import TOKEN4
from bad_input import check_error
from bad_input import cli_fails
from bad_input import draw
from bad_input import place
from bad_input import record_with
from bad_input import record_without
from bad_input import small_board
from bad_input import stall
from bad_input import to_toml
from bad_input import write
from bad_input import write_record

from sim.core.errors import IllegalActionError
from sim.core.errors import RecordError
from sim.games.portobello.records import replay_file

# (id, record content (a JSON value, or raw text), expected field, expected piece of reason)
RECORD_CASES: list[tuple[str, Any, str | None, str]] = [
    ("not-json", "{'format': 'portobello-record/1'}", None, "not valid JSON"),
    ("truncated-json", json.dumps(BASE_RECORD)[:-5], None, "not valid JSON"),
    ("not-an-object", [BASE_RECORD], None, "a record must be a JSON object"),
    ("wrong-format", record_with(format="portobello-record/0"), "format",
     "format must be 'portobello-record/1', got 'portobello-record/0'"),
    ("missing-format", record_without("format"), "format", "got None"),
    ("missing-actions", record_without("actions"), "actions", "missing field 'actions'"),
    ("actions-not-a-list", record_with(actions={"0": END}), "actions", "must be a list"),
    ("missing-board", record_without("board"), "board", "missing field 'board'"),
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
     "players: must be an integer from 2 to 16, got 1"),
    ("rules-sequence-with-drawn", record_with(rules={"customer_order": "drawn",
                                                     "customer_sequence": LINE}),
     "rules", "customer_sequence: a customer_sequence implies known order"),
    ("rules-bag-does-not-fit-board", record_with(rules={"customers": {"citizen": 4}}),
     "rules", "customers: with the baron on, the bag must hold exactly squares - 1 = 10"),
    ("rules-line-does-not-fit-board", record_with(rules={"customer_sequence": LINE[:-1]}),
     "rules", "customer_sequence: with the baron on, the bag must hold exactly squares - 1 = "
              "10 customers for board standard, but it holds 9"),
]


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
    if name == "board-file-bad":  # names the file and the reason, quotes nothing of it
        assert "not a valid board file" in str(info.value)
        assert "S1" not in str(info.value)
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
# (id, actions, extra rules, index and type of the illegal action, expected reason)
ILLEGAL_CASES: list[tuple[str, list[Any], dict[str, Any], str, str]] = [
    ("stall-lane-not-bordering-bobby", [BOBBY, TOKEN4, stall("L07", "S03")], {},
     "action 2 place_stall", "lane L07 does not border the Bobby's district D01"),
    ("customer-on-occupied-square",
     [BOBBY, TOKEN4, draw("citizen"), place("S01"), place("S01", "aristocrat")], {},
     "action 4 place_customer", "square S01 is not empty"),
    ("customer-on-occupied-square-two-steps",
     [BOBBY, TOKEN4, place("S05", "citizen"), draw("aristocrat"), place("S05")], {},
     "action 4 place_customer", "square S05 is not empty"),
    ("unknown-action-type", [BOBBY, {"type": "teleport", "district": "D02"}], {},
     "action 1 teleport", "unknown action type 'teleport'"),
    ("action-without-type", [BOBBY, {"district": "D02"}], {},
     "action 1 unknown", "unknown action type None"),
    ("action-not-an-object", [BOBBY, "end_turn"], {},
     "action 1 unknown", "an action must be a JSON object"),
    ("unknown-action-field", [BOBBY, TOKEN4, {"type": "end_turn", "seat": 0}], {},
     "action 2 end_turn", "unknown field 'seat'"),
    ("unknown-lane", [BOBBY, TOKEN4, stall("L99", "S01")], {},
     "action 2 place_stall", "unknown lane 'L99'"),
    ("unknown-square", [BOBBY, TOKEN4, place("S99", "citizen")], {},
     "action 2 place_customer", "unknown square 'S99'"),
    ("unknown-district", [{"type": "place_bobby", "district": "D99"}], {},
     "action 0 place_bobby", "unknown district 'D99'"),
    ("lane-id-not-a-string", [BOBBY, TOKEN4, {"type": "place_stall", "lane": 7}], {},
     "action 2 place_stall", "lane must be an id string, got 7"),
    ("move-bobby-not-adjacent", [BOBBY, TOKEN4, {"type": "move_bobby", "district": "D06"}], {},
     "action 2 move_bobby", "district D06 is not adjacent to the Bobby's district D01"),
    ("second-token-in-a-turn", [BOBBY, TOKEN4, stall("L02", "S01"),
                                {"type": "play_token", "value": 3}], {},
     "action 3 play_token", "a token was already played this turn"),
    ("draw-then-end-turn", [BOBBY, TOKEN4, draw("citizen"), END], {},
     "action 3 end_turn", "the drawn customer must be placed on a square first"),
    ("draw-then-stall", [BOBBY, TOKEN4, draw(), stall("L02", "S01")], {},
     "action 3 place_stall", "the drawn customer must be placed on a square first"),
    ("draw-then-move-bobby", [BOBBY, TOKEN4, draw("aristocrat"),
                              {"type": "move_bobby", "district": "D02"}], {},
     "action 3 move_bobby", "the drawn customer must be placed on a square first"),
    ("draw-then-draw", [BOBBY, TOKEN4, draw("aristocrat"), draw("citizen")], {},
     "action 3 draw_customer", "the drawn customer must be placed on a square first"),
    ("draw-contradicts-known-line", [BOBBY, TOKEN4, draw("citizen")],
     {"customer_sequence": LINE},
     "action 2 draw_customer", "the next customer in the line is aristocrat, not citizen"),
    ("shorthand-contradicts-known-line", [BOBBY, TOKEN4, place("S04", "citizen")],
     {"customer_sequence": LINE},
     "action 2 place_customer", "the next customer in the line is aristocrat, not citizen"),
    ("place-contradicts-draw", [BOBBY, TOKEN4, draw("citizen"), place("S04", "aristocrat")],
     {}, "action 3 place_customer", "the drawn customer is citizen, not aristocrat"),
    ("draw-the-baron", [BOBBY, TOKEN4, draw("baron")], {},
     "action 2 draw_customer", "customer must be citizen or aristocrat, got 'baron'"),
    ("bag-has-no-more-aristocrats", [BOBBY, TOKEN4, draw("aristocrat")],
     {"customers": {"citizen": 10, "aristocrat": 0}},
     "action 2 draw_customer", "no aristocrat left in the bag"),
    ("token-before-bobby", [TOKEN4], {},
     "action 0 play_token", "the Bobby must be placed before the first turn"),
    ("bobby-placed-twice", [BOBBY, BOBBY], {},
     "action 1 place_bobby", "the Bobby is already on the board"),
    ("end-turn-before-token", [BOBBY, END], {},
     "action 1 end_turn", "the turn must begin with play_token or score_district"),
    ("stall-before-token", [BOBBY, stall("L02", "S01")], {},
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
    ("stall-without-from-on-empty-lane", [BOBBY, TOKEN4, stall("L02")], {},
     "action 2 place_stall", "lane L02 is empty, so 'from' must name the end square"),
    ("stall-from-a-square-off-the-lane", [BOBBY, TOKEN4, stall("L02", "S05")], {},
     "action 2 place_stall", "square S05 is not an end of lane L02"),
    ("stall-from-the-other-end", [BOBBY, TOKEN4, stall("L02", "S01"), stall("L02", "S08")],
     {}, "action 3 place_stall", "lane L02 is built from S01, not S08"),
    ("too-many-actions", [BOBBY, {"type": "play_token", "value": 2}, stall("L02", "S01"),
                          stall("L02"), stall("L02")], {},
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

