"""Agents by spec string (`random`, `greedy`, `heuristic`, `mcts`, and restricted wrappers
such as `no-district(heuristic)`), each seeded for reproducible play."""

from sim.agents.base import Agent
from sim.agents.base import BaseAgent
from sim.agents.base import Restrictions
from sim.agents.registry import AGENTS
from sim.agents.registry import AgentSpecError
from sim.agents.registry import make_agent
from sim.agents.registry import parse_spec
from sim.agents.restricted import WRAPPERS

__all__ = ["AGENTS", "WRAPPERS", "Agent", "AgentSpecError", "BaseAgent", "Restrictions",
           "make_agent", "parse_spec"]
