"""Self-play tuning (`portobello agents tune`): candidates play a panel on common seeds, the
search is deterministic whatever the jobs, resumes after an interruption to the very result
of an uninterrupted run, refuses a folder of another tuning, and writes a weight set that
plays the weights its evaluation chose."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from sim.cli import main
from sim.core.errors import PortobelloError
from sim.games.portobello import tuning as space
from sim.games.portobello.agents.evaluate import Weights
from sim.games.portobello.agents.registry import make_agent
from sim.games.portobello.agents.weight_sets import read_weight_set
from sim.games.portobello.board import load_board
from sim.games.portobello.rules import Rules
from sim.games.portobello.tuning import chosen_weights
from sim.run.ratings import wilson_interval
from sim.tuning import selfplay
from sim.tuning.search import LOG
from sim.tuning.search import RESULT
from sim.tuning.search import TuneConfig
from sim.tuning.search import tune

STANDARD = load_board("standard")


def small(players: int = 2, **changes: object) -> TuneConfig:
    values: dict = dict(board=STANDARD, board_ref="standard", rules=Rules(players=players),
                        start="classic", generations=3, population=4, blocks=3,
                        final_blocks=6, finalists=2, seed=5)
    return TuneConfig(**(values | changes))


def generations(out: Path) -> list[dict]:
    return json.loads((out / LOG).read_text())["generations"]


def test_focus_results_by_hand() -> None:
    """Game i's focus sits in seat i mod n. Game 0: seat 0 ties seat 1 at 10 (share 1/2,
    margin 0); game 1: seat 1 ties seat 2 at 7 (1/2, 0); game 2: seat 2 has 2 against 9
    (share 0, margin -7)."""
    scores = np.array([[10, 10, 5], [3, 7, 7], [9, 1, 2]])
    share, margin = selfplay.focus_results(scores, 3)
    assert share.tolist() == [0.5, 0.5, 0.0]
    assert margin.tolist() == [0.0, 0.0, -7.0]


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_candidate_equal_to_its_opponent_scores_exactly_parity(players: int) -> None:
    """With the same agent in every seat, the n rotations of a block are one game played n
    times (same seed, same seats), and the focus takes each seat's share once: the shares
    of a game sum to 1, so the mean is exactly 1/n, whatever the luck."""
    spec = space.spec_of(Weights())
    other = space.spec_of(Weights(tempo=0.4, district=0.2))
    same, different = selfplay.evaluate(STANDARD, Rules(players=players), [spec, other],
                                        [spec], seeds=[11, 12, 13])
    assert same.share == pytest.approx(1 / players) and same.games == 3 * players
    # Another agent on the same seeds plays other games (the seeds are fixed: no flakes).
    assert (different.share, different.margin) != (same.share, same.margin)


def test_tuning_is_deterministic_and_does_not_depend_on_jobs(tmp_path: Path) -> None:
    a = tune(small(), tmp_path / "a", jobs=1)
    b = tune(small(), tmp_path / "b", jobs=2)
    assert generations(tmp_path / "a") == generations(tmp_path / "b")
    assert (tmp_path / "a" / RESULT).read_text() == (tmp_path / "b" / RESULT).read_text()
    assert chosen_weights(a) == chosen_weights(b)
    # The panel grows: the start, then the incumbent after the first generation.
    assert [len(g["panel"]) for g in generations(tmp_path / "a")] == [1, 2, 2]


def test_an_interrupted_tuning_resumes_to_the_uninterrupted_result(tmp_path: Path) -> None:
    straight = tmp_path / "straight"
    tune(small(), straight)

    def stop_after_one(t: object) -> None:
        raise KeyboardInterrupt

    resumed = tmp_path / "resumed"
    with pytest.raises(KeyboardInterrupt):
        tune(small(), resumed, progress=stop_after_one)
    assert len(generations(resumed)) == 1 and not (resumed / RESULT).exists()
    tune(small(), resumed)
    assert generations(resumed) == generations(straight)
    assert (resumed / RESULT).read_text() == (straight / RESULT).read_text()


def test_more_generations_extend_a_finished_tuning(tmp_path: Path) -> None:
    tune(small(generations=2), tmp_path / "short")
    tune(small(generations=3), tmp_path / "short")
    tune(small(generations=3), tmp_path / "long")
    assert generations(tmp_path / "short") == generations(tmp_path / "long")
    assert (tmp_path / "short" / RESULT).read_text() == (tmp_path / "long" / RESULT).read_text()


def test_a_folder_of_another_tuning_is_refused(tmp_path: Path) -> None:
    tune(small(generations=1), tmp_path)
    before = (tmp_path / LOG).read_text()
    with pytest.raises(PortobelloError, match="other settings"):
        tune(small(generations=1, seed=6), tmp_path)
    assert (tmp_path / LOG).read_text() == before  # nothing written is lost


def test_the_weight_set_plays_what_the_evaluation_chose(tmp_path: Path) -> None:
    tuning = tune(small(), tmp_path)
    chosen = chosen_weights(tuning)
    assert read_weight_set(tmp_path / RESULT).weights == chosen
    agent = make_agent(f"heuristic:weights={tmp_path / RESULT}")
    assert agent.weights_for(2) == chosen
    final = tuning.final
    assert final is not None
    for row in final["finalists"]:  # each interval is the Wilson interval of its games
        lo, hi = wilson_interval(row["wins"], row["games"])
        assert row["interval"] == [round(lo, 4), round(hi, 4)]
        assert row["games"] == 2 * 6  # final_blocks x players
    best = max(r["win_share"] for r in final["finalists"])
    assert final["finalists"][final["chosen"]]["win_share"] == best


def test_tuning_from_poor_weights_finds_better_ones(tmp_path: Path) -> None:
    """From weights that ignore districts and the others' values, a short search finds a
    set that beats them, on fresh seeds, with the whole interval above parity."""
    start = tmp_path / "poor.toml"
    start.write_text("[weights]\ndistrict = 0.0\nrival = 0.3\ntempo = 4.0\nlane = 0.3\n")
    config = small(start=str(start), generations=4, population=6, blocks=10,
                   final_blocks=40, finalists=3)
    tuning = tune(config, tmp_path / "out")
    assert tuning.final is not None
    chosen = tuning.final["finalists"][tuning.final["chosen"]]
    assert chosen["interval"][0] > 0.5, chosen


def test_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "t"
    code = main(["agents", "tune", "--players", "2", "--start", "classic", "--generations",
                 "2", "--population", "4", "--blocks", "2", "--final-blocks", "4", "--out",
                 str(out), "--quiet"])
    text = capsys.readouterr().out
    assert code == 0 and f"weights: {out / RESULT}" in text.strip().splitlines()[-1]
    final = json.loads((out / LOG).read_text())["final"]
    chosen = final["finalists"][final["chosen"]]["weights"]
    assert read_weight_set(out / RESULT).weights == Weights(**chosen)
    assert main(["agents", "tune", "--start", "strongest", "--out", str(tmp_path / "x"),
                 "--quiet"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no weight set named 'strongest'" in err[0]
    with pytest.raises(SystemExit) as exit_:
        main(["agents", "tune", "--population", "1"])
    assert exit_.value.code == 2
    assert main(["agents", "list"]) == 0
    listed = capsys.readouterr().out
    assert "tuned-4p" in listed and "classic" in listed and "first-end(AGENT)" in listed


def test_guards_make_a_candidate_meet_its_restricted_self() -> None:
    """A guard adds one opponent per candidate: its own restricted version. Against
    `no-bobby(itself)` the heuristic wins nearly every game (a heuristic that never moves
    the Bobby won 0 of 300 two-player games in README's restricted study), so the guarded
    score is above the unguarded one, which is exactly parity (itself only)."""
    spec = space.spec_of(Weights())
    rules = Rules(players=2)
    plain = selfplay.evaluate(STANDARD, rules, [spec], [spec], seeds=[1, 2, 3, 4, 5])[0]
    guarded = selfplay.evaluate(STANDARD, rules, [spec], [spec], seeds=[1, 2, 3, 4, 5],
                                guards=("no-bobby",))[0]
    assert plain.share == 0.5 and plain.games == 10
    assert guarded.games == 20 and guarded.share > 0.7
    with pytest.raises(PortobelloError, match="unknown restriction"):
        small(guards=("no-thinking",))


def test_opponents_stay_in_the_panel_and_the_final(tmp_path: Path) -> None:
    """An `--opponent` set joins the start in every generation's panel and in the final
    evaluation, so the result is chosen against both."""
    tuning = tune(small(opponents=("tuned",)), tmp_path)
    tuned = space.spec_of(make_agent("heuristic").weights_for(2))  # type: ignore[attr-defined]
    classic = space.spec_of(Weights())
    assert all(g.panel[:2] == [classic, tuned] for g in tuning.generations)
    assert tuning.final is not None and tuning.final["against"] == [classic, tuned]
    assert all(r["games"] == 2 * 2 * 6 for r in tuning.final["finalists"])  # 2 members


@pytest.mark.parametrize(("interval", "recommended", "says"), [
    ((0.253, 0.312), False, "WARNING: they lose to the starting weights"),
    ((0.300, 0.360), False, "not shown better than the starting weights"),
    ((0.350, 0.400), True, "they beat the starting weights"),
])
def test_only_weights_that_beat_the_start_are_recommended(
        interval: tuple[float, float], recommended: bool, says: str) -> None:
    from sim.cli.agents import weights_advice

    line = weights_advice(Path("t/weights.toml"), interval, 1 / 3, "tuned")
    assert line.startswith("weights: t/weights.toml") and says in line, line
    assert ("play them as heuristic:weights=t/weights.toml" in line) == recommended, line
    assert ("keep the starting weights (heuristic:weights=tuned)" in line) != recommended, line
