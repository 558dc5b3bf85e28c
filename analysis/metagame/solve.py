"""Solving an empirical meta-game: which bot each seat would pick, and what it is worth.

A population study (`analysis.metagame.study`) measures, for every line-up of bots from a
population, each seat's win share. The answer "whoever plays" is read at the meta-game's
equilibrium rather than at one arbitrary line-up:

- **2 players.** Win shares sum to 1, so the meta-game is a constant-sum matrix game: seat 0
  picks a row (its bot), seat 1 a column, seat 0 gets `M[i, j]`. Its value (seat 0's share
  when both seats pick optimally, mixing if need be) and both seats' optimal mixtures come
  from the classic linear programme (von Neumann's minimax): maximise `v` subject to
  `x' M[:, j] >= v` for every column `j`, `x` a distribution; the column player's mixture is
  the dual solution. `scipy.optimize.linprog` (HiGHS) solves both; among the optimal
  mixtures the one with the fewest bots is not guaranteed, so the supports are read with a
  tolerance.
- **3 and 4 players.** The population's symmetric profiles (one bot in every seat) and the
  profiles where one seat switches to another bot: a profile is *stable* when no seat gains
  more than a margin by switching (`deviation_gains`). Alpha-Rank (Omidshafiei et al. 2019,
  OpenSpiel's `open_spiel.python.egt.alpharank`) ranks the bots by the long-run share of an
  evolutionary dynamic in which one bot at a time invades a population of another, on the
  one-against-the-field game `F[r, s]` (one seat playing `r`, every other seat `s`, the
  lone seat's share averaged over seats); a study that plays every profile of the tensor
  (`profiles = "all"`) ranks them with one population a seat over every ordered profile
  (`alpharank_tensor`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.optimize import linprog

SUPPORT_TOL = 1e-6  # a bot whose equilibrium weight is below this is outside the support


class MetaGameError(ValueError):
    """A payoff table that is not a meta-game (empty, not square, outside [0, 1], NaN)."""


@dataclass(frozen=True)
class MatrixSolution:
    """A constant-sum matrix game solved: seat 0's value, both seats' optimal mixtures."""

    value: float
    row: np.ndarray  # seat 0's mixture over the population
    col: np.ndarray  # seat 1's mixture

    def row_support(self) -> list[int]:
        return [i for i, w in enumerate(self.row) if w > SUPPORT_TOL]

    def col_support(self) -> list[int]:
        return [j for j, w in enumerate(self.col) if w > SUPPORT_TOL]


def _check_matrix(m: np.ndarray) -> np.ndarray:
    a = np.asarray(m, dtype=float)
    if a.ndim != 2 or a.shape[0] == 0 or a.shape[1] == 0:
        raise MetaGameError(f"a payoff matrix must be 2-dimensional and non-empty, got shape "
                            f"{a.shape}")
    if not np.all(np.isfinite(a)):
        raise MetaGameError("a payoff matrix must hold finite numbers")
    return a


def _clean(x: np.ndarray) -> np.ndarray:
    """A mixture from a solver's output: tiny negatives and noise cut, summing to 1."""
    x = np.where(x > SUPPORT_TOL, x, 0.0)
    return x / x.sum()


def solve_zero_sum(m: np.ndarray | Sequence[Sequence[float]]) -> MatrixSolution:
    """Seat 0's value and both seats' optimal mixtures of the game where seat 0 (rows)
    gets `m[i, j]` and seat 1 (columns) gets `1 - m[i, j]` (any constant sum gives the same
    mixtures)."""
    a = _check_matrix(np.asarray(m))
    rows, cols = a.shape
    low, high = a.min(axis=1), a.max(axis=0)
    if low.max() >= high.min():  # a saddle point: both seats have a pure optimal bot
        i, j = int(np.argmax(low)), int(np.argmin(high))
        return MatrixSolution(value=float(a[i, j]), row=np.eye(rows)[i], col=np.eye(cols)[j])
    # Variables (x_1..x_rows, v): maximise v, i.e. minimise -v.
    c = np.zeros(rows + 1)
    c[-1] = -1.0
    a_ub = np.hstack([-a.T, np.ones((cols, 1))])  # v - x'M[:, j] <= 0
    a_eq = np.hstack([np.ones((1, rows)), np.zeros((1, 1))])
    bounds = [(0.0, None)] * rows + [(None, None)]
    res = linprog(c, A_ub=a_ub, b_ub=np.zeros(cols), A_eq=a_eq, b_eq=[1.0], bounds=bounds,
                  method="highs")
    if res.status != 0:  # pragma: no cover - a bounded feasible LP always solves
        raise MetaGameError(f"the linear programme failed: {res.message}")
    x = _clean(np.asarray(res.x[:rows]))
    # Seat 1's mixture: the duals of the column constraints (HiGHS gives marginals <= 0).
    y = _clean(-np.asarray(res.ineqlin.marginals))
    value = float(x @ a @ y)
    return MatrixSolution(value=value, row=x, col=y)


def alpharank(lone: np.ndarray, alpha: float = 100.0, population: int = 50) -> np.ndarray:
    """Alpha-Rank's stationary distribution over the bots of the one-against-the-field
    game (OpenSpiel's implementation, single population): the long-run share of each bot
    when mutants invade one at a time and fitter bots take over with a probability that
    grows with `alpha`. Needs the `openspiel` extra."""
    try:
        from open_spiel.python.egt import alpharank as ar
    except ImportError as exc:  # pragma: no cover - installed by make test
        raise MetaGameError("alpha-Rank needs OpenSpiel (pip install '.[openspiel]')") from exc
    table = _check_matrix(lone)
    if table.shape[0] == 1:
        return np.ones(1)
    with np.errstate(over="ignore"):  # a large alpha saturates the fixation probabilities
        _, _, pi, _, _ = ar.compute([table], m=population, alpha=alpha,
                                    use_local_selection_model=True)
    return np.asarray(pi, dtype=float)


def alpharank_tensor(tables: Sequence[np.ndarray], alpha: float = 100.0,
                     population: int = 50) -> np.ndarray:
    """Alpha-Rank's stationary distribution over every ordered profile of an n-player
    game (OpenSpiel's multi-population model: one population a seat, `tables[s]` of shape
    (k,) * n holding seat s's share), flat in C order. When a large alpha makes some
    switches impossible and the chain falls apart, OpenSpiel's infinite-alpha model (with
    its small noise) gives the limit the finite alpha approaches. Needs OpenSpiel."""
    try:
        from open_spiel.python.egt import alpharank as ar
    except ImportError as exc:  # pragma: no cover - installed by make test
        raise MetaGameError("alpha-Rank needs OpenSpiel (pip install '.[openspiel]')") from exc
    checked = [_check_tensor(t) for t in tables]
    if checked[0].size == 1:
        return np.ones(1)
    with np.errstate(over="ignore"):
        try:
            _, _, pi, _, _ = ar.compute(checked, m=population, alpha=alpha)
        except ValueError:  # more than one stationary distribution: use the limit
            _, _, pi, _, _ = ar.compute(checked, m=population, alpha=alpha,
                                        use_inf_alpha=True, inf_alpha_eps=0.01)
    pi = np.clip(np.asarray(pi, dtype=float), 0.0, None)  # the eigenvector's rounding
    return pi / pi.sum()


def _check_tensor(t: np.ndarray) -> np.ndarray:
    a = np.asarray(t, dtype=float)
    if a.size == 0 or len(set(a.shape)) != 1 or not np.all(np.isfinite(a)):
        raise MetaGameError(f"a seat's payoff table must be a non-empty cube of finite "
                            f"numbers, got shape {a.shape}")
    return a


@dataclass(frozen=True)
class Deviation:
    """The best switch from one symmetric profile: the seat, the bot it switches to, and
    what it gains (its share after the switch minus its share before)."""

    profile: int
    seat: int
    to: int
    gain: float


def deviation_gains(symmetric: np.ndarray, deviated: np.ndarray) -> np.ndarray:
    """Every seat's gain from every switch: `symmetric[i, s]` is seat s's share when every
    seat plays bot i; `deviated[i, j, s]` is seat s's share when seat s alone switches to
    bot j (the others keep i). Returns `gain[i, j, s] = deviated - symmetric` (0 on j = i)."""
    sym = np.asarray(symmetric, dtype=float)
    dev = np.asarray(deviated, dtype=float)
    k, n = sym.shape
    if dev.shape != (k, k, n):
        raise MetaGameError(f"deviations must have shape {(k, k, n)}, got {dev.shape}")
    gain = dev - sym[:, None, :]
    gain[np.arange(k), np.arange(k), :] = 0.0
    return gain


def best_deviation(gain: np.ndarray, profile: int) -> Deviation:
    """The largest gain any one seat gets by switching away from a symmetric profile."""
    g = np.array(np.asarray(gain)[profile], dtype=float)
    if g.shape[0] > 1:
        g[profile, :] = -np.inf  # staying is no switch
    j, s = np.unravel_index(int(np.argmax(g)), g.shape)
    return Deviation(profile=profile, seat=int(s), to=int(j), gain=float(g[j, s]))


def stable_profiles(gain: np.ndarray, margin: float) -> list[int]:
    """The symmetric profiles no seat leaves for more than `margin` (population order)."""
    return [i for i in range(np.asarray(gain).shape[0])
            if best_deviation(gain, i).gain <= margin]
