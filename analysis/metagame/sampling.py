"""Adaptive sampling of the meta-game: each round adds games only where more games can
still move an answer (Rowland et al. 2019, "Multiagent Evaluation under Incomplete
Information", in spirit: spend samples on the entries the equilibrium depends on).

A profile can move the 2-player answer when, in some bootstrap replicate, it joins a bot of
one seat's equilibrium support to a bot of the other seat's support or to a near-best
response (within the margin of the value): the value is `x' M y`, and a near-best response
is where the support could shift. A bot that is in no replicate's support nor near-best
response is dominated with confidence, and its profiles stop. At more players, the read
profile (the strongest stable one) and every stronger profile whose stability is still
uncertain, with their switches, go on. A study of the whole tensor (`profiles = "all"`)
also keeps playing the line-ups alpha-Rank's ranking still hangs on: those on an edge of
its response graph (one seat switching bot) whose direction is uncertain and not yet a tie
within the margin; no answer above reads them.

Decisions derive from the games alone (the bootstrap's generator is seeded by the study
seed and the round), so a study stopped and run again takes the same decisions: the same
games are played whatever the execution.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from analysis.metagame.answers import widest_answer
from analysis.metagame.estimate import STABLE_MARGIN
from analysis.metagame.estimate import Profile
from analysis.metagame.estimate import ProfileGames
from analysis.metagame.estimate import among
from analysis.metagame.estimate import deviated
from analysis.metagame.estimate import matrix
from analysis.metagame.estimate import needed_profiles
from analysis.metagame.estimate import strongest_stable
from analysis.metagame.estimate import symmetric
from analysis.metagame.estimate import tables
from analysis.metagame.solve import SUPPORT_TOL
from analysis.metagame.solve import best_deviation
from analysis.metagame.solve import deviation_gains
from analysis.metagame.solve import solve_zero_sum
from analysis.metagame.tensor import open_lineups

SHARE_OF_REPLICATES = 0.05  # a profile matters when it does in this share of replicates
REPLICATES = 200


def _two_player(means_list: Sequence[dict[Profile, np.ndarray]], k: int, variants: int,
                bots: Sequence[int], margin: float) -> np.ndarray:
    """How often (share of replicates) each ordered profile can move a 2-player value."""
    hits = np.zeros((k, k))
    for means in means_list:
        for v in range(variants):
            for b in bots:
                m = matrix(among(means, b), b, v)
                sol = solve_zero_sum(m)
                rows = sol.row > SUPPORT_TOL
                cols = sol.col > SUPPORT_TOL
                near_rows = (m @ sol.col) >= sol.value - margin
                near_cols = (sol.row @ m) <= sol.value + margin
                hit = np.outer(rows, cols | near_cols) | np.outer(rows | near_rows, cols)
                hits[:b, :b] += hit
    return hits / (len(means_list) * variants * len(bots))


def _many_players(means_list: Sequence[dict[Profile, np.ndarray]], k: int, n: int,
                  variants: int, bots: Sequence[int], margin: float) -> set[Profile]:
    """The profiles that can move a read at more players: the read profile and every
    stronger profile whose best switch is uncertain, each with its switches."""
    counts: dict[Profile, int] = {}
    total = len(means_list) * variants * len(bots)
    for means in means_list:
        for v in range(variants):
            for b in bots:
                sym, dev = tables(among(means, b), b, n, v)
                gain = deviation_gains(sym, dev)
                read, _ = strongest_stable(gain)
                best = np.array([best_deviation(gain, i).gain for i in range(b)])
                keep = {read} | {i for i in range(read + 1, b)
                                 if best[i] <= STABLE_MARGIN + margin}
                for i in keep:
                    for p in [symmetric(k, n, i)] + [deviated(k, n, i, j, s)
                                                     for j in range(b) if j != i
                                                     for s in range(n)]:
                        counts[p] = counts.get(p, 0) + 1
    return {p for p, c in counts.items() if c / total >= SHARE_OF_REPLICATES}


def profiles_to_play(data: ProfileGames, margin: float, has_next: bool, seed: int,
                     round_no: int, profiles: str = "deviations") -> set[Profile]:
    """The profiles whose games can still move an answer of this player count: none once
    every answer (each variant's, each change against the first variant, and the answer
    without the last bot when it is the convergence check's) is within `margin`. With
    `profiles = "all"` at more than 2 players, also the line-ups on an uncertain edge of
    alpha-Rank's response graph (`analysis.metagame.tensor.open_lineups`, its own bootstrap
    generator), each as its sorted profile."""
    k, n = data.population, data.players
    out = _answer_profiles(data.only(needed_profiles(k, n)), margin, has_next, seed,
                           round_no)
    if profiles == "all" and n > 2:
        rng = np.random.default_rng([seed, n, round_no, 54])
        out |= open_lineups(data.means(), data.replicates(rng, REPLICATES), k, margin)
    return out


def _answer_profiles(data: ProfileGames, margin: float, has_next: bool, seed: int,
                     round_no: int) -> set[Profile]:
    k, n = data.population, data.players
    bots = [k - 1, k] if has_next and k > 2 else [k]
    rng = np.random.default_rng([seed, n, round_no, 53])
    reps = data.replicates(rng, REPLICATES)
    means_list = [{p: r[b] for p, r in reps.items()} for b in range(REPLICATES)]
    if widest_answer(data.means(), means_list, n, k, data.variants, bots) <= margin:
        return set()
    if n == 2:
        share = _two_player(means_list, k, data.variants, bots, margin)
        return {(i, j) for i in range(k) for j in range(k)
                if share[i, j] >= SHARE_OF_REPLICATES}
    return _many_players(means_list, k, n, data.variants, bots, margin)
