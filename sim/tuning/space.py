"""The search spaces of weight tuning: each weight of a game's heuristic in a range a good
player could plausibly use, mapped to [0, 1] for the optimiser (`Space`); a point is played
as an explicit agent spec, so every candidate can be re-run by anyone.

`BOUNDS` is Portobello Market's heuristic (`sim.games.portobello.agents.evaluate.Weights`; the
module's functions `encode`, `decode`, `spec_of` speak of its `Weights`), `RIVER_BOUNDS` River
Market's (`sim.games.river.agents.WEIGHTS`)."""

from __future__ import annotations

from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import dataclass

from sim.games.portobello.agents.evaluate import Weights

# Ranges wide enough to hold the classic weights well inside (fill and end are chance
# factors, so at most 1; `rival` below 0.3 would stop watching the others).
BOUNDS: dict[str, tuple[float, float]] = {
    "lane": (0.3, 2.0),
    "fill": (0.3, 1.0),
    "end": (0.3, 1.0),
    "district": (0.0, 2.0),
    "growth": (0.0, 0.6),
    "horizon": (0.5, 8.0),
    "majority": (0.0, 2.0),
    "stall": (0.0, 2.0),
    "tempo": (0.0, 4.0),
    "bobby": (0.0, 1.0),
    "rival": (0.3, 1.5),
}
# River Market: a Good or a Coin is worth at most about a point (a Booth's cost is about
# three resources for one to four points); a house still to place may be worth keeping or
# worth spending (placing the last one brings the end); a kind of Good held, a Booth's
# owner bonuses and a Helper's ability to come are worth a few points at most; `rival`
# weighs the best other player's worth, from ignoring it to half of it.
RIVER_BOUNDS: dict[str, tuple[float, float]] = {
    "good": (0.0, 1.0),
    "coin": (0.0, 1.0),
    "house": (-1.0, 2.0),
    "kinds": (0.0, 1.0),
    "booth": (0.0, 3.0),
    "helper": (0.0, 3.0),
    "rival": (0.0, 0.5),
}
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


PORTOBELLO = Space(BOUNDS)
RIVER = Space(RIVER_BOUNDS)


def names() -> tuple[str, ...]:
    return PORTOBELLO.names()


def encode(weights: Weights) -> list[float]:
    """A Portobello Market weight set as a point of [0, 1]^d (clipped into the ranges)."""
    return PORTOBELLO.encode(weights.as_dict())


def decode(x: Sequence[float]) -> Weights:
    """The Portobello Market weight set at a point of [0, 1]^d (clipped), rounded to
    `DECIMALS`."""
    return Weights(**PORTOBELLO.decode(x))


def spec_of(weights: Weights, wrapper: str | None = None) -> str:
    """The heuristic agent playing exactly these weights, whatever the shipped sets say."""
    body = ",".join(f"{k}={v:g}" for k, v in weights.as_dict().items())
    spec = f"heuristic:weights=classic,{body}"
    return f"{wrapper}({spec})" if wrapper else spec


def river_spec_of(weights: Mapping[str, float]) -> str:
    """River Market's heuristic playing exactly these weights, whatever the shipped sets say
    (every weight given, over the greedy set)."""
    body = ",".join(f"{k}={weights[k]:g}" for k in RIVER_BOUNDS)
    return f"heuristic:weights=greedy,{body}"
