"""What one decision of an agent may cost, for every command of both games: the caps on the
budget and size parameters of agent specs (`CAPS`, listed in docs/agents.md, "Limits").

A spec such as `fastmcts:iterations=1000000000000` is a typo, not a study: it would run for
days with no output, or ask for more memory than the machine has. Specs are checked where
they are read (Portobello Market's `sim.games.portobello.agents.registry.parse_spec`, River Market's
`sim.games.river.play.parse_agent`), so every command that takes a spec refuses it in one line
naming the parameter, the value and the cap before any game. The play server checks tighter
caps of its own with the same function (`sim.web.limits`). The table lives with the engine,
under both games' agents, so that both read this one table.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

# The largest value of each budget or size parameter an agent spec may give. Generous for
# studies (the shipped ones search 100 to 300 iterations a decision; the default tree holds
# 100,000 nodes) and far below what runs for days or exhausts the memory.
CAPS: dict[str, float] = {
    "iterations": 1_000_000,  # search iterations a decision (fastmcts, expert-search, River)
    "simulations": 1_000_000,  # OpenSpiel MCTS simulations a decision
    "rollouts": 1_000,  # OpenSpiel rollouts from each new leaf
    "nodes": 10_000_000,  # a search tree's nodes (some 1.1 KB each at width 8, two trees)
    "width": 256,  # options kept at a decision (the search's edges, the learned agent's)
    "horizon": 100,  # rollout rounds past the searching seat's next turn (-1: to the end)
    "chunk": 100_000,  # iterations between two looks at the clock
    "expand": 1_000,  # rollouts through a leaf before it is expanded
    "time": 3_600,  # seconds a decision
}
# The least value of each: no budget is negative (0 leaves a search to its other budget,
# iterations or time); a horizon of -1 plays rollouts to the end of the game.
LEAST: dict[str, float] = {"horizon": -1}
UNITS: dict[str, str] = {"time": " seconds"}
DIGITS = 40  # digits of a number written as text that are compared (more: over any cap)


def _shown(value: float) -> str:
    if isinstance(value, int):
        return f"{value:,}"
    return f"{value:,g}" if math.isfinite(value) else str(value)


def budget_error(key: str, value: Any, caps: Mapping[str, float] = CAPS,
                 whose: str = "the cap") -> str | None:
    """Why `key=value` is over its cap in `caps` (`whose` names the caps in the reason) or
    below its least value, or None. A parameter without a cap, and a value that is no number
    (`horizon=auto`), are the agent's own to check."""
    if key not in caps or isinstance(value, bool):
        return None
    shown = None
    if isinstance(value, str):  # a parameter that takes words too (`horizon=auto`)
        text = value.strip()
        digits = len(text.lstrip("-"))
        if not text.lstrip("-").isdigit():
            return None
        if digits > DIGITS:
            shown = f"a number of {digits:,} digits"
            value = -math.inf if text.startswith("-") else math.inf
        else:
            value = int(text)
    if not isinstance(value, int | float):
        return None
    if math.isnan(value):
        return f"{key} must be a number, got nan"
    shown = shown or _shown(value)
    cap = caps[key]
    if value > cap:
        return f"{key}={shown} is over {whose} of {_shown(cap)}{UNITS.get(key, '')}"
    least = LEAST.get(key, 0)
    if value < least:
        return f"{key}={shown} is below the least value of {_shown(least)}"
    return None
