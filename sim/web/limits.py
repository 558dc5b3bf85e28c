"""How much a bot move or a hint may cost on the play server: every search budget and size
is capped, and every agent that can watch a clock thinks for at most `MAX_SECONDS`.

A spec over a cap is refused (422, naming the parameter and the cap); a spec within the caps
plays as written, with `time=MAX_SECONDS` added where it gives no time of its own, so no
request can hold a game or a core for long. These caps tighten every command's
(`sim.games.portobello.budgets`): `parse_spec` checks them in their place, by the same function."""

from __future__ import annotations

from sim.core.errors import PortobelloError
from sim.games.portobello.agents.base import BaseAgent
from sim.games.portobello.agents.registry import WRAPPERS
from sim.games.portobello.agents.registry import AgentSpecError
from sim.games.portobello.agents.registry import agent_params
from sim.games.portobello.agents.registry import make_agent
from sim.games.portobello.agents.registry import parse_spec
from sim.games.portobello.budgets import CAPS as BUDGETS

MAX_SECONDS = 5.0  # thinking time of one bot move or hint
CAPS: dict[str, int] = {  # the largest value of each size parameter an agent may take here
    "iterations": 20_000,
    "simulations": 20_000,
    "rollouts": 16,
    "nodes": 1_000_000,
    "width": 64,
    "horizon": 12,
    "chunk": 1024,
    "expand": 64,
}


class LimitError(PortobelloError):
    """An agent spec the server does not play: over one of its caps, or no spec at all
    (named by the request's field)."""


def served_spec(spec: str, field: str = "agents") -> str:
    """The spec as the server plays it: refused over a cap, with a time cap added."""
    try:  # every command's caps, tightened by the server's
        name, params = parse_spec(spec, {**BUDGETS, **CAPS, "time": MAX_SECONDS},
                                  "this server's cap")
    except AgentSpecError as exc:
        raise LimitError(exc.reason, field=field) from None
    if name in WRAPPERS:
        return f"{name}({served_spec(params['agent'], field)})"
    defaults = agent_params(name)
    if "time" not in defaults:
        return spec.strip()
    seconds = float(params.get("time", defaults["time"]) or 0)
    if seconds > 0:
        return spec.strip()
    return f"{spec.strip()}{',' if ':' in spec else ':'}time={MAX_SECONDS:g}"


def served_agent(spec: str, seed: int, field: str = "agents") -> BaseAgent:
    """An agent for a bot seat or a hint, within the server's caps."""
    return make_agent(served_spec(spec, field), seed=seed)
