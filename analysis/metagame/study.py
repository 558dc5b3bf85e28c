"""Playing a population study: the meta-game's profiles as ordinary run folders, in rounds.

Every profile lives in a run whose seats rotate game by game (`sim.run.config`):

- 2 players: the run `<variant>-2p-<a>-<b>` (a before b in the population) plays profile
  (a, b) on its even games and (b, a) on its odd ones; `<variant>-2p-<a>-<a>` is self-play;
- more players: `<variant>-<n>p-<a>` is bot a in every seat, and `<variant>-<n>p-<a>-with-<b>`
  one seat of bot b among bots a, b going round every seat (game i: seat -i mod n); with
  `profiles = "all"`, every other line-up too (`<variant>-<n>p-<a>-<b>-<c>`, rotated alike).

A profile's *level* is the games it has; a run holds the games of its profiles' level (2
players: twice it for a pair; more: n times it for a switch). Round 0 gives every profile
`round_games`; each later round raises, by `round_games` (at most `max_games`), only the
profiles `analysis.metagame.sampling.profiles_to_play` says can still move an answer, in
every variant at once (so variants stay paired game by game). A round's decision reads only
the games of the levels reached so far, from the runs' first games: a study stopped at any
moment and run again replays the same decisions and tops the same runs up, whatever the
execution.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from analysis.load import load_run
from analysis.metagame.estimate import Profile
from analysis.metagame.estimate import ProfileGames
from analysis.metagame.sampling import profiles_to_play
from analysis.metagame.spec import PopulationSpec
from analysis.metagame.spec import bot_name
from analysis.metagame.tensor import beyond_deviations
from analysis.study.run import games_held
from analysis.study.switches import StudyError
from sim.core.errors import PortobelloError
from sim.run.config import RunConfig
from sim.run.execution import Execution
from sim.run.execution import Pool
from sim.run.execution import progress_bar
from sim.run.runner import Run
from sim.run.runner import write_json_atomic

POPULATION_FILE = "population.json"
POPULATION_FORMAT = "portobello-population/1"
MAX_ROUNDS = 200  # a guard: max_games / round_games bounds the rounds long before this


@dataclass(frozen=True)
class Unit:
    """One run of the population study, for every variant alike: its bots by position in
    the run's agents (indices into `PopulationSpec.bots`, or `curve` for a self-play curve
    bot outside the meta-game), and how many games a level of its profiles takes."""

    players: int
    agents: tuple[int, ...]
    curve: str = ""  # a self-play curve bot that is not a bot of the meta-game

    def key(self, spec: PopulationSpec, variant: str) -> str:
        n = self.players
        if self.curve:
            return f"{variant}-{n}p-curve-{bot_name(self.curve)}"
        names = [bot_name(spec.bots[i]) for i in self.agents]
        if n == 2:
            return f"{variant}-{n}p-{names[0]}-{names[1]}"
        if len(set(self.agents)) == 1:
            return f"{variant}-{n}p-{names[0]}"
        if len(set(self.agents[1:])) == 1:
            return f"{variant}-{n}p-{names[1]}-with-{names[0]}"
        return f"{variant}-{n}p-" + "-".join(names)

    @property
    def per_level(self) -> int:
        """Run games for one game of each of its profiles (self-play, a curve bot's too:
        one profile, one game)."""
        return 1 if self.curve or len(set(self.agents)) == 1 else self.players

    def specs(self, spec: PopulationSpec) -> tuple[str, ...]:
        if self.curve:
            return (self.curve,) * self.players
        return tuple(spec.bots[i] for i in self.agents)

    def profiles(self) -> list[Profile]:
        """The profiles its games play, by rotation (game i: agents rotated by i); none for
        a curve bot outside the meta-game."""
        n = self.players
        return [] if self.curve else [tuple(self.agents[(s + r) % n] for s in range(n))
                                      for r in range(self.per_level)]


def units(spec: PopulationSpec) -> list[Unit]:
    """Every run of the study at every player count (variants apart), in a fixed order."""
    k = len(spec.bots)
    out: list[Unit] = []
    for n in spec.study.players:
        if n == 2:
            out += [Unit(2, (i, j)) for i in range(k) for j in range(i, k)]
        else:
            out += [Unit(n, (i,) * n) for i in range(k)]
            out += [Unit(n, (j,) + (i,) * (n - 1)) for i in range(k) for j in range(k)
                    if j != i]
            if spec.profiles == "all":
                out += [Unit(n, m) for m in beyond_deviations(k, n)]
        known = {bot_name(b) for b in spec.bots}
        out += [Unit(n, (), curve=c) for c in spec.curve if bot_name(c) not in known]
    return out


def _config(spec: PopulationSpec, variant: Any, unit: Unit, games: int) -> RunConfig:
    study = spec.study
    base = next(c for c in study.level_cells() if c.variant.name == variant.name
                and c.players == unit.players).config
    return replace(base, agents=unit.specs(spec), games=games)


def _start_level(spec: PopulationSpec, unit: Unit) -> int:
    """Round 0's games a profile: `round_games`; a self-play run of a curve bot at least
    the curve's games."""
    curve = {bot_name(c) for c in spec.curve}
    if unit.curve:
        return spec.curve_games
    if len(set(unit.agents)) == 1 and bot_name(spec.bots[unit.agents[0]]) in curve:
        return max(spec.round_games, spec.curve_games)
    return spec.round_games


def check_folder(spec: PopulationSpec, root: Path) -> None:
    """Refuse a folder that holds a plain run, an ordinary study, or another population
    study (another name, population, variants, seed or sampling)."""
    if (root / "manifest.json").exists():
        raise StudyError("this folder is a run, not a population study folder; use another "
                         "--out", source=str(root))
    if (root / "study.json").exists():
        raise StudyError("this folder holds an ordinary study; use another --out",
                         source=str(root))
    path = root / POPULATION_FILE
    if path.exists():
        try:
            held = json.loads(path.read_text(encoding="utf-8"))["identity"]
        except (OSError, ValueError, KeyError, TypeError):
            raise StudyError(f"{POPULATION_FILE} is not a population study file",
                             source=str(path)) from None
        if held != identity(spec):
            raise StudyError(f"this folder holds population study {held.get('name')!r} in "
                             "another configuration (population, variants, seed or "
                             "sampling); use another --out", source=str(root))


def identity(spec: PopulationSpec) -> dict[str, Any]:
    """What a folder must share with the spec to be resumed: every run's identity and the
    sampling (which decides the games); the profiles played only when not the default."""
    return {"name": spec.name, "study": spec.study.identity(), "bots": list(spec.bots),
            "curve": list(spec.curve), "margin": spec.margin,
            "round_games": spec.round_games, "max_games": spec.max_games,
            "curve_games": spec.curve_games,
            "variants": [v.name for v in spec.study.variants],
            **({} if spec.profiles == "deviations" else {"profiles": spec.profiles})}


def _shares(path: Path, unit: Unit, level: int) -> dict[Profile, np.ndarray]:
    """The first `level` games of each of a run's profiles: seat shares, shape (games,
    seats), in game order."""
    n = unit.players
    games = level * unit.per_level
    df = (load_run(path, allow_partial=True).players()
          .filter(pl.col("game_id") < games)
          .select("game_id", "seat", "win_share").sort("game_id", "seat").collect())
    table = df["win_share"].to_numpy().reshape(-1, n)
    ids = df["game_id"].to_numpy().reshape(-1, n)[:, 0]
    if len(ids) != games:
        raise StudyError(f"holds {len(ids)} of the {games} games this study needs; run the "
                         "same command again", source=str(path))
    out = {}
    for r, profile in enumerate(unit.profiles()):
        out[profile] = table[ids % unit.per_level == r]
    return out


def profile_games(spec: PopulationSpec, root: Path, n: int, levels: dict[Unit, int]
                  ) -> ProfileGames:
    """The games of every profile of the meta-game at `n` players, every variant."""
    per: dict[Profile, list[np.ndarray]] = {}
    for unit in (u for u in levels if u.players == n and not u.curve):
        for v in spec.study.variants:
            got = _shares(root / "runs" / unit.key(spec, v.name), unit, levels[unit])
            for p, arr in got.items():
                per.setdefault(p, []).append(arr)
    shares = {p: np.stack(a) for p, a in per.items()}
    return ProfileGames(len(spec.bots), n, len(spec.study.variants), shares)


def _unit_of(profile: Profile, us: list[Unit]) -> Unit:
    return next(u for u in us if profile in u.profiles())


def run_population(spec: PopulationSpec, out: str | Path, quiet: bool = False,
                   log: Callable[[str], None] | None = None,
                   execution: Execution | None = None,
                   rounds_limit: int | None = None) -> dict[str, Any]:
    """Play the study in rounds into `out/runs/`, writing `out/population.json` after every
    round (what each round decided); returns that record. With `rounds_limit` it stops
    after that many rounds (counted from the first: a study run again replays the rounds
    it played without playing a game), its status `stopped` while profiles could still
    move an answer; the same command with a higher limit, or none, continues it."""
    root = Path(out)
    root.mkdir(parents=True, exist_ok=True)
    check_folder(spec, root)
    say = log or (lambda _msg: None)
    us = units(spec)
    levels = {u: _start_level(spec, u) for u in us}
    rounds: list[dict[str, Any]] = []
    started = time.time()
    played = 0
    with Pool(execution or Execution(1)) as pool:
        before: dict[Unit, int] = {}
        for round_no in range(MAX_ROUNDS):
            games, now = _play_round(spec, root, us, levels, before, round_no, pool, quiet)
            played += now
            before = dict(levels)
            raised = _next_levels(spec, root, us, levels, round_no)
            rounds.append({"round": round_no, "games": games,
                           "profiles_on": sum(len(u.profiles()) for u in raised)})
            _write(root, spec, levels, rounds, "running", started, played)
            if not raised:
                break
            if rounds_limit is not None and round_no + 1 >= rounds_limit:
                say(f"stopped after round {round_no + 1} (--rounds): {len(raised)} runs could "
                    "still move an answer; run again without --rounds to continue")
                return _write(root, spec, levels, rounds, "stopped", started, played)
            for u in raised:
                levels[u] = min(levels[u] + spec.round_games, spec.max_games)
            say(f"round {round_no + 1}: {len(raised)} of {len([u for u in us if not u.curve])} "
                "runs go on (the others can no longer move an answer)")
    return _write(root, spec, levels, rounds, "complete", started, played)


def _play_round(spec: PopulationSpec, root: Path, us: list[Unit], levels: dict[Unit, int],
                before: dict[Unit, int], round_no: int, pool: Pool, quiet: bool
                ) -> tuple[int, int]:
    """Top every run up to its level (one progress bar for the round's new games); the
    games the study holds after the round, and the games this call played."""
    todo = [(u, v) for u in us for v in spec.study.variants]
    new = sum((levels[u] - before.get(u, 0)) * u.per_level for u, _ in todo)
    bar = progress_bar(new, 0, quiet, workers=pool.workers, desc=f"round {round_no + 1}")
    try:
        for u, v in todo:
            if levels[u] == before.get(u):
                continue  # this run's games are all played
            path = root / "runs" / u.key(spec, v.name)
            games = levels[u] * u.per_level
            held = games_held(path)
            if held > games:  # a later round (or a --rounds beyond this one) asked for more
                if _first_games(path, games):
                    continue
                games = held  # that round's top-up was interrupted: finish it
            Run(_config(spec, v, u, games), path).execute(quiet=quiet, pool=pool, bar=bar)
        bar.total = bar.n  # a resumed study finds some games already played
        bar.refresh()
    finally:
        bar.close()
    return sum(levels[u] * u.per_level for u, _ in todo), int(bar.n)


def _first_games(path: Path, games: int) -> bool:
    """Whether a run's whole shards hold its first `games` games."""
    try:
        ids = (load_run(path, allow_partial=True).games()
               .filter(pl.col("game_id") < games).select(pl.len()).collect().item())
    except PortobelloError:
        return False
    return int(ids) == games


def _next_levels(spec: PopulationSpec, root: Path, us: list[Unit], levels: dict[Unit, int],
                 round_no: int) -> list[Unit]:
    """The runs whose profiles can still move an answer and are below `max_games`."""
    raised: set[Unit] = set()
    has_next = spec.next is not None
    for n in spec.study.players:
        data = profile_games(spec, root, n, levels)
        for p in profiles_to_play(data, spec.margin, has_next, spec.study.seed, round_no,
                                  spec.profiles):
            u = _unit_of(p, us)
            if levels[u] < spec.max_games:
                raised.add(u)
    return [u for u in us if u in raised]


def _write(root: Path, spec: PopulationSpec, levels: dict[Unit, int],
           rounds: list[dict[str, Any]], status: str, started: float,
           played: int) -> dict[str, Any]:
    """Write `population.json`. Its `load` and `seconds` are the machine's load and the
    time of the last call that played games: a call that only replays the decisions (a
    report rebuilt, a study already complete) keeps those of the play."""
    timing = {"load": list(os.getloadavg()), "seconds": round(time.time() - started, 1)}
    if not played:
        try:
            held = json.loads((root / POPULATION_FILE).read_text(encoding="utf-8"))
            timing = {k: held[k] for k in ("load", "seconds")}
        except (OSError, ValueError, KeyError, TypeError):
            pass
    record = {"format": POPULATION_FORMAT, "status": status, "spec": spec.to_dict(),
              "spec_text": spec.study.text, "identity": identity(spec),
              "rounds": rounds,
              "runs": [{"key": u.key(spec, v.name), "players": u.players,
                        "variant": v.name, "level": levels[u],
                        "games": levels[u] * u.per_level,
                        "bots": [spec.bots[i] for i in u.agents] if not u.curve
                        else [u.curve] * u.players}
                       for u in levels for v in spec.study.variants], **timing}
    write_json_atomic(root / POPULATION_FILE, record)
    return record
