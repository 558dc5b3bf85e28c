"""analysis.compare against scipy and statsmodels: paired and Welch differences, Holm, and
the findings' wording."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats as st
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.weightstats import CompareMeans, DescrStatsW

from analysis import compare as C
from analysis import metrics as M


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(7)


def long_measures(rng: np.random.Generator, paired: bool) -> pd.DataFrame:
    """Two variants, 2 and 3 players, one points measure and one share measure per game."""
    rows = []
    for n in (2, 3):
        base = rng.normal(50, 10, size=400)
        for variant, shift in (("base", 0.0), ("other", 1.5)):
            values = base + shift + rng.normal(0, 4, size=400)
            wins = (rng.random(400) < (0.5 + shift / 20)).astype(float)
            seeds = np.arange(400) + (0 if paired or variant == "base" else 10_000)
            for g in range(400):
                rows.append({"variant": variant, "n_players": n, "game_id": g,
                             "seed": int(seeds[g]), "measure": "score", "kind": C.POINTS,
                             "value": values[g]})
                rows.append({"variant": variant, "n_players": n, "game_id": g,
                             "seed": int(seeds[g]), "measure": "seat 0 win share",
                             "kind": C.SHARE, "value": wins[g]})
    return pd.DataFrame(rows)


def test_holm_matches_statsmodels(rng: np.random.Generator) -> None:
    for m in (1, 2, 5, 30):
        p = rng.random(m) ** 3
        _, expected, _, _ = multipletests(p, method="holm")
        assert np.allclose(C.holm(p), expected)
    p = np.array([0.01, np.nan, 0.04, 0.03])
    got = C.holm(p)
    _, expected, _, _ = multipletests([0.01, 0.04, 0.03], method="holm")
    assert np.isnan(got[1]) and np.allclose(got[[0, 2, 3]], expected)
    table = C.Holm()(pd.DataFrame({"p_value": [0.001, 0.03, 0.04]}))
    assert list(table["significant"]) == [True, False, False]


def test_paired_difference_matches_scipy_and_statsmodels(rng: np.random.Generator) -> None:
    m = long_measures(rng, paired=True)
    got = C.VariantDifference("base")(m)
    assert set(got["paired"]) == {True} and set(got["test"]) == {"paired t"}
    for r in got.itertuples():
        sel = (m["n_players"] == r.n_players) & (m["measure"] == r.measure)
        a = m[sel & (m["variant"] == "base")].sort_values("game_id")["value"].to_numpy()
        b = m[sel & (m["variant"] == "other")].sort_values("game_id")["value"].to_numpy()
        assert r.diff == pytest.approx((b - a).mean())
        assert r.p_value == pytest.approx(st.ttest_rel(b, a).pvalue)
        lo, hi = DescrStatsW(b - a).tconfint_mean(alpha=0.05)
        assert (r.lo, r.hi) == pytest.approx((lo, hi))
        assert r.base_mean == pytest.approx(a.mean()) and r.variant_mean == pytest.approx(
            b.mean())


def test_unpaired_difference_is_welch(rng: np.random.Generator) -> None:
    m = long_measures(rng, paired=False)
    got = C.VariantDifference("base")(m)
    assert set(got["test"]) == {"Welch t"}
    for r in got.itertuples():
        sel = (m["n_players"] == r.n_players) & (m["measure"] == r.measure)
        a = m[sel & (m["variant"] == "base")]["value"].to_numpy()
        b = m[sel & (m["variant"] == "other")]["value"].to_numpy()
        assert r.p_value == pytest.approx(st.ttest_ind(b, a, equal_var=False).pvalue)
        cm = CompareMeans(DescrStatsW(b), DescrStatsW(a))
        lo, hi = cm.tconfint_diff(alpha=0.05, usevar="unequal")
        assert (r.lo, r.hi) == pytest.approx((lo, hi))


def test_pairing_exploits_common_random_numbers(rng: np.random.Generator) -> None:
    """With shared seeds the paired interval is much narrower than Welch's."""
    paired = C.VariantDifference("base")(long_measures(np.random.default_rng(1), True))
    welch = C.VariantDifference("base")(long_measures(np.random.default_rng(1), False))
    pw = (paired["hi"] - paired["lo"])[paired["measure"] == "score"].mean()
    ww = (welch["hi"] - welch["lo"])[welch["measure"] == "score"].mean()
    assert pw < 0.6 * ww


def test_constant_measures_get_no_p_value() -> None:
    m = pd.DataFrame({"variant": ["a", "a", "b", "b"], "n_players": 2, "game_id": [0, 1, 0, 1],
                      "seed": [5, 6, 5, 6], "measure": "rounds", "kind": C.ROUNDS,
                      "value": [10.0, 10.0, 10.0, 10.0]})
    got = C.Holm()(C.VariantDifference("a")(m))
    assert np.isnan(got["p_value"].iloc[0]) and not got["significant"].iloc[0]
    assert got["diff"].iloc[0] == 0


def test_game_measures_agree_with_metrics() -> None:
    from tests.test_metrics import synthetic_players

    players = synthetic_players(np.random.default_rng(3), games=80)
    games = players[["variant", "n_players", "game_id", "seed"]].drop_duplicates()
    games = games.assign(rounds=12, turns=30, end_reason="last_stall")
    gm = C.GameMeasures()(games, players)
    ws = M.WinShare()(players)
    seat0 = gm[gm["measure"] == "seat 0 win share"].groupby(
        ["variant", "n_players"], observed=True)["value"].mean()
    exp = ws[ws["seat"] == 0].set_index(["variant", "n_players"])["share"]
    assert np.allclose(seat0.sort_index(), exp.sort_index())
    # At 2 players seat 1 is 1 - seat 0 and left out; at 3 players it is there.
    s1 = gm[gm["measure"] == "seat 1 win share"]
    assert set(s1["n_players"]) == {3}
    margin = gm[gm["measure"] == "winning margin"]["value"].to_numpy()
    assert np.array_equal(margin, M.Margins()(players)["margin"].to_numpy())
    diffs = C.VariantDifference("A")(gm)
    assert set(diffs["variant"]) == {"B"} and diffs["paired"].all()


def test_findings_state_number_interval_and_significance() -> None:
    diffs = pd.DataFrame([
        {"n_players": 2, "measure": "seat 0 win share", "kind": C.SHARE, "baseline": "standard",
         "variant": "known", "base_mean": 0.55, "variant_mean": 0.52, "diff": -0.03,
         "lo": -0.045, "hi": -0.015, "p_value": 0.0001},
        {"n_players": 2, "measure": "rounds", "kind": C.ROUNDS, "baseline": "standard",
         "variant": "known", "base_mean": 14.0, "variant_mean": 14.5, "diff": 0.5,
         "lo": 0.3, "hi": 0.7, "p_value": 0.0002},
        {"n_players": 2, "measure": "winning margin", "kind": C.POINTS, "baseline": "standard",
         "variant": "known", "base_mean": 20.0, "variant_mean": 20.2, "diff": 0.2,
         "lo": -0.3, "hi": 0.7, "p_value": 0.4}])
    diffs = C.Holm()(diffs)
    labels = {"known": "Known order", "standard": "Standard"}
    texts = [f.text for f in C.difference_findings(diffs, labels)]
    assert texts[0] == ("2 players, Known order vs Standard: seat 0 win share 55.0% → 52.0%, a "
                        "change of -3.0 pp (95% CI -4.5 pp to -1.5 pp), significant (Holm "
                        "p < 0.001).")
    assert "rounds 14.00 → 14.50" in texts[1] and "significant" in texts[1]
    assert not any("winning margin" in t for t in texts)  # not significant: not listed
    assert texts[-1].startswith("Of 2 other comparisons") and "1 are significant" in texts[-1]

    ws = pd.DataFrame({"variant": ["standard", "known"], "n_players": [2, 2], "seat": [0, 0],
                       "games": [4400, 4400], "share": [0.5, 0.52],
                       "half_width": [0.0147, 0.0148]})
    ok = C.precision_finding(ws, 0.015, labels)
    assert ok.significant and "within ±1.5 pp" in ok.text and "±1.48 pp" in ok.text
    bad = C.precision_finding(ws.assign(half_width=[0.02, 0.01], games=[2000, 4400]), 0.015,
                              labels)
    assert not bad.significant and "NOT" in bad.text and "games per cell" in bad.text


def test_balance_findings() -> None:
    fpa = pd.DataFrame({"variant": ["standard"], "n_players": [3], "games": [4200],
                        "share": [0.36], "lo": [0.345], "hi": [0.375], "fair": [1 / 3],
                        "advantage": [0.0267], "p_holm": [0.0004]})
    bal = pd.DataFrame({"variant": ["standard"], "n_players": [3], "chi2": [12.3],
                        "p_holm": [0.03], "best_seat": [0], "worst_seat": [2],
                        "spread": [0.04]})
    (f,) = C.balance_findings(fpa, bal, {"standard": "Standard"})
    assert f.significant
    assert f.text.startswith("3 players, Standard: the first player (seat 0) wins 36.0% of "
                             "games (95% CI 34.5%–37.5%) against a fair 33.3%, +2.7 pp, "
                             "significantly above fair (p < 0.001, Holm)")
    assert "seats are unequal (χ² = 12.3, p = 0.030" in f.text


def test_bad_parameters() -> None:
    with pytest.raises(M.StatError, match="VariantDifference: baseline"):
        C.VariantDifference("")
    m = pd.DataFrame({"variant": ["a"], "n_players": [2], "game_id": [0], "seed": [1],
                      "measure": ["x"], "kind": ["points"], "value": [1.0]})
    with pytest.raises(M.StatError, match="baseline 'zz' is not among the variants"):
        C.VariantDifference("zz")(m)


def test_missing_values_drop_the_game_from_both_sides() -> None:
    m = pd.DataFrame({"variant": ["a"] * 4 + ["b"] * 4, "n_players": 2,
                      "game_id": [0, 1, 2, 3] * 2, "seed": [5, 6, 7, 8] * 2,
                      "measure": "rounds", "kind": C.ROUNDS,
                      "value": [10.0, np.nan, 12.0, 11.0, 11.0, 13.0, np.nan, 13.0]})
    r = C.VariantDifference("a")(m).iloc[0]
    assert r["paired"] and r["n_base"] == 2 and r["diff"] == pytest.approx(1.5)
    assert r["p_value"] == pytest.approx(st.ttest_rel([11.0, 13.0], [10.0, 11.0]).pvalue)
