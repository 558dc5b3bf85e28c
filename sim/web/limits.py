"""How much a bot move or a hint may cost on the play server, for every game: every search
budget and size is capped (`CAPS`), and every agent that can watch a clock thinks for at
most `MAX_SECONDS`.

A spec over a cap is refused (422, naming the parameter and the cap, `LimitError`); a spec
within the caps plays as written, with a time cap added where it gives no time of its own,
so no request can hold a game or a core for long. Each game's session facet applies them to
its agents' specs (these caps tighten every command's)."""

from __future__ import annotations

from sim.core.errors import PortobelloError

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
