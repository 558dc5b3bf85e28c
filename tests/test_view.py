"""`portobello view`: the per-step states are the engine's (checked against `replay` of the
record's first k actions), the actions read right in words, bad input is one line and
writes nothing, and the page, opened from disk in headless Chromium, shows the replayed
scores at the first, a middle and the last step whichever control steps to them."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from analysis.view.page import script_json
from sim.cli.command import main
from sim.games.portobello.records import load_record
from sim.games.portobello.records import replay
from sim.games.portobello.view.page import render
from sim.games.portobello.view.source import from_record_file
from sim.games.portobello.view.source import game_source
from sim.games.portobello.view.states import Step
from sim.games.portobello.view.states import replay_steps

RECORD = Path(__file__).parent / "golden" / "viewer-game.json"


@pytest.fixture(scope="module")
def record() -> dict[str, Any]:
    return load_record(RECORD)


@pytest.fixture(scope="module")
def steps() -> list[Step]:
    src = from_record_file(RECORD)
    return replay_steps(src.game, src.record["actions"])


def prefix_game(record: dict[str, Any], k: int) -> Any:
    """The engine's game after the record's first k actions."""
    return replay({**record, "actions": record["actions"][:k]}, base_dir=RECORD.parent)


def checked_steps(record: dict[str, Any]) -> list[int]:
    n = len(record["actions"])
    return [0, n // 2, n]


# -- the states are the engine's --------------------------------------------------------------
def test_one_state_per_action_and_one_before_them(record: dict[str, Any],
                                                  steps: list[Step]) -> None:
    assert len(steps) == len(record["actions"]) + 1


@pytest.mark.parametrize("where", ["first", "middle", "last"])
def test_states_match_replay_of_the_first_k_actions(record: dict[str, Any], steps: list[Step],
                                                    where: str) -> None:
    k = dict(zip(["first", "middle", "last"], checked_steps(record), strict=True))[where]
    game = prefix_game(record, k)
    state = steps[k].state
    assert state["scores"] == game.scores
    assert state["stalls_left"] == game.stalls_left
    assert state["spots"] == game.spot_seat
    assert state["customers"] == game.square_customer
    assert state["bobby"] == game.bobby
    assert state["round"] == game.round
    assert state["finished"] == game.finished
    assert [seat for seat, _ in state["districts"]] == game.district_scored
    assert state["tokens"] == [[[v, int(n), int(u)] for v, n, u in game.held_tokens(p)]
                               for p in range(game.n)]


def test_the_last_state_is_the_replay_outcome(record: dict[str, Any],
                                              steps: list[Step]) -> None:
    game = replay(record, base_dir=RECORD.parent)
    last = steps[-1].state
    assert last["scores"] == game.scores == [131, 119, 155]
    assert last["finished"] and last["end_reason"] == "last_stall"


# -- the actions in words, checked by hand against the record and the board -------------------
def test_placing_the_bobby_and_playing_a_token(steps: list[Step]) -> None:
    assert steps[1].text == "seat 0 places the Bobby in D12"
    assert steps[2].text == "seat 0 plays token 4: 4 actions this turn"


def test_a_stall_names_its_lane_start_spot_and_value(steps: list[Step]) -> None:
    # L03 runs S01 -> S09 with spots [1, 3]: built from S09 the first stall takes the 3.
    assert steps[3].text == ("seat 0 builds a stall on L03 from S09 (opening it): "
                             "spot 1 of 2, worth 3")
    # L21 (S09 -> S11, spots [3, 2, 1]) was opened from S09 by seat 0: seat 1 takes the 2.
    assert steps[11].text == "seat 1 builds a stall on L21 from S09: spot 2 of 3, worth 2"


def test_bobby_moves_say_who_is_paid(steps: list[Step]) -> None:
    # Nobody has a stall on L20 yet: the mover pays the bank.
    assert steps[20].text == "seat 2 moves the Bobby D09 -> D11 across L20, pays 1 to the bank"
    assert steps[20].state["scores"][2] == steps[19].state["scores"][2] - 1
    # Seat 0 alone has stalls on L18 (built at step 5): seat 1 pays it 1.
    assert steps[35].text == "seat 1 moves the Bobby D01 -> D02 across L18, pays 1 to seat 0"
    before, after = steps[34].state["scores"], steps[35].state["scores"]
    assert (after[0] - before[0], after[1] - before[1]) == (1, -1)
    # Seat 0 crosses a lane where it has the most stalls: free.
    assert steps[4].text == ("seat 0 moves the Bobby D12 -> D01 across L03, free "
                             "(it has the most stalls on L03)")
    # Seats 0 and 2 tie for the most on L05 and seat 1 has fewer: 1 to each.
    assert steps[199].text == ("seat 1 moves the Bobby D11 -> D12 across L05, pays 1 each to "
                               "seats 0 and 2 (2 in all)")


def test_scorings_are_marked_and_say_who_scored_what_and_why(steps: list[Step]) -> None:
    # Seat 0 holds all of L18 (3 + 2 + 1): aristocrats at both ends multiply by 3.
    step = steps[56]
    assert step.scoring
    assert step.text == "seat 0 places the aristocrat on S08"
    assert step.notes == ["L18 scores ×3 (aristocrat at S08, aristocrat at S09): "
                          "seat 0 6 × 3 = 18"]
    assert step.state["scores"][0] - steps[55].state["scores"][0] == 18
    district = steps[134]
    assert district.scoring
    assert district.text == ("seat 2 scores D11 with token 2: 2 × 10 of its stalls beside it "
                             "= 20 points; the token stays on D11 and seat 2 takes neutral "
                             "token 3")
    assert not steps[2].scoring and not steps[3].scoring


def test_the_baron_the_end_and_the_game_over_are_told(steps: list[Step]) -> None:
    assert steps[169].notes[0] == "the last customer is out: the baron comes to S05"
    assert "the end is triggered (seat 1 placed its last stall)" in steps[200].notes[1]
    assert steps[-1].notes == [
        "baron scoring: L12 scores ×3 (baron at S05, citizen at S10): seat 1 5 × 3 = 15",
        "game over (a seat placed its last stall): seat 2 wins with 155 points"]


def test_district_tokens_are_kept_with_their_value(steps: list[Step]) -> None:
    state = steps[134].state
    assert [2, 2] in state["districts"]  # D11: seat 2's token 2


# -- the page ---------------------------------------------------------------------------------
def test_customers_drawn_by_the_seed_or_placed_at_once_are_told(tmp_path: Path) -> None:
    actions = [{"type": "place_bobby", "district": "D01"}, {"type": "play_token", "value": 4},
               {"type": "place_customer", "square": "S01", "customer": "citizen"},
               {"type": "draw_customer"}]
    path = tmp_path / "draws.json"
    path.write_text(json.dumps({"format": "portobello-record/1", "board": "standard",
                                "rules": {"players": 2}, "seed": 3, "actions": actions}))
    src = from_record_file(path)
    steps = replay_steps(src.game, src.record["actions"])
    assert steps[3].text == "seat 0 draws a citizen and places it on S01"
    assert steps[3].state["customers"][0] == 1
    drawn = replay(src.record).pending  # the seed's draw, waiting for its square
    assert steps[4].text == f"seat 0 draws {'an' if drawn == 2 else 'a'} " \
        f"{['', 'citizen', 'aristocrat'][drawn]}"
    assert not steps[4].state["finished"]


def test_the_page_is_self_contained() -> None:
    html = render(from_record_file(RECORD))
    assert set(re.findall(r"https?://[^\s\"')]+", html)) <= {"http://www.w3.org/2000/svg"}
    assert "<link" not in html and " src=" not in html and "@import" not in html
    assert html.count("<script") == 2


def test_ids_cannot_break_out_of_the_data_script() -> None:
    text = str(script_json({"id": "</script><b>x</b>&"}))
    assert "<" not in text and ">" not in text and "&" not in text
    assert json.loads(text) == {"id": "</script><b>x</b>&"}


def test_a_hostile_board_id_stays_text(tmp_path: Path) -> None:
    """Ids come from files someone else wrote: one that closes the script element and opens
    markup must reach the page as data only (the script sets it as text, never as HTML)."""
    standard = (Path(__file__).parents[1] / "data" / "boards" / "standard.toml").read_text()
    hostile = "S</script><b>1"
    board = standard[:standard.index("[layout")].replace("S01", hostile)
    (tmp_path / "hostile.toml").write_text(board)
    path = tmp_path / "game.json"
    path.write_text(json.dumps({"format": "portobello-record/1", "board": "hostile.toml",
                                "rules": {"players": 2}, "seed": 1,
                                "actions": [{"type": "place_bobby", "district": "D01"}]}))
    html = render(from_record_file(path))
    assert html.count("</script>") == 2 and "<b>" not in html
    assert "S\\u003c/script\\u003e\\u003cb\\u003e1" in html


# -- the command line -------------------------------------------------------------------------
def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def test_view_writes_the_page(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "game.html"
    code, stdout, _ = run_cli(["view", str(RECORD), "--out", str(out)], capsys)
    assert code == 0 and out.is_file()
    assert "210 actions" in stdout
    assert not list(tmp_path.glob(".*tmp*"))


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Two small runs, one kept with --records and one without."""
    base = tmp_path_factory.mktemp("runs")
    out = {}
    for name, extra in (("records", ["--records"]), ("plain", [])):
        out[name] = base / name
        assert main(["simulate", "--players", "2", "--agents", "random", "--games", "3",
                     "--seed", "5", "--engine", "python", "--quiet", "--out",
                     str(out[name]), *extra]) == 0
    return out


def test_view_a_game_of_a_run(runs: dict[str, Path], tmp_path: Path,
                              capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    page = tmp_path / "g1.html"
    code, _, err = run_cli(["view", str(runs["records"]), "--game", "1", "--out", str(page)],
                           capsys)
    assert code == 0, err
    src = game_source(runs["records"], 1)
    steps = replay_steps(src.game, src.record["actions"])
    game = replay(src.record)
    assert steps[-1].state["scores"] == game.scores
    assert src.record["seed"] != game_source(runs["records"], 2).record["seed"]


def test_an_out_path_that_cannot_be_written_is_refused_first(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for out, expect in ((tmp_path / "nowhere" / "game.html", "does not exist"),
                        (tmp_path, "is a folder")):
        code, _, err = run_cli(["view", str(RECORD), "--out", str(out)], capsys)
        assert code == 1 and expect in err and f"{out}: --out: " in err, err
        assert len(err.strip().splitlines()) == 1
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("case", ["missing", "illegal", "not json", "no game id",
                                  "unknown game", "no records", "game for a file"])
def test_bad_input_is_one_line_and_writes_nothing(case: str, runs: dict[str, Path],
                                                  tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    bad = tmp_path / "bad.json"
    record = json.loads(RECORD.read_text())
    if case == "illegal":
        record["actions"][3] = {"type": "move_bobby", "district": "D07"}
        bad.write_text(json.dumps(record))
    elif case == "not json":
        bad.write_text("{not json")
    target, expect = {
        "missing": ([str(tmp_path / "nope.json")], "no such record file"),
        "illegal": ([str(bad)], "action 3 move_bobby"),
        "not json": ([str(bad)], "not valid JSON"),
        "no game id": ([str(runs["records"])], "name the game with --game ID"),
        "unknown game": ([str(runs["records"]), "--game", "7"], "no game 7 in this run"),
        "no records": ([str(runs["plain"]), "--game", "0"], "kept no records"),
        "game for a file": ([str(RECORD), "--game", "0"], "is for a run folder"),
    }[case]
    out = tmp_path / "game.html"
    code, _, err = run_cli(["view", *target, "--out", str(out)], capsys)
    assert code != 0
    assert expect in err, err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert not out.exists()


# -- the page in a browser ---------------------------------------------------------------------
# (the `browser` fixture, headless Chromium with a watchdog, is in conftest.py)


def shown(driver: Any) -> dict[str, Any]:
    """What the page shows now: the step, every seat's score and stalls left, the Bobby's
    district, the stalls on the board and the action text."""
    from selenium.webdriver.common.by import By

    def seat_cells(selector: str) -> list[int]:
        return [int(c.text) for c in driver.find_elements(By.CSS_SELECTOR, selector)]

    board = driver.find_element(By.ID, "board")
    return {
        "step": int(driver.find_element(By.TAG_NAME, "body").get_attribute("data-step")),
        "scores": seat_cells("#seats td.score .value"),
        "stalls_left": seat_cells("#seats td.stalls"),
        "bobby": board.get_attribute("data-bobby"),
        "stalls": int(board.get_attribute("data-stalls")),
        "text": driver.find_element(By.ID, "action-text").text,
    }


def expected(record: dict[str, Any], steps: list[Step], k: int) -> dict[str, Any]:
    game = prefix_game(record, k)
    return {"step": k, "scores": game.scores, "stalls_left": game.stalls_left,
            "bobby": game.board.district_ids[game.bobby] if game.bobby >= 0 else "",
            "stalls": sum(1 for s in game.spot_seat if s >= 0), "text": steps[k].text}


def test_the_page_in_chromium_shows_the_replayed_states(browser: Any, record: dict[str, Any],
                                                        steps: list[Step],
                                                        tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    page = tmp_path / "game.html"
    assert main(["view", str(RECORD), "--out", str(page)]) == 0
    browser.get(page.resolve().as_uri())
    first, middle, last = checked_steps(record)
    assert shown(browser) == expected(record, steps, first)
    # Nothing was fetched but the file itself.
    fetched = browser.execute_script(
        "return performance.getEntriesByType('resource').map((e) => e.name);")
    assert fetched == []

    def click(button: str) -> None:
        browser.find_element(By.ID, button).click()

    # Buttons: to the last step, one back and one forward again.
    click("last")
    assert shown(browser) == expected(record, steps, last)
    winners = browser.find_elements(By.CSS_SELECTOR, "#seats tr:has(.winner)")
    assert [int(w.get_attribute("data-seat")) for w in winners] == \
        prefix_game(record, last).winners()
    click("prev")
    assert shown(browser) == expected(record, steps, last - 1)
    click("next")
    assert shown(browser) == expected(record, steps, last)
    click("first")
    assert shown(browser) == expected(record, steps, first)

    # The slider, moved as a person drags it (its value, then an input event).
    slider = browser.find_element(By.ID, "slider")
    browser.execute_script("arguments[0].value = arguments[1];"
                           "arguments[0].dispatchEvent(new Event('input'));", slider, middle)
    assert shown(browser) == expected(record, steps, middle)

    # Arrow keys, End and Home.
    body = browser.find_element(By.TAG_NAME, "body")
    body.send_keys(Keys.ARROW_RIGHT)
    assert shown(browser) == expected(record, steps, middle + 1)
    body.send_keys(Keys.ARROW_LEFT, Keys.ARROW_LEFT)
    assert shown(browser) == expected(record, steps, middle - 1)
    body.send_keys(Keys.END)
    assert shown(browser) == expected(record, steps, last)
    body.send_keys(Keys.HOME)
    assert shown(browser) == expected(record, steps, first)

    # The next-scoring button lands on the first step that scores, and says so.
    click("next-scoring")
    k = next(i for i, s in enumerate(steps) if s.scoring)
    assert shown(browser)["step"] == k
    assert "scoring" in browser.find_element(By.ID, "now").get_attribute("class")
    assert browser.find_element(By.ID, "notes").text

    # A page opened at #step=N starts there.
    browser.get(page.resolve().as_uri() + f"#step={middle}")
    browser.refresh()
    assert shown(browser) == expected(record, steps, middle)
    errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert errors == []
