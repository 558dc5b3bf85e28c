"""River Market on the play server (`sim.games.river.session`): a new game, the person's
choice among the legal actions in words, bots, undo, hints, bad requests answered 4xx
naming the field, the saved record replaying to the scores; and its page in headless
Chromium: a whole game played by choosing, its record replayed to the scores shown."""

from __future__ import annotations

import json
import time
import warnings
from pathlib import Path
from typing import Any

import pytest
from servers import page_data as _body

from sim.games.river.records import read_record

pytest.importorskip("starlette", reason="needs starlette (web extra)")
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from sim.web.app import build_app

PORT = 8765


@pytest.fixture
def client(tmp_path: Path) -> TestClient:
    return TestClient(build_app(tmp_path / "play", bot_delay_ms=0, port=PORT),
                      base_url=f"http://127.0.0.1:{PORT}",
                      headers={"Content-Type": "application/json"})


def new_game(client: TestClient, **fields: Any) -> dict[str, Any]:
    body = {"game": "river-market", "players": 2, "seat": 0, "agents": ["human", "greedy"],
            "seed": 7, **fields}
    r = client.post("/api/games", json=body)
    assert r.status_code == 200, r.text
    return r.json()


def test_a_game_by_choices_bots_and_undo(client: TestClient, tmp_path: Path) -> None:
    data = new_game(client)
    gid, state = data["setup"]["game_id"], data["state"]
    assert data["setup"]["game"] == "river-market" and state["to_move"] == 0
    # The person moves first (seat 0 starts): every legal action is offered, in words.
    texts = [o["text"] for o in state["legal"]]
    assert texts and all(t.startswith(("move with", "build", "hire", "zoom with"))
                         for t in texts)
    # Not one of the legal actions: refused with the engine's reason, nothing played.
    r = client.post(f"/api/games/{gid}/act", json={"action": 999_999})
    assert r.status_code == 409 and "is not allowed now" in r.json()["error"]
    r = client.post(f"/api/games/{gid}/act", json={"action": "first"})
    assert r.status_code == 422 and r.json()["field"] == "action"
    # A Portobello click on a River game is refused, naming the field.
    r = client.post(f"/api/games/{gid}/click", json={"target": "spot"})
    assert r.status_code == 422 and r.json()["field"] == "target"
    # The hint is one of the legal actions.
    hint = client.post(f"/api/games/{gid}/hint", json={"agent": "greedy"}).json()
    assert hint["action"] in [o["action"] for o in state["legal"]]
    first = state["legal"][0]["action"]
    state = client.post(f"/api/games/{gid}/act", json={"action": first}).json()
    assert state["actions"] == 1 and state["log"][-1]["who"] == 0
    # Undo takes the person's move back (and any bot replies).
    state = client.post(f"/api/games/{gid}/undo").json()
    assert state["actions"] == 0 and state["to_move"] == 0
    assert client.post(f"/api/games/{gid}/undo").status_code == 422
    # Played out: the person takes the first choice, the bot plays its own.
    for _ in range(3000):
        if state["over"]:
            break
        if state["legal"]:
            r = client.post(f"/api/games/{gid}/act", json={"action": state["legal"][0]["action"]})
        else:
            r = client.post(f"/api/games/{gid}/bot")
        assert r.status_code == 200, r.text
        state = r.json()
    assert state["over"]
    saved = Path(state["record"])
    assert saved.parent == tmp_path / "play"
    assert read_record(saved).scores() == state["state"]["scores"]
    page = client.get(f"/games/{gid}/view")
    assert page.status_code == 200 and "River Market, game" in page.text


@pytest.mark.parametrize(("body", "field", "reason"), [
    ({"players": 6}, "players", "between 2 and 5"),
    ({"seat": 3}, "seat", "between 0 and 1"),
    ({"agents": ["human", "heuristicx"]}, "agents", "unknown River Market agent"),
    ({"agents": ["human", "search:iterations=99999"]}, "agents", "cap of 5,000"),
    ({"agents": ["human"]}, "agents", "1 agent specs for 2 players"),
    ({"preset": "known-order"}, "preset", "unknown River Market preset"),
    ({"switches": {"houses": 0}}, "switches", "houses: must be a whole number"),
    ({"switches": {"players": 3}}, "switches", "as players"),
    ({"board": "standard"}, "board", "unknown field"),
    ({"game": "chess"}, "game", "unknown game 'chess'"),
    ({"seed": -1}, "seed", "between 0"),
])
def test_a_bad_new_game_is_a_4xx_naming_the_field(client: TestClient, body: dict[str, Any],
                                                  field: str, reason: str) -> None:
    r = client.post("/api/games", json={"game": "river-market", "players": 2,
                                        "agents": ["human", "greedy"], **body})
    assert r.status_code == 422, r.text
    assert r.json()["field"] == field and reason in r.json()["error"], r.json()


def test_a_portobello_game_refuses_river_moves(client: TestClient) -> None:
    r = client.post("/api/games", json={"players": 2, "seat": 0,
                                        "agents": ["human", "random"]})
    gid = r.json()["state"]["game_id"]
    r = client.post(f"/api/games/{gid}/act", json={"action": 1})
    assert r.status_code == 422 and r.json()["field"] == "action"


def test_the_river_page_is_served(client: TestClient) -> None:
    r = client.get("/river")
    assert r.status_code == 200 and "Play River Market" in r.text
    choices = json.loads(r.text.split('<script id="choices-data" type="application/json">')[1]
                         .split("</script>")[0])
    assert choices["presets"] == ["standard", "short"] and "greedy" in choices["agents"]


# -- the page in a browser ---------------------------------------------------------------------
def test_a_whole_game_played_by_choosing_replays_to_the_scores_shown(
        server: tuple[str, Path], browser: Any) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select
    from selenium.webdriver.support.ui import WebDriverWait

    url, out = server
    browser.get(url + "/river")
    Select(browser.find_element(By.ID, "f-players")).select_by_visible_text("2")
    browser.find_element(By.ID, "start").click()
    wait = WebDriverWait(browser, 20, poll_frequency=0.02)
    wait.until(lambda d: _body(d, "game-id"))
    # The river's four Starting Booths are drawn, and both seats.
    assert len(browser.find_elements(By.CSS_SELECTOR, "#river .card")) >= 4
    assert len(browser.find_elements(By.CSS_SELECTOR, "#seats .seat")) == 2
    choices = 0
    deadline = time.monotonic() + 80
    while _body(browser, "finished") != "1":
        assert time.monotonic() < deadline, "the game did not end in time"
        wait.until(lambda d: _body(d, "human-to-move") == "1" or _body(d, "finished") == "1")
        if _body(browser, "finished") == "1":
            break
        before = _body(browser, "actions")
        browser.find_elements(By.CSS_SELECTOR, "#choices button")[-1].click()
        choices += 1
        wait.until(lambda d, b=before: _body(d, "actions") != b)
        assert "error" not in (browser.find_element(By.ID, "message").get_attribute("class")
                               or "")
    assert choices >= 10
    saved = list(out.glob("river-*.json"))
    assert len(saved) == 1 and saved[0].name in browser.find_element(By.ID, "result").text
    scores = read_record(saved[0]).scores()
    shown = [int(h.text.split(" \u00b7 ")[1].split()[0])
             for h in browser.find_elements(By.CSS_SELECTOR, "#seats .seat h3")]
    assert shown == scores
    errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert not errors, errors
