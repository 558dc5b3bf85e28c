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

Every outcome is kept in `tuning.json` under a key that names everything it depends on
(board, rules, seats, seed, phase, games), written atomically after each setting, so an
interrupted tuning resumes where it stopped: the searches replay from the log and play only
what is missing. A larger budget or more confirmation games extends a finished tuning.
The folder also gets `summary.json` and the recommended rules, one rules file per cell
(`rules/<cell>.toml`).

A River Market tuning (`game = "river-market"`) is the same steps on River Market's games:
its rows give every seat's extra Coins (`seat_coins`) where Portobello Market's give every
seat's start score (`start_scores`), and its summary names the game and its card set
(`cards`, `cards_hash` instead of `board`, `board_hash`); Portobello Market's log and
summary are as they were.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import sys
import time
from collections.abc import Callable
from contextlib import closing
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from typing import Any

from sim.engine.outputs import atomic_write
from sim.engine.toml_text import rules_toml
from sim.engine.toml_text import toml_value
from sim.run.execution import Execution
from sim.run.execution import Pool
from sim.run.loop import derive_seed
from sim.run.seam import PORTOBELLO
from sim.run.seam import kind
from sim.run.store import run_lock
from sim.run.store import write_json_atomic
from sim.run.task_store import TaskStore
from sim.tuning.fairness.knobs import GAME_KNOBS
from sim.tuning.fairness.knobs import Dimension
from sim.tuning.fairness.knobs import GameKnobs
from sim.tuning.fairness.knobs import rules_for
from sim.tuning.fairness.knobs import setting_dict
from sim.tuning.fairness.knobs import setting_label
from sim.tuning.fairness.outcome import Outcome
from sim.tuning.fairness.outcome import play
from sim.tuning.fairness.outcome import seeds
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

    stage: str  # baseline, search, profile, confirm, check-<i>
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
            for i, dim in enumerate(cell.dims):
                for v in self.profile_values(dim, best[i]):
                    self.measure("profile")((*best[:i], v, *best[i + 1:]))
        for setting in self.neighbours(best):
            self.measure("neighbourhood")(setting)
        finalists = self.ranked()[:spec.confirm_best]
        confirmed = [(s, self.outcome(s, "confirm", "confirm", spec.confirm_games))
                     for s in finalists]
        base_confirmed = self.outcome(None, "confirm", "confirm", spec.confirm_games)
        fair = [c for c in confirmed if c[1].fair()]
        pool = fair or confirmed
        chosen = min(pool, key=lambda c: (c[1].target(spec.target), finalists.index(c[0])))
        self.chosen = self.rules(chosen[0])
        profiles = [self.line_through(best, i) for i in range(len(cell.dims))]
        checks = [(check, self.outcome(chosen[0], f"check-{i}", f"check-{i}", check.games,
                                       check.agents))
                  for i, check in enumerate(cell.checks)]
        return self.summary(method, baseline, base_confirmed, best, profiles, confirmed,
                            chosen, bool(fair), checks)

    # -- the cell's summary ---------------------------------------------------------------
    def _row(self, setting: Setting | None, out: Outcome) -> dict[str, Any]:
        label = "rules as given" if setting is None else setting_label(self.cell.dims, setting)
        game = self.spec.knob_game
        return {"setting": None if setting is None else setting_dict(self.cell.dims, setting),
                "label": label, game.bonus: list(game.seat_values(self.rules(setting))),
                "games": out.games, "shares": out.shares(),
                "intervals": [list(i) for i in out.intervals()], "rounds": out.rounds,
                "gap": out.gap(), "target": out.target(self.spec.target), "fair": out.fair()}

    def fair_range(self, points: list[tuple[Any, Outcome]], dim: Dimension) -> Any:
        """A profile's values where every seat's search interval holds 1/n: [low, high]
        for an integer knob (None when no value does), the list of such choices else."""
        values = [v for v, o in points if o.fair()]
        if not dim.is_int:
            return [list(v) if isinstance(v, tuple) else v for v in values]
        return [min(values), max(values)] if values else None

    def summary(self, method: str, baseline: Outcome, base_confirmed: Outcome, best: Setting,
                profiles: list[list[tuple[Any, Outcome]]],
                confirmed: list[tuple[Setting, Outcome]], chosen: tuple[Setting, Outcome],
                confirmed_fair: bool, checks: list[Any]) -> dict[str, Any]:
        cell = self.cell
        rules = self.rules(chosen[0])
        history = [{"step": i, "stage": p.stage, **self._row(p.setting, p.outcome)}
                   for i, p in enumerate(q for q in self.trail if q.stage in EXPLORING)]
        return {
            "key": cell.key, "variant": cell.variant.name, "label": cell.variant.label,
            "description": cell.variant.description, "players": cell.players,
            "agents": list(cell.agents), "method": method,
            "dimensions": [d.to_dict() for d in cell.dims],
            "baseline": {"search": self._row(None, baseline),
                         "confirm": self._row(None, base_confirmed)},
            "best": setting_dict(cell.dims, best),
            "history": history,
            "profiles": [{"dimension": d.name, "fair_range": self.fair_range(pts, d),
                          "points": [{"value": v if not isinstance(v, tuple) else list(v),
                                      **self._row((*best[:i], v, *best[i + 1:]), o)}
                                     for v, o in pts]}
                         for i, (d, pts) in enumerate(zip(cell.dims, profiles, strict=False))],
            "confirmation": [{**self._row(s, o), "chosen": s == chosen[0]}
                             for s, o in confirmed],
            "recommended": {**self._row(*chosen), "confirmed": confirmed_fair,
                            "rules": rules.to_dict(changed_only=True),
                            "rules_file": f"rules/{cell.key}.toml"},
            "checks": [{"agents": list(c.agents), **self._row(chosen[0], o)}
                       for c, o in checks],
        }


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
        budgets = []
        for cell in spec.cells():
            total = 1 + spec.budget + spec.confirm_best + 1 + len(cell.checks)
            if spec.profile:
                total += sum(min(d.size(), 2 * PROFILE_REACH + 1) for d in cell.dims)
            total += spec.neighbourhood_size(len(cell.dims)) - 1
            budgets.append(total)
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
                    log(cell_line(result))
                rules_path = out / result["recommended"]["rules_file"]
                rules_path.parent.mkdir(exist_ok=True)
                atomic_write(rules_path, recommended_toml(spec, result, tuning.chosen).encode())
        material = kind(spec.game).material  # board, or River Market's cards
        summary = {"format": FORMAT, "name": spec.name, "title": spec.title,
                   "description": spec.description,
                   **({"game": spec.game} if spec.game != PORTOBELLO else {}),
                   material: spec.board_ref, f"{material}_hash": spec.board.content_hash,
                   "agents": spec.agents,
                   "seed": spec.seed, "target": spec.target.text(),
                   "search": {"method": spec.method, "budget": spec.budget,
                              "games": spec.games, "profile": spec.profile,
                              **({"neighbourhood": spec.neighbourhood}
                                 if spec.neighbourhood else {})},
                   "confirm": {"best": spec.confirm_best, "games": spec.confirm_games,
                               "checks": [{"agents": a, "games": g} for a, g in spec.checks]},
                   "spec": spec.text, "reduced": spec.reduced, "cells": cells}
        write_json_atomic(out / SUMMARY, summary)
        TaskStore(out / TASKS).clear()  # every setting is in the log
    return summary


def interval_text(share: float, interval: list[float]) -> str:
    return f"{share:.3f} [{interval[0]:.3f}, {interval[1]:.3f}]"


def row_game(row: dict[str, Any]) -> GameKnobs:
    """The game of a summary row: the one whose seat values it holds (`start_scores`,
    River Market's `seat_coins`)."""
    return next((g for g in GAME_KNOBS.values() if g.bonus in row), GAME_KNOBS[PORTOBELLO])


def cell_line(cell: dict[str, Any]) -> str:
    """One line per cell: the recommendation, every seat's value of the game's seat bonus
    (start scores, extra Coins) and every seat's confirmed share."""
    rec = cell["recommended"]
    seats = ", ".join(interval_text(s, i) for s, i in zip(rec["shares"], rec["intervals"],
                                                          strict=True))
    verdict = "fair" if rec["confirmed"] else "NOT confirmed fair"
    game = row_game(rec)
    values = ", ".join(map(str, rec[game.bonus]))
    return (f"{cell['key']}: {rec['label']} ({game.column} {values}): seats {seats} over "
            f"{rec['games']:,} games, {verdict}")


def river_rules_toml(rules: Any, source: str) -> str:
    """River Market's rules as a rules file (TOML): the switches that differ from the
    rulebook's, and the player count; `river_rules` reads back the same rules."""
    lines = [f"# River Market rules: {source}.",
             "# A rules file: pass it with --game river-market --rules FILE "
             "(docs/river-market.md)."]
    for key, value in rules.to_dict(changed_only=True).items():
        if value is not None:  # houses None: the rulebook's count, the default
            lines.append(f"{key} = {toml_value(value)}")
    return "\n".join(lines) + "\n"


def recommended_toml(spec: TuningSpec, cell: dict[str, Any], rules: Any) -> str:
    """The recommended rules as a rules file of the game, its header saying where they come
    from."""
    rec = cell["recommended"]
    verdict = ("every seat's confirmed 95% interval contains 1/n" if rec["confirmed"] else
               "NOT confirmed: some seat's confirmed interval excludes 1/n")
    source = (f"fairness tuning {spec.name}, cell {cell['key']}, {rec['label']}; {verdict} "
              f"({rec['games']:,} games of {', '.join(dict.fromkeys(cell['agents']))})")
    return rules_toml(rules, source) if spec.game == PORTOBELLO else \
        river_rules_toml(rules, source)
