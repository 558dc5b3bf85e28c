"""analysis.compare against scipy and statsmodels: paired and Welch differences, Holm, and
the findings' wording."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats as st
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.weightstats import CompareMeans
from statsmodels.stats.weightstats import DescrStatsW

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


# -- Holm-adjusted intervals: "significant" is "the adjusted interval leaves out 0" ----------
def near_threshold_table() -> pd.DataFrame:
    """Four paired-t comparisons whose Holm-adjusted p-values are 0.004, 0.0497 (just
    significant), 0.0503 (just not) and 0.5: the raw p-values are 0.001, 0.0497/3,
    0.0503/2 and 0.5, and each difference is placed where its t test gives that p."""
    dof, se = 999.0, 0.01
    raw = [0.001, 0.0497 / 3, 0.0503 / 2, 0.5]
    rows = []
    for i, p in enumerate(raw):
        diff = float(st.t.isf(p / 2, dof)) * se * (1 if i % 2 == 0 else -1)
        half = float(st.t.ppf(0.975, dof)) * se
        rows.append({"n_players": (2, 3, 4, 2)[i], "kind": C.SHARE,
                     "measure": ("winning margin", "seat 0 win share", "seat 0 win share",
                                 "mean score")[i],
                     "baseline": "a", "variant": "b", "base_mean": 0.5,
                     "variant_mean": 0.5 + diff, "diff": diff, "lo": diff - half,
                     "hi": diff + half, "p_value": 2 * float(st.t.sf(abs(diff) / se, dof)),
                     "se": se, "dof": dof})
    return pd.DataFrame(rows)


def test_holm_steps_decide_exactly_as_holm(rng: np.random.Generator) -> None:
    """A p-value is below the level of the Holm step that decides it exactly when Holm
    rejects it (statsmodels for the first cases of each size, Holm's own words after: sort,
    reject while p_(k) < alpha / (m - k + 1), stop at the first that is not); the steps'
    levels run from alpha/m up, never above alpha."""

    def holm_rejects(p: np.ndarray) -> np.ndarray:
        reject = np.zeros(len(p), bool)
        for k, i in enumerate(np.argsort(p, kind="stable")):
            if p[i] >= 0.05 / (len(p) - k):
                break
            reject[i] = True
        return reject

    for m in (1, 2, 3, 8, 40):
        for case in range(50):
            p = rng.random(m) ** rng.uniform(1, 6)
            reject = holm_rejects(p)
            if case < 5:  # statsmodels is slow per call; it agrees with the reading above
                assert np.array_equal(multipletests(p, alpha=0.05, method="holm")[0], reject)
            step, local = C.holm_steps(p)
            assert np.array_equal(p < local, reject)
            assert (local >= 0.05 / m - 1e-15).all() and (local <= 0.05).all()
            assert set(step) <= set(range(1, m + 1))
    step, local = C.holm_steps([0.01, np.nan, 0.04])
    assert np.isnan(step[1]) and np.isnan(local[1])
    # Both rejected: 0.01 at step 1 (level 0.05/2), 0.04 at step 2 (level 0.05/1).
    assert local[0] == pytest.approx(0.05 / 2) and local[2] == pytest.approx(0.05)
    _, local = C.holm_steps([0.01, 0.3, 0.04])  # 0.04 * 2 >= 0.05: Holm stops at step 2
    assert local.tolist() == pytest.approx([0.05 / 3, 0.05 / 2, 0.05 / 2])


def test_adjusted_interval_excludes_zero_exactly_when_significant() -> None:
    table = C.Holm(interval=C.TInterval("diff"))(near_threshold_table())
    assert table["p_holm"].round(6).tolist() == [0.004, 0.0497, 0.0503, 0.5]
    assert table["significant"].tolist() == [True, True, False, False]
    assert (table["holm_m"] == 4).all()
    for r in table.itertuples():
        assert C.excludes(r.adj_lo, r.adj_hi) == r.significant, r
        # Never narrower than the 95% interval, never wider than Bonferroni's at 0.05/4.
        assert r.adj_lo <= r.lo and r.adj_hi >= r.hi
        bonf = float(st.t.ppf(1 - 0.05 / 8, r.dof)) * r.se
        assert r.adj_hi - r.adj_lo <= 2 * bonf + 1e-12
    # The old contradiction: the just-not-significant row's 95% interval leaves out 0.
    just_not = table.iloc[2]
    assert C.excludes(just_not["lo"], just_not["hi"]) and not just_not["significant"]
    # Its p (Holm) reads on the right side of 0.05, and so does the just significant one.
    assert [C.p_text(p) for p in table["p_holm"]] == ["0.004", "0.0497", "0.0503", "0.500"]
    texts = [f.text for f in C.difference_findings(table, {})]
    m1 = next(t for t in texts if t.startswith("3 players"))
    m2 = next(t for t in texts if t.startswith("4 players"))
    assert m1.endswith("significant (Holm p = 0.0497).") and "not significant" not in m1
    assert m2.endswith("not significant (Holm p = 0.0503).")
    assert "Holm-adjusted for 4 comparisons" in m1


def test_p_values_are_written_on_their_side_of_alpha() -> None:
    assert C.p_text(0.0497) == "0.0497" and C.p_text(0.0503) == "0.0503"
    assert C.p_text(0.04996) == "0.04996" and C.p_text(0.050004) == "0.050004"
    assert C.p_text(0.023) == "0.023" and C.p_text(0.0512) == "0.051"
    assert C.p_text(0.0004) == "<0.001" and C.p_text(float("nan")) == "–"
    assert C.p_text(0.05) == "0.0500"  # alpha itself: not below it
    assert C.format_p(0.0497) == "p = 0.0497" and C.format_p(0.0001) == "p < 0.001"
    for p in np.linspace(0.04, 0.06, 2001):
        assert (float(C.p_text(p)) < 0.05) == (p < 0.05), p


def test_first_player_and_luck_intervals_agree_with_their_tests() -> None:
    """The Wilson interval inverts the first player's score test, the slope's t interval its
    t test: adjusted at Holm's levels they leave out fair (0) exactly when significant."""
    from tests.test_metrics import synthetic_players

    players = synthetic_players(np.random.default_rng(11), games=300)
    fp = C.Holm(interval=C.WilsonInterval())(M.FirstPlayerAdvantage()(players))
    for r in fp.itertuples():
        assert C.excludes(r.adj_lo, r.adj_hi, r.fair) == r.significant
    rng = np.random.default_rng(5)
    rows = []
    for n, slope in ((2, 0.0), (3, 0.02), (4, 0.05)):
        x = rng.integers(-3, 4, size=500).astype(float)
        rows.append(pd.DataFrame({"variant": "a", "n_players": n, "x": x,
                                  "win_share": slope * x + rng.normal(0.3, 0.4, 500)}))
    eff = C.Holm(interval=C.TInterval("slope"))(M.LuckEffect("x")(pd.concat(rows)))
    assert eff["significant"].any() and not eff["significant"].all()
    for r in eff.itertuples():
        assert C.excludes(r.adj_lo, r.adj_hi) == r.significant


def test_holm_on_an_empty_table() -> None:
    got = C.Holm(interval=C.TInterval("diff"))(pd.DataFrame())
    assert got.empty and {"p_holm", "significant", "adj_lo", "adj_hi"} <= set(got.columns)
