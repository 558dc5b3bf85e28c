"""Population study specs: a balance question answered whoever plays.

A study spec that names `population = [...]` (agent specs, weakest first: each a level of
play) instead of `agents` or `skill` plays the empirical meta-game of that population for
every variant and player count (`analysis.metagame.study`):

    population = ["heuristic", "expert", "fastmcts:iterations=100"]
    next = "fastmcts:iterations=300"     # the convergence check: the next stronger bot
    curve = ["fastmcts:iterations=30", "fastmcts:iterations=100"]   # self-play, for the curve
    margin = 0.03                         # every answer's half-width target
    round_games = 100                     # games a profile gets in a round
    max_games = 2000                      # the most games a profile may get
    curve_games = 300                     # self-play games of each curve bot
    profiles = "deviations"               # at 3-4 players; "all": the whole tensor

The rest of the spec (variants, board, players, seed, shard size, baseline...) reads as in
any study (`analysis.study.spec`). Every field is checked before a game is played; an error
names the file, the field and the reason.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import replace
from pathlib import Path
from typing import Any

from analysis.facets import time_budget
from analysis.study.spec import StudySpec
from analysis.study.spec import read_spec
from analysis.study.spec import study_from_dict
from analysis.study.switches import err
from sim.core.errors import PortobelloError
from sim.games.registry import game_of_spec
from sim.games.registry import kind
from sim.run.config import MAX_GAMES

POPULATION_KEYS = ("population", "next", "curve", "margin", "round_games", "max_games",
                   "curve_games", "profiles")
MARGIN_RANGE = (0.005, 0.25)  # an answer's half-width target: ±0.5 to ±25 points
DEFAULTS: dict[str, Any] = {"margin": 0.03, "round_games": 100, "max_games": 2000,
                            "curve_games": 300, "profiles": "deviations"}
PROFILES = ("deviations", "all")  # what 3-4 players play: the switches, or every profile


def bot_name(spec: str) -> str:
    """A bot's name in cell keys: its spec with every run of other characters than letters
    and digits made one `-` (`fastmcts:iterations=100` -> `fastmcts-iterations-100`)."""
    return re.sub(r"[^A-Za-z0-9]+", "-", spec).strip("-")


@dataclass(frozen=True)
class PopulationSpec:
    """A validated population study: the study it answers (variants, players, seed...),
    the population (weakest first), the convergence check's next bot and the sampling."""

    study: StudySpec
    population: tuple[str, ...]
    next: str | None
    curve: tuple[str, ...]
    margin: float
    round_games: int
    max_games: int
    curve_games: int
    profiles: str = "deviations"

    @property
    def bots(self) -> tuple[str, ...]:
        """The bots of the meta-game: the population, then `next` if any."""
        return self.population + ((self.next,) if self.next else ())

    @property
    def name(self) -> str:
        return self.study.name

    def with_overrides(self, round_games: int | None = None,
                       players: Sequence[int] | None = None) -> PopulationSpec:
        """The same study with other games a round (a quick look; `max_games` follows at
        the spec's ratio) or at some of its player counts."""
        study = self.study if players is None else self.study.with_overrides(players=players)
        if round_games is None:
            return replace(self, study=study)
        ratio = self.max_games / self.round_games
        return replace(self, study=study, round_games=round_games,
                       max_games=max(round_games, int(round_games * ratio)))

    def to_dict(self) -> dict[str, Any]:
        return {**self.study.to_dict(), "population": list(self.population),
                "next": self.next, "curve": list(self.curve), "margin": self.margin,
                "round_games": self.round_games, "max_games": self.max_games,
                "curve_games": self.curve_games, "profiles": self.profiles}


def _positive(data: Mapping[str, Any], key: str, source: str, low: int = 1) -> int:
    value = data.get(key, DEFAULTS[key])
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= MAX_GAMES:
        raise err(source, key, f"must be an integer from {low} to {MAX_GAMES:,}, got "
                               f"{value!r:.60}")
    return value


def _agents(value: Any, key: str, source: str, game: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(s, str) and s.strip() for s in value):
        raise err(source, key, f"must be a list of agent specs, got {value!r:.60}")
    specs = [s.strip() for s in value]
    for s in specs:
        try:
            kind(game).check_agent(s)
        except PortobelloError as exc:
            raise err(source, key, exc.reason) from None
        timed = time_budget(game, s)
        if timed:
            raise err(source, key, f"{s} has a time budget ({timed}), which makes the study "
                                   "depend on the machine; use an iteration budget instead")
    seen: set[str] = set()
    for s in specs:
        if bot_name(s) in seen:
            raise err(source, key, f"{s!r} is listed twice")
        seen.add(bot_name(s))
    return specs


def population_from_dict(data: Mapping[str, Any], source: str = "<dict>", text: str = "",
                         base_dir: Path | None = None) -> PopulationSpec:
    """Validate a population study spec (see the module docstring)."""
    if not isinstance(data, Mapping):
        raise err(source, None, "a study must be a TOML table")
    for key in ("agents", "skill", "saturation", "ladder"):
        if key in data:
            raise err(source, key, "a population study's bots are its population: give "
                                   "population or " + key + ", not both")
    try:
        game = game_of_spec(data).name
    except PortobelloError as exc:
        raise err(source, exc.field, exc.reason) from None
    population = _agents(data["population"], "population", source, game)
    if len(population) < 2:
        raise err(source, "population", "must name at least two bots: a meta-game of one "
                                        "bot is self-play (use agents = ... instead)")
    nxt = data.get("next")
    if nxt is not None:
        if not isinstance(nxt, str):
            raise err(source, "next", f"must be one agent spec, got {nxt!r:.60}")
        nxt = _agents([nxt], "next", source, game)[0]
        if bot_name(nxt) in {bot_name(s) for s in population}:
            raise err(source, "next", f"{nxt!r} is already in the population: next is the "
                                      "stronger bot the convergence check adds")
    curve = _agents(data.get("curve", []), "curve", source, game) if "curve" in data else []
    margin = data.get("margin", DEFAULTS["margin"])
    low, high = MARGIN_RANGE
    if isinstance(margin, bool) or not isinstance(margin, int | float) \
            or not low <= margin <= high:
        raise err(source, "margin", f"must be a number from {low} to {high} (a half-width: "
                                    f"0.03 is ±3 points), got {margin!r:.60}")
    round_games = _positive(data, "round_games", source)
    max_games = _positive(data, "max_games", source)
    if max_games < round_games:
        raise err(source, "max_games", f"must be at least round_games ({round_games}), got "
                                       f"{max_games}")
    curve_games = _positive(data, "curve_games", source)
    profiles = data.get("profiles", DEFAULTS["profiles"])
    if profiles not in PROFILES:
        raise err(source, "profiles", f"must be \"deviations\" (every symmetric profile and "
                                      f"every one-seat switch) or \"all\" (every profile of "
                                      f"the tensor), got {profiles!r:.60}")
    rest = {k: v for k, v in data.items() if k not in POPULATION_KEYS}
    rest["agents"] = population[0]
    rest.setdefault("games", round_games)
    study = study_from_dict(rest, source=source, text=text, base_dir=base_dir)
    if study.sweep is not None:
        raise err(source, "sweep", "a population study compares explicit [[variants]]; "
                                   "sweep in an ordinary study")
    return PopulationSpec(study=study, population=tuple(population), next=nxt,
                          curve=tuple(curve), margin=float(margin), round_games=round_games,
                          max_games=max_games, curve_games=curve_games, profiles=profiles)


def population_file(path: str | Path) -> bool:
    """Whether a study file is a population study (a file that cannot be read is not: the
    ordinary study reader then says why)."""
    try:
        data, _, _ = read_spec(path)
    except PortobelloError:
        return False
    return isinstance(data, Mapping) and "population" in data


def load_population(path: str | Path) -> PopulationSpec:
    """Read and validate a population study TOML file."""
    data, text, p = read_spec(path)
    return population_from_dict(data, source=str(p), text=text, base_dir=p.parent)
