"""What a report (or notebook) shows: the full study, a reduced run of it, or a sample.

A study run with `--games` (as `make demo` does) plays fewer games than its spec asks for;
its intervals are wider and fewer differences reach significance, so the report must say
so in its title and header. study.json does not record the override itself: its `spec`
holds the games actually asked of the runner (already overridden) and `spec_text` holds
the spec file as written. `reduced_run` compares the spec file's `games` (and agent names)
with what the cells' runs played.

`locate_study` picks the study folder a notebook shows (`PORTOBELLO_STUDY_DIR`, else the
full study's folder, else `make demo`'s) and says which, so a notebook never silently shows
something else; `notebook_header` is the first line a notebook prints.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from analysis.study import StudyData
from sim.core.specs import split_specs

STUDY_DIR_ENV = "PORTOBELLO_STUDY_DIR"
RUNS_DIR = Path("data/runs/studies")


def _count(n: int) -> str:
    """A game count with thousands separators."""
    return f"{n:,}"


def _span(values: Mapping[int, int]) -> str:
    """`4,400` when every player count has it, else `4,200–4,400`."""
    lo, hi = min(values.values()), max(values.values())
    return _count(lo) if lo == hi else f"{_count(lo)}–{_count(hi)}"


@dataclass(frozen=True)
class Reduced:
    """A study run that played other games or agents than its spec file asks for."""

    played: Mapping[int, int]  # games per cell played, by player count (the fewest)
    asked: Mapping[int, int]  # games per cell the spec file asks for
    agents: tuple[str, ...] = ()  # agent names played, when they differ from the spec's
    spec_agents: tuple[str, ...] = ()

    @property
    def fewer_games(self) -> bool:
        """Whether some player count played fewer games than the spec asks for (with skill
        levels: than the cell's level asks for)."""
        return any(self.played[n] < self.asked.get(n, 0) for n in self.played)

    @property
    def short(self) -> str:
        """For the title: `reduced: 300 games per cell, the spec asks for 4,400`."""
        parts = []
        if self.fewer_games:
            parts.append(f"reduced: {_span(self.played)} games per cell, the spec asks for "
                         f"{_span(self.asked)}")
        if self.agents:
            parts.append(f"agents {', '.join(self.agents)} instead of the spec's "
                         f"{', '.join(self.spec_agents)}")
        return "; ".join(parts)

    @property
    def sentence(self) -> str:
        """For the header: what was played against what the spec asks for, per player
        count, and what follows for the numbers."""
        counts = sorted(self.played)
        per = ", ".join(f"{_count(self.asked[n])} at {n} players" for n in counts
                        if n in self.asked)
        text = []
        if self.fewer_games:
            text.append(f"This is a reduced run: {_span(self.played)} games per cell were "
                        f"played, where the study spec asks for {per}. Intervals are wider "
                        "and fewer differences reach significance than in the full study; "
                        "do not read it as the study's result.")
        if self.agents:
            text.append(f"The games were played by {', '.join(self.agents)}, not by the "
                        f"spec's {', '.join(self.spec_agents)}.")
        return " ".join(text)


def _spec_games(games: Any, counts: list[int]) -> dict[int, int] | None:
    """The spec file's `games`: one number for every player count, or a table by count."""
    if isinstance(games, int) and not isinstance(games, bool):
        return {n: games for n in counts}
    if isinstance(games, Mapping):
        try:
            return {int(k): int(v) for k, v in games.items()}
        except (TypeError, ValueError):
            return None
    return None


def _agent_names(value: Any) -> set[str]:
    """The agent names (without parameters) of a spec's `agents` (text, list or table)."""
    if isinstance(value, Mapping):
        return set().union(*(_agent_names(v) for v in value.values())) if value else set()
    specs = [str(s) for s in value] if isinstance(value, list) else (
        split_specs(value) if isinstance(value, str) else [])
    return {s.strip().partition(":")[0] for s in specs if s.strip()}


def reduced_run(data: StudyData) -> Reduced | None:
    """How a study folder's runs differ from its spec file (None when they do not, or when
    there is no spec file to compare with, e.g. a report from loose run folders)."""
    text = (data.study or {}).get("spec_text") or ""
    if not text or not data.cells:
        return None
    try:
        spec = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return None
    counts = sorted({c.players for c in data.cells})
    asked = _spec_games(spec.get("games"), counts)
    # With skill levels each level may ask its own games: a cell is short against its level,
    # and per player count the cell furthest below its level's games is reported.
    levels = spec.get("skill") if isinstance(spec.get("skill"), list) else []
    by_level = {str(lv.get("name")): _spec_games(lv.get("games", spec.get("games")), counts)
                for lv in levels if isinstance(lv, Mapping)}
    played: dict[int, int] = {}
    if by_level and asked is not None:
        worst: dict[int, tuple[float, int, int]] = {}  # count -> (share, played, asked)
        for c in data.cells:
            g = int(c.run.manifest["games"])
            want = max(1, (by_level.get(c.level) or asked).get(c.players, g))
            worst[c.players] = min(worst.get(c.players, (g / want, g, want)),
                                   (g / want, g, want))
        played = {n: w[1] for n, w in worst.items()}
        asked = {n: w[2] for n, w in worst.items()}
    else:
        for c in data.cells:
            g = int(c.run.manifest["games"])
            played[c.players] = min(played.get(c.players, g), g)
    names = sorted({a.partition(":")[0] for c in data.cells for a in c.run.manifest["agents"]})
    spec_agents = [lv.get("agents", "") for lv in levels if isinstance(lv, Mapping)] \
        if levels else [spec.get("agents", "")]
    spec_names = sorted(set().union(*(_agent_names(a) for a in spec_agents)))
    other_agents = bool(spec_names) and names != spec_names
    out = Reduced(played=played, asked={n: asked[n] for n in counts if n in asked}
                  if asked else {}, agents=tuple(names) if other_agents else (),
                  spec_agents=tuple(spec_names) if other_agents else ())
    return out if out.fewer_games or out.agents else None


def report_title(data: StudyData) -> str:
    """The study's title, with `(reduced: ...)` when the runs played less than the spec."""
    r = reduced_run(data)
    return f"{data.title} ({r.short})" if r is not None else data.title


# -- notebooks -------------------------------------------------------------------------------
@dataclass(frozen=True)
class StudyChoice:
    """The folder a notebook shows and why: `env` (PORTOBELLO_STUDY_DIR), `study` (the full
    study's folder), `demo` (make demo's reduced run) or `sample` (none of those: a small
    built-in sample to be made)."""

    path: Path
    source: str


def locate_study(name: str, root: Path, env: Mapping[str, str] | None = None) -> StudyChoice:
    """The study folder a notebook for study `name` shows: the folder PORTOBELLO_STUDY_DIR
    names (a relative path read as `study_dir_candidates` says; refused if it is not a
    study folder: never replaced by another), else
    `data/runs/studies/<name>`, else `data/runs/studies/<name>-demo` (make demo), else the
    built-in sample's folder `data/runs/studies/<name>-notebook-sample`."""
    env = os.environ if env is None else env
    given = env.get(STUDY_DIR_ENV)
    if given:
        tried = study_dir_candidates(Path(given), root, env)
        for path in tried:
            if (path / "study.json").exists():
                return StudyChoice(path, "env")
        where = " or ".join(str(p) for p in tried)
        raise FileNotFoundError(f"{STUDY_DIR_ENV}={given} is not a study folder (no "
                                f"study.json in {where}); run `portobello study` into it "
                                "first")
    for source, folder in (("study", name), ("demo", f"{name}-demo")):
        path = root / RUNS_DIR / folder
        if (path / "study.json").exists():
            return StudyChoice(path, source)
    return StudyChoice(root / RUNS_DIR / f"{name}-notebook-sample", "sample")


def study_dir_candidates(given: Path, root: Path, env: Mapping[str, str]) -> list[Path]:
    """Where PORTOBELLO_STUDY_DIR may point, in the order tried: an absolute path as it is;
    a relative one (`data/runs/studies/...`, as README writes them) from the repository
    root, then from the folder the notebook server was started in (`$PWD`, which its
    kernels inherit), then from the kernel's own folder (the notebook's, `notebooks/`),
    which alone would make a path written from the root fail."""
    if given.is_absolute():
        return [given]
    bases = [root, *([Path(env["PWD"])] if env.get("PWD") else []), Path.cwd()]
    return list(dict.fromkeys(base / given for base in bases))


SOURCES = {"env": f"the study folder {STUDY_DIR_ENV} names",
           "study": "the full study's folder",
           "demo": "make demo's reduced run",
           "sample": "BUILT-IN SAMPLE, not the study's results"}


def notebook_header(choice: StudyChoice, data: StudyData) -> str:
    """A notebook's first line: which folder it shows, from where, and with which agents
    (a built-in sample says so first, and a reduced run says how reduced)."""
    agents = sorted({s for c in data.cells for s in c.run.manifest["agents"]})
    r = reduced_run(data)
    note = f" ({r.short})" if r is not None else ""
    return (f"Showing {SOURCES[choice.source]}{note}: {choice.path} · agents: "
            f"{', '.join(agents)}")
