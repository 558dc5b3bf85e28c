"""Bad input through the real command line: a subprocess per case (run concurrently, see
`cli_runs`) checks the actual exit path, status and the one line on stderr for boards,
rules, records and flags. Shared pieces: `bad_input.py`; the flag validators in-process:
`test_bad_input_flags.py`.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from bad_input import BOBBY
from bad_input import END
from bad_input import LINE
from bad_input import REPO
from bad_input import SMALL_RULES
from bad_input import STANDARD
from bad_input import TOKEN4
from bad_input import add_district
from bad_input import add_lane
from bad_input import draw
from bad_input import place
from bad_input import record_with
from bad_input import set_lane
from bad_input import small_board
from bad_input import stall
from bad_input import steps
from bad_input import to_toml
from bad_input import write
from bad_input import write_record


def _cli_cases(tmp: Path) -> dict[str, tuple[list[str], int, str]]:
    """id -> (arguments, expected status, expected piece of the stderr line)."""
    def board(name: str, mutate: Callable[[dict[str, Any]], Any] | None = None) -> str:
        return str(write(tmp / f"{name}.toml", to_toml(small_board(mutate))))

    def rules(name: str, data: dict[str, Any]) -> str:
        return str(write(tmp / f"{name}.toml", to_toml(data)))

    def record(name: str, data: Any) -> str:
        return str(write_record(tmp / f"{name}.json", data))

    small = board("small")
    huge = "9" * 5000  # more digits than Python converts (4,300): bounded before conversion
    huge_seed = json.dumps(record_with(seed=0)).replace('"seed": 0', f'"seed": {huge}')
    assert huge in huge_seed
    huge_record = str(write(tmp / "huge-seed.json", huge_seed))
    kept = str(write_record(tmp / "kept.json", record_with(
        [BOBBY, TOKEN4, stall("L02", "S01"), draw("citizen"), place("S05"), END])))
    study = ('name = "s"\nplayers = [2]\nagents = "random"\ngames = 10\nseed = 1\n'
             '[[variants]]\nname = "standard"\n')
    return {
        "check-standard": (["board", "check", str(STANDARD)], 0, ""),
        "check-small-with-rules": (["board", "check", small, "--rules",
                                    rules("small-rules", SMALL_RULES)], 0, ""),
        "check-not-toml": (["board", "check", str(write(tmp / "broken.toml", "name = \n"))],
                           1, "not valid TOML"),
        "check-duplicate-lane": (["board", "check", board("dup", add_lane("L2", ["S1", "S3"],
                                                                           [1]))],
                                 1, "duplicate lane id L2"),
        "check-lane-end-not-a-string": (["board", "check",
                                         board("listend", set_lane(0, ends=[["S1"], "S2"]))],
                                        1, "ends at unknown square"),
        "check-not-connected": (["board", "check", board("apart", steps(
            add_lane("L6", ["S2", "S4"], [1]), add_district("D3", ["L6"])))],
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
            ["replay", record("stall", record_with([BOBBY, TOKEN4, stall("L07", "S03")])),
             "--json"],
            2, "action 2 place_stall: lane L07 does not border the Bobby's district D01"),
        "replay-move-not-adjacent": (
            ["replay", record("move", record_with(
                [BOBBY, TOKEN4, {"type": "move_bobby", "district": "D06"}])), "--json"],
            2, "action 2 move_bobby: district D06 is not adjacent to the Bobby's district D01"),
        "replay-draw-then-end": (
            ["replay", record("drawend", record_with([BOBBY, TOKEN4, draw("citizen"), END]))],
            2, "action 3 end_turn: the drawn customer must be placed on a square first"),
        "replay-known-line": (
            ["replay", record("line", record_with([BOBBY, TOKEN4, draw("citizen")],
                                                  rules={"customer_sequence": LINE})),
             "--json"],
            2, "action 2 draw_customer: the next customer in the line is aristocrat, not "
               "citizen"),
        "replay-unknown-type": (
            ["replay", record("type", record_with([BOBBY, {"type": "jump"}])), "--json"],
            2, "action 1 jump: unknown action type 'jump'"),
        "replay-valid": (["replay", record("valid", record_with(
            [BOBBY, TOKEN4, stall("L02", "S01"), draw("citizen"), place("S05"), END])),
                          "--json"], 0, ""),
        "bench-unknown-agent": (["bench", "--agents", "nosuch", "--games", "1"], 1,
                                "unknown agent 'nosuch'"),
        "bench-zero-games": (["bench", "--games", "0"], 2, "--games: must be at least 1"),
        # the shared flag validators, on the real exit path
        "simulate-zero-games": (["simulate", "--games", "0"], 2,
                                "portobello simulate: error: argument --games: must be at "
                                "least 1, got '0' (see --help)"),
        "tournament-one-player": (["tournament", "--agents", "greedy,random", "--players",
                                   "2,1"], 2, "argument --players: every entry must be at "
                                   "least 2, got '2,1'"),
        "play-seed-not-an-integer": (["play", "--seed", "x"], 2,
                                     "argument --seed: must be an integer, got 'x'"),
        # integers too long for any field, bounded before conversion, the field named
        "replay-huge-seed": (["replay", huge_record], 1,
                             "huge-seed.json: seed: out of range: a seed has at most 40 "
                             "digits, got one of 5,000 digits"),
        "view-huge-seed": (["view", huge_record, "--out", str(tmp / "huge.html")], 1,
                           "seed: out of range: a seed has at most 40 digits, got one of "
                           "5,000 digits"),
        "rules-huge-number": (["rules", "show", "--rules", str(write(
            tmp / "huge.toml", f"max_rounds = {huge}\n"))], 1,
            "huge.toml: max_rounds: got a number of 5,000 digits"),
        "rules-huge-in-a-table": (["rules", "show", "--rules", str(write(
            tmp / "huge-table.toml", f"[multipliers]\ncitizen-baron = {huge}\n"))], 1,
            "multipliers.citizen-baron: got a number of 5,000 digits"),
        "study-huge-seed": (["study", str(write(tmp / "huge-study.toml", study.replace(
            "\nseed = 1\n", f"\nseed = {huge}\n"))), "--out", str(tmp / "huge-study")],
            1, "huge-study.toml: seed: got a number of 5,000 digits"),
        "simulate-huge-seed": (["simulate", "--seed", huge], 2,
                               "argument --seed: must be an integer, got a number of 5,000 "
                               "digits"),
        "simulate-huge-games": (["simulate", "--games", huge], 2,
                                "argument --games: must be at most 1,000,000,000, got a "
                                "number of 5,000 digits"),
        # outputs never overwrite an input
        "view-out-is-the-record": (["view", kept, "--out", kept], 1,
                                   "--out: is also this command's input"),
        "play-record-is-the-rules": (["play", "--rules", rules("mine", {"players": 2}),
                                      "--record", str(tmp / "mine.toml")], 1,
                                     "--record: is also this command's input"),
        # one cap on game counts, in flags and files alike
        "simulate-too-many-games": (["simulate", "--games", "1000000000001"], 2,
                                    "argument --games: must be at most 1,000,000,000"),
        "tournament-too-many-games": (["tournament", "--agents", "random,greedy", "--games",
                                       str(10**12)], 2, "must be at most 1,000,000,000"),
        "study-too-many-games": (["study", str(write(tmp / "many.toml", study.replace(
            "\ngames = 10", "\ngames = 1000000000000"))), "--out", str(tmp / "many")], 1,
            "many.toml: games: must be at most 1,000,000,000 games, got 1,000,000,000,000"),
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
    "bench-zero-games", "simulate-zero-games", "tournament-one-player",
    "play-seed-not-an-integer", "replay-huge-seed", "view-huge-seed", "rules-huge-number",
    "rules-huge-in-a-table", "study-huge-seed", "simulate-huge-seed", "simulate-huge-games",
    "view-out-is-the-record",
    "play-record-is-the-rules", "simulate-too-many-games", "tournament-too-many-games",
    "study-too-many-games",
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
