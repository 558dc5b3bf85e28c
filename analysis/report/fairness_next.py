"""What to try next where a fairness tuning confirmed no setting fair: read from the cell's
own profiles (each knob moved alone from the search's best), so the advice names the knob,
the values and the seat, instead of a general "widen the range or add a knob".

For a knob that helps one seat (a start-score bonus, River Market's extra Coins):

- the seat stays below (or above) 1/n over the whole profile and the profile reaches the
  knob's `high` (or `low`): the fair point lies beyond the range, so widen it (a knob
  that cannot go lower, such as Coins, is said so: help the other seats instead);
- the seat's share crosses 1/n between two neighbouring values, neither of which holds
  1/n within its interval: the fair point lies between them, one step of the knob is too
  coarse, so a finer knob is wanted, tuned alongside this one;

and, for the cell, a recommendation that was fair on the search's games but not on the
fresh ones: the fair point is near, so more confirmation games can settle it.
"""

from __future__ import annotations

from collections.abc import Mapping
from collections.abc import Sequence
from typing import Any

from analysis.facets import seat_bonuses

Cell = Mapping[str, Any]
GENERAL = ("try a wider range of the knob, another knob tuned alongside it, or more games "
           "(docs/tuning.md)")


def _points(cell: Cell, name: str) -> list[Mapping[str, Any]]:
    """The knob's profile points in order of value (none when it has no profile)."""
    for p in cell.get("profiles") or []:
        if p.get("dimension") == name:
            return sorted((pt for pt in p.get("points") or []
                           if isinstance(pt.get("value"), int)), key=lambda pt: pt["value"])
    return []


def _knob_advice(cell: Cell, dim: Mapping[str, Any]) -> list[str]:
    """What one integer knob's profile says about where the fair point lies, per seat it
    helps."""
    name, n = str(dim["name"]), int(cell["players"])
    points = _points(cell, name)
    if len(points) < 2 or "low" not in dim:
        return []
    fair, out = 1 / n, []
    for seat in dim.get("seats") or []:
        shares = [float(pt["shares"][seat]) for pt in points]
        first, last = points[0], points[-1]
        if all(s < fair for s in shares):
            if last["value"] >= dim["high"]:
                out.append(f"{name}: seat {seat} still wins {shares[-1]:.3f} at "
                           f"{last['value']:+d}, the top of its range (below 1/{n} = "
                           f"{fair:.3f}): widen the range above {dim['high']:+d}")
        elif all(s > fair for s in shares):
            if first["value"] <= dim["low"]:
                # a knob whose low is a hard floor (its game's seat bonus says why)
                bonus = seat_bonuses().get(str(dim.get("switch")))
                floor = bonus.floor if bonus is not None else None
                out.append(f"{name}: seat {seat} still wins {shares[0]:.3f} at "
                           f"{first['value']:+d}, the foot of its range (above 1/{n} = "
                           f"{fair:.3f}): " + (f"{floor}, so help the other seats instead"
                                               if floor else
                                               f"widen the range below {dim['low']:+d}"))
        else:
            for a, b, sa, sb in zip(points, points[1:], shares, shares[1:], strict=False):
                if (sa - fair) * (sb - fair) < 0 and not (_holds(a, seat, fair)
                                                          or _holds(b, seat, fair)):
                    out.append(f"{name}: seat {seat}'s fair point lies between "
                               f"{a['value']:+d} ({sa:.3f}) and {b['value']:+d} ({sb:.3f}), "
                               "neither within its interval of 1/n: one step is too coarse, "
                               "so tune a second knob with a smaller effect alongside it, "
                               "for the search to land between them (docs/tuning.md, "
                               "Knobs)")
                    break
    return out


def _holds(point: Mapping[str, Any], seat: int, fair: float) -> bool:
    """Whether a profile point's interval for `seat` holds the fair share."""
    lo, hi = point["intervals"][seat]
    return bool(lo <= fair <= hi)


def _near_miss(cell: Cell) -> str | None:
    """The advice for a recommendation fair on the search's games but not on fresh ones."""
    rec = cell["recommended"]
    on_search = [h for h in cell.get("history") or [] if h.get("setting") == rec.get("setting")]
    if not any(h.get("fair") for h in on_search):
        return None
    n = int(cell["players"])
    misses = [max(lo - 1 / n, 1 / n - hi, 0.0) for lo, hi in rec.get("intervals") or []]
    return (f"{rec.get('label', 'the setting')} was fair on the search's games but not on "
            f"the fresh ones (the worst seat's interval misses 1/{n} by "
            f"{100 * max(misses, default=0.0):.1f} pp): confirm with more games "
            "(--confirm-games, or [confirm] games in the spec)")


def next_steps(cell: Cell) -> list[str]:
    """What to try next for a cell whose recommendation is not confirmed fair (none for a
    confirmed one): the knobs' own advice, the near miss, else the general advice."""
    if cell["recommended"].get("confirmed"):
        return []
    dims: Sequence[Mapping[str, Any]] = cell.get("dimensions") or []
    out = [line for d in dims for line in _knob_advice(cell, d)]
    near = _near_miss(cell)
    if near:
        out.append(near)
    return out or [GENERAL]
