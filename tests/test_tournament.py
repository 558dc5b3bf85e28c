"""Tournaments: seat rotation, shared seeds, the Wilson interval, ratings, Parquet output,
the command line, and agent failures reported instead of crashing the run."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pandas as pd
import pytest
from statsmodels.stats.proportion import proportion_confint

from sim.cli.command import main
from sim.games.portobello import actions as A
from sim.games.portobello.actions import Action
from sim.games.portobello.agents import registry
from sim.games.portobello.agents.base import BaseAgent
from sim.games.portobello.game import Game
from sim.games.portobello.rules import Rules
from sim.run.ratings import bradley_terry
from sim.run.ratings import wilson_interval
from sim.run.tournament import Matchup
from sim.run.tournament import TournamentConfig
from sim.run.tournament import matchups
from sim.run.tournament import ratings
from sim.run.tournament import run_tournament
from sim.run.tournament import summary

COLUMNS = {"tournament", "game_seed", "players", "agent", "seat", "score", "rank", "win_share",
           "margin", "decision_time", "decisions", "matchup", "role"}


@pytest.mark.parametrize(("k", "n"), [(0, 10), (3, 10), (10, 10), (57, 200), (117, 200),
                                      (1, 1), (250, 1000)])
def test_wilson_interval_equals_statsmodels(k: int, n: int) -> None:
    lo, hi = wilson_interval(k, n)
    slo, shi = proportion_confint(k, n, alpha=0.05, method="wilson")
    assert lo == pytest.approx(slo, abs=1e-12) and hi == pytest.approx(shi, abs=1e-12)


def test_wilson_interval_takes_shared_wins() -> None:
    lo, hi = wilson_interval(10.5, 20)
    slo, shi = proportion_confint(10.5, 20, alpha=0.05, method="wilson")
    assert (lo, hi) == pytest.approx((slo, shi), abs=1e-12)
    assert lo < 10.5 / 20 < hi


def test_bradley_terry_orders_players_and_is_centred() -> None:
    pairs = [("a", "b", 1.0)] * 8 + [("a", "b", 0.0)] * 2 + [("b", "c", 1.0)] * 7 + \
        [("b", "c", 0.5)] * 2 + [("c", "b", 1.0)]
    elo = bradley_terry(pairs)
    assert elo["a"] > elo["b"] > elo["c"]
    assert sum(elo.values()) == pytest.approx(0.0, abs=1e-6)
    # Two players, 3 wins of 4 plus the half-win prior each way: strength ratio 3.5 / 1.5.
    two = bradley_terry([("x", "y", 1.0)] * 3 + [("x", "y", 0.0)])
    import math
    assert two["x"] - two["y"] == pytest.approx(400 * math.log10(3.5 / 1.5), abs=1e-6)


def test_every_agent_sits_in_every_seat_equally() -> None:
    for m in matchups(["a", "b", "c"], [2, 3, 4]):
        seats = Counter(m.lineup(r).index(m.focus) for r in range(m.players))
        assert seats == Counter(range(m.players))
        for r in range(m.players):
            assert m.lineup(r).count(m.focus) == 1
    labels = [m.label for m in matchups(["a", "b"], [2, 3])]
    assert labels == ["a vs b", "a vs 2x b", "b vs 2x a"]
    assert [m.label for m in matchups(["a", "b", "c"], [2], "ladder")] == ["a vs b", "b vs c"]
    assert [m.label for m in matchups(["a", "b", "c"], [2], "first")] == ["a vs b", "a vs c"]


@pytest.fixture(scope="module")
def small() -> pd.DataFrame:
    config = TournamentConfig(agents=("greedy", "random"), players=(2, 3), games=6, seed=4)
    df, errors = run_tournament(config)
    assert not errors
    return df


def test_rows_seats_and_shared_seeds(small: pd.DataFrame) -> None:
    assert set(small.columns) >= COLUMNS
    # 2 players: 6 games; 3 players: two directions x 6 games; one row per seat.
    assert len(small) == 6 * 2 + 2 * 6 * 3
    for (_, _), g in small[small.role == "focus"].groupby(["players", "matchup"]):
        seats = Counter(g.seat)
        assert len(set(seats.values())) == 1 and set(seats) == set(range(g.players.iloc[0]))
    three = small[small.players == 3]
    seeds = {m: sorted(set(g.game_seed)) for m, g in three.groupby("matchup")}
    assert len(seeds) == 2 and len({tuple(v) for v in seeds.values()}) == 1
    # Win shares: every game hands out exactly one win.
    per_game = small.groupby(["players", "matchup", "block", "rotation"]).win_share.sum()
    assert per_game.round(9).eq(1.0).all()
    assert ((small["rank"] == 1) == (small.win_share > 0)).all()


def test_summary_and_ratings(small: pd.DataFrame) -> None:
    table = summary(small)
    row = table[(table.players == 2)].iloc[0]
    focus = small[(small.players == 2) & (small.role == "focus")]
    assert row.games == 6 and row.win_rate == pytest.approx(focus.win_share.mean())
    lo, hi = proportion_confint(focus.win_share.sum(), 6, method="wilson")
    assert (row.ci_low, row.ci_high) == pytest.approx((lo, hi))
    assert set(table.verdict) <= {"above", "below", "even"}
    r = ratings(small)
    assert set(r.agent) == {"greedy", "random"}
    assert r.iloc[0].agent == "greedy"  # greedy out-rates random even in this small run


def test_jobs_do_not_change_results() -> None:
    base = dict(agents=("greedy", "random"), players=(2,), games=4, seed=9)
    one, _ = run_tournament(TournamentConfig(**base, jobs=1))  # type: ignore[arg-type]
    two, _ = run_tournament(TournamentConfig(**base, jobs=2))  # type: ignore[arg-type]
    cols = ["game", "seat", "agent", "score", "win_share", "game_seed"]
    pd.testing.assert_frame_equal(one[cols], two[cols])


def test_a_stopped_tournament_keeps_its_finished_tasks_and_plays_only_the_rest(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The play stops at the fourth task (as when the Dask scheduler is lost): the three
    finished tasks are kept; run again, the tournament plays only the others and its table
    is the table of a tournament never stopped."""
    from sim.run import tournament as T
    from sim.run.task_store import TaskStore

    config = TournamentConfig(agents=("greedy", "random"), players=(2, 3), games=12,
                              seed=5, engine="python")
    whole, _ = run_tournament(config)
    tasks = len(config.tasks())
    real, calls, stopping = T.play_blocks, [], [True]

    def stops_at_the_fourth(*args: object) -> object:
        calls.append(args)
        if stopping[0] and len(calls) == 4:
            raise ConnectionError("scheduler lost")
        return real(*args)  # type: ignore[arg-type]

    store = TaskStore(tmp_path / "t.tasks")
    monkeypatch.setattr(T, "play_blocks", stops_at_the_fourth)
    with pytest.raises(ConnectionError):
        run_tournament(config, store=store)
    assert len(list(store.folder.iterdir())) == 3
    calls.clear()
    stopping[0] = False
    again, _ = run_tournament(config, store=store)
    assert len(calls) == tasks - 3 and tasks > 4
    pd.testing.assert_frame_equal(whole.drop(columns=list(T.TIMING_COLUMNS)),
                                  again.drop(columns=list(T.TIMING_COLUMNS)))
    (store.folder / next(iter(sorted(store.folder.iterdir()))).name).write_bytes(b"cut")
    calls.clear()
    run_tournament(config, store=store)  # a damaged file: that task is played again
    assert len(calls) == 1


def test_command_line_prints_tables_and_writes_parquet(tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]
                                                        ) -> None:
    out = tmp_path / "t.parquet"
    code = main(["tournament", "--agents", "greedy,random", "--players", "2", "--games", "4",
                 "--seed", "3", "--out", str(out), "--quiet"])
    text = capsys.readouterr().out
    assert code == 0
    assert "| 2 | greedy vs random | 4 |" in text and "Bradley-Terry" in text
    df = pd.read_parquet(out)
    assert len(df) == 8 and set(df.columns) >= COLUMNS


def test_command_line_refuses_bad_agents(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["tournament", "--agents", "greedy,wizard", "--quiet"])
    err = capsys.readouterr().err
    assert code == 1 and "unknown agent 'wizard'" in err and "heuristic" in err


class Flaky(BaseAgent):
    """Plays like a lazy player, but crashes in some games (a buggy agent)."""

    name = "flaky"

    def choose(self, game: Game) -> Action:
        if game.seed is not None and game.seed % 3 == 0 and game.round == 2:
            raise RuntimeError("flaky agent gave up")
        legal = game.legal_actions()
        return A.END if A.END in legal else legal[0]


def test_agent_failures_are_reported_and_the_run_goes_on(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setitem(registry.AGENTS, "flaky", Flaky)
    config = TournamentConfig(agents=("flaky", "random"), players=(2,), games=12, seed=2)
    df, errors = run_tournament(config)
    failed = {e["game_seed"] for e in errors}
    assert errors and failed
    assert all(e["game_seed"] % 3 == 0 for e in errors)
    assert all("flaky agent gave up" in e["message"] and "round 2" in e["message"]
               and f"game seed {e['game_seed']}" in e["message"] for e in errors)
    assert set(df.game_seed).isdisjoint(failed) and len(df) > 0
    out = tmp_path / "t.parquet"
    code = main(["tournament", "--agents", "flaky,random", "--games", "12", "--seed", "2",
                 "--out", str(out), "--quiet"])
    captured = capsys.readouterr()
    assert code == 1 and "agent error" in captured.err and "flaky agent gave up" in captured.err
    saved = json.loads(out.with_suffix(".errors.json").read_text())
    assert len(saved) == len(errors) and out.exists()


def test_matchup_label_and_config_checks() -> None:
    assert Matchup("a", "b", 4).label == "a vs 3x b"
    with pytest.raises(Exception, match="at least two agents"):
        TournamentConfig(agents=("greedy",))
    with pytest.raises(Exception, match="players"):
        TournamentConfig(agents=("greedy", "random"), players=(9,), rules=Rules())


# -- engines ------------------------------------------------------------------------------------
SAME = ["game", "game_seed", "seat", "agent", "role", "score", "rank", "win_share", "margin",
        "rounds", "end_reason"]


@pytest.mark.parametrize("players", [2, 3])
def test_both_engines_play_the_same_tournament(players: int) -> None:
    base = dict(agents=("heuristic", "first-end(heuristic)", "greedy"), players=(players,),
                games=2 * players, seed=5)
    compiled, _ = run_tournament(TournamentConfig(**base, engine="compiled"))  # type: ignore[arg-type]
    python, _ = run_tournament(TournamentConfig(**base, engine="python"))  # type: ignore[arg-type]
    pd.testing.assert_frame_equal(compiled[SAME], python[SAME])
    cols = ["players", "matchup", "games", "win_rate", "ci_low", "ci_high", "verdict"]
    pd.testing.assert_frame_equal(summary(compiled)[cols], summary(python)[cols])
    assert list(compiled.dtypes) == list(python.dtypes)  # one schema on both engines
    assert compiled.decisions.isna().all() and compiled.decision_time.isna().all()
    assert python.decisions.notna().all() and (python.decision_time > 0).all()


def test_auto_takes_the_compiled_engine_only_when_both_agents_have_twins() -> None:
    config = TournamentConfig(agents=("greedy", "random", "mcts:iterations=5"), games=2)
    assert config.engines() == {"compiled": 1, "python": 2}
    tasks = config.tasks()
    assert {engine for _, m, _, engine in tasks if "mcts" in m.label} == {"python"}
    with pytest.raises(Exception, match="no compiled version"):
        TournamentConfig(agents=("greedy", "mcts:iterations=5"), games=2, engine="compiled")
    # A compiled matchup is played in large batches, not game by game.
    big = TournamentConfig(agents=("greedy", "random"), players=(3,), games=600,
                           engine="compiled")
    assert [len(t[2]) for t in big.tasks()] == [64, 64, 64, 8] * 2


def test_compiled_rows_keep_the_schema_with_null_timings(tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]
                                                          ) -> None:
    out = tmp_path / "t.parquet"
    code = main(["tournament", "--agents", "greedy,random", "--players", "2", "--games", "4",
                 "--seed", "3", "--out", str(out), "--quiet", "--engine", "compiled"])
    text = capsys.readouterr().out
    assert code == 0 and "compiled engine" in text and "| – / – |" in text
    import pyarrow.parquet as pq

    schema = pq.read_schema(out)
    assert str(schema.field("decisions").type) == "int64"
    assert str(schema.field("decision_time").type) == "double"
    assert pq.read_table(out).column("decisions").null_count == 8
