"""Every statistic of analysis.metrics against an independent computation (statsmodels,
scipy, or plain pandas/Python loops)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from pandas.testing import assert_frame_equal
from scipy import stats as st
from statsmodels.stats.proportion import proportion_confint
from statsmodels.stats.proportion import proportions_ztest

from analysis import metrics as M
from analysis.study import StudyData
from analysis.study import open_study
from analysis.study import run_study
from analysis.study import study_from_dict


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(20240601)


def synthetic_players(rng: np.random.Generator, games: int = 300) -> pd.DataFrame:
    """Players tables for two variants at 2 and 3 players, with ties and balanced books."""
    rows = []
    for variant in ("A", "B"):
        for n in (2, 3):
            for g in range(games):
                lane = rng.integers(0, 12, size=n)
                district = rng.integers(0, 4, size=n)
                baron = rng.integers(0, 3, size=n)
                received = rng.integers(0, 3, size=n)
                paid = rng.integers(0, 4, size=n)
                score = 10 + lane + district + baron + received - paid
                if variant == "A" and n == 3 and g % 50 == 0:
                    score[1] = -2  # a negative score to find
                top = score.max()
                winners = np.flatnonzero(score == top)
                for s in range(n):
                    rows.append({"variant": variant, "n_players": n, "game_id": g,
                                 "seed": 1000 + g, "seat": s, "score": int(score[s]),
                                 "win_share": 1 / len(winners) if s in winners else 0.0,
                                 "start_score": 10, "lane_points": int(lane[s]),
                                 "district_points": int(district[s]),
                                 "baron_points": int(baron[s]),
                                 "bobby_received": int(received[s]),
                                 "bobby_paid": int(paid[s])})
    df = pd.DataFrame(rows)
    bad = (df["variant"] == "A") & (df["score"] == -2)
    df.loc[bad, "lane_points"] = df.loc[bad, "score"] - 10 - df.loc[bad, "district_points"] \
        - df.loc[bad, "baron_points"] - df.loc[bad, "bobby_received"] + df.loc[bad, "bobby_paid"]
    df["variant"] = pd.Categorical(df["variant"], categories=["A", "B"], ordered=True)
    return df


@pytest.fixture
def players(rng: np.random.Generator) -> pd.DataFrame:
    return synthetic_players(rng)


@pytest.fixture(scope="module")
def small_study(tmp_path_factory: pytest.TempPathFactory) -> StudyData:
    spec = study_from_dict({"name": "m", "players": [2, 3], "agents": "random", "games": 60,
                            "seed": 3, "variants": [{"name": "standard"},
                                                    {"name": "known", "preset": "known-order"}]})
    out = tmp_path_factory.mktemp("study")
    run_study(spec, out, quiet=True)
    return open_study(out)


def test_wilson_matches_statsmodels() -> None:
    for x, n in [(0, 10), (3, 10), (10, 10), (517.5, 1000), (1 / 3, 7), (2210.25, 4400)]:
        lo, hi = M.wilson_interval(x, n, 0.95)
        elo, ehi = proportion_confint(x, n, alpha=0.05, method="wilson")
        assert lo == pytest.approx(elo, abs=1e-12) and hi == pytest.approx(ehi, abs=1e-12)
    lo, hi = M.wilson_interval(40, 100, 0.9)
    elo, ehi = proportion_confint(40, 100, alpha=0.1, method="wilson")
    assert (lo, hi) == pytest.approx((elo, ehi))


def test_win_share_matches_pandas_and_statsmodels(players: pd.DataFrame) -> None:
    got = M.WinShare()(players)
    exp = (players.groupby(["variant", "n_players", "seat"], observed=True)["win_share"]
           .agg(games="size", wins="sum").reset_index())
    exp["share"] = exp["wins"] / exp["games"]
    lo, hi = proportion_confint(exp["wins"], exp["games"], alpha=0.05, method="wilson")
    exp["lo"], exp["hi"] = np.asarray(lo), np.asarray(hi)
    exp["half_width"] = (exp["hi"] - exp["lo"]) / 2
    exp["fair"] = 1 / exp["n_players"]
    assert_frame_equal(got.reset_index(drop=True), exp, check_dtype=False)
    # Win shares of each game sum to 1 over the seats.
    sums = got.groupby(["variant", "n_players"], observed=True)["wins"].sum()
    assert (sums == 300).all()


def test_seat_balance_matches_scipy_chisquare(players: pd.DataFrame) -> None:
    got = M.SeatBalance()(players)
    for r in got.itertuples():
        grp = players[(players["variant"] == r.variant) & (players["n_players"] == r.n_players)]
        wins = grp.groupby("seat")["win_share"].sum().to_numpy()
        chi2, p = st.chisquare(wins)
        assert r.chi2 == pytest.approx(chi2) and r.p_value == pytest.approx(p)
        assert r.dof == r.n_players - 1 and r.games == 300
        shares = wins / 300
        assert r.best_seat == int(np.argmax(shares))
        assert r.spread == pytest.approx(shares.max() - shares.min())


def test_first_player_matches_statsmodels_ztest(players: pd.DataFrame) -> None:
    got = M.FirstPlayerAdvantage()(players)
    for r in got.itertuples():
        grp = players[(players["variant"] == r.variant) & (players["n_players"] == r.n_players)
                      & (players["seat"] == 0)]
        p0 = 1 / r.n_players
        z, p = proportions_ztest(grp["win_share"].sum(), len(grp), value=p0, prop_var=p0)
        assert r.z == pytest.approx(z) and r.p_value == pytest.approx(p)
        assert r.advantage == pytest.approx(grp["win_share"].mean() - p0)
        assert r.adv_lo == pytest.approx(r.lo - p0)


def test_describe_matches_pandas_and_scipy(players: pd.DataFrame) -> None:
    got = M.Describe(("score", "lane_points"))(players)
    assert len(got) == 2 * 2 * 2
    for r in got.itertuples():
        v = players[(players["variant"] == r.variant)
                    & (players["n_players"] == r.n_players)][r.measure]
        assert r.n == len(v) and r.mean == pytest.approx(v.mean())
        assert r.sd == pytest.approx(v.std()) and r.median == pytest.approx(v.median())
        assert r.q90 == pytest.approx(v.quantile(0.9))
        lo, hi = st.t.interval(0.95, len(v) - 1, loc=v.mean(), scale=st.sem(v))
        assert (r.lo, r.hi) == pytest.approx((lo, hi))


def test_margins_match_a_loop(players: pd.DataFrame) -> None:
    got = M.Margins()(players).set_index(["variant", "n_players", "game_id"])
    for (v, n, g), grp in players.groupby(["variant", "n_players", "game_id"], observed=True):
        scores = sorted(grp["score"], reverse=True)
        row = got.loc[(v, n, g)]
        assert row["winning_score"] == scores[0] and row["runner_up"] == scores[1]
        assert row["margin"] == scores[0] - scores[1]
        assert row["tied"] == (scores[0] == scores[1])
        assert row["mean_score"] == pytest.approx(np.mean(scores))
        assert row["tied"] == (grp["win_share"].max() < 1)


def test_margins_of_ordered_runs_equal_the_general_path(players: pd.DataFrame) -> None:
    """A loaded run is in key order with n rows a game: Margins takes its matrix path
    there; a shuffled copy (the sort-and-group path) gives the same table, ties included,
    for each player count and for both variants together."""
    from analysis.metrics.games import _ordered_group_size

    keys = ["variant", "n_players", "game_id", "seed"]
    for n in (2, 3):
        cell = players[players["n_players"] == n].sort_values(keys, kind="stable")
        cell = cell.reset_index(drop=True)
        assert _ordered_group_size(cell, keys) == n
        shuffled = cell.sample(frac=1.0, random_state=n)
        assert _ordered_group_size(shuffled, keys) == 0
        fast = M.Margins()(cell)
        assert_frame_equal(fast, M.Margins()(shuffled))
        assert fast["tied"].any() and not fast["tied"].all()
    assert _ordered_group_size(players, keys) == 0  # 2 and 3 players mixed: general path


def test_points_by_source_add_up(players: pd.DataFrame) -> None:
    got = M.PointsBySource()(players)
    totals = got.groupby(["variant", "n_players"], observed=True)["mean"].sum()
    means = players.groupby(["variant", "n_players"], observed=True)["score"].mean()
    assert np.allclose(totals.to_numpy(), means.to_numpy())
    assert (got["residual"] == 0).all()
    paid = got[got["source"] == "bobby paid"]
    exp = -players.groupby(["variant", "n_players"], observed=True)["bobby_paid"].mean()
    assert np.allclose(paid["mean"].to_numpy(), exp.to_numpy())


def test_proportions_match_value_counts_and_wilson() -> None:
    games = pd.DataFrame({"variant": ["a"] * 7 + ["b"] * 5, "n_players": 2,
                          "end_reason": ["last_stall"] * 5 + ["round_limit"] * 2
                          + ["last_stall"] * 4 + ["board_exhausted"]})
    got = M.Proportions("end_reason")(games)
    assert len(got) == 2 * 3  # every reason in every group
    a = got[(got["variant"] == "a") & (got["value"] == "round_limit")].iloc[0]
    assert a["count"] == 2 and a["total"] == 7
    assert (a["lo"], a["hi"]) == pytest.approx(proportion_confint(2, 7, method="wilson"))
    b = got[(got["variant"] == "b") & (got["value"] == "round_limit")].iloc[0]
    assert b["count"] == 0 and b["share"] == 0


def test_share_by_level_and_luck_effect(players: pd.DataFrame) -> None:
    df = players.assign(x=players["lane_points"])
    got = M.ShareByLevel("x", cap=8, width=2)(df)
    sub = df[(df["variant"] == "B") & (df["n_players"] == 2)]
    lv = (sub["x"].clip(upper=8) // 2) * 2
    exp = sub.groupby(lv)["win_share"].agg(["size", "mean"])
    mine = got[(got["variant"] == "B") & (got["n_players"] == 2)].set_index("order")
    assert (mine["players"] == exp["size"]).all()
    assert np.allclose(mine["share"], exp["mean"])
    assert list(mine["level"]) == ["0-1", "2-3", "4-5", "6-7", "8+"]
    floored = M.ShareByLevel("x", cap=4, floor=2)(df)
    mine2 = floored[(floored["variant"] == "B") & (floored["n_players"] == 2)]
    assert list(mine2["level"]) == ["2", "3", "4+"]
    assert mine2["players"].sum() == len(sub)
    neg = M.ShareByLevel("x", cap=3, floor=-3)(df.assign(x=df["x"] - 6))
    assert neg["level"].iloc[0] == "≤-3"
    eff2 = M.LuckEffect("x", scale=2)(df)
    eff = M.LuckEffect("x")(df)
    assert np.allclose(eff2["slope"], 2 * eff["slope"]) and np.allclose(eff2["p_value"],
                                                                         eff["p_value"])
    ols = sm.OLS(sub["win_share"].to_numpy(), sm.add_constant(sub["x"].to_numpy())).fit()
    r = eff[(eff["variant"] == "B") & (eff["n_players"] == 2)].iloc[0]
    assert r["slope"] == pytest.approx(ols.params[1])
    assert (r["lo"], r["hi"]) == pytest.approx(tuple(ols.conf_int()[1]))
    assert r["p_value"] == pytest.approx(ols.pvalues[1])


def test_anomalies_find_round_limits_and_negative_scores(players: pd.DataFrame) -> None:
    games = players[["variant", "n_players", "game_id", "seed"]].drop_duplicates().copy()
    games["end_reason"] = "last_stall"
    games.loc[games.index[:3], "end_reason"] = "round_limit"
    got = M.Anomalies()(games, players)
    keys = zip(got["variant"], got["n_players"], got["kind"], strict=True)
    kinds = dict(zip(keys, got["games"], strict=True))
    assert kinds[("A", 2, "round limit reached")] == 3
    assert kinds[("A", 3, "negative score")] == 6  # games 0, 50, ..., 250
    assert not any(k[2] == "score does not add up" for k in kinds)
    broken = players.copy()
    broken.loc[broken.index[0], "score"] += 1
    got = M.Anomalies()(games, broken)
    assert "score does not add up" in set(got["kind"])
    assert "0 (seed 1000)" in got[got["kind"] == "round limit reached"]["examples"].iloc[0]


def test_parameters_are_checked() -> None:
    with pytest.raises(M.StatError, match=r"WinShare: level must be"):
        M.WinShare(level=1.5)
    with pytest.raises(M.StatError, match=r"Describe: columns must be"):
        M.Describe("score")  # type: ignore[arg-type]
    with pytest.raises(M.StatError, match=r"ShareByLevel: cap must be above floor"):
        M.ShareByLevel("x", cap=5, width=2)
    with pytest.raises(M.StatError, match=r"SeatBalance: by must be a tuple"):
        M.SeatBalance(by="variant")  # type: ignore[arg-type]
    with pytest.raises(M.StatError, match=r"CustomerExposure: lane_ends"):
        M.CustomerExposure({})
    with pytest.raises(M.StatError, match=r"WinShare: the table has no column\(s\) win_share"):
        M.WinShare()(pd.DataFrame({"variant": ["a"], "n_players": [2], "seat": [0]}))


# -- statistics of the event log, against loops over the raw events ---------------------------
def _events(study: StudyData) -> pd.DataFrame:
    return study.events()


def test_district_timing_matches_a_loop(small_study: StudyData) -> None:
    ev, games = _events(small_study), small_study.games()
    got = M.DistrictTiming()(ev, games)
    rounds = {(v, n, g): r for v, n, g, r in zip(games["variant"], games["n_players"],
                                                  games["game_id"], games["rounds"],
                                                  strict=True)}
    acc: dict[tuple, list] = {}
    for r in ev.itertuples():
        if r.action == "score_district":
            acc.setdefault((r.variant, r.n_players, int(r.value)), []).append(
                (r.round, r.round / rounds[(r.variant, r.n_players, r.game_id)], r.points))
    assert len(got) == len(acc)
    for r in got.itertuples():
        items = acc[(r.variant, r.n_players, r.token)]
        assert r.scorings == len(items)
        assert r.per_player_game == pytest.approx(len(items) / (60 * r.n_players))
        assert r.mean_round == pytest.approx(np.mean([i[0] for i in items]))
        assert r.mean_fraction == pytest.approx(np.mean([i[1] for i in items]))
        assert r.mean_points == pytest.approx(np.mean([i[2] for i in items]))


def test_lane_and_spot_usage_match_a_loop(small_study: StudyData) -> None:
    ev, games = _events(small_study), small_study.games()
    lanes = small_study.board.lane_ids
    got = M.LaneUsage(lanes=lanes)(ev, games).set_index(["variant", "n_players", "lane"])
    stalls: dict[tuple, int] = {}
    points: dict[tuple, int] = {}
    scored: dict[tuple, set] = {}
    spots: dict[tuple, int] = {}
    for r in ev.itertuples():
        key = (r.variant, r.n_players, r.lane)
        if r.action == "place_stall":
            stalls[key] = stalls.get(key, 0) + 1
            sk = (r.variant, r.n_players, int(r.value))
            spots[sk] = spots.get(sk, 0) + 1
        elif r.action in ("score_lane", "score_lane_baron"):
            points[key] = points.get(key, 0) + int(r.points)
            scored.setdefault(key, set()).add(r.game_id)
    assert len(got) == 2 * 2 * len(lanes)
    for key, row in got.iterrows():
        assert row["stalls_per_game"] == pytest.approx(stalls.get(key, 0) / 60)
        assert row["points_per_game"] == pytest.approx(points.get(key, 0) / 60)
        assert row["scored_share"] == pytest.approx(len(scored.get(key, ())) / 60)
    spot = M.SpotUsage()(ev)
    for r in spot.itertuples():
        assert r.stalls == spots[(r.variant, r.n_players, r.spot_value)]
    assert np.allclose(spot.groupby(["variant", "n_players"], observed=True)["share"].sum(), 1)
    # Every stall placed is in the players table too.
    pl = small_study.players().groupby(["variant", "n_players"], observed=True)[
        "stalls_placed"].sum()
    per_cell = pd.Series(stalls).groupby(level=[0, 1]).sum()
    for (v, n), total in pl.items():
        assert per_cell[(v, n)] == total


def test_customer_exposure_matches_a_loop(small_study: StudyData) -> None:
    ev, players = _events(small_study), small_study.players()
    board = small_study.board
    ends = {board.lane_ids[i]: (board.square_ids[a], board.square_ids[b])
            for i, (a, b) in enumerate(board.lane_ends)}
    got = M.CustomerExposure(ends)(players, ev).set_index(
        ["variant", "n_players", "game_id", "seat"])
    on_square: dict[tuple, str] = {}
    drawn: dict[tuple, list] = {}
    for r in ev.itertuples():
        g = (r.variant, r.n_players, r.game_id)
        if r.action == "place_customer":
            on_square[(*g, r.square)] = r.customer
        elif r.action == "draw_customer":
            drawn.setdefault((*g, int(r.seat)), []).append(r.customer)
    ends_count: dict[tuple, int] = {}
    for r in ev.itertuples():
        if r.action in ("score_lane", "score_lane_baron") and r.points > 0:
            g = (r.variant, r.n_players, r.game_id)
            a, b = ends[r.lane]
            n = sum(on_square.get((*g, sq)) == "aristocrat" for sq in (a, b))
            key = (*g, int(r.seat))
            ends_count[key] = ends_count.get(key, 0) + n
    assert len(got) == len(players)
    for key, row in got.iterrows():
        d = drawn.get(key, [])
        assert row["draws"] == len(d)
        assert row["aristocrats_drawn"] == d.count("aristocrat")
        assert row["aristocrat_ends"] == ends_count.get(key, 0)
        assert row["aristocrat_surplus"] == d.count("aristocrat") - d.count("citizen")
    # Draws per player equal customers placed per player in the players table.
    merged = got.join(players.set_index(["variant", "n_players", "game_id", "seat"])[
        "customers_placed"])
    assert (merged["draws"] == merged["customers_placed"]).all()


def test_study_tables_have_the_common_columns(small_study: StudyData, tmp_path: Path) -> None:
    games, players = small_study.games(), small_study.players()
    assert list(games.columns[:2]) == ["variant", "n_players"]
    assert list(games["variant"].cat.categories) == ["standard", "known"]
    assert (games["n_winners"] >= 1).all()
    assert players["seed"].notna().all() and (players["start_score"] == 10).all()
    # Common random numbers: game i has the same seed in every variant.
    s = games.pivot_table(index=["n_players", "game_id"], columns="variant", values="seed",
                          observed=True, aggfunc="first")
    assert (s["standard"] == s["known"]).all()
