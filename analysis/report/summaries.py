"""The committed reports' summaries, as README's answers read them: each report's
summary.json read once (`Summaries`), and checked before anything is written
(`Summaries.checked`): a report of `report_order()` (the committed reports each game's
report facet lists) that is missing, a summary that is not JSON, cut
short, nested too deeply or holding a value of the wrong kind is refused in one line naming
the file, the field and the reason (`AnswersError`). Only what the answers read is checked:
a report may hold anything else. `analysis.report.answers` writes from them.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable
from collections.abc import Iterator
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from analysis.facets import report_facets
from analysis.facets import seat_bonuses
from sim.core.errors import PortobelloError
from sim.core.errors import quote
from sim.core.files import read_document


def report_order() -> tuple[str, ...]:
    """The committed reports README's answers read, in the order reports/README.md lists
    them: every game's (its report facet's `REPORTS`, each with its place)."""
    places = {name: place for facet in report_facets()
              for name, place in getattr(facet, "REPORTS", {}).items()}
    return tuple(sorted(places, key=lambda name: (places[name], name)))


def __getattr__(name: str) -> Any:
    """`ORDER`: `report_order()` (the games' reports, asked when read)."""
    if name == "ORDER":
        return report_order()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class AnswersError(PortobelloError):
    """A committed report's summary (or README) that the answers cannot be written from: it
    is missing, it is not a report summary, or a value the answers read is of the wrong
    kind."""


# -- what the answers read of a summary --------------------------------------------------------
# Each check takes a value and its field (`comparisons[3].diff`) and raises an `AnswersError`
# naming the field when the value is not what the answers read there. Keys the answers do
# not read are not checked: a report may hold anything else.
Check = Callable[[Any, str], None]


def _shown(value: Any) -> str:
    """A value as a refusal shows it: an object or a list by its kind only (it may be huge
    or nested deep), anything else quoted short."""
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "a list"
    return quote(value)


def _kind(expected: str, test: Callable[[Any], bool]) -> Check:
    def check(value: Any, field: str) -> None:
        if not test(value):
            raise AnswersError(f"expected {expected}, got {_shown(value)}", field=field or None)
    return check


def _unicode(text: str) -> bool:
    """Text that can be written as UTF-8 (JSON's escapes can spell half a character)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


TEXT = _kind("text", lambda v: isinstance(v, str) and _unicode(v))
FLAG = _kind("true or false", lambda v: isinstance(v, bool))
WHOLE = _kind("a whole number", lambda v: type(v) is int)
NUMBER = _kind("a finite number",
               lambda v: type(v) in (int, float) and math.isfinite(v))


def _anything(value: Any, field: str) -> None:
    """A value the answers do not read."""


def _maybe(check: Check) -> Check:
    """`check`, or null."""
    def maybe(value: Any, field: str) -> None:
        if value is not None:
            check(value, field)
    return maybe


def _items(each: Check = _anything, *, least: int = 0, last: Check = _anything) -> Check:
    """A list of at least `least` items, each passing `each` (and its last one `last`: the
    answers show only the strongest level of a ladder)."""
    def items(value: Any, field: str) -> None:
        if not isinstance(value, list):
            raise AnswersError(f"expected a list, got {_shown(value)}", field=field or None)
        if len(value) < least:
            raise AnswersError(f"expected at least {least} item(s), got {len(value)}",
                               field=field or None)
        for i, item in enumerate(value):
            each(item, f"{field}[{i}]")
        if value:
            last(value[-1], f"{field}[{len(value) - 1}]")
    return items


def _mapping(each: Check) -> Check:
    """An object of any keys (player counts, labels), each value passing `each`."""
    def mapping(value: Any, field: str) -> None:
        if not isinstance(value, dict):
            raise AnswersError(f"expected an object, got {_shown(value)}", field=field or None)
        for key, item in value.items():
            TEXT(key, field)
            each(item, f"{field}.{key}")
    return mapping


def _interval(row: dict[str, Any], field: str) -> None:
    """A Holm-adjusted interval has both ends, or neither (the same outcome in every game)."""
    if (row.get("adj_lo") is None) != (row.get("adj_hi") is None):
        raise AnswersError("an interval needs both ends (adj_lo and adj_hi) or neither",
                           field=field or None)


def _seats(row: dict[str, Any], field: str) -> None:
    """A fairness recommendation gives every seat its bonus (a game's seat bonus: its start
    score, its extra Coins)."""
    keys = list(seat_bonuses())
    if not any(k in row for k in keys):
        raise AnswersError(f"missing: a recommendation gives {' or '.join(keys)}",
                           field=field or None)


class _Object:
    """A JSON object the answers read: the keys it must hold and those it may, each with the
    check of its value, and a check of the object as a whole (`also`)."""

    def __init__(self, required: Mapping[str, Check], optional: Mapping[str, Check] | None = None,
                 also: Check = _anything) -> None:
        self.required = dict(required)
        self.optional = dict(optional or {})
        self.also = also

    def __call__(self, value: Any, field: str) -> None:
        if not isinstance(value, dict):
            raise AnswersError(f"expected an object, got {_shown(value)}", field=field or None)
        for key, check in self.required.items():
            where = f"{field}.{key}" if field else key
            if key not in value:
                raise AnswersError("missing (the answers read it)", field=where)
            check(value[key], where)
        for key, check in self.optional.items():
            if key in value:
                check(value[key], f"{field}.{key}" if field else key)
        self.also(value, field)

    def requiring(self, **checks: Check) -> _Object:
        """The same object with these keys required (a report whose answers need them)."""
        optional = {k: c for k, c in self.optional.items() if k not in checks}
        return _Object({**self.required, **checks}, optional, self.also)


_INTERVAL = {"adj_lo": _maybe(NUMBER), "adj_hi": _maybe(NUMBER)}
_CHANGE = _Object({"measure": TEXT, "n_players": WHOLE, "variant": TEXT, "baseline": TEXT,
                   "diff": NUMBER, "significant": FLAG}, _INTERVAL, _interval)
_FIRST = _items(_Object({"variant": TEXT, "n_players": WHOLE, "share": NUMBER,
                         "fair": NUMBER, "adj_lo": NUMBER, "adj_hi": NUMBER}))
_TOP = _Object({"estimate": NUMBER, "significant": FLAG}, _INTERVAL, _interval)
_FINDING = _Object({"kind": TEXT, "n_players": WHOLE, "variant": TEXT, "measure": TEXT,
                    "label": TEXT},
                   {"levels": _items(last=_TOP), "convergence": _maybe(_Object({"text": TEXT}))})
_SATURATION = _Object({"share": NUMBER, "lo": NUMBER, "hi": NUMBER, "fair": NUMBER,
                       "state": TEXT, "agent": TEXT})
_SKILL = _Object({"levels": _items(_Object({"label": TEXT}), least=1),
                  "findings": _items(_FINDING), "counts": _mapping(WHOLE)},
                 {"convergence": _maybe(_Object({"counts": _mapping(WHOLE),
                                                 "saturation": _mapping(_SATURATION)}))})
STUDY = _Object(
    {"title": TEXT,
     "configuration": _Object({"games": WHOLE, "cells": _items(_Object(
         {}, {"seconds": _maybe(NUMBER), "jobs": _maybe(TEXT)}))}),
     "findings": _items(_Object({"text": TEXT}, {"topic": _maybe(TEXT), "label": _maybe(TEXT)}))},
    {"description": _maybe(TEXT), "comparisons": _items(_CHANGE), "first_player": _FIRST,
     "variants": _items(_Object({"name": TEXT, "label": TEXT})),
     "ladder": _maybe(_Object({"examined": WHOLE}, {"level": _maybe(TEXT)})),
     "skill": _maybe(_SKILL)})
_POP_CHANGE = _Object({"n_players": WHOLE, "variant": TEXT, "baseline": TEXT, "diff": NUMBER,
                       "significant": FLAG, "adj_lo": NUMBER, "adj_hi": NUMBER})
_POP_ANSWER = _Object({"estimate": NUMBER, "lo": NUMBER, "hi": NUMBER})
POPULATION = _Object(
    {"title": TEXT, "kind": TEXT, "bots": _items(TEXT, least=2), "margin": NUMBER,
     "players": _items(_Object({"players": WHOLE, "variants": _items(_Object(
         {"variant": TEXT, "answer": _POP_ANSWER},
         {"convergence": _maybe(_Object({"converged": FLAG, "estimate": NUMBER,
                                          "lo": NUMBER, "hi": NUMBER}))}), least=1)}),
         least=1),
     "changes": _items(_POP_CHANGE), "cost": _Object({"games": WHOLE, "core_hours": NUMBER})},
    {"next": _maybe(TEXT), "command": _maybe(TEXT), "status": _maybe(TEXT)})


def _recommended() -> _Object:
    """A fairness recommendation: its games, shares and every seat's bonus (the key of any
    game's seat bonus)."""
    return _Object({"games": WHOLE, "shares": _items(NUMBER)},
                   {**{key: _items(NUMBER) for key in seat_bonuses()},
                    "confirmed": _maybe(FLAG)}, _seats)


def _cell(recommended: _Object) -> _Object:
    return _Object({"label": _maybe(TEXT), "players": WHOLE, "recommended": recommended},
                   {"checks": _maybe(_items(_Object({"agents": _items(TEXT, least=1)},
                                                    {"fair": _maybe(FLAG)})))})


def fairness_check() -> _Object:
    """What the answers read of any fairness tuning's summary."""
    return _Object({"title": TEXT, "format": TEXT, "agents": TEXT,
                    "cells": _items(_cell(_recommended()))}, {"description": _maybe(TEXT)})


def _needing(need: str) -> _Object:
    """A report whose answers need `need` (a game's `REPORT_NEEDS`): a study's
    `first_player` or `skill`, or a fairness tuning's seat-bonus key."""
    if need == "first_player":
        return STUDY.requiring(first_player=_FIRST)
    if need == "skill":
        return STUDY.requiring(skill=_SKILL)
    return fairness_check().requiring(cells=_items(_cell(
        _recommended().requiring(**{need: _items(NUMBER)}))))


def checks() -> dict[str, _Object]:
    """What README's answers need of each report beyond what any study or tuning holds, as
    the games' report facets say (`REPORT_NEEDS`)."""
    return {name: _needing(str(need)) for facet in report_facets()
            for name, need in getattr(facet, "REPORT_NEEDS", {}).items()}


def is_fairness(s: dict[str, Any]) -> bool:
    """A fairness tuning's summary (its recommendations per cell), not a study's."""
    return "cells" in s and "format" in s


def is_population(s: dict[str, Any]) -> bool:
    """A population study's summary (its answers whoever plays)."""
    return s.get("kind") == "population"


def _check_of(name: str, data: dict[str, Any]) -> _Object:
    return checks().get(name) or (fairness_check() if is_fairness(data) else
                                  POPULATION if is_population(data) else STUDY)


def _read_summary(path: Path) -> dict[str, Any]:
    """A summary.json's object; an `AnswersError` naming the file when it is missing, not a
    regular file of a sane size, not UTF-8, not JSON, nested too deeply or not an object."""
    data = read_document(path, "json", AnswersError, "report summary")
    if not isinstance(data, dict):
        raise AnswersError(f"holds {_shown(data)} at its top; a report summary is a JSON "
                           "object", source=str(path))
    return data


class Summaries:
    """The committed reports' summaries by report name, each read once.

    `Summaries(reports)` reads a summary when it is first asked for (None when the report
    has none); `Summaries.checked(reports)` reads and checks them all at once, as `make
    answers` does before it writes anything."""

    def __init__(self, reports: Path) -> None:
        self.reports = reports
        self.order = report_order()
        self.extra = sorted(p.parent.name for p in reports.glob("*/summary.json")
                            if p.parent.name not in self.order)
        self._read: dict[str, dict[str, Any] | None] = {}

    @classmethod
    def checked(cls, reports: Path) -> Summaries:
        """Every committed report's summary, read and checked: each report of the order must
        be there (README's answers read them all), and every summary (any other report's
        too) must hold what the answers read, of the right kinds; an `AnswersError` naming
        the file, the field and the reason otherwise."""
        summaries = cls(reports)
        for name in (*summaries.order, *summaries.extra):
            path = summaries.path(name)
            data = _read_summary(path)
            check = _check_of(name, data)
            try:
                check(data, "")
            except AnswersError as exc:
                raise AnswersError(exc.reason, source=str(path), field=exc.field) from None
            summaries._read[name] = data
        return summaries

    def path(self, name: str) -> Path:
        """Where report `name`'s summary is (the name refusals give it by)."""
        return self.reports / name / "summary.json"

    def get(self, name: str) -> dict[str, Any] | None:
        """`name`'s summary, or None when the report has none."""
        if name not in self._read:
            path = self.path(name)
            self._read[name] = _read_summary(path) if path.is_file() else None
        return self._read[name]

    def names(self) -> list[str]:
        """The reports that have a summary: those of `report_order()` in its order, then the
        others by name."""
        return [n for n in (*self.order, *self.extra) if self.get(n) is not None]

    @contextlib.contextmanager
    def showing(self, *names: str) -> Iterator[None]:
        """Turn a failure while these reports' answers are written (a value the checks let
        through that the text still cannot use) into one error naming their files."""
        try:
            yield
        except (LookupError, TypeError, ValueError, AttributeError, ArithmeticError,
                RecursionError) as exc:
            first, *others = names
            also = (" (shown with " + ", ".join(str(self.path(n)) for n in others) + ")"
                    if others else "")
            raise AnswersError(f"cannot be shown{also}: {type(exc).__name__}: {exc}",
                               source=str(self.path(first))) from None


def summaries_of(reports: Path | Summaries) -> Summaries:
    """`reports` read as summaries (once), or the summaries already read."""
    return reports if isinstance(reports, Summaries) else Summaries(reports)
