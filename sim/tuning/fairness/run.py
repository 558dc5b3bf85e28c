"""Running a fairness tuning: per cell, the search, the profiles, the confirmation and the
checks, into a tuning folder that resumes.

For each cell (variant x player count):

1. the fixed rules as given (the *baseline*) and the search's settings are played on the
   search seeds (common random numbers, `search.games` games each);
2. *profiles*: from the search's best setting, each knob alone is moved over its values
   (every value of a choice, the best integer value +-PROFILE_REACH) on the search seeds,
   the others held, so the report can draw each seat's share against each knob and give
   each knob's *fair range* (the values where every seat's interval still holds 1/n); a
   profile also holds the search's own settings on that line (all of them for a single
   knob, so a spec with `profile = false` still gets its figure);
   *neighbourhood* (`search.neighbourhood = k`, 0 by default): every setting within k steps
   of the search's best in every knob at once, on the search seeds (a profile moves one
   knob; where the shares move unsteadily, a fair setting may need two knobs moved);
3. the best few settings by the target among all those played (the search's, the
   profiles' and the neighbourhood's: where the shares do not move steadily with a knob,
   as with the learned agent's, these find fair settings the search's fit steps over) and
   the baseline
   are played again on fresh seeds with `confirm.games` games: the *recommendation* is the
   confirmed setting with the lowest target among those whose every seat's 95% interval
   contains 1/n, or, when none does, the lowest target, reported as not confirmed;
4. each `confirm.checks` line-up (other agents, e.g. a search) plays the recommendation on
   seeds of its own.

A spec of several levels of play (`agents = [cheapest, ..., dearest]`) explores with the
cheapest agent (steps 1 and 2), then races the settings played through the dearer levels
(`sim.tuning.fairness.race`) for the finalists, which every level plays in the
confirmation; a setting's target is then its worst level's, it is fair when it is fair at
every level, and its rows give every level's shares (`levels`). With `stage_budget` (set by
`--budget`) the profiles and the neighbourhood each play at most that many settings a cell,
the nearest to the search's best.

Every outcome is kept in `tuning.json` under a key that names everything it depends on
(board, rules, seats, seed, phase, games), written atomically after each setting, so an
interrupted tuning resumes where it stopped: the searches replay from the log and play only
what is missing. A larger budget or more confirmation games extends a finished tuning.
The folder also gets `summary.json` and the recommended rules, one rules file per cell
(`rules/<cell>.toml`).

A tuning of another game than the default (`game = NAME`) is the same steps on that game's
games: its rows give every seat's value of its seat bonus (the key its tuning module names,
`SEAT_BONUS`), its summary names the game and its material under the game's key (with
`<key>_hash`), and its recommended rules are written as the game's rules files (its tuning
facet's `rules_file`); the default game's log and summary are as they were.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import sys
import time
from collections.abc import Callable
from collections.abc import Sequence
from contextlib import closing
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from typing import Any

from sim.core.outputs import atomic_write
from sim.games.registry import default_game
from sim.games.registry import kind
from sim.games.registry import kinds
from sim.run.execution import Execution
from sim.run.execution import Pool
from sim.run.loop import derive_seed
from sim.run.store import run_lock
from sim.run.store import write_json_atomic
from sim.run.task_store import TaskStore
from sim.tuning.fairness.knobs import Dimension
from sim.tuning.fairness.knobs import GameKnobs
from sim.tuning.fairness.knobs import game_knobs
from sim.tuning.fairness.knobs import rules_for
from sim.tuning.fairness.knobs import setting_dict
from sim.tuning.fairness.knobs import setting_label
from sim.tuning.fairness.outcome import Outcome
from sim.tuning.fairness.outcome import play
from sim.tuning.fairness.outcome import seeds
from sim.tuning.fairness.race import STOPS
from sim.tuning.fairness.race import Race
from sim.tuning.fairness.race import minimax
from sim.tuning.fairness.race import race
from sim.tuning.fairness.race import worst_bounds
from sim.tuning.fairness.race import worst_level
from sim.tuning.fairness.search import SEARCHES
from sim.tuning.fairness.search import Setting
from sim.tuning.fairness.search import method_for
from sim.tuning.fairness.spec import TuneCell
from sim.tuning.fairness.spec import TuningError
from sim.tuning.fairness.spec import TuningSpec

LOG = "tuning.json"
TASKS = "tasks"  # a setting's finished tasks while it is played (sim.run.task_store)
SUMMARY = "summary.json"
FORMAT = "portobello-fairness/1"
PROFILE_REACH = 6  # integer values each side of the best a profile plays
EXPLORING = ("baseline", "search", "profile", "neighbourhood")  # the stages a history shows
RACE = "race"  # the stage of a dearer level's game of a setting on the search's seeds


@dataclass
class Book:
    """The tuning log: every outcome played so far, by key."""

    path: Path
    name: str
    outcomes: dict[str, dict[str, Any]] = field(default_factory=dict)

    @classmethod
    def open(cls, out: Path, name: str) -> Book:
        path = out / LOG
        if not path.exists():
            return cls(path, name)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            if data.get("format") != FORMAT or not isinstance(data.get("outcomes"), dict):
                raise ValueError("not a fairness tuning log")
        except (ValueError, OSError, AttributeError) as exc:
            raise TuningError(f"cannot resume: {exc}; remove the folder or use another "
                              "--out", source=str(path)) from None
        if data.get("name") != name:
            raise TuningError(f"holds the tuning {data.get('name')!r}, not {name!r}; use "
                              "another --out", source=str(path))
        return cls(path, name, data["outcomes"])

    def save(self) -> None:
        write_json_atomic(self.path, {"format": FORMAT, "name": self.name,
                                      "outcomes": self.outcomes})


def outcome_key(spec: TuningSpec, rules: Any, lineup: tuple[str, ...], phase: str,
                games: int) -> str:
    """Everything an outcome depends on, hashed."""
    text = json.dumps([spec.board.content_hash, rules.to_dict(), list(lineup), spec.seed,
                       phase, games], sort_keys=True, default=str)
    return hashlib.blake2b(text.encode(), digest_size=12).hexdigest()


@dataclass
class Played:
    """One setting's outcome in a phase, in the order the tuning played it."""

    stage: str  # baseline, search, profile, neighbourhood, race, confirm, check-<i>
    setting: Setting | None  # None: the baseline (the fixed rules as given)
    outcome: Outcome


class CellTuning:
    """One cell's tuning: plays (or reads from the book) the outcomes its steps ask for."""

    def __init__(self, spec: TuningSpec, cell: TuneCell, book: Book, pool: Pool,
                 tick: Callable[[str, int], None]) -> None:
        self.spec, self.cell, self.book, self.pool, self.tick = spec, cell, book, pool, tick
        self.store = TaskStore(book.path.parent / TASKS)
        self.trail: list[Played] = []
        self.search: dict[Setting, Outcome] = {}
        self.race: Race | None = None  # with several levels of play, once raced
        self.chosen = cell.fixed  # the recommended rules, once run

    def rules(self, setting: Setting | None) -> Any:
        return self.cell.fixed if setting is None else rules_for(self.cell.dims, setting,
                                                                 self.cell.fixed)

    def outcome(self, setting: Setting | None, stage: str, phase: str, games: int,
                lineup: tuple[str, ...] | None = None) -> Outcome:
        lineup = lineup or self.cell.agents
        rules = self.rules(setting)
        key = outcome_key(self.spec, rules, lineup, phase, games)
        played = 0
        if key in self.book.outcomes:
            out = Outcome.from_dict(self.book.outcomes[key])
        else:
            out = play(self.spec.board, rules, lineup, seeds(self.spec.seed, phase, games),
                       self.pool, self.store, game=self.spec.game)
            self.book.outcomes[key] = out.to_dict()
            self.book.save()
            played = games
        self.trail.append(Played(stage, setting, out))
        label = "baseline" if setting is None else setting_label(self.cell.dims, setting)
        self.tick(f"{self.cell.key} {stage}: {label}", played)
        return out

    def at_every_level(self, setting: Setting | None, stage: str, phase: str, games: int
                       ) -> list[Outcome]:
        """A setting's outcome with every level's line-up, cheapest first."""
        return [self.outcome(setting, stage, phase, games, lineup)
                for lineup in self.cell.lineups]

    def measure(self, stage: str) -> Callable[[Setting], Outcome]:
        def measure(setting: Setting) -> Outcome:
            if setting not in self.search:
                self.search[setting] = self.outcome(setting, stage, "search", self.spec.games)
            return self.search[setting]
        return measure

    def ranked(self) -> list[Setting]:
        """Settings by the search's target, best first (ties: the one played first)."""
        order = list(self.search)
        return sorted(order, key=lambda s: (self.search[s].target(self.spec.target),
                                            order.index(s)))

    def profile_values(self, dim: Dimension, best: Any) -> list[Any]:
        if not dim.is_int:
            return dim.values()
        return [v for v in dim.values() if abs(v - best) <= PROFILE_REACH]

    def steps(self, setting: Setting, best: Setting) -> tuple[int, int]:
        """How far a setting is from `best`: the most steps along any knob's values, then
        the steps along all of them."""
        far = [abs(d.values().index(v) - d.values().index(b))
               for d, v, b in zip(self.cell.dims, setting, best, strict=True)]
        return max(far), sum(far)

    def stage_settings(self, settings: list[Setting], best: Setting) -> list[Setting]:
        """The settings a stage (the profiles, the neighbourhood) asks for that were not
        played yet, in the stage's order: all of them, or, with a stage budget, that many,
        the nearest to `best` (ties: the stage's order)."""
        new = list(dict.fromkeys(s for s in settings if s not in self.search))
        bound = self.spec.stage_budget
        if bound is None or len(new) <= bound:
            return new
        kept = set(sorted(new, key=lambda s: self.steps(s, best))[:bound])  # sorted is stable
        return [s for s in new if s in kept]

    def neighbours(self, best: Setting) -> list[Setting]:
        """Every setting within `search.neighbourhood` steps of `best` in each knob (steps
        along the knob's values), `best` itself left out; none when the reach is 0."""
        k = self.spec.neighbourhood
        if not k:
            return []
        near = []
        for dim, b in zip(self.cell.dims, best, strict=True):
            values = dim.values()
            at = values.index(b)
            near.append(values[max(0, at - k):at + k + 1])
        return [s for s in itertools.product(*near) if s != tuple(best)]

    def line_through(self, best: Setting, i: int) -> list[tuple[Any, Outcome]]:
        """Every setting played that differs from `best` in knob i alone (and `best`), in
        the knob's order: the profile, and any search settings on the same line."""
        dim = self.cell.dims[i]
        order = dim.values()
        on_line = [(s[i], o) for s, o in self.search.items()
                   if all(s[j] == best[j] for j in range(len(best)) if j != i)]
        return sorted(on_line, key=lambda p: order.index(p[0]))

    def run(self) -> dict[str, Any]:
        spec, cell = self.spec, self.cell
        baseline = self.outcome(None, "baseline", "search", spec.games)
        method = method_for(cell.dims, spec.method, spec.budget)
        SEARCHES[method](cell.dims, self.measure("search"), spec.budget, spec.target,
                         derive_seed(spec.seed, "search", cell.key))
        best = self.ranked()[0]
        if spec.profile:  # before the finalists: a profile's settings may be among them
            line = [(*best[:i], v, *best[i + 1:]) for i, dim in enumerate(cell.dims)
                    for v in self.profile_values(dim, best[i])]
            for setting in self.stage_settings(line, best):
                self.measure("profile")(setting)
        for setting in self.stage_settings(self.neighbours(best), best):
            self.measure("neighbourhood")(setting)
        finalists = self.raced() if cell.levels else self.ranked()[:spec.confirm_best]
        confirmed = [(s, self.at_every_level(s, "confirm", "confirm", spec.confirm_games))
                     for s in finalists]
        base_confirmed = self.at_every_level(None, "confirm", "confirm", spec.confirm_games)
        fair = [c for c in confirmed if all(o.fair() for o in c[1])]
        pool = fair or confirmed
        chosen = min(pool, key=lambda c: (minimax(c[1], spec.target), finalists.index(c[0])))
        self.chosen = self.rules(chosen[0])
        profiles = [self.line_through(best, i) for i in range(len(cell.dims))]
        checks = [(check, self.outcome(chosen[0], f"check-{i}", f"check-{i}", check.games,
                                       check.agents))
                  for i, check in enumerate(cell.checks)]
        return self.summary(method, baseline, base_confirmed, best, profiles, confirmed,
                            chosen, bool(fair), checks)

    def raced(self) -> list[Setting]:
        """The finalists of a spec of several levels: every setting played so far (the
        cheapest level's) raced through the dearer levels on the search's seeds."""
        lineups, spec = self.cell.lineups, self.spec
        self.race = race(list(self.search), self.search,
                         lambda s, level: self.outcome(s, RACE, "search", spec.games,
                                                       lineups[level]),
                         len(lineups), spec.confirm_best, spec.margin, spec.target)
        return self.race.finalists

    # -- the cell's summary ---------------------------------------------------------------
    def _where(self, setting: Setting | None) -> dict[str, Any]:
        """A row's setting: its knobs' values, its label and every seat's bonus value."""
        label = "rules as given" if setting is None else setting_label(self.cell.dims, setting)
        game = self.spec.knob_game
        return {"setting": None if setting is None else setting_dict(self.cell.dims, setting),
                "label": label, game.bonus: list(game.seat_values(self.rules(setting)))}

    def _stats(self, out: Outcome) -> dict[str, Any]:
        """A row's games: every seat's share and interval, the length, gap and target."""
        return {"games": out.games, "shares": out.shares(),
                "intervals": [list(i) for i in out.intervals()], "rounds": out.rounds,
                "gap": out.gap(), "target": out.target(self.spec.target), "fair": out.fair()}

    def _row(self, setting: Setting | None, out: Outcome) -> dict[str, Any]:
        return {**self._where(setting), **self._stats(out)}

    def _levels_row(self, setting: Setting | None, outs: Sequence[Outcome]
                    ) -> dict[str, Any]:
        """A setting at every level played: one level's row as it is; several, the worst
        level's row (`worst` names it) with the worst gap and target, fair when fair at
        every level, and every level's own (`levels`)."""
        if len(outs) == 1:
            return self._row(setting, outs[0])
        worst = worst_level(outs, self.spec.target)
        return {**self._row(setting, outs[worst]), "gap": max(o.gap() for o in outs),
                "target": minimax(outs, self.spec.target),
                "fair": all(o.fair() for o in outs), "worst": self.spec.level_specs[worst],
                "levels": self._by_level(outs)}

    def _by_level(self, outs: Sequence[Outcome]) -> list[dict[str, Any]]:
        """The games of each level played, cheapest first, its agents named."""
        return [{"agents": a, **self._stats(o)}
                for a, o in zip(self.spec.level_specs, outs, strict=False)]

    def race_summary(self) -> dict[str, Any]:
        """What the race did: the games each level played and saved on the search's seeds,
        and every candidate's worst-gap bounds by level, where it stopped and why."""
        assert self.race is not None
        specs, race_ = self.spec.level_specs, self.race
        rows = []
        for s in race_.candidates:
            outs = race_.results[s]
            stop = race_.stops.get(s)  # none: a finalist
            rows.append({**self._where(s), "target": minimax(outs, self.spec.target),
                         "bounds": [list(worst_bounds(outs[:i + 1])) for i in
                                    range(len(outs))],
                         "levels": self._by_level(outs), "finalist": stop is None,
                         "stopped": None if stop is None else {
                             "after": specs[stop[0]], "why": stop[1],
                             "text": STOPS[stop[1]]}})
        return {"margin": self.spec.margin, "candidates": len(race_.candidates),
                "finalists": len(race_.finalists),
                "games": race_.games(self.spec.games, specs), "settings": rows}

    def fair_range(self, points: list[tuple[Any, Outcome]], dim: Dimension) -> Any:
        """A profile's values where every seat's search interval holds 1/n: [low, high]
        for an integer knob (None when no value does), the list of such choices else."""
        values = [v for v, o in points if o.fair()]
        if not dim.is_int:
            return [list(v) if isinstance(v, tuple) else v for v in values]
        return [min(values), max(values)] if values else None

    def summary(self, method: str, baseline: Outcome, base_confirmed: list[Outcome],
                best: Setting, profiles: list[list[tuple[Any, Outcome]]],
                confirmed: list[tuple[Setting, list[Outcome]]],
                chosen: tuple[Setting, list[Outcome]], confirmed_fair: bool,
                checks: list[Any]) -> dict[str, Any]:
        cell = self.cell
        rules = self.rules(chosen[0])
        history = [{"step": i, "stage": p.stage, **self._row(p.setting, p.outcome)}
                   for i, p in enumerate(q for q in self.trail if q.stage in EXPLORING)]
        out = {
            "key": cell.key, "variant": cell.variant.name, "label": cell.variant.label,
            "description": cell.variant.description, "players": cell.players,
            "agents": list(cell.agents), "method": method,
            "dimensions": [d.to_dict() for d in cell.dims],
            "baseline": {"search": self._row(None, baseline),
                         "confirm": self._levels_row(None, base_confirmed)},
            "best": setting_dict(cell.dims, best),
            "history": history,
            "profiles": [{"dimension": d.name, "fair_range": self.fair_range(pts, d),
                          "points": [{"value": v if not isinstance(v, tuple) else list(v),
                                      **self._row((*best[:i], v, *best[i + 1:]), o)}
                                     for v, o in pts]}
                         for i, (d, pts) in enumerate(zip(cell.dims, profiles, strict=False))],
            "confirmation": [{**self._levels_row(s, o), "chosen": s == chosen[0]}
                             for s, o in confirmed],
            "recommended": {**self._levels_row(*chosen), "confirmed": confirmed_fair,
                            "rules": rules.to_dict(changed_only=True),
                            "rules_file": f"rules/{cell.key}.toml"},
            "checks": [{"agents": list(c.agents), **self._row(chosen[0], o)}
                       for c, o in checks],
        }
        if self.race is not None:
            out["levels"] = list(self.spec.level_specs)
            out["race"] = self.race_summary()
        return out


def progress_bar(total: int, desc: str, quiet: bool) -> Any:
    """The tuning's one bar: one step per setting played in any cell (the baseline, each
    searched setting, the confirmations, the profile and the checks; the postfix names
    the step, the workers and the games per second)."""
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, unit="step", disable=quiet, file=sys.stderr,
                leave=True, dynamic_ncols=True)


def tune_rules(spec: TuningSpec, out: Path, jobs: int = 1, quiet: bool = False,
               log: Callable[[str], None] | None = None,
               before_play: Callable[[], None] | None = None,
               execution: Execution | None = None) -> dict[str, Any]:
    """Run (or resume) every cell of the tuning in `out`; the summary (also written to
    `out/summary.json`, with one recommended rules file per cell under `out/rules/`).
    `before_play` runs once the folder is known to be this tuning's, before any game (the
    command line compiles the compiled engine there, so a wrong folder is refused first).
    The games go to one pool for the whole tuning (`execution`, else `jobs` local
    processes); a setting's outcome is logged as soon as it is played, so a stopped tuning
    resumes from the last finished setting."""
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise TuningError(f"cannot create the tuning folder: {exc.strerror or exc}",
                          source=str(out)) from None
    cells = []
    with run_lock(out):
        book = Book.open(out, spec.name)
        if before_play is not None:
            before_play()
        budgets = [cell_steps(spec, cell) for cell in spec.cells()]
        with Pool(execution or Execution(jobs)) as pool, \
                closing(progress_bar(sum(budgets), spec.name, quiet)) as bar:
            workers = f"{pool.workers} worker{'s' if pool.workers != 1 else ''}"
            start, games = time.perf_counter(), [0]

            def tick(text: str, played: int) -> None:
                games[0] += played
                rate = games[0] / max(time.perf_counter() - start, 1e-9)
                bar.update(1)
                bar.set_postfix_str(f"{text[:50]}; {workers}, {rate:,.0f} games/s")

            for cell, budget in zip(spec.cells(), budgets, strict=True):
                tuning = CellTuning(spec, cell, book, pool, tick)
                before = bar.n
                result = tuning.run()
                # The budget was a bound (a search may stop early, a profile reuse settings
                # the search played): the bar's total drops what the cell did not play.
                bar.total -= budget - (bar.n - before)
                bar.refresh()
                cells.append(result)
                if log:
                    log(cell_line(result, spec.game))
                rules_path = out / result["recommended"]["rules_file"]
                rules_path.parent.mkdir(exist_ok=True)
                atomic_write(rules_path, recommended_toml(spec, result, tuning.chosen).encode())
        material = kind(spec.game).material  # board, or River Market's cards
        summary = {"format": FORMAT, "name": spec.name, "title": spec.title,
                   "description": spec.description,
                   **({"game": spec.game} if spec.game != default_game() else {}),
                   material: spec.board_ref, f"{material}_hash": spec.board.content_hash,
                   "agents": ", ".join(spec.level_specs),
                   **({"levels": list(spec.levels)} if spec.levels else {}),
                   "seed": spec.seed, "target": spec.target.text(),
                   "search": {"method": spec.method, "budget": spec.budget,
                              "games": spec.games, "profile": spec.profile,
                              **({"neighbourhood": spec.neighbourhood}
                                 if spec.neighbourhood else {}),
                              **({"margin": spec.margin} if spec.levels else {}),
                              **({"stage_budget": spec.stage_budget}
                                 if spec.stage_budget is not None else {})},
                   "confirm": {"best": spec.confirm_best, "games": spec.confirm_games,
                               "checks": [{"agents": a, "games": g} for a, g in spec.checks]},
                   "spec": spec.text, "reduced": spec.reduced, "cells": cells}
        if spec.levels:
            summary["race"] = race_totals(spec, cells)
        write_json_atomic(out / SUMMARY, summary)
        TaskStore(out / TASKS).clear()  # every setting is in the log
    return summary


def cell_steps(spec: TuningSpec, cell: TuneCell) -> int:
    """A bound on the settings a cell plays, one progress step each: the baseline, the
    search, the profiles, the neighbourhood, every dearer level's race (at most every
    setting explored), the finalists and the baseline at every level, and the checks."""
    bound = spec.stage_budget
    profile = sum(min(d.size(), 2 * PROFILE_REACH + 1) for d in cell.dims) \
        if spec.profile else 0
    around = spec.neighbourhood_size(len(cell.dims)) - 1
    if bound is not None:
        profile, around = min(profile, bound), min(around, bound)
    explored = spec.budget + profile + around
    levels = len(cell.lineups)
    return (1 + explored + explored * max(levels - 2, 0)
            + (spec.confirm_best + 1) * levels + len(cell.checks))


def race_totals(spec: TuningSpec, cells: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The race's games over every cell: played and saved on the search's seeds, in all and
    by level, against playing every candidate with every level."""
    levels = [{"agents": a, "games": 0, "saved": 0} for a in spec.level_specs]
    every = played = 0
    for cell in cells:
        games = cell["race"]["games"]
        every, played = every + games["every"], played + games["played"]
        for total, level in zip(levels, games["by_level"], strict=True):
            total["games"] += level["games"]
            total["saved"] += level["saved"]
    return {"margin": spec.margin, "every": every, "played": played, "saved": every - played,
            "by_level": levels}


def race_line(summary: dict[str, Any]) -> str | None:
    """The closing line of a tuning of several levels: the games racing saved (None for one
    level)."""
    race_ = summary.get("race")
    if not race_:
        return None
    share = race_["saved"] / race_["every"] if race_["every"] else 0.0
    by = ", ".join(f"{level['agents']} {level['saved']:,}" for level in race_["by_level"]
                   if level["saved"])
    return (f"racing saved {race_['saved']:,} of {race_['every']:,} search-seed games "
            f"({share:.0%}) against playing every candidate with every level ({by})")


def interval_text(share: float, interval: list[float]) -> str:
    return f"{share:.3f} [{interval[0]:.3f}, {interval[1]:.3f}]"


def row_game(row: dict[str, Any]) -> GameKnobs:
    """The game of a summary row: the registered game with a fairness tuning whose seat
    values it holds (`start_scores`, River Market's `seat_coins`); the default game's if
    none's."""
    for game in kinds():
        if kind(game).has("tuning") and getattr(kind(game).facet("tuning"), "SEAT_BONUS",
                                                None) in row:
            return game_knobs(game)
    return game_knobs(default_game())


def seats_text(row: dict[str, Any]) -> str:
    """Every seat's share and interval in a row."""
    return ", ".join(interval_text(s, i) for s, i in zip(row["shares"], row["intervals"],
                                                         strict=True))


def cell_line(cell: dict[str, Any], game_name: str | None = None) -> str:
    """One line per cell of `game_name` (else of the game whose seat values its rows hold):
    the recommendation, every seat's value of the game's seat bonus (start scores, extra
    Coins) and every seat's confirmed share (at every level, when the spec lists several:
    then a recommendation not fair at every level is the best compromise, its worst gap
    said)."""
    rec = cell["recommended"]
    game = game_knobs(game_name) if game_name else row_game(rec)
    values = ", ".join(map(str, rec[game.bonus]))
    head = f"{cell['key']}: {rec['label']} ({game.column} {values}): "
    if "levels" not in rec:
        verdict = "fair" if rec["confirmed"] else "NOT confirmed fair"
        return f"{head}seats {seats_text(rec)} over {rec['games']:,} games, {verdict}"
    levels = "; ".join(f"{level['agents']} {seats_text(level)}" for level in rec["levels"])
    verdict = "fair at every level" if rec["confirmed"] else (
        f"NOT confirmed fair at every level: the best compromise, worst gap "
        f"{rec['gap']:.3f} ({rec['worst']})")
    return f"{head}seats {levels}; over {rec['games']:,} games each, {verdict}"


def recommended_toml(spec: TuningSpec, cell: dict[str, Any], rules: Any) -> str:
    """The recommended rules as a rules file of the game, its header saying where they come
    from."""
    rec = cell["recommended"]
    verdict = ("every seat's confirmed 95% interval contains 1/n" if rec["confirmed"] else
               "NOT confirmed: some seat's confirmed interval excludes 1/n")
    if "levels" in cell:
        verdict = (f"{verdict} at every level" if rec["confirmed"] else
                   f"{verdict} at some level; the best compromise, worst gap "
                   f"{rec['gap']:.3f} ({rec['worst']})")
        who = f"games each of {', '.join(cell['levels'])}"
    else:
        who = f"games of {', '.join(dict.fromkeys(cell['agents']))}"
    source = (f"fairness tuning {spec.name}, cell {cell['key']}, {rec['label']}; {verdict} "
              f"({rec['games']:,} {who})")
    return game_knobs(spec.game).rules_file(rules, source)
