"""The groups found from key codes (`analysis.metrics.grouping`) are pandas' own groups:
the same rows in the same groups, the same keys and order, the same aggregates to the last
bit, on tables where a shortcut could go wrong (unordered categories out of alphabetical
order, unused and missing categories, negative and constant integers, rows in any order)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from pandas.testing import assert_index_equal
from pandas.testing import assert_series_equal

from analysis.metrics.common import groups
from analysis.metrics.grouping import ascending
from analysis.metrics.grouping import distinct_per_group
from analysis.metrics.grouping import grouping

KEYS = [["v"], ["o"], ["n"], ["one"], ["k"], ["one", "k"], ["v", "n"], ["o", "n", "s"],
        ["b", "s"], ["wide", "n"], ["v", "o", "n", "s", "b"], ["t", "n"], ["one", "k", "n"]]


@pytest.fixture(scope="module")
def table() -> pd.DataFrame:
    rng = np.random.default_rng(7)
    n = 3000
    return pd.DataFrame({
        # Unordered, categories out of alphabetical order, one unused, some rows missing.
        "v": pd.Categorical(rng.choice(["b", "a", "c", None], n),
                            categories=["c", "a", "b", "unused"]),
        "o": pd.Categorical(rng.choice(["x", "y"], n), categories=["y", "x"], ordered=True),
        "one": pd.Categorical(["z"] * n),
        "k": np.full(n, 7, np.int8),
        "n": rng.choice([4, 2, 3], n).astype(np.int8),
        "wide": rng.choice([-120, 120], n).astype(np.int8),  # a range wider than int8
        "s": rng.integers(-3, 3, n),
        "b": rng.random(n) < 0.5,
        "t": rng.choice(["p", "q"], n),  # strings: pandas groups them
        "w": rng.choice([0.0, 1 / 3, 0.5, 1.0], n).astype(np.float32) + rng.random(n)
        .astype(np.float32) * 1e-3,
        "gid": rng.integers(0, 60, n),
    })


@pytest.mark.parametrize("by", KEYS, ids=["+".join(k) for k in KEYS])
def test_grouping_is_pandas_grouping(table: pd.DataFrame, by: list[str]) -> None:
    g = groups(table, by)
    got = grouping(table, by)
    assert_index_equal(got.index, g.size().index, exact=True)
    expected = g.ngroup().to_numpy(dtype=float, na_value=np.nan)
    assert np.array_equal(np.where(got.codes < 0, np.nan, got.codes), expected, equal_nan=True)
    assert_series_equal(got.indexed(got.grouped(table["w"]).sum()), g["w"].sum(),
                        check_exact=True)
    assert_series_equal(got.indexed(got.grouped(table["s"]).std()), g["s"].std(),
                        check_exact=True)
    loop = [(k if isinstance(k, tuple) else (k,), grp["w"].to_numpy()) for k, grp in g]
    split = list(zip(got.keys, got.split(table["w"].to_numpy()), strict=True))
    assert [k for k, _ in split] == [k for k, _ in loop]
    assert [type(x) for x in split[0][0]] == [type(x) for x in loop[0][0]]
    assert all(np.array_equal(a, b) for (_, a), (_, b) in zip(split, loop, strict=True))
    assert np.array_equal(got.sizes, g.size().to_numpy())


@pytest.mark.parametrize("by", KEYS, ids=["+".join(k) for k in KEYS])
def test_distinct_values_and_parent_groups(table: pd.DataFrame, by: list[str]) -> None:
    """Distinct game ids per group, counted from runs when the rows are in key order and
    by pandas otherwise, are pandas' `nunique` either way."""
    for df in (table, table.sort_values([*by, "gid"]).reset_index(drop=True)):
        got = distinct_per_group(grouping(df, by), df["gid"])
        assert np.array_equal(got, groups(df, by)["gid"].nunique().to_numpy())
    if len(by) > 1:
        fine, coarse = grouping(table, by), groups(table, by[:-1]).size().index
        assert list(fine.parents(grouping(table, by[:-1]))) == [
            coarse.get_loc(k[:-1] if len(k) > 2 else k[0]) for k in fine.keys]


def test_ascending_tells_sorted_rows_and_their_ties() -> None:
    a, b = np.array([0, 0, 1, 1, 1]), np.array([3, 5, 1, 1, 2])
    assert ascending([a, b]).tolist() == [False, False, True, False]
    assert ascending([a, b[::-1]]) is None
    assert ascending([b]) is None


def test_empty_and_all_missing_tables_are_grouped_by_pandas(table: pd.DataFrame) -> None:
    for df in (table.iloc[:0], table.assign(v=pd.Categorical([None] * len(table),
                                                            categories=["a"]))):
        got = grouping(df, ["v", "n"])
        assert len(got) == 0 and (got.codes == -1).all()
        assert_index_equal(got.index, groups(df, ["v", "n"]).size().index, exact=True)


@pytest.fixture(scope="module")
def shuffled() -> tuple[pd.DataFrame, pd.DataFrame]:
    """Players and games of two variants at 2 and 3 players, rows shuffled (groups
    interleaved), the variant's categories not in the order of their names."""
    from tests.test_metrics import synthetic_players

    rng = np.random.default_rng(5)
    players = synthetic_players(rng, games=120)
    players["variant"] = players["variant"].cat.set_categories(["B", "A"])
    for col in ("stalls_placed", "customers_placed", "districts_scored"):
        players[col] = rng.integers(0, 9, len(players)).astype(np.int16)
    players["win_share"] = players["win_share"].astype(np.float32)
    games = players.drop_duplicates(["variant", "n_players", "game_id"])[
        ["variant", "n_players", "game_id", "seed"]].reset_index(drop=True)
    games["turns"] = rng.integers(10, 40, len(games)).astype(np.int32)
    games["rounds"] = (games["turns"] // games["n_players"]).astype(np.int16)
    games["end_reason"] = rng.choice(["stalls_exhausted", "round_limit"], len(games))
    return (players.sample(frac=1.0, random_state=1).reset_index(drop=True),
            games.sample(frac=1.0, random_state=2).reset_index(drop=True))


def test_statistics_equal_their_grouped_computation(shuffled: tuple[pd.DataFrame, pd.DataFrame]
                                                     ) -> None:
    """Win shares, seat balance, descriptions, points by source and calibration computed
    from key codes equal pandas' groupby of the same table, exactly."""
    from analysis import metrics as M
    from analysis.metrics.calibration import Calibration

    players, games = shuffled
    by = ["variant", "n_players"]
    ws = M.WinShare()(players)
    exp = groups(players, [*by, "seat"])["win_share"].agg(games="size", wins="sum")
    assert_series_equal(ws["wins"], exp["wins"].reset_index(drop=True), check_exact=True)
    assert ws["games"].tolist() == exp["games"].tolist()
    assert ws[[*by, "seat"]].equals(exp.reset_index()[[*by, "seat"]])

    balance = M.SeatBalance()(players)
    for row, (key, grp) in zip(balance.itertuples(), groups(players, by), strict=True):
        wins = grp.groupby("seat")["win_share"].sum()
        expected = grp["game_id"].nunique() / len(wins)
        assert (row.variant, row.n_players) == key and row.games == grp["game_id"].nunique()
        assert row.chi2 == float(((wins - expected) ** 2 / expected).sum())

    described = M.Describe(("score", "lane_points"))(players)
    rows = described.itertuples()
    for key, grp in groups(players, by):
        for row in (next(rows), next(rows)):
            v = grp[row.measure].to_numpy(dtype=float)
            assert (row.variant, row.n_players) == key
            assert (row.mean, row.sd, row.median) == (np.mean(v), np.std(v, ddof=1),
                                                      np.quantile(v, 0.5))

    points = M.PointsBySource()(players).set_index([*by, "source"])["mean"]
    lanes = points.xs("lanes", level="source")
    assert lanes.tolist() == groups(players, by)["lane_points"].mean().tolist()

    calibration = Calibration()(games, players)
    means = groups(players, by)["stalls_placed"].mean().to_numpy()
    assert calibration["stalls_per_player"].tolist() == means.tolist()


def test_top_two_of_integer_rows_is_what_sorting_gives() -> None:
    """Ties for the top, ties below it, negative scores and the extreme values."""
    from analysis.metrics.games import _top_two

    rng = np.random.default_rng(3)
    low = np.iinfo(np.int32).min
    scores = np.concatenate([rng.integers(-3, 4, (500, 3)), rng.integers(-2, 2, (500, 3)),
                             [[low, low, 0], [5, 5, 5], [low, low, low], [7, 1, 1]]]
                            ).astype(np.int32)
    for k in (2, 3):
        ranked = -np.sort(-scores[:, :k].astype(np.int64), axis=1)
        first, second = _top_two(scores[:, :k])
        assert first.tolist() == ranked[:, 0].tolist()
        assert second.tolist() == ranked[:, 1].tolist()
