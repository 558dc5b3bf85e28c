"""Where numba inlines a large compiled function: into the callers named, nowhere else.

Each compiled layer between a batch of games and the planner makes numba compile the whole
planner again (its code is linked into every caller and optimised there), so the layers that
are called once per decision are inlined into their one caller (`inline=into("_play")`).
Inlining the same function into a hot loop (the search's playouts) made that loop slower in
paired runs, so the choice is per caller, through numba's inlining cost model (a function
of the call expression and the caller's and callee's IR)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def into(*callers: str) -> Callable[[Any, Any, Any], bool]:
    """numba's `inline=` choice: inline at call sites in functions named `callers` only."""
    names = frozenset(callers)

    def choose(expr: Any, caller: Any, callee: Any) -> bool:
        return caller.func_id.func_name in names

    choose.__name__ = f"into_{'_'.join(sorted(names))}"
    return choose
