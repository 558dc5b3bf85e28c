"""The search space of weight tuning: each weight of the evaluation in a range a good player
could plausibly use, mapped to [0, 1] for the optimiser; a point is played as an explicit
agent spec, so every candidate can be re-run by anyone."""

from __future__ import annotations

from collections.abc import Sequence

from sim.agents.evaluate import Weights

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
DECIMALS = 4  # weights are written and played rounded, so a spec replays the very agent


def names() -> tuple[str, ...]:
    return tuple(BOUNDS)


def encode(weights: Weights) -> list[float]:
    """A weight set as a point of [0, 1]^d (clipped into the ranges)."""
    out = []
    for name, (lo, hi) in BOUNDS.items():
        v = getattr(weights, name)
        out.append(min(1.0, max(0.0, (v - lo) / (hi - lo))))
    return out


def decode(x: Sequence[float]) -> Weights:
    """The weight set at a point of [0, 1]^d (clipped), rounded to `DECIMALS`."""
    values = {}
    for (name, (lo, hi)), u in zip(BOUNDS.items(), x, strict=True):
        u = min(1.0, max(0.0, float(u)))
        values[name] = round(lo + u * (hi - lo), DECIMALS)
    return Weights(**values)


def spec_of(weights: Weights, wrapper: str | None = None) -> str:
    """The heuristic agent playing exactly these weights, whatever the shipped sets say."""
    body = ",".join(f"{k}={v:g}" for k, v in weights.as_dict().items())
    spec = f"heuristic:weights=classic,{body}"
    return f"{wrapper}({spec})" if wrapper else spec
