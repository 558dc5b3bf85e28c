"""`portobello play --game river-market` and `portobello view` of its record: the summary,
the record that replays, and the page (the river, the seats, every step), and bad input
refused in one line with nothing written."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from bad_input import cli_fails

from sim.cli.command import main
from sim.games.river.records import read_record


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


# -- the page in a browser ---------------------------------------------------------------------
# (the `browser` fixture, headless Chromium with a watchdog, is in conftest.py)
CONTROLS = ["first", "prev-scoring", "prev", "play", "next", "next-scoring", "last"]


def test_the_page_steps_like_the_portobello_viewer(tmp_path: Path, browser: Any) -> None:
    """The River Market viewer opens at #step=N, has the Portobello viewer's buttons and keys
    in the same order, jumps between the steps that change a score, keeps the address at the
    step shown, and gives every resource count room of its own."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    record, page = tmp_path / "game.json", tmp_path / "game.html"
    assert main(["play", "--game", "river-market", "--players", "3", "--agents",
                 "greedy,random,greedy", "--seed", "4", "--record", str(record)]) == 0
    assert main(["view", str(record), "--out", str(page)]) == 0
    data = page_data(page)
    steps, last = data["steps"], len(data["steps"]) - 1
    scorings = [i for i, s in enumerate(steps) if s["scoring"]]
    assert scorings and all(steps[i]["notes"] for i in scorings)

    portobello = tmp_path / "portobello.html"
    assert main(["view", str(Path(__file__).parent / "golden" / "viewer-game.json"), "--out",
                 str(portobello)]) == 0
    ids = "return [...document.querySelectorAll('#controls button')].map((b) => b.id);"
    browser.get(portobello.resolve().as_uri())
    assert browser.execute_script(ids) == CONTROLS

    def at() -> int:
        return int(browser.find_element(By.TAG_NAME, "body").get_attribute("data-step"))

    middle = last // 2
    browser.get(page.resolve().as_uri() + f"#step={middle}")
    assert browser.execute_script(ids) == CONTROLS
    assert at() == middle
    assert browser.find_element(By.ID, "where").text.startswith(f"step {middle} of {last}")
    text = browser.find_element(By.ID, "action-text").text
    assert steps[middle]["text"] in text

    body = browser.find_element(By.TAG_NAME, "body")
    body.send_keys(Keys.END)
    assert at() == last and browser.current_url.endswith(f"#step={last}")
    body.send_keys(Keys.HOME)
    assert at() == 0
    body.send_keys(Keys.ARROW_RIGHT, Keys.ARROW_RIGHT)
    assert at() == 2
    body.send_keys(Keys.PAGE_DOWN)
    assert at() == next(i for i in scorings if i > 2)
    assert "scoring" in browser.find_element(By.ID, "now").get_attribute("class")
    assert browser.find_element(By.ID, "notes").text == "\n".join(steps[at()]["notes"])
    browser.find_element(By.ID, "last").click()
    browser.find_element(By.ID, "prev-scoring").click()
    assert at() == max(i for i in scorings if i < last)
    marks = browser.find_elements(By.CSS_SELECTOR, "#marks span")
    assert len(marks) == len(scorings)

    # Each resource's name and count stand apart from the next resource's.
    gaps = browser.execute_script("""
      const out = [];
      for (const res of document.querySelectorAll('#seats .res')) {
        const boxes = [...res.children].map((s) => s.getBoundingClientRect());
        for (let k = 1; k < boxes.length; k++)
          if (boxes[k].top === boxes[k - 1].top) out.push(boxes[k].left - boxes[k - 1].right);
      }
      return out;""")
    assert gaps and min(gaps) >= 12
    errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert errors == []
