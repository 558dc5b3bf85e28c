"""`portobello play --game river-market` and `portobello view` of its record: the summary,
the record that replays, and the page (the river, the seats, every step), and bad input
refused in one line with nothing written."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from bad_input import cli_fails

from sim.cli.command import main
from sim.river.records import read_record


def page_data(path: Path) -> dict:
    html = path.read_text()
    m = re.search(r'<script id="game-data" type="application/json">(.*?)</script>', html, re.S)
    assert m is not None
    return json.loads(m.group(1))


def test_play_then_view(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = tmp_path / "game.json"
    assert main(["play", "--game", "river-market", "--players", "3", "--agents",
                 "greedy,random,greedy", "--seed", "4", "--record", str(record)]) == 0
    out = capsys.readouterr().out
    game = read_record(record)
    scores = game.scores()
    for seat, (agent, score) in enumerate(zip(("greedy", "random", "greedy"), scores,
                                               strict=True)):
        assert re.search(rf"seat {seat}\s+{agent}\s+{score}\s+\(events ", out), out
    top = max(scores)
    assert f"with {top} points" in out
    page = tmp_path / "game.html"
    assert main(["view", str(record), "--out", str(page)]) == 0
    data = page_data(page)
    actions = json.loads(record.read_text())["actions"]
    assert len(data["steps"]) == len(actions) + 1
    last = data["steps"][-1]["state"]
    assert last["over"] and last["scores"] == scores
    assert [s["score"] for s in last["seats"]] == scores
    assert len(last["river"]) >= 4 and data["players"] == 3
    assert "seat 0's view" in page.read_text() or "view" in page.read_text()
    first = data["steps"][1]
    assert first["who"] == 0 and first["text"].startswith(("move with", "build", "hire",
                                                             "zoom with"))


def test_bad_input_is_one_line_and_writes_nothing(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    line = cli_fails(capsys, ["play", "--game", "river-market", "--agents", "mcts"], 1)
    assert "unknown River Market agent 'mcts'" in line
    for argv, field in ((["--agents", "greedy,random", "--players", "6"], "--players"),
                        (["--agents", "greedy,random", "--engine", "python"], "--engine"),
                        (["--agents", "greedy,search:depth=2"], "--agents"),
                        (["--probe", "greedy"], "--probe"),
                        (["--agents", "greedy,random", "--board", "other"], "--board")):
        line = cli_fails(capsys, ["tournament", "--game", "river-market", *argv],
                         2 if field == "--probe" else 1)
        assert f": {field}: " in line, line
    record = tmp_path / "game.json"
    assert main(["play", "--game", "river-market", "--players", "2", "--record",
                 str(record)]) == 0
    capsys.readouterr()
    data = json.loads(record.read_text())
    data["actions"][1]["steps"] = 99
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    page = tmp_path / "bad.html"
    line = cli_fails(capsys, ["view", str(bad), "--out", str(page)], 1)
    assert "actions[1].steps" in line and not page.exists()
