"""Agent specs: `name` or `name:key=value,key=value`, e.g. `random:move_chance=0.1`."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from sim.agents.base import BaseAgent
from sim.agents.random_agent import RandomAgent
from sim.errors import PortobelloError


class AgentSpecError(PortobelloError):
    """An agent spec that names no agent or a parameter the agent does not take."""


AGENTS: dict[str, Callable[..., BaseAgent]] = {
    "random": RandomAgent,
}


def _convert(text: str, default: Any) -> Any:
    if isinstance(default, bool):
        if text.lower() in ("1", "true", "yes", "on"):
            return True
        if text.lower() in ("0", "false", "no", "off"):
            return False
        raise ValueError(f"{text!r} is not true or false")
    if isinstance(default, int):
        return int(text)
    if isinstance(default, float):
        return float(text)
    return text


def agent_params(name: str) -> dict[str, Any]:
    """The tunable parameters of a registered agent and their defaults."""
    sig = inspect.signature(AGENTS[name])
    return {k: p.default for k, p in sig.parameters.items()
            if k not in ("seed", "spec") and p.default is not inspect.Parameter.empty}


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """Split and check an agent spec; errors list what exists."""
    name, _, rest = spec.strip().partition(":")
    if name not in AGENTS:
        raise AgentSpecError(f"unknown agent {name!r} (agents: {', '.join(sorted(AGENTS))})",
                             field="agents")
    defaults = agent_params(name)
    params: dict[str, Any] = {}
    for item in filter(None, (x.strip() for x in rest.split(","))):
        key, eq, value = item.partition("=")
        if not eq:
            raise AgentSpecError(f"agent {name}: parameter {item!r} must be key=value",
                                 field="agents")
        if key not in defaults:
            known = ", ".join(f"{k}={v}" for k, v in defaults.items()) or "none"
            raise AgentSpecError(f"agent {name} has no parameter {key!r} (parameters: {known})",
                                 field="agents")
        try:
            params[key] = _convert(value, defaults[key])
        except ValueError:
            raise AgentSpecError(f"agent {name}: parameter {key}={value!r} must be a "
                                 f"{type(defaults[key]).__name__}", field="agents") from None
    return name, params


def make_agent(spec: str, seed: int | None = 0) -> BaseAgent:
    """An agent from its spec string, seeded."""
    name, params = parse_spec(spec)
    return AGENTS[name](seed=seed, spec=spec, **params)


def split_specs(text: str) -> list[str]:
    """Split `--agents` text into specs: seats are separated by ',' or ';', and a piece
    `key=value` after a spec with parameters belongs to that spec
    (`mcts:iterations=400,c=1.2,greedy` is two specs)."""
    pieces: list[str] = []
    depth = 0
    current = ""
    for ch in text:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if ch in ",;" and depth == 0:
            pieces.append(current)
            current = ""
        else:
            current += ch
    pieces.append(current)
    specs: list[str] = []
    for piece in (p.strip() for p in pieces):
        if not piece:
            continue
        if "=" in piece and ":" not in piece and "(" not in piece and specs:
            specs[-1] += "," + piece
        else:
            specs.append(piece)
    return specs
