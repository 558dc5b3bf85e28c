"""The meta-game's solvers, intervals and adaptive sampling on planted populations, where
the answer is known by hand."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from analysis.metagame.answers import solve_population
from analysis.metagame.answers import widest_answer
from analysis.metagame.estimate import ProfileGames
from analysis.metagame.estimate import deviated
from analysis.metagame.estimate import needed_profiles
from analysis.metagame.estimate import strongest_stable
from analysis.metagame.estimate import symmetric
from analysis.metagame.sampling import profiles_to_play
from analysis.metagame.solve import MetaGameError
from analysis.metagame.solve import alpharank
from analysis.metagame.solve import deviation_gains
from analysis.metagame.solve import solve_zero_sum
from analysis.metagame.solve import stable_profiles

nash = pytest.importorskip("nashpy")


def _check_equilibrium(m: np.ndarray, value: float, x: np.ndarray, y: np.ndarray) -> None:
    """x guarantees seat 0 at least the value against every column, y holds it to at most
    the value against every row: the definition of optimal play in a constant-sum game."""
    assert np.isclose(x.sum(), 1) and np.isclose(y.sum(), 1)
    assert (x @ m).min() >= value - 1e-9
    assert (m @ y).max() <= value + 1e-9


def test_rock_paper_scissors_value_is_even_and_mixtures_uniform() -> None:
    # Each bot beats the next one for certain and draws itself: by symmetry the value is
    # 1/2, and the only optimal mixture is uniform (any bias is exploited by the bot that
    # beats the favoured one).
    m = np.array([[0.5, 1.0, 0.0], [0.0, 0.5, 1.0], [1.0, 0.0, 0.5]])
    sol = solve_zero_sum(m)
    assert sol.value == pytest.approx(0.5)
    assert sol.row == pytest.approx([1 / 3] * 3, abs=1e-9)
    assert sol.col == pytest.approx([1 / 3] * 3, abs=1e-9)


def test_a_strictly_dominated_bot_is_never_in_the_support() -> None:
    # Row 2 is below row 0 in every column by 0.1, so no optimal mixture uses it; the
    # remaining 2x2 game is rock-paper-like and mixed, so the LP path is the one tested.
    m = np.array([[0.7, 0.2, 0.5], [0.3, 0.6, 0.4], [0.6, 0.1, 0.4]])
    sol = solve_zero_sum(m)
    assert 2 not in sol.row_support()
    _check_equilibrium(m, sol.value, sol.row, sol.col)
    # Seat 1: column 2 gives seat 0 less than a mix of columns 0 and 1 only when it helps
    # seat 1; its weight may be anything optimal, but the value must match nashpy's.
    eq = next(iter(nash.Game(m, 1 - m).vertex_enumeration()))
    assert float(eq[0] @ m @ eq[1]) == pytest.approx(sol.value, abs=1e-9)


def test_a_2x2_game_with_a_known_mixed_equilibrium() -> None:
    # M = [[0.8, 0.3], [0.4, 0.6]] has no saddle point (row minima 0.3, 0.4; column maxima
    # 0.8, 0.6). Seat 0 mixes x on row 0 so seat 1 is indifferent:
    #   0.8x + 0.4(1-x) = 0.3x + 0.6(1-x)  ->  0.7x = 0.2  ->  x = 2/7;
    # seat 1 mixes y on column 0 so seat 0 is indifferent:
    #   0.8y + 0.3(1-y) = 0.4y + 0.6(1-y)  ->  0.7y = 0.3  ->  y = 3/7;
    # the value is 0.4 + 0.4 * 2/7 = 18/35.
    sol = solve_zero_sum([[0.8, 0.3], [0.4, 0.6]])
    assert sol.row == pytest.approx([2 / 7, 5 / 7])
    assert sol.col == pytest.approx([3 / 7, 4 / 7])
    assert sol.value == pytest.approx(18 / 35)


def test_random_games_agree_with_an_independent_solver() -> None:
    rng = np.random.default_rng(7)
    for _ in range(60):
        m = rng.random((int(rng.integers(2, 6)), int(rng.integers(2, 6))))
        sol = solve_zero_sum(m)
        _check_equilibrium(m, sol.value, sol.row, sol.col)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            x, y = next(iter(nash.Game(m, 1 - m).vertex_enumeration()))
        assert float(x @ m @ y) == pytest.approx(sol.value, abs=1e-7)


def test_a_bad_matrix_is_refused() -> None:
    with pytest.raises(MetaGameError):
        solve_zero_sum([[0.5, np.nan], [0.2, 0.1]])
    with pytest.raises(MetaGameError):
        solve_zero_sum(np.zeros((0, 2)))


def _planted_three_player() -> tuple[np.ndarray, np.ndarray]:
    """Three bots at three players (weakest first). Bot 2 in every seat: a seat that
    switches to bot 0 or 1 drops to 0.25 or 0.30 from 1/3, so profile 2 is stable. Bot 1 in
    every seat: switching to bot 2 gains 0.45 - 1/3 > 0.02, unstable. Bot 0 in every seat:
    switching to bot 1 or 2 gains, unstable. So the strongest stable profile is bot 2."""
    k, n = 3, 3
    sym = np.full((k, n), 1 / 3)
    sym[2] = [0.40, 0.32, 0.28]  # a first-seat edge in the stable profile
    dev = np.empty((k, k, n))
    for i in range(k):
        for j in range(k):
            dev[i, j] = sym[i] if i == j else 0.5 if j > i else 0.25
    dev[1, 2] = 0.45
    dev[2, 1] = 0.30
    return sym, dev


def test_a_three_player_tensor_with_a_known_stable_profile() -> None:
    sym, dev = _planted_three_player()
    gain = deviation_gains(sym, dev)
    assert stable_profiles(gain, 0.02) == [2]
    assert strongest_stable(gain) == (2, True)
    # Through the whole answer: exact shares (every game gives the planted shares).
    shares = {}
    for p in needed_profiles(3, 3):
        i = p[0] if len(set(p)) == 1 else max(set(p), key=p.count)
        odd = [s for s in range(3) if p[s] != i]
        row = sym[i] if not odd else np.array([dev[i, p[odd[0]], odd[0]] if s == odd[0]
                                               else (1 - dev[i, p[odd[0]], odd[0]]) / 2
                                               for s in range(3)])
        shares[p] = np.tile(row, (1, 10, 1))
    data = ProfileGames(population=3, players=3, variants=1, shares=shares)
    out = solve_population(data, ["standard"], ["a", "b", "c"], replicates=20)
    v = out["variants"][0]
    assert v["profile"]["bot"] == "c" and v["profile"]["stable"]
    assert v["answer"]["estimate"] == pytest.approx(0.40)
    # Alpha-Rank puts most of its mass on the bot no one leaves.
    assert int(np.argmax(v["alpharank"])) == 2


def test_alpharank_of_a_dominant_bot() -> None:
    # One against the field: bot 1 alone among bot 0s wins 0.6 of the games (fair 1/2 at 2
    # seats), bot 0 alone among bot 1s 0.3: bot 1 takes over.
    pi = alpharank(np.array([[0.5, 0.3], [0.6, 0.5]]))
    assert pi[1] > 0.95


def _draw(rng: np.random.Generator, m: np.ndarray, games: int) -> dict[tuple[int, ...],
                                                                        np.ndarray]:
    """Planted 2-player games: seat 0 wins profile (i, j) with probability m[i, j]."""
    out = {}
    for i in range(m.shape[0]):
        for j in range(m.shape[1]):
            w = (rng.random(games) < m[i, j]).astype(float)
            out[(i, j)] = np.stack([w, 1 - w], axis=-1)[None]
    return out


def test_bootstrap_interval_covers_the_planted_value() -> None:
    # A planted population whose value is a saddle point (bot 2 is best for both seats):
    # 0.58. The 95% interval of the value must contain it in at least 93% of 200 studies.
    m = np.array([[0.50, 0.30, 0.35], [0.60, 0.50, 0.40], [0.70, 0.65, 0.58]])
    truth = solve_zero_sum(m).value
    assert truth == pytest.approx(0.58)
    rng = np.random.default_rng(11)
    hits = 0
    for rep in range(200):
        data = ProfileGames(3, 2, 1, _draw(rng, m, 300))
        v = solve_population(data, ["standard"], ["a", "b", "c"], seed=rep,
                             replicates=200)["variants"][0]["answer"]
        hits += v["lo"] <= truth <= v["hi"]
    assert hits >= 186


def _sample(m: np.ndarray, adaptive: bool, margin: float, round_games: int,
            cap: int) -> tuple[int, bool, float]:
    """Play a planted population in rounds until every answer is within the margin (or the
    cap): every profile each round, or only those `profiles_to_play` asks for. Returns the
    games played, whether the margin was reached and the widest half-width measured again
    on other bootstrap draws."""
    rng = np.random.default_rng(5)
    k = m.shape[0]
    shares = {p: np.zeros((1, 0, 2)) for p in needed_profiles(k, 2)}
    play = set(shares)
    reached = False
    for round_no in range(cap):
        for p in sorted(play):
            w = (rng.random(round_games) < m[p]).astype(float)
            shares[p] = np.concatenate([shares[p], np.stack([w, 1 - w], -1)[None]], axis=1)
        data = ProfileGames(k, 2, 1, shares)
        todo = profiles_to_play(data, margin, has_next=False, seed=1, round_no=round_no)
        if not todo:
            reached = True
            break
        play = todo if adaptive else set(shares)
    reps = data.replicates(np.random.default_rng(3), 400)
    width = widest_answer(data.means(), [{p: r[b] for p, r in reps.items()}
                                         for b in range(400)], 2, k, 1, [k])
    return sum(s.shape[1] for s in shares.values()), reached, width


def test_adaptive_sampling_reaches_the_margin_with_half_the_games() -> None:
    # Five bots, the strongest (4) best for both seats by a clear step: only its row and
    # column decide the value, so once the weaker bots are dominated with confidence their
    # profiles stop, while uniform sampling keeps playing all 25.
    k = 5
    m = np.array([[0.5 + 0.08 * (i - j) for j in range(k)] for i in range(k)])
    m[4, 4] = 0.57
    adaptive, reached_a, width_a = _sample(m, True, 0.03, 100, 40)
    uniform, reached_u, width_u = _sample(m, False, 0.03, 100, 40)
    assert reached_a and reached_u
    # Measured again on fresh bootstrap draws, both are at the margin (up to the draws'
    # own noise, a few per cent of it).
    assert width_a <= 0.033 and width_u <= 0.033
    assert adaptive * 2 <= uniform, (adaptive, uniform)


def test_profiles_named_as_the_seats_play_them() -> None:
    assert symmetric(3, 4, 1) == (1, 1, 1, 1)
    assert deviated(3, 4, 1, 2, 3) == (1, 1, 1, 2)
    # 2 players: every ordered pair; 3 players: 3 symmetric + 3 * 2 switches * 3 seats.
    assert len(needed_profiles(3, 2)) == 9
    assert len(needed_profiles(3, 3)) == 3 + 18
