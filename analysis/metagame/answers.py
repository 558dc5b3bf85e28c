"""The answers of one player count's meta-game, whoever plays: computed from the games of
every profile (`analysis.metagame.estimate.ProfileGames`) as plain data for summary.json.

For every variant: the answer (seat 0's share at the equilibrium: the matrix game's value
at 2 players, the strongest stable symmetric profile's at more), every seat's share, which
bots the seats pick (the equilibrium mixtures; at more players the stable profile, the best
switch from it and alpha-Rank's ranking, over every line-up when the study plays the whole
tensor), the answer without the population's last bot (the convergence check: did adding
it move the answer?), and each variant's change against the baseline, paired by games.
Every figure has a bootstrap interval (`analysis.metagame.estimate`). The read profile at
more than 2 players is chosen on the point estimates and held fixed in the replicates, so
its interval is that profile's. The answers read only the symmetric profiles and their
switches, whatever else the study played.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from analysis.metagame.estimate import BOOTSTRAP
from analysis.metagame.estimate import STABLE_MARGIN
from analysis.metagame.estimate import ProfileGames
from analysis.metagame.estimate import among
from analysis.metagame.estimate import bootstrap_p
from analysis.metagame.estimate import lone_table
from analysis.metagame.estimate import matrix
from analysis.metagame.estimate import needed_profiles
from analysis.metagame.estimate import percentile
from analysis.metagame.estimate import strongest_stable
from analysis.metagame.estimate import tables
from analysis.metagame.solve import alpharank
from analysis.metagame.solve import alpharank_tensor
from analysis.metagame.solve import best_deviation
from analysis.metagame.solve import deviation_gains
from analysis.metagame.solve import solve_zero_sum
from analysis.metagame.tensor import bot_mass
from analysis.metagame.tensor import bot_shares
from analysis.metagame.tensor import lineup_mass
from analysis.metagame.tensor import lineup_of
from analysis.metagame.tensor import seat_tables

Z95 = 1.959964  # the normal quantile of a two-sided 95% interval
CONVERGED_WITHIN = 0.02  # adding the next bot moves the answer by less than this: converged


@dataclass(frozen=True)
class Reading:
    """Where one variant's answer is read: the bots considered (a prefix of the
    population) and, at more than 2 players, the symmetric profile read."""

    bots: int
    profile: int | None = None
    stable: bool = True


def _answer(means: dict[tuple[int, ...], np.ndarray], n: int, variant: int,
            reading: Reading) -> np.ndarray:
    """Every seat's share at the reading (seat 0 first)."""
    sub = among(means, reading.bots)
    if n == 2:
        sol = solve_zero_sum(matrix(sub, reading.bots, variant))
        return np.array([sol.value, 1 - sol.value])
    sym, _ = tables(sub, reading.bots, n, variant)
    assert reading.profile is not None
    return sym[reading.profile]


def _reading(means: dict[tuple[int, ...], np.ndarray], n: int, variant: int, bots: int
             ) -> Reading:
    if n == 2:
        return Reading(bots)
    sym, dev = tables(among(means, bots), bots, n, variant)
    profile, stable = strongest_stable(deviation_gains(sym, dev))
    return Reading(bots, profile, stable)


def _max_gain(means: dict[tuple[int, ...], np.ndarray], n: int, variant: int,
              reading: Reading) -> float:
    sym, dev = tables(among(means, reading.bots), reading.bots, n, variant)
    assert reading.profile is not None
    return best_deviation(deviation_gains(sym, dev), reading.profile).gain


def answer_table(means: dict[tuple[int, ...], np.ndarray],
                 rep_means: Sequence[dict[tuple[int, ...], np.ndarray]], n: int,
                 variants: int, scopes: Sequence[int]
                 ) -> tuple[dict[tuple[int, int], Reading], dict[tuple[int, int], np.ndarray],
                            dict[tuple[int, int], np.ndarray]]:
    """For every (variant, bots considered): where the answer is read (chosen on the point
    estimates), every seat's share there, and its bootstrap replicates, shape (B, n)."""
    readings: dict[tuple[int, int], Reading] = {}
    points: dict[tuple[int, int], np.ndarray] = {}
    answers: dict[tuple[int, int], np.ndarray] = {}
    for v in range(variants):
        for bots in scopes:
            rd = _reading(means, n, v, bots)
            readings[v, bots] = rd
            points[v, bots] = _answer(means, n, v, rd)
            answers[v, bots] = np.array([_answer(m, n, v, rd) for m in rep_means])
    return readings, points, answers


def widest_answer(means: dict[tuple[int, ...], np.ndarray],
                  rep_means: Sequence[dict[tuple[int, ...], np.ndarray]], n: int, k: int,
                  variants: int, scopes: Sequence[int]) -> float:
    """The widest half-width among a player count's answers: each variant's seat-0 share,
    each variant's change against the first, and the convergence check's change. Measured
    as 1.96 bootstrap standard deviations, steadier from a few hundred replicates than the
    replicates' extreme percentiles, so a stopping decision does not hang on a handful."""
    _, _points, answers = answer_table(means, rep_means, n, variants, scopes)
    spreads = []
    for v in range(variants):
        spreads.append(answers[v, k][:, 0])
        if v:
            spreads.append(answers[v, k][:, 0] - answers[0, k][:, 0])
        if len(scopes) == 2:
            spreads.append(answers[v, k][:, 0] - answers[v, k - 1][:, 0])
    return max(Z95 * float(np.std(r)) for r in spreads)


def tensor_alpharank(means: dict[tuple[int, ...], np.ndarray], bot_names: Sequence[str],
                     n: int, variant: int, data: ProfileGames) -> dict[str, Any]:
    """Alpha-Rank over every ordered profile of one variant (one population a seat): each
    bot's mass (the share of seats playing it) and every line-up's, with its bots' shares
    and games."""
    k = len(bot_names)
    shares = bot_shares(means)
    pi = alpharank_tensor(seat_tables(shares, k, n, variant))
    return {"alpharank": bot_mass(pi, k, n).tolist(), "alpharank_profiles": [
        {"profile": [bot_names[b] for b in m], "mass": mass,
         "shares": {bot_names[b]: float(shares[m, b][variant]) for b in sorted(set(m))},
         "games": sum(data.games(p) for p in data.shares if lineup_of(p) == m)}
        for m, mass in lineup_mass(pi, k, n).items()]}


def solve_population(data: ProfileGames, variant_names: Sequence[str], bot_names: Sequence[str],
                     baseline: int = 0, has_next: bool = False, seed: int = 0,
                     replicates: int = BOOTSTRAP, profiles: str = "deviations"
                     ) -> dict[str, Any]:
    """One player count's meta-game answers as plain data (see the module docstring).
    `has_next`: the population's last bot is the convergence check's `next`: the answers
    are read with it, and again without it. `profiles = "all"` (every line-up played):
    alpha-Rank over the whole tensor, every line-up listed with its mass."""
    k, n, nv = data.population, data.players, data.variants
    needed = data.only(needed_profiles(k, n))  # the answers' profiles
    means = needed.means()
    rng = np.random.default_rng([seed, n, k, 52])
    reps = needed.replicates(rng, replicates)
    rep_means = [{p: r[b] for p, r in reps.items()} for b in range(replicates)]
    scopes = [k - 1, k] if has_next and k > 2 else [k]
    variants: list[dict[str, Any]] = []
    readings, points, answers = answer_table(means, rep_means, n, nv, scopes)
    for v, name in enumerate(variant_names):
        rd = readings[v, k]
        seats = [percentile(float(points[v, k][s]), answers[v, k][:, s]).to_dict()
                 for s in range(n)]
        out: dict[str, Any] = {"variant": name, "answer": seats[0], "seats": seats,
                               "fair": 1 / n}
        if n == 2:
            sol = solve_zero_sum(matrix(means, k, v))
            out["mixtures"] = {"seat 0": sol.row.tolist(), "seat 1": sol.col.tolist()}
            out["matrix"] = matrix(means, k, v).tolist()
            cells = np.array([[[m[(i, j)][v, 0] for m in rep_means] for j in range(k)]
                              for i in range(k)])
            out["matrix_lo"] = np.quantile(cells, 0.025, axis=2).tolist()
            out["matrix_hi"] = np.quantile(cells, 0.975, axis=2).tolist()
        else:
            assert rd.profile is not None
            sym, dev = tables(means, k, n, v)
            gain = deviation_gains(sym, dev)
            best = best_deviation(gain, rd.profile)
            gains = np.array([_max_gain(m, n, v, rd) for m in rep_means])
            out["profile"] = {"bot": bot_names[rd.profile], "index": rd.profile,
                              "stable": rd.stable,
                              "best_switch": {"seat": best.seat, "to": bot_names[best.to],
                                              **percentile(best.gain, gains).to_dict()}}
            out["deviations"] = [
                {"profile": bot_names[i], "seat shares": sym[i].tolist(),
                 "best switch": {"seat": best_deviation(gain, i).seat,
                                 "to": bot_names[best_deviation(gain, i).to],
                                 "gain": best_deviation(gain, i).gain},
                 "stable": best_deviation(gain, i).gain <= STABLE_MARGIN}
                for i in range(k)]
            if profiles == "all":
                out |= tensor_alpharank(data.means(), bot_names, n, v, data)
            else:
                out["alpharank"] = alpharank(lone_table(sym, dev)).tolist()
        if len(scopes) == 2:
            diff = answers[v, k][:, 0] - answers[v, k - 1][:, 0]
            change = percentile(float(points[v, k][0] - points[v, k - 1][0]), diff)
            out["without_next"] = percentile(float(points[v, k - 1][0]),
                                             answers[v, k - 1][:, 0]).to_dict()
            out["convergence"] = {
                **change.to_dict(), "within": CONVERGED_WITHIN,
                "converged": bool(change.lo > -CONVERGED_WITHIN
                                  and change.hi < CONVERGED_WITHIN)}
        variants.append(out)
    changes = []
    for v, name in enumerate(variant_names):
        if v == baseline:
            continue
        diff = answers[v, k][:, 0] - answers[baseline, k][:, 0]
        est = float(points[v, k][0] - points[baseline, k][0])
        changes.append({"variant": name, "baseline": variant_names[baseline],
                        "n_players": n, "diff": est, "p_value": bootstrap_p(diff),
                        "replicates": diff})
    return {"players": n, "bots": list(bot_names), "variants": variants, "changes": changes,
            "games": {",".join(map(str, p)): data.games(p) for p in sorted(data.shares)},
            "replicates": replicates}
