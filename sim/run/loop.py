"""What every game's play shares with the toolkit: a game's seed derived from the run's (or
the tournament's) seed and the game's place, and the error of an agent that raised or chose
an illegal action (`AgentError`, raised by a game's play loop and reported by the toolkit)."""

from __future__ import annotations

import hashlib

from sim.core.errors import AgentError

__all__ = ["AgentError", "derive_seed"]


def derive_seed(*parts: object) -> int:
    """A 63-bit seed from any parts (run seed, game index, seat...), stable across runs."""
    digest = hashlib.blake2b("/".join(map(str, parts)).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little") >> 1
