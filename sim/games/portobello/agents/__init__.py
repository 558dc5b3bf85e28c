"""Agents by spec string (`random`, `greedy`, `heuristic`, `mcts`, and restricted wrappers
such as `no-district(heuristic)`), each seeded for reproducible play."""

from sim.games.portobello.agents.base import Agent
from sim.games.portobello.agents.base import BaseAgent
from sim.games.portobello.agents.base import Restrictions
from sim.games.portobello.agents.registry import AGENTS
from sim.games.portobello.agents.registry import AgentSpecError
from sim.games.portobello.agents.registry import make_agent
from sim.games.portobello.agents.registry import parse_spec
from sim.games.portobello.agents.restricted import WRAPPERS

__all__ = ["AGENTS", "WRAPPERS", "Agent", "AgentSpecError", "BaseAgent", "Restrictions",
           "make_agent", "parse_spec"]
