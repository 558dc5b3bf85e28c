"""Agents by spec string (`random`, `greedy`, ...), each seeded for reproducible play."""

from sim.agents.base import Agent, BaseAgent
from sim.agents.registry import AGENTS, make_agent, parse_spec

__all__ = ["AGENTS", "Agent", "BaseAgent", "make_agent", "parse_spec"]
