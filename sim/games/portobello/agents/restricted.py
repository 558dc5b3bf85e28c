"""Restricted agents: balance by restricted play.

`no-district(heuristic)` is the heuristic agent forbidden to score districts; a study then
measures what district scoring is worth as the win-rate gap between the restricted and the
free agent. A wrapper sets the restriction on the agent it wraps (every agent draws its
choices from `BaseAgent.legal_actions`, which honours it) and checks each choice, so an
agent that ignores a restriction fails loudly (`sim.run.loop.AgentError`) instead of skewing a
study. Wrappers nest: `no-bobby(no-district(greedy))`.
"""

from __future__ import annotations

from sim.games.portobello.actions import Action
from sim.games.portobello.actions import describe
from sim.games.portobello.agents.base import BaseAgent
from sim.games.portobello.agents.base import Restrictions
from sim.games.portobello.game import Game

WRAPPERS: dict[str, tuple[Restrictions, str]] = {
    "no-district": (Restrictions(district=True), "never scores a district"),
    "no-customers": (Restrictions(customers=True), "never draws or places a customer"),
    "no-bobby": (Restrictions(bobby=True), "never moves the Bobby (still places it)"),
    "first-end": (Restrictions(first_end=True),
                  "starts every lane from its first listed end"),
}


class RestrictionError(RuntimeError):
    """A wrapped agent chose an action its restriction forbids."""


class RestrictedAgent(BaseAgent):
    """An agent with one feature forbidden (see the module docstring)."""

    def __init__(self, inner: BaseAgent, wrapper: str, spec: str | None = None) -> None:
        restriction, _ = WRAPPERS[wrapper]
        self.inner = inner
        self.wrapper = wrapper
        self.name = f"{wrapper}({inner.name})"
        super().__init__(0, spec or f"{wrapper}({inner.spec})")
        merged = inner.restrict.merged(restriction)
        self.restrict = merged
        agent: BaseAgent = inner
        while True:  # every layer down to the playing agent honours the whole restriction
            agent.restrict = merged
            if not isinstance(agent, RestrictedAgent):
                break
            agent = agent.inner
        self.rng = inner.rng

    def reseed(self, seed: int) -> None:
        self.inner.reseed(seed)

    def choose(self, game: Game) -> Action:
        action = self.inner.choose(game)
        if not self.restrict.allows(action, game) and action not in self.legal_actions(game):
            raise RestrictionError(f"{self.wrapper} forbids {describe(action)}")
        return action
