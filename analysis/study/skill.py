"""Skill levels of a study: the same variants played by weaker and stronger agents.

A balance finding made with one agent may be an artefact of how that agent plays: a first
player's advantage that strong players erase, a variant that only helps a naive line of
play. A study may therefore list skill levels, weakest first:

    skill = [{name = "greedy", agents = "greedy"},
             {name = "heuristic", agents = "heuristic"},
             {name = "mcts", agents = "fastmcts:iterations=800", games = 1200}]

Each level is an agent spec for every seat (or one per seat, or a table by player count,
read exactly as the top-level `agents`), with optionally its own games per cell (a number
or a table by player count; default the study's `games`). `skill` replaces `agents`: a
spec gives one or the other. Cells are variant x level x player count, named
`<variant>-<level>-<n>p`, and every cell plays the study seed, so game `i` is dealt alike
at every level and in every variant (common random numbers across both).

Levels must be reproducible: an agent whose budget is seconds rather than iterations plays
differently on a faster or busier machine, so `analysis.study.spec` refuses it in any study
(its game's `time_budget`, `analysis.facets.time_budget`).

"From the heuristic up" (`analysis.metrics.robustness`) starts at the first level whose
every seat plays the heuristic or a search built on it (`strong_agents`, unrestricted);
a study without such a level considers every level.
"""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from analysis.facets import report_facets
from analysis.study.switches import err
from sim.run.config import games_error

SKILL_KEYS = ("name", "label", "agents", "games")


def strong_agents() -> frozenset[str]:
    """Agents that play at least as well as the tuned heuristic, as each registered game's
    report facet names its own (`STRONG_AGENTS`: Portobello Market's heuristic and the
    searches that use it for priors and rollouts, River Market's heuristic and search). A
    restricted agent (`no-district(...)`) is not among them: it plays a handicapped game on
    purpose."""
    return frozenset(name for facet in report_facets()
                     for name in getattr(facet, "STRONG_AGENTS", ()))


# The spec's own readers of `agents` and of a value by player count (analysis.study.spec),
# passed in so a level reads exactly as the top level does.
AgentsReader = Callable[[Any, Sequence[int], str, str], dict[int, tuple[str, ...]]]
PerPlayersReader = Callable[[Any, Sequence[int], str, str], dict[int, Any]]


def is_strong(spec: str) -> bool:
    """Whether an agent spec is the heuristic or stronger (`strong_agents`, unrestricted)."""
    return spec.strip().partition(":")[0] in strong_agents()


@dataclass(frozen=True)
class SkillLevel:
    """One skill level: its name (in cell keys), label, agents and games per player count
    (`own_games`: given in the level's own line, so its cells play at most that many,
    whatever precision the study asks of the others)."""

    name: str
    label: str
    agents: Mapping[int, tuple[str, ...]]
    games: Mapping[int, int]
    own_games: bool = False

    @property
    def strong(self) -> bool:
        """Every seat at every player count plays the heuristic or stronger."""
        return all(is_strong(s) for specs in self.agents.values() for s in specs)

    def to_dict(self) -> dict[str, Any]:
        """The level as plain data (study.json's `spec.skill`)."""
        return {"name": self.name, "label": self.label,
                "agents": {str(n): list(a) for n, a in self.agents.items()},
                "games": {str(n): g for n, g in self.games.items()}, "strong": self.strong}


def first_strong(strong: Sequence[bool]) -> int:
    """The index of the first level that is the heuristic or stronger: "from the heuristic
    up" means that level and every later one (levels are listed weakest first); 0 when no
    level is, so every level counts."""
    return next((i for i, s in enumerate(strong) if s), 0)


def parse_skill(value: Any, players: Sequence[int], games: Mapping[int, int], source: str,
                read_agents: AgentsReader, read_games: PerPlayersReader
                ) -> tuple[SkillLevel, ...]:
    """Validate `skill`: at least two tables with a unique slug-like `name`, `agents` (read
    as the top-level agents are, time budgets refused) and optional `games` and `label`;
    every error names the file and the field (`skill[2].agents`)."""
    if not isinstance(value, list) or len(value) < 2:
        raise err(source, "skill", "must be a list of at least two levels, weakest first, e.g. "
                                   '[{name = "greedy", agents = "greedy"}, {name = "heuristic", '
                                   'agents = "heuristic"}] (one set of agents is agents = ...)')
    levels: list[SkillLevel] = []
    for i, raw in enumerate(value):
        where = f"skill[{i}]"
        if not isinstance(raw, Mapping):
            raise err(source, where, f"must be a table with name and agents, got {raw!r}")
        for key in raw:
            if key not in SKILL_KEYS:
                raise err(source, f"{where}.{key}", f"unknown key (keys: {', '.join(SKILL_KEYS)})")
        for key in ("name", "agents"):
            if key not in raw:
                raise err(source, f"{where}.{key}", "missing")
        name = raw["name"]
        if not isinstance(name, str) or not name or not all(c.isalnum() or c in "-_"
                                                            for c in name):
            raise err(source, f"{where}.name", f"must be a name of letters, digits, - and _ "
                                               f"(it names the level's run folders), got {name!r}")
        if any(lv.name == name for lv in levels):
            raise err(source, f"{where}.name", f"duplicate level name {name!r}")
        agents = read_agents(raw["agents"], players, source, f"{where}.agents")
        level_games = dict(games)
        if "games" in raw:
            level_games = read_games(raw["games"], players, source, f"{where}.games")
            for n, g in level_games.items():
                problem = games_error(g)
                if problem is not None:
                    raise err(source, f"{where}.games", f"{problem} for {n} players")
        for n in players:
            if len(set(agents[n])) > 1 and level_games[n] % n:
                fld = f"{where}.games" if "games" in raw else "games"
                raise err(source, fld, f"{level_games[n]} games at {n} players with different "
                                       f"agents in level {name!r}: use a multiple of {n} so "
                                       "every agent sits in every seat equally often")
        levels.append(SkillLevel(name=name, label=str(raw.get("label", name)), agents=agents,
                                 games=level_games, own_games="games" in raw))
    return tuple(levels)


SATURATION_KEYS = ("agents", "games")


@dataclass(frozen=True)
class SaturationCheck:
    """Is the strongest level a ceiling? The same agent with double its search budget
    (`agent`) in one seat against the strongest level's agents in the others, seats rotated
    so it sits everywhere equally often, on the study's seeds, in the baseline variant: a
    cell per player count (`games` each, a multiple of the player count). Its win share
    against the fair share is `analysis.metrics.convergence`'s saturation."""

    agent: str
    games: Mapping[int, int]

    def lineup(self, top: Sequence[str]) -> tuple[str, ...]:
        """The check's seats: the doubled agent first, the strongest level's in the rest."""
        return (self.agent, *top[1:])

    def with_games(self, games: Mapping[int, int]) -> SaturationCheck:
        """Other games per cell, each rounded up to a multiple of its player count."""
        return SaturationCheck(self.agent, {n: -(-g // n) * n for n, g in games.items()
                                            if n in self.games})

    def to_dict(self) -> dict[str, Any]:
        """The check as plain data (study.json's `spec.saturation`)."""
        return {"agents": self.agent, "games": {str(n): g for n, g in self.games.items()}}


def parse_saturation(value: Any, skill: Sequence[SkillLevel], players: Sequence[int],
                     source: str, read_agents: AgentsReader, read_games: PerPlayersReader
                     ) -> SaturationCheck | None:
    """Validate `saturation = {agents = "fastmcts:iterations=200", games = 600}` (None when
    absent): a study with skill levels, one agent spec (every seat's doubled agent) and
    games a multiple of each player count; every error names the file and the field."""
    if value is None:
        return None
    if not skill:
        raise err(source, "saturation", "checks the strongest skill level: give the study "
                                        "skill levels (skill = [...]) first")
    if not isinstance(value, Mapping):
        raise err(source, "saturation", 'must be a table, e.g. {agents = '
                                        '"fastmcts:iterations=200", games = 600}')
    for key in value:
        if key not in SATURATION_KEYS:
            raise err(source, f"saturation.{key}",
                      f"unknown key (keys: {', '.join(SATURATION_KEYS)})")
    for key in SATURATION_KEYS:
        if key not in value:
            raise err(source, f"saturation.{key}", "missing")
    agents = read_agents(value["agents"], players, source, "saturation.agents")
    specs = {s for a in agents.values() for s in a}
    if len(specs) != 1:
        raise err(source, "saturation.agents", "must be one agent spec (the strongest level's "
                                               "agent with double its budget), got "
                                               f"{', '.join(sorted(specs))}")
    games = read_games(value["games"], players, source, "saturation.games")
    for n, g in games.items():
        problem = games_error(g)
        if problem is not None:
            raise err(source, "saturation.games", f"{problem} for {n} players")
        if g % n:
            raise err(source, "saturation.games", f"{g} games at {n} players: use a multiple "
                                                  f"of {n} so the doubled agent sits in every "
                                                  "seat equally often")
    return SaturationCheck(specs.pop(), games)


def check_cell_keys(keys: Sequence[tuple[str, str, str]], source: str) -> None:
    """Refuse two cells with one run folder name: `(key, variant, level)` triples; a
    variant `a-b` at level `c` and a variant `a` at level `b-c` would share `a-b-c-2p`."""
    seen: dict[str, tuple[str, str]] = {}
    for key, variant, level in keys:
        if key in seen and seen[key] != (variant, level):
            other = seen[key]
            raise err(source, "skill", f"variant {variant!r} at level {level!r} and variant "
                                       f"{other[0]!r} at level {other[1]!r} would share the run "
                                       f"folder {key}; rename a level")
        seen[key] = (variant, level)


@dataclass(frozen=True)
class SkillInfo:
    """The skill levels of a loaded study (from study.json's `spec.skill`), weakest first:
    names, labels, agents by player count, and from which level play is "from the
    heuristic up" (`start`)."""

    names: tuple[str, ...]
    labels: Mapping[str, str]
    agents: Mapping[str, Mapping[str, list[str]]]
    strong: tuple[bool, ...]

    @property
    def start(self) -> int:
        """Index of the first level from the heuristic up (`first_strong`)."""
        return first_strong(self.strong)

    @staticmethod
    def from_spec(levels: Sequence[Mapping[str, Any]]) -> SkillInfo:
        """Read study.json's `spec.skill` list."""
        names = tuple(str(lv["name"]) for lv in levels)
        agents = {str(lv["name"]): {str(n): list(a) for n, a in lv["agents"].items()}
                  for lv in levels}
        strong = tuple(all(is_strong(s) for specs in agents[n].values() for s in specs)
                       for n in names)
        return SkillInfo(names=names, labels={str(lv["name"]): str(lv.get("label", lv["name"]))
                                              for lv in levels},
                         agents=agents, strong=strong)

    def agents_text(self, name: str) -> str:
        """A level's agents, short: `greedy` when one spec plays every seat everywhere."""
        specs = sorted({s for a in self.agents[name].values() for s in a})
        return ", ".join(specs)
