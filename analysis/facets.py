"""What analysis asks of a game: its "report" facet (`sim.core.kind.GameKind.facet`).

Loading runs, studies, statistics and reports are the same for every game; what differs is
declared by the game in its report facet module (`sim/games/<game>/report.py`), described by
`ReportFacet` below: its point sources, the report sections it offers, the switches whose
rulebook value depends on the player count, its seat bonus, the README answers of its
committed reports, its exploitability probe. Every member is optional: a game that declares
little (or has no report facet at all) gets the report's shared sections only, and lacks
the rest. The functions here read the facet with those defaults, so the toolkit never asks
which game it is.
"""

from __future__ import annotations

from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any
from typing import Protocol

from analysis.metrics.common import Sources
from sim.games.registry import default_game
from sim.games.registry import kind
from sim.games.registry import kinds

ROLE = "report"
# The optional report sections a game may offer (`ReportFacet.SECTIONS`): districts, luck
# and lanes are read from the events table, calibration compares with real play.
EVENT_SECTIONS = ("districts", "luck", "lanes")
OPTIONAL_SECTIONS = ("calibration", *EVENT_SECTIONS)


class ReportFacet(Protocol):
    """What analysis asks of a game's report facet module (every member may be left out;
    the defaults are in the functions of this module).

    - `POINT_SOURCES`: (source, players-table column) in scoring order; the final score is
      their sum (`NEGATIVE_SOURCES` count against it); `SOURCE_COLOURS` their colours.
    - `POINT_MEASURES`: (players-table column, measure name), compared per player between
      variants (`analysis.compare.GameMeasures`).
    - `POINTS_LEAD`: the sentence that opens the report's points section.
    - `SECTIONS`: the optional sections it offers (`OPTIONAL_SECTIONS`); the event sections
      read `EVENT_ACTIONS` of the events table, the board through `lane_ids`, `lane_ends`,
      `lane_spots` and `heat_boards`.
    - `TEXT_COLUMNS`: its own table columns read as text; `ANOMALOUS_ENDS`: end reasons a
      designer should look at (reason -> what the anomalies table calls them).
    - `COUNT_DEFAULTS`: rules switches whose rulebook value depends on the player count
      (switch -> {players: value}): a study may give them as a table by player count, and
      a value equal to the rulebook's counts as unset.
    - `start_scores(rules)`: each seat's start score (zeros when absent).
    - `time_budget(spec)`: an agent spec's time budget as written, None when its play
      depends on its seed alone (studies refuse timed agents).
    - `play_fingerprint(spec, players)`: what an agent spec plays (two spellings of one
      player compare equal); the spec itself when absent.
    - `STRONG_AGENTS`: its agents that play at least as well as its heuristic (a skill
      ladder's labels count "from the heuristic up", `analysis.study.skill`).
    - `BONUS_FLOOR`: why its fairness tuning's seat bonus cannot go lower, if it cannot (the
      bonus itself is its tuning facet's, `seat_bonuses`).
    - `REPORTS` (committed report -> its place in reports/README.md), `REPORT_NEEDS`
      (report -> what README's answers read of it: "first_player", "skill" or a seat-bonus
      key), `LADDER_OF` and `POPULATION_OF` (a study's report -> the ladder, the
      population study that examined its question) and `readme_answers(summaries)`, its
      block of README's answers.
    - `probe_challengers(config, players)`: the exploitability probe's challengers of
      `config.agent` at one player count and the pilot's weight ranking
      (`analysis.probe.ProbeConfig`); `check_probe(config)` refuses bad probe input.
    """

    POINT_SOURCES: Sequence[tuple[str, str]]
    SECTIONS: frozenset[str]


@dataclass(frozen=True)
class SeatBonus:
    """A fairness tuning's seat bonus as its reports show it (`ReportFacet.SEAT_BONUS`)."""

    key: str
    words: str
    unit: str
    floor: str | None = None


def report_facet(game: str) -> ModuleType | None:
    """The game's report facet module, or None when it has none."""
    g = kind(game or default_game())
    return g.facet(ROLE) if g.has(ROLE) else None


def declared(game: str, name: str, default: Any) -> Any:
    """One member of a game's report facet, or `default` when it does not declare it."""
    facet = report_facet(game)
    return default if facet is None else getattr(facet, name, default)


def sources(game: str) -> Sources | None:
    """The game's point sources, or None when it declares none (no points section)."""
    columns = tuple(declared(game, "POINT_SOURCES", ()))
    if not columns:
        return None
    return Sources(columns, negative=tuple(declared(game, "NEGATIVE_SOURCES", ())),
                   colours=dict(declared(game, "SOURCE_COLOURS", {})))


def point_measures(game: str) -> tuple[tuple[str, str], ...]:
    """The game's point columns compared per player between variants."""
    return tuple(declared(game, "POINT_MEASURES", ()))


def sections(game: str) -> frozenset[str]:
    """The optional report sections the game offers (of `OPTIONAL_SECTIONS`)."""
    return frozenset(declared(game, "SECTIONS", frozenset())) & frozenset(OPTIONAL_SECTIONS)


def count_defaults(game: str) -> Mapping[str, Mapping[int, Any]]:
    """The game's switches whose rulebook value depends on the player count."""
    return dict(declared(game, "COUNT_DEFAULTS", {}))


def played_value(game: str, rules: Any, key: str) -> Any:
    """A switch's value as the rules play it: an unset switch of `count_defaults` is the
    rulebook's for the rules' player count, lists as lists."""
    data = rules.to_dict()
    value = data.get(key)
    defaults = count_defaults(game)
    if value is None and key in defaults:
        return defaults[key].get(data.get("players"))
    return value


def start_scores(game: str, rules: Any, players: int) -> Sequence[int]:
    """Each seat's start score, seat 0 first."""
    facet = report_facet(game)
    if facet is None or not hasattr(facet, "start_scores"):
        return [0] * players
    return facet.start_scores(rules)


def time_budget(game: str, spec: str) -> str | None:
    """An agent spec's time budget as written (None: its play depends on its seed alone)."""
    facet = report_facet(game)
    if facet is None or not hasattr(facet, "time_budget"):
        return None
    return facet.time_budget(spec)


def play_fingerprint(game: str, spec: str, players: int) -> Any:
    """What an agent spec plays at a player count (the spec itself unless the game says)."""
    facet = report_facet(game)
    if facet is None or not hasattr(facet, "play_fingerprint"):
        return spec.strip()
    return facet.play_fingerprint(spec, players)


def seat_bonus(game: str) -> SeatBonus | None:
    """The game's fairness seat bonus, as its tuning facet declares it (`SEAT_BONUS`, the
    switch; `BONUS_COLUMN`, what its values are called; `BONUS_WORDS`, what a bonus adds),
    with why it cannot go lower from its report facet (`BONUS_FLOOR`); None for a game
    without fairness tuning."""
    g = kind(game)
    tuning = g.facet("tuning") if g.has("tuning") else None
    key = getattr(tuning, "SEAT_BONUS", None)
    if not key:
        return None
    return SeatBonus(str(key), str(getattr(tuning, "BONUS_COLUMN", key)),
                     str(getattr(tuning, "BONUS_WORDS", key)),
                     declared(game, "BONUS_FLOOR", None))


def seat_bonuses() -> dict[str, SeatBonus]:
    """Every registered game's seat bonus by its key, in registry order (a fairness
    summary's rows are read by the key they hold)."""
    found = (seat_bonus(name) for name in kinds())
    return {b.key: b for b in found if b is not None}


def seat_bonus_of(row: Mapping[str, Any]) -> SeatBonus:
    """The seat bonus a fairness row gives (the default game's when it gives none)."""
    bonuses = seat_bonuses()
    found = next((b for k, b in bonuses.items() if k in row), None)
    if found is not None:
        return found
    default = seat_bonus(default_game())
    return default if default is not None else next(iter(bonuses.values()))


def report_facets() -> list[ModuleType]:
    """Every registered game's report facet, in registry order (the default game first)."""
    return [f for f in (report_facet(name) for name in kinds()) if f is not None]
