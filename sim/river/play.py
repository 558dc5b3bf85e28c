"""River Market games in compiled batches, each seat played by one of the compiled agents
(`sim.river.agents`), each drawing from its own generator (stream 0 of its seat's seed, as
every Portobello Market agent's), so a game replays from its seed whatever plays beside
it."""

from __future__ import annotations

import numpy as np
from numba import njit

from sim.engine.compiled import rng as G
from sim.river import compiled as C
from sim.river import tables as T
from sim.river.agents import GREEDY
from sim.river.agents import GREEDY_WEIGHTS
from sim.river.agents import RANDOM
from sim.river.agents import choose_greedy
from sim.river.agents import choose_random
from sim.river.game import RiverGame
from sim.river.rules import RiverRules
from sim.river.tables import Tables

# Result columns: end reason, turns, actions, then each seat's score.
RES_END, RES_TURNS, RES_ACTIONS, RES_SCORES = range(4)


@njit(cache=True)
def games(CD: np.ndarray, PL: np.ndarray, CARD: np.ndarray, R: np.ndarray,
          seeds: np.ndarray, lineups: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Play one game per seed, seat p of game g played by agent kind `lineups[g, p]` (with
    greedy weights `weights[g, p]`); a row of results per game (RES_*)."""
    players = R[T.R_PLAYERS]
    out = np.zeros((seeds.shape[0], RES_SCORES + players), np.int64)
    legal = np.empty(1024, np.int64)
    gens = np.zeros((players, G.WORDS), np.uint64)
    work = np.zeros(R[T.R_SIZE], np.int64)
    for g in range(seeds.shape[0]):
        seed = np.uint64(seeds[g])
        for p in range(players):
            G.start(gens[p], np.uint64(G.seat_seed(seed, p)), G.AGENT_STREAM)
        S = C.new_game(CD, CARD, R, seed)
        while S[T.PHASE] != C.PH_OVER:
            n = C.legal_actions(CD, PL, CARD, R, S, legal)
            p = S[T.DECIDER]
            if lineups[g, p] == GREEDY:
                a = choose_greedy(CD, PL, CARD, R, S, gens[p], weights[g, p], legal, n, work)
            else:
                a = choose_random(gens[p], legal, n)
            C.apply(CD, PL, CARD, R, S, a)
        out[g, RES_END] = S[T.END_REASON]
        out[g, RES_TURNS] = S[T.TURN]
        out[g, RES_ACTIONS] = S[T.ACTIONS_DONE]
        for p in range(players):
            out[g, RES_SCORES + p] = S[R[T.R_O_SCORE] + p]
    return out


AGENTS = {"random": RANDOM, "greedy": GREEDY}


def play(tables: Tables, seeds: np.ndarray, lineups: np.ndarray | list[list[str]]
         ) -> np.ndarray:
    """Games of `seeds` (unsigned 64-bit words) with the named agents of each game's
    line-up (`random`, `greedy`)."""
    players = int(tables.R[T.R_PLAYERS])
    names = np.asarray(lineups, dtype=object).reshape(len(seeds), players)
    kinds = np.vectorize(AGENTS.__getitem__, otypes=[np.int64])(names)
    weights = np.tile(np.array(GREEDY_WEIGHTS, np.float64), (len(seeds), players, 1))
    return games(tables.CD, tables.PL, tables.CARD, tables.R, np.asarray(seeds, np.uint64),
                 kinds, weights)


def play_random(tables: Tables, seeds: np.ndarray) -> np.ndarray:
    """Random agents in every seat."""
    players = int(tables.R[T.R_PLAYERS])
    return play(tables, seeds, [["random"] * players] * len(seeds))


def play_one(rules: RiverRules, lineup: list[str], seed: int,
             cards: str = "river-market") -> tuple[RiverGame, list[int]]:
    """One game through the readable front, seat p played by agent `lineup[p]` (`random`
    or `greedy`): the finished game and its actions (for a record)."""
    from sim.river.agents import GreedyAgent
    from sim.river.agents import RandomAgent

    kinds = {"random": RandomAgent, "greedy": GreedyAgent}
    g = RiverGame.new(rules, cards, seed)
    agents = [kinds[name](seed, p) for p, name in enumerate(lineup)]
    actions = []
    while not g.over:
        a = agents[g.decider].choose(g)
        g.play(a)
        actions.append(a)
    return g, actions
