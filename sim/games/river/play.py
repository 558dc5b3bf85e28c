"""River Market games in compiled batches, each seat played by one of the compiled agents
(`sim.games.river.agents`), each drawing from its own generator (stream 0 of its seat's seed, as
every Portobello Market agent's), so a game replays from its seed whatever plays beside
it."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numba import njit

from sim.core import rng as G
from sim.core.errors import PortobelloError
from sim.core.errors import quote
from sim.games.portobello.budgets import CAPS
from sim.games.portobello.budgets import budget_error
from sim.games.river import compiled as C
from sim.games.river import tables as T
from sim.games.river import weight_sets
from sim.games.river.agents import DEFAULT_ITERATIONS
from sim.games.river.agents import GREEDY_WEIGHTS
from sim.games.river.agents import HEURISTIC
from sim.games.river.agents import RANDOM
from sim.games.river.agents import SEARCH
from sim.games.river.agents import WEIGHTS
from sim.games.river.agents import choose_heuristic
from sim.games.river.agents import choose_random
from sim.games.river.agents import choose_search
from sim.games.river.game import RiverGame
from sim.games.river.rules import RiverRules
from sim.games.river.tables import Tables

# Result columns: end reason, turns, actions, then each seat's score.
RES_END, RES_TURNS, RES_ACTIONS, RES_SCORES = range(4)
# A seat's score in the rulebook's parts (Scoring 1-5), then its houses still in hand.
PARTS = ("event_points", "booth_points", "helper_points", "coin_points", "goods_points",
         "houses_left")
N_PARTS = 5


@njit(cache=True)
def games(CD: np.ndarray, PL: np.ndarray, CARD: np.ndarray, R: np.ndarray,
          seeds: np.ndarray, lineups: np.ndarray, weights: np.ndarray,
          iterations: np.ndarray, parts: np.ndarray) -> np.ndarray:
    """Play one game per seed, seat p of game g played by agent kind `lineups[g, p]` (with
    heuristic weights `weights[g, p]`, search iterations `iterations[g, p]`); a row of
    results per game (RES_*). When `parts` has a row per game, `parts[g, p]` gets seat p's
    final score in its five parts (`C.score_part`: Events, Booths, Helpers, leftover Coins,
    leftover Goods) and its houses still in hand."""
    players = R[T.R_PLAYERS]
    out = np.zeros((seeds.shape[0], RES_SCORES + players), np.int64)
    legal = np.empty(1024, np.int64)
    gens = np.zeros((players, G.WORDS), np.uint64)
    work = np.zeros(R[T.R_SIZE], np.int64)
    inner = np.empty(1024, np.int64)
    totals = np.zeros(1024, np.float64)
    for g in range(seeds.shape[0]):
        seed = np.uint64(seeds[g])
        for p in range(players):
            G.start(gens[p], np.uint64(G.seat_seed(seed, p)), G.AGENT_STREAM)
        S = C.new_game(CD, CARD, R, seed)
        while S[T.PHASE] != C.PH_OVER:
            n = C.legal_actions(CD, PL, CARD, R, S, legal)
            p = S[T.DECIDER]
            if lineups[g, p] == HEURISTIC:
                a = choose_heuristic(CD, PL, CARD, R, S, gens[p], weights[g, p], legal, n,
                                     work)
            elif lineups[g, p] == SEARCH:
                a = choose_search(CD, PL, CARD, R, S, gens[p], iterations[g, p], legal, n,
                                  work, inner, totals)
            else:
                a = choose_random(gens[p], legal, n)
            C.apply(CD, PL, CARD, R, S, a)
        out[g, RES_END] = S[T.END_REASON]
        out[g, RES_TURNS] = S[T.TURN]
        out[g, RES_ACTIONS] = S[T.ACTIONS_DONE]
        for p in range(players):
            out[g, RES_SCORES + p] = S[R[T.R_O_SCORE] + p]
        if parts.shape[0] > g:
            for p in range(players):
                C.final_score(CD, CARD, R, S, p)
                for i in range(N_PARTS):
                    parts[g, p, i] = C.score_part(R, S, i)
                parts[g, p, N_PARTS] = S[R[T.R_O_HOUSES] + p]
    return out


AGENTS = {"random": RANDOM, "greedy": HEURISTIC, "heuristic": HEURISTIC, "search": SEARCH}
SPECS = ("random", "greedy", "heuristic[:weights=SET,WEIGHT=X,...]",
         "search[:iterations=N]")


class RiverAgentError(PortobelloError, ValueError):
    """A River Market agent spec that names no agent, or a parameter its agent does not take
    (a ValueError too: the commands that seat agents catch it and name their flag)."""


@dataclass(frozen=True)
class AgentSpec:
    """A parsed agent spec: the agent's kind, the search's iterations and the heuristic's
    weights (`WEIGHTS` order; the greedy agent's are `GREEDY_WEIGHTS`)."""

    kind: int
    iterations: int = DEFAULT_ITERATIONS
    weights: tuple[float, ...] = GREEDY_WEIGHTS


def parse_agent(spec: str) -> AgentSpec:
    """An agent spec: `random`, `greedy`, `search` or `search:iterations=N`, `heuristic`
    (the shipped tuned weights), `heuristic:weights=SET` (a name of
    `sim.games.river.weight_sets` or a weight-set file) and any weights given one by one over the
    set (`heuristic:weights=greedy,rival=0.2`). `RiverAgentError` (a `ValueError`) names
    the spec, the parameter and what is wrong; a bad weight-set file's error names the file
    and the field."""
    name, _, params = spec.partition(":")
    if name not in AGENTS:
        raise RiverAgentError(f"unknown River Market agent {quote(spec)} (agents: "
                              f"{', '.join(SPECS)})")
    items = [x.strip() for x in params.split(",") if x.strip()]
    if name == "search":
        key, _, value = items[0].partition("=") if len(items) == 1 else ("", "", "")
        # every command's cap (Portobello Market's agents' too), before the digits are read
        problem = budget_error("iterations", value) if key == "iterations" else None
        if problem is not None:
            raise RiverAgentError(f"{quote(spec)}: {problem}")
        if items and (key != "iterations" or not value.isdigit() or int(value) < 1):
            raise RiverAgentError(f"{quote(spec)}: search takes one parameter, iterations=N "
                                  f"(1 to {CAPS['iterations']:,})")
        return AgentSpec(SEARCH, int(value) if items else DEFAULT_ITERATIONS)
    if name != "heuristic":
        if items:
            raise RiverAgentError(f"{quote(spec)}: {name} takes no parameters (the heuristic "
                                  "takes weights)")
        return AgentSpec(AGENTS[name])
    base = weight_sets.DEFAULT
    given: dict[str, float] = {}
    for item in items:
        key, eq, value = item.partition("=")
        if not eq or not value:
            raise RiverAgentError(f"parameter {quote(item)} must be key=value", source=spec)
        if key == "weights":
            base = value
        elif key in WEIGHTS:
            try:
                number = float(value)
            except ValueError:
                number = math.nan
            if not math.isfinite(number):
                raise RiverAgentError(f"must be a finite number, got {quote(value)}",
                                      source=spec, field=key)
            given[key] = number
        else:
            raise RiverAgentError(f"the heuristic has no parameter {quote(key)} (parameters: "
                                  f"weights=SET, {', '.join(WEIGHTS)})", source=spec,
                                  field=key)
    weights = dict(zip(WEIGHTS, weight_sets.resolve(base), strict=True)) | given
    return AgentSpec(HEURISTIC, weights=tuple(weights[k] for k in WEIGHTS))


def play(tables: Tables, seeds: np.ndarray, lineups: np.ndarray | list[list[str]],
         parts: np.ndarray | None = None) -> np.ndarray:
    """Games of `seeds` (unsigned 64-bit words) with the named agents of each game's
    line-up (`parse_agent`). `parts`, an int64 array (games, players, len(PARTS)), gets
    every seat's score parts and houses left (`games`)."""
    players = int(tables.R[T.R_PLAYERS])
    names = np.asarray(lineups, dtype=object).reshape(len(seeds), players)
    parsed = {s: parse_agent(s) for s in set(names.ravel())}
    kinds = np.vectorize(lambda s: parsed[s].kind, otypes=[np.int64])(names)
    iterations = np.vectorize(lambda s: parsed[s].iterations, otypes=[np.int64])(names)
    weights = np.zeros((len(seeds), players, len(WEIGHTS)), np.float64)
    for s, agent in parsed.items():
        weights[names == s] = agent.weights
    return games(tables.CD, tables.PL, tables.CARD, tables.R, np.asarray(seeds, np.uint64),
                 kinds, weights, iterations,
                 np.zeros((0, players, len(PARTS)), np.int64) if parts is None else parts)


def play_random(tables: Tables, seeds: np.ndarray) -> np.ndarray:
    """Random agents in every seat."""
    players = int(tables.R[T.R_PLAYERS])
    return play(tables, seeds, [["random"] * players] * len(seeds))


def seat_agent(spec: str, game_seed: int, seat: int) -> Any:
    """The agent of `spec` (`parse_agent`) seated at a `RiverGame` for seat `seat` of the game
    of `game_seed`."""
    from sim.games.river.agents import HeuristicAgent
    from sim.games.river.agents import RandomAgent
    from sim.games.river.agents import SearchAgent

    agent = parse_agent(spec)
    if agent.kind == SEARCH:
        return SearchAgent(game_seed, seat, agent.iterations)
    if agent.kind == HEURISTIC:
        return HeuristicAgent(game_seed, seat, agent.weights)
    return RandomAgent(game_seed, seat)


def play_one(rules: RiverRules, lineup: list[str], seed: int,
             cards: str = "river-market") -> tuple[RiverGame, list[int]]:
    """One game through the readable front, seat p played by agent `lineup[p]`
    (`parse_agent`): the finished game and its actions (for a record)."""
    g = RiverGame.new(rules, cards, seed)
    agents = [seat_agent(spec, seed, p) for p, spec in enumerate(lineup)]
    actions = []
    while not g.over:
        a = agents[g.decider].choose(g)
        g.play(a)
        actions.append(a)
    return g, actions
