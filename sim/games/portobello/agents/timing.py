"""Timing wrapper: how long an agent thinks, for `tournament` and `bench`."""

from __future__ import annotations

import time

from sim.games.portobello.actions import Action
from sim.games.portobello.agents.base import BaseAgent
from sim.games.portobello.game import Game


class TimedAgent(BaseAgent):
    """Delegates to an agent and adds up the decisions it takes and the seconds they take
    (wall clock, and the process's CPU time: on a shared machine the wall clock also counts
    the time other processes had the core). It has no compiled row (`BaseAgent`'s None):
    timing needs the Python loop."""

    def __init__(self, inner: BaseAgent) -> None:
        self.inner = inner
        self.name = inner.name
        self.spec = inner.spec
        self.rng = inner.rng
        self.restrict = inner.restrict
        self.decisions = 0
        self.seconds = 0.0
        self.slowest = 0.0
        self.cpu_seconds = 0.0
        self.slowest_cpu = 0.0

    def reseed(self, seed: int) -> None:
        self.inner.reseed(seed)

    def choose(self, game: Game) -> Action:
        start, cpu = time.perf_counter(), time.process_time()
        action = self.inner.choose(game)
        spent, spent_cpu = time.perf_counter() - start, time.process_time() - cpu
        self.seconds += spent
        self.cpu_seconds += spent_cpu
        self.decisions += 1
        if spent > self.slowest:
            self.slowest = spent
        if spent_cpu > self.slowest_cpu:
            self.slowest_cpu = spent_cpu
        return action
