"""`portobello serve`: the play API through Starlette's TestClient (new game, legal and
illegal clicks with the engine's reason, bots, undo, hints, bad requests answered 4xx, games
independent, the saved record), and the page in headless Chromium: a whole game played by
clicks against bots, its saved record replayed to the scores the page shows."""

from __future__ import annotations

import socket
import time
import warnings
from pathlib import Path
from typing import Any

import pytest
from servers import page_data as _body

from sim.cli.command import main
from sim.games.portobello import actions as A
from sim.games.portobello.agents.registry import make_agent
from sim.games.portobello.board import load_board
from sim.games.portobello.game import Game
from sim.games.portobello.records import load_record
from sim.games.portobello.records import replay
from sim.games.portobello.rules import Rules

pytest.importorskip("starlette", reason="needs starlette (web extra)")
with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # starlette's note on httpx versions
    from starlette.testclient import TestClient

from sim.web.app import build_app

SHORT = {"stalls_per_player": 4}  # a game of a few turns
PORT = 8765  # the port the test clients say they talk to (Host), as the page's own requests


def local_client(app: Any, port: int = PORT) -> TestClient:
    """A client as the server's own page is: its Host, JSON bodies."""
    return TestClient(app, base_url=f"http://127.0.0.1:{port}",
                      headers={"Content-Type": "application/json"})


@pytest.fixture
def client(tmp_path: Path) -> TestClient:
    return local_client(build_app(tmp_path / "play", bot_delay_ms=0, port=PORT))


def new_game(client: TestClient, **fields: Any) -> dict[str, Any]:
    body = {"players": 2, "seat": 0, "agents": ["human", "random"], "switches": SHORT,
            **fields}
    r = client.post("/api/games", json=body)
    assert r.status_code == 200, r.text
    return r.json()


def click(client: TestClient, gid: str, **body: Any) -> Any:
    return client.post(f"/api/games/{gid}/click", json=body)


def first_click(state: dict[str, Any]) -> dict[str, Any]:
    """A legal click for the person: a stall, a square, a token, the end of the turn, then
    a district (so the game moves on quickly)."""
    t = state["targets"]
    if t["spots"]:
        return {"target": "spot", "index": t["spots"][0]}
    if t["squares"]:
        return {"target": "square", "index": t["squares"][0]}
    if t["tokens"]:
        value, neutral = t["tokens"][-1]
        return {"target": "token", "value": value, "neutral": bool(neutral)}
    if "end" in t["buttons"]:
        return {"target": "end"}
    district = t["districts"][0]
    return {"target": "district", "index": district if isinstance(district, int)
            else district["district"]}


def play_out(client: TestClient, gid: str, state: dict[str, Any]) -> dict[str, Any]:
    for _ in range(2000):
        if state["finished"]:
            return state
        if state["human_to_move"]:
            r = click(client, gid, **first_click(state))
        else:
            r = client.post(f"/api/games/{gid}/bot")
        assert r.status_code == 200, r.text
        state = r.json()
    raise AssertionError("the game did not end")


# -- the API -----------------------------------------------------------------------------------
def test_a_new_game_waits_for_the_person_to_place_the_bobby(client: TestClient) -> None:
    data = new_game(client)
    state = data["state"]
    assert state["human_to_move"] and state["phase"] == "setup"
    assert state["targets"]["districts"] == list(range(12))
    assert data["setup"]["agents"] == ["human", "random"]
    assert len(data["setup"]["board"]["lanes"]) == 22


def test_the_prompt_says_what_the_person_is_to_do(client: TestClient) -> None:
    """The state's prompt is made from the kinds of the person's legal actions: the Bobby
    first, then a token or a district to score, then the turn's actions; none for a bot."""
    state = new_game(client)["state"]
    assert state["prompt"] == "Your move: place the Bobby first: click a highlighted district."
    gid = state["game_id"]
    state = click(client, gid, target="district", index=3).json()
    assert state["prompt"].startswith("Your move: play a token") and "score a district" in \
        state["prompt"]
    state = click(client, gid, target="token", value=2).json()
    assert "place a stall on a highlighted spot" in state["prompt"]
    assert state["prompt"].endswith(" or end the turn.")
    state = click(client, gid, target="end").json()
    assert not state["human_to_move"] and state["prompt"] == ""


def test_an_illegal_click_is_refused_with_the_engines_reason(client: TestClient) -> None:
    gid = new_game(client)["state"]["game_id"]
    r = click(client, gid, target="spot", index=0)
    assert r.status_code == 409
    game = Game(load_board("standard"), Rules(stalls_per_player=4))
    assert r.json()["error"] == game.check(A.place_stall(0, 0))
    assert "Bobby must be placed" in r.json()["error"]
    assert client.get(f"/api/games/{gid}").json()["actions"] == 0  # nothing happened


def test_legal_clicks_bots_and_undo(client: TestClient) -> None:
    gid = new_game(client, switches={"stalls_per_player": 10})["state"]["game_id"]
    state = click(client, gid, target="district", index=3).json()
    assert state["bobby"] == 3 and state["phase"] == "turn_start" and state["human_to_move"]
    assert "places the Bobby in D04" in state["last"]
    state = click(client, gid, target="token", value=2).json()
    assert state["phase"] == "actions" and state["actions_left"] == 2
    spot = state["targets"]["spots"][0]
    state = click(client, gid, target="spot", index=spot).json()
    assert state["spots"][spot] == 0 and state["stalls_left"][0] == 9
    state = click(client, gid, target="end").json()
    assert not state["human_to_move"] and state["targets"]["spots"] == []
    # The bot's turn: the person cannot move, the bot moves on request.
    r = click(client, gid, target="end")
    assert r.status_code == 409 and "seat 1's move" in r.json()["error"]
    while not state["human_to_move"] and not state["finished"]:
        state = client.post(f"/api/games/{gid}/bot").json()
    assert state["mover"] == 0 and state["actions"] > 4
    # Undo goes back to the person's last decision (the end of the turn), bots' moves too.
    state = client.post(f"/api/games/{gid}/undo").json()
    assert state["actions"] == 3 and state["human_to_move"] and state["phase"] == "actions"
    state = client.post(f"/api/games/{gid}/undo").json()
    assert state["actions"] == 2 and state["spots"][spot] == -1
    for _ in range(2):
        state = client.post(f"/api/games/{gid}/undo").json()
    assert state["actions"] == 0 and state["phase"] == "setup"
    r = client.post(f"/api/games/{gid}/undo")
    assert r.status_code == 422 and "nothing to undo" in r.json()["error"]


def test_undo_and_redraw_gives_the_same_customer(client: TestClient) -> None:
    gid = new_game(client)["state"]["game_id"]
    click(client, gid, target="district", index=0)
    click(client, gid, target="token", value=4)
    first = click(client, gid, target="draw").json()["pending"]
    client.post(f"/api/games/{gid}/undo")
    assert click(client, gid, target="draw").json()["pending"] == first


def test_two_games_are_independent(client: TestClient) -> None:
    a = new_game(client)["state"]["game_id"]
    b = new_game(client, seed=5)["state"]["game_id"]
    assert a != b
    click(client, a, target="district", index=1)
    assert client.get(f"/api/games/{a}").json()["bobby"] == 1
    assert client.get(f"/api/games/{b}").json()["bobby"] == -1


def test_a_hint_lists_the_agents_best_options_with_values(client: TestClient) -> None:
    gid = new_game(client)["state"]["game_id"]
    click(client, gid, target="district", index=3)
    click(client, gid, target="token", value=4)
    r = client.post(f"/api/games/{gid}/hint", json={"agent": "heuristic"})
    assert r.status_code == 200, r.text
    hint = r.json()
    assert hint["priced"] and 1 <= len(hint["options"]) <= 5
    # its choice first, then the best other options, best first
    assert [o["chosen"] for o in hint["options"]] == [True] + [False] * (len(hint["options"]) - 1)
    assert hint["options"][0]["text"] == hint["choice"]
    values = [o["value"] for o in hint["options"][1:]]
    assert values == sorted(values, reverse=True)
    assert hint["choice"].startswith("seat 0")
    plain = client.post(f"/api/games/{gid}/hint", json={"agent": "random"}).json()
    assert not plain["priced"] and plain["options"] == []
    # Asking for a hint changes nothing in the game.
    assert client.get(f"/api/games/{gid}").json()["actions"] == 2


def test_ranked_options_leave_the_agents_play_unchanged() -> None:
    board = load_board("standard")
    for spec in ("heuristic", "greedy"):
        asked, plain = make_agent(spec, seed=3), make_agent(spec, seed=3)
        g1, g2 = Game(board, Rules(), seed=3), Game(board, Rules(), seed=3)
        for _ in range(60):
            if g1.finished:
                break
            if g1.is_chance:
                g1.apply(g1.sample_chance())
                g2.apply(g2.sample_chance())
                continue
            ranked = asked.ranked_options(g1)  # type: ignore[attr-defined]
            assert ranked and ranked[0].value >= ranked[-1].value
            a1, a2 = asked.choose(g1), plain.choose(g2)
            assert a1 == a2
            g1.apply(a1)
            g2.apply(a2)


@pytest.mark.parametrize(("body", "field", "words"), [
    ({"agents": ["human", "nosuch"]}, "agents", "unknown agent 'nosuch'"),
    ({"agents": ["human"]}, "agents", "1 agent specs for 2 players"),
    ({"preset": "nosuch"}, "preset", "unknown preset"),
    ({"switches": {"start_score": "x"}}, "switches", "start_score"),
    ({"switches": {"bobby_tie": "nosuch"}}, "switches", "bobby_tie"),
    ({"switches": [1]}, "switches", "must be an object"),
    ({"rules_file": "/nonexistent/rules.toml"}, "rules_file", "reads no files"),
    ({"board": "nosuch"}, "board", "no shipped board named 'nosuch'"),
    ({"players": 9}, "players", "between 2 and 8"),
    ({"seat": 2}, "seat", "between 0 and 1"),
    ({"seed": "x"}, "seed", "must be an integer"),
    ({"colour": "red"}, "colour", "unknown field"),
])
def test_a_bad_new_game_is_a_4xx_naming_the_field(client: TestClient, body: dict[str, Any],
                                                  field: str, words: str) -> None:
    r = client.post("/api/games", json={"players": 2, "agents": "random", **body})
    assert r.status_code == 422, r.text
    assert r.json()["field"] == field and words in r.json()["error"], r.json()


def test_bad_requests_are_4xx_never_500(client: TestClient) -> None:
    r = client.post("/api/games", content=b"{not json")
    assert r.status_code == 400 and r.json()["field"] == "body"
    assert client.post("/api/games", json=[1, 2]).status_code == 400
    assert client.get("/api/games/nosuch").status_code == 404
    assert client.post("/api/games/nosuch/click", json={"target": "end"}).status_code == 404
    assert client.get("/games/nosuch/view").status_code == 404
    assert client.get("/no/such/page").status_code == 404
    assert client.get("/api/games").status_code == 405
    gid = new_game(client)["state"]["game_id"]
    for body, status, field in [
        (b"[", 400, "body"), (b'"x"', 400, "body"), (b'{"index": 1}', 422, "target"),
        (b'{"target": "moon"}', 422, "target"),
        (b'{"target": "spot", "index": 999}', 422, "index"),
        (b'{"target": "spot", "index": -1}', 422, "index"),
        (b'{"target": "district", "index": "a"}', 422, "index"),
    ]:
        r = client.post(f"/api/games/{gid}/click", content=body)
        assert r.status_code == status and r.json()["field"] == field, (body, r.text)
    r = client.post(f"/api/games/{gid}/hint", json={"agent": "nosuch"})
    assert r.status_code == 422 and "unknown agent" in r.json()["error"]
    r = client.post(f"/api/games/{gid}/hint", json={"agent": 3})
    assert r.status_code == 422 and r.json()["field"] == "agent"
    assert client.post(f"/api/games/{gid}/click", content=b"x" * 70_000).status_code == 413


def test_a_finished_game_is_saved_and_replays(client: TestClient, tmp_path: Path) -> None:
    state = new_game(client, agents=["human", "greedy"], seed=4)["state"]
    state = play_out(client, state["game_id"], state)
    assert any(n.startswith("game over") for n in state["notes"]), state["notes"]
    path = Path(state["record"])
    assert path.parent == tmp_path / "play" and path.exists()
    record = load_record(path)
    assert record["agents"] == ["human", "greedy"]
    assert replay(record).scores == state["scores"]
    r = client.get(f"/games/{state['game_id']}/view")
    assert r.status_code == 200 and "<svg" in r.text
    r = click(client, state["game_id"], target="end")
    assert r.status_code == 409 and r.json()["error"] == "the game is over"


def test_the_page_and_the_command() -> None:
    page = local_client(build_app("unused")).get("/")
    assert page.status_code == 200 and "PortobelloBoard" in page.text
    with pytest.raises(SystemExit) as exc:
        main(["serve", "--help"])
    assert exc.value.code == 0


def test_the_command_refuses_a_busy_port_and_a_file_as_folder(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        port = held.getsockname()[1]
        assert main(["serve", "--port", str(port), "--out", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert f"127.0.0.1:{port}" in err and "--port" in err and len(err.splitlines()) == 1
    afile = tmp_path / "f"
    afile.write_text("")
    assert main(["serve", "--out", str(afile)]) == 1
    assert "is not a folder" in capsys.readouterr().err
    assert main(["serve", "--port", "70000"]) == 1
    assert "at most 65535" in capsys.readouterr().err


# -- the page in a browser ---------------------------------------------------------------------
def _start(driver: Any, url: str) -> None:
    """Open the page and start a short 2-player game against the form's default agent."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    driver.get(url + "/")
    switches = driver.find_element(By.ID, "f-switches")
    switches.send_keys('{"stalls_per_player": 8}')
    driver.find_element(By.ID, "f-seed").clear()
    driver.find_element(By.ID, "f-seed").send_keys("2")
    driver.find_element(By.ID, "start").click()
    WebDriverWait(driver, 20).until(lambda d: d.find_element(By.TAG_NAME, "body")
                                    .get_attribute("data-game-id"))


def _legal_target(driver: Any) -> Any:
    """The element to click for the person's next move: a highlighted spot, square, a token
    button, the end of the turn, then a district."""
    from selenium.webdriver.common.by import By

    for selector in ('#board [data-kind="spot"][data-legal="1"]',
                     '#board [data-kind="square"][data-legal="1"]', "#tokens button",
                     '#end[data-legal="1"]', '#board [data-kind="district"][data-legal="1"]'):
        found = driver.find_elements(By.CSS_SELECTOR, selector)
        if found:
            return found[0]
    raise AssertionError("no legal target highlighted")


def test_the_page_says_place_the_bobby_and_shows_the_whole_board(
        server: tuple[str, Path], browser: Any) -> None:
    """At 1400 x 1000 the board's foot is on screen, and a new game says what to do first."""
    from selenium.webdriver.common.by import By

    _start(browser, server[0])
    assert browser.find_element(By.ID, "action-text").text == (
        "Your move: place the Bobby first: click a highlighted district.")
    bottom, height = browser.execute_script(
        "return [document.getElementById('board').getBoundingClientRect().bottom,"
        " window.innerHeight];")
    assert bottom <= height


def test_an_illegal_click_shows_the_engines_reason(server: tuple[str, Path],
                                                  browser: Any) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    _start(browser, server[0])
    # A stall before the Bobby is placed: refused, with the engine's reason, nothing played.
    spot = browser.find_element(By.CSS_SELECTOR, '#board [data-kind="spot"]')
    assert spot.get_attribute("data-legal") == "0"
    spot.click()
    reason = Game(load_board("standard"), Rules()).check(A.place_stall(0, 0))
    WebDriverWait(browser, 20).until(
        lambda d: d.find_element(By.ID, "message").text == reason)
    assert "error" in browser.find_element(By.ID, "message").get_attribute("class")
    assert _body(browser, "actions") == "0"
    # A legal click afterwards clears the message and acts.
    browser.find_element(By.CSS_SELECTOR, '#board [data-kind="district"][data-legal="1"]').click()
    WebDriverWait(browser, 20).until(lambda d: _body(d, "actions") == "1")
    assert browser.find_element(By.ID, "message").text == ""


def test_a_whole_game_played_by_clicks_replays_to_the_scores_shown(
        server: tuple[str, Path], browser: Any) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    url, out = server
    _start(browser, url)
    wait = WebDriverWait(browser, 20, poll_frequency=0.02)
    clicks = 0
    deadline = time.monotonic() + 60
    while _body(browser, "finished") != "1":
        assert time.monotonic() < deadline, "the game did not end in time"
        wait.until(lambda d: _body(d, "human-to-move") == "1" or _body(d, "finished") == "1")
        if _body(browser, "finished") == "1":
            break
        before = _body(browser, "actions")
        _legal_target(browser).click()
        clicks += 1
        wait.until(lambda d, b=before: _body(d, "actions") != b)
        assert "error" not in browser.find_element(By.ID, "message").get_attribute("class")
    assert clicks >= 5
    scores = [int(c.text) for c in browser.find_elements(By.CSS_SELECTOR,
                                                          "#seats td.score .value")]
    saved = list(out.glob("*.json"))
    assert len(saved) == 1 and saved[0].name in browser.find_element(By.ID, "result").text
    record = load_record(saved[0])
    assert replay(record).scores == scores
    assert record["agents"] == ["human", "heuristic"]  # the form's default for other seats
    # The viewer opens the saved game at its end with the same scores.
    browser.get(browser.find_element(By.ID, "view-link").get_attribute("href"))
    wait.until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-step"))
    browser.find_element(By.ID, "last").click()
    shown = [int(c.text) for c in browser.find_elements(By.CSS_SELECTOR,
                                                         "#seats td.score .value")]
    assert shown == scores
    # Script errors only (the illegal click's 409 is a network entry, as it should be).
    errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"
              and e.get("source") != "network"]
    assert not errors, errors


def test_the_hint_names_its_choice_in_its_list_and_clears_on_the_next_move(
        server: tuple[str, Path], browser: Any) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    _start(browser, server[0])
    wait = WebDriverWait(browser, 20, poll_frequency=0.05)
    box = browser.find_element(By.ID, "hint-box")
    idle = box.text
    for _ in range(2):  # at the Bobby's placement, then at the first token
        wait.until(lambda d: _body(d, "human-to-move") == "1")
        browser.find_element(By.ID, "hint").click()
        wait.until(lambda d: "would:" in box.text)
        choice = box.text.splitlines()[0].split(" would: ", 1)[1]
        chosen = box.find_elements(By.CSS_SELECTOR, 'li[data-chosen="1"]')
        assert len(chosen) == 1 and chosen[0].text.startswith(choice), box.text
        assert box.find_elements(By.TAG_NAME, "li")[0] == chosen[0]  # listed first
        before = _body(browser, "actions")
        _legal_target(browser).click()
        wait.until(lambda d, b=before: _body(d, "actions") != b)
        wait.until(lambda d: box.text == idle)  # the next move clears it
