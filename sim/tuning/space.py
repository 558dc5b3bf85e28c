"""The search space of weight tuning: each weight of a game's heuristic in a range a good
player could plausibly use, mapped to [0, 1] for the optimiser (`Space`); a point is played
as an explicit agent spec, so every candidate can be re-run by anyone.

The weights and their ranges are the game's (`BOUNDS` of its tuning facet,
`sim.tuning.games.WeightsFacet`: e.g. `sim.games.portobello.tuning.BOUNDS`)."""

from __future__ import annotations

from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import dataclass

DECIMALS = 4  # weights are written and played rounded, so a spec replays the very agent


@dataclass(frozen=True)
class Space:
    """A game's weights, each in its range, as points of [0, 1]^d."""

    bounds: Mapping[str, tuple[float, float]]

    def names(self) -> tuple[str, ...]:
        return tuple(self.bounds)

    def encode(self, weights: Mapping[str, float]) -> list[float]:
        """A weight set as a point of [0, 1]^d (clipped into the ranges)."""
        out = []
        for name, (lo, hi) in self.bounds.items():
            out.append(min(1.0, max(0.0, (weights[name] - lo) / (hi - lo))))
        return out

    def decode(self, x: Sequence[float]) -> dict[str, float]:
        """The weight set at a point of [0, 1]^d (clipped), rounded to `DECIMALS`."""
        values = {}
        for (name, (lo, hi)), u in zip(self.bounds.items(), x, strict=True):
            u = min(1.0, max(0.0, float(u)))
            values[name] = round(lo + u * (hi - lo), DECIMALS)
        return values
