"""Precision on demand: play a cell in rounds until every seat's win share is known to
the precision asked, or a maximum number of games is reached.

A study spec asks for it with `max_games` (one number, or a table by player count) next
to `target_half_width`; `portobello simulate` with `--target-half-width` and
`--max-games`. `games` (`--games`) is then the first round, and `round_games`
(`--round-games`, default: the first round's size) the size of every later round.

The stopping rule (`RULE`): after the first round and after every later one (a *look*),
compute every seat's 95% Wilson interval on all games played so far, exactly as the
report does (`analysis.metrics.wilson_interval`, a game is one trial, a k-way tie gives
each winner 1/k); stop at the first look where the widest half-width is within the
target, else at the maximum. The interval the report shows for the cell is that same 95%
Wilson interval on all its games. The rule looks at the intervals' widths only, which
depend on the shares through p(1 - p) alone, flat near the shares of a game's seats, so
stopping hardly selects on where the share falls and the reported intervals keep their
coverage: `tests/test_precision.py` measures it on Bernoulli and categorical draws (with
ties) played through this module's own `Plan` (`COVERAGE`).

Game i keeps its seed whatever the number of games, so a cell stopped at N games is the
first N games of the fixed-count run of the same configuration: the same seed gives the
same results, a cell stopped at its maximum tops up when the maximum grows, and a cell
interrupted mid-round resumes (the looks before it are decided again on the same games,
so it continues exactly as an uninterrupted one would).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow.parquet as pq

from analysis.metrics import wilson_interval
from analysis.study.switches import StudyError
from analysis.study.switches import is_int
from sim.run.config import games_error
from sim.run.execution import Execution
from sim.run.execution import Pool
from sim.run.execution import pool_for
from sim.run.runner import Run
from sim.run.runner import RunConfig
from sim.run.runner import RunError
from sim.run.store import shard_path

LEVEL = 0.95  # the report's interval level: the stop is judged on the intervals it shows
MAX_LOOKS = 200  # rounds of a cell at most: every look re-reads the cell's tables
RULE_ID = "wilson-width/1"
RULE = ("sequential fixed-width rule (wilson-width/1): the first round, then rounds of "
        "round_games, stopping at the first look where every seat's 95% Wilson win-share "
        "half-width is within target_half_width, else at max_games; the interval shown is "
        "the plain 95% Wilson interval on all games played")
# Measured by tests/test_precision.py, which checks these numbers against its own run:
# the coverage of the reported 95% intervals in 7 scenarios of 10,000 simulated cells each
# (2 to 4 seats, ties, targets 0.012 to 0.05, 15 to 79 looks, one scenario often ending at
# the maximum): the lowest and the mean of the scenarios' coverage pooled over seats, the
# lowest single seat, and the most a seat lost against the same interval at the same game
# counts drawn with no stopping rule (the Wilson interval's own swing with n and p aside).
COVERAGE = {"replications": 10_000, "scenarios": 7, "lowest": 0.9455, "mean": 0.9516,
            "lowest_seat": 0.9414, "largest_loss": 0.0046}
STOPPED = ("target", "maximum")
__all__ = ["COVERAGE", "FLAG_FIELDS", "LEVEL", "MAX_LOOKS", "RULE", "RULE_ID", "SPEC_FIELDS",
           "STOPPED", "Outcome", "Plan", "PrecisionError", "PrecisionFlagError", "make_plan",
           "outcome_line", "parse_precision", "play_to_precision", "precision_block",
           "seat_wins"]


class PrecisionError(StudyError):
    """A precision request that cannot be played (a bad target, maximum or round size):
    in a spec, exit status 1 like every spec error; nothing written."""


class PrecisionFlagError(PrecisionError):
    """The same refusal for `simulate`'s flags: exit status 2, like any bad flag."""

    exit_code = 2


@dataclass(frozen=True)
class Plan:
    """One cell's stopping rule: the looks it may stop at and the test at each look.

    `first` games, then rounds of `step`, never beyond `maximum`; stop at the first look
    where every seat's `LEVEL` Wilson half-width is at most `target` (`met`), else at the
    last look (`stopping_look`). The same code decides a real cell (`play_to_precision`)
    and the simulated ones of the coverage test."""

    target: float
    first: int
    step: int
    maximum: int

    def looks(self) -> list[int]:
        """The game counts at which the rule looks: first, first + step, ..., maximum."""
        return [*range(self.first, self.maximum, self.step), self.maximum]

    def half_widths(self, wins: Any, games: Any) -> np.ndarray:
        """Every seat's Wilson half-width: `wins[..., seat]` summed win shares over
        `games` (broadcast against `wins` without its seat axis)."""
        w = np.asarray(wins, dtype=float)
        n = np.broadcast_to(np.asarray(games, dtype=float)[..., None], w.shape)
        lo, hi = wilson_interval(w, n, LEVEL)
        return (hi - lo) / 2

    def widest(self, wins: Any, games: Any) -> np.ndarray:
        """The widest seat half-width (what the rule compares with the target)."""
        return self.half_widths(wins, games).max(axis=-1)

    def met(self, wins: Any, games: Any) -> np.ndarray:
        """Whether every seat's interval is within the target."""
        return self.widest(wins, games) <= self.target

    def stops(self, met: bool, look: int) -> bool:
        """Whether the rule stops at look number `look` (from 0), given whether it meets
        the target: at the first look that does, else at the last look."""
        return bool(met) or look == len(self.looks()) - 1

    def stopping_look(self, met: Any) -> np.ndarray:
        """The index of the look the rule stops at, given `met[..., look]` for every look
        of `looks()`: the first look that meets the target, else the last one (`stops`
        applied look after look, for many cells at once)."""
        m = np.asarray(met, dtype=bool).copy()
        m[..., -1] = True
        return m.argmax(axis=-1)

    def to_dict(self) -> dict[str, Any]:
        """The plan as the manifest, study.json and the report record it."""
        return {"rule": RULE_ID, "level": LEVEL, "target_half_width": self.target,
                "first_games": self.first, "round_games": self.step,
                "max_games": self.maximum}


# -- validation ---------------------------------------------------------------------------
SPEC_FIELDS = {"target": "target_half_width", "first": "games", "step": "round_games",
               "maximum": "max_games"}
FLAG_FIELDS = {"target": "--target-half-width", "first": "--games",
               "step": "--round-games", "maximum": "--max-games"}


def make_plan(target: Any, first: Any, step: Any, maximum: Any, *, source: str | None = None,
              fields: Mapping[str, str] = SPEC_FIELDS, where: str = "",
              multiple: int = 1) -> Plan:
    """A checked `Plan`; a bad value raises `PrecisionError` naming the source, the field
    (`fields`: the spec's keys or the flags) and the reason. `where` (` at 3 players`)
    places a table entry; `multiple` is the player count when the seats hold different
    agents: every look must then be a multiple of it, so each agent sits in every seat
    equally often."""
    def fail(key: str, reason: str) -> PrecisionError:
        return PrecisionError(reason, source=source, field=fields[key])

    if (not isinstance(target, int | float) or isinstance(target, bool)
            or not 0 < target < 0.5):
        raise fail("target", f"must be a number between 0 and 0.5 (e.g. 0.015 for ±1.5 "
                             f"points), got {target!r}")
    for key, value in (("first", first), ("maximum", maximum), ("step", step)):
        problem = games_error(value)
        if problem is not None:
            raise fail(key, f"{problem}{where}")
    if maximum < first:
        raise fail("maximum", f"{maximum}{where} is below {fields['first']} = {first}, the "
                              f"first round; give at least {first}")
    if multiple > 1:
        for key, value in (("first", first), ("step", step), ("maximum", maximum)):
            if value % multiple:
                raise fail(key, f"{value}{where} with different agents: use a multiple of "
                                f"{multiple} so every agent sits in every seat equally "
                                "often")
    rounds = 1 + -(-(maximum - first) // step)
    if rounds > MAX_LOOKS:
        least = -(-(maximum - first) // (MAX_LOOKS - 1))
        raise fail("step", f"{step}{where} makes {rounds:,} rounds from {first:,} to "
                           f"{maximum:,} games; at most {MAX_LOOKS} (give at least {least})")
    return Plan(float(target), first, step, maximum)


PerPlayers = Callable[[Any, Sequence[int], str, str], dict[int, Any]]


def parse_precision(data: Mapping[str, Any], players: Sequence[int],
                    games: Mapping[int, int], agents: Mapping[int, Sequence[str]],
                    source: str, per_players: PerPlayers) -> dict[int, Plan] | None:
    """The plans a study spec asks for, by player count (None: fixed games, as without
    `max_games`). `per_players` reads a value or a table by player count (the spec's own
    reader, so tables are checked alike); every refusal is a `PrecisionError`."""
    if "max_games" not in data:
        if "round_games" in data:
            raise PrecisionError("goes with max_games (rounds are played only up to a "
                                 "maximum); give max_games or leave round_games out",
                                 source=source, field="round_games")
        return None
    if "target_half_width" not in data:
        raise PrecisionError("missing: with max_games a cell plays rounds until every "
                             "seat's win-share interval is this narrow; give it (e.g. "
                             "0.015 for ±1.5 points)", source=source,
                             field="target_half_width")
    try:
        maximum = per_players(data["max_games"], players, source, "max_games")
        step = per_players(data.get("round_games", dict(games)), players, source,
                           "round_games")
    except PrecisionError:
        raise
    except StudyError as exc:
        raise PrecisionError(exc.reason, source=exc.source, field=exc.field) from None
    plans = {}
    for n in players:
        several = len(set(agents[n])) > 1
        plans[n] = make_plan(data["target_half_width"], games[n], step[n], maximum[n],
                             source=source, where=f" at {n} players" if len(players) > 1
                             or isinstance(data["max_games"], Mapping) else "",
                             multiple=n if several else 1)
    return plans






# -- playing a cell -----------------------------------------------------------------------
@dataclass
class Outcome:
    """A cell played to precision: where it stopped and why, and what it cost."""

    plan: Plan
    games: int
    stopped: str  # "target" or "maximum"
    half_width: float  # the widest seat half-width at the stop
    widest_seat: int
    half_widths: list[float]
    looks: list[dict[str, Any]]  # every look made: games and widest half-width
    timings: dict[str, Any]
    config: RunConfig

    def block(self) -> dict[str, Any]:
        """The manifest's and study.json's `precision` block."""
        return precision_block(self.plan, "complete", self.looks, {
            "games": self.games, "stopped": self.stopped, "half_width": self.half_width,
            "widest_seat": self.widest_seat, "half_widths": self.half_widths,
            "target_met": self.stopped == "target"})


def precision_block(plan: Plan, status: str, looks: Sequence[Mapping[str, Any]],
                    result: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """What a run folder records of its precision request while (`running`) and after
    (`complete`) it is played."""
    return {**plan.to_dict(), "status": status, "looks": [dict(x) for x in looks],
            **(result or {})}


def _held(out: Path, config: RunConfig) -> tuple[int, dict[str, Any]]:
    """The games the folder's manifest asked for, if it is a run of this configuration
    (0 otherwise: `Run.execute` then refuses another configuration by name), and the
    blocks it recorded beside its own fields (kept while its own games are finished)."""
    try:
        manifest = json.loads((out / "manifest.json").read_text())
        identity = {k: v for k, v in manifest["identity"].items() if k != "games"}
        games = manifest["games"]
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return 0, {}
    if not is_int(games) or identity != config.identity():
        return 0, {}
    return games, {"precision": manifest["precision"]} if "precision" in manifest else {}


def seat_wins(out: Path, config: RunConfig, games: int) -> np.ndarray:
    """Every seat's summed win share over the folder's games 0 to `games - 1` (read from
    the players table's finished shards; ties split, in float64)."""
    n = config.rules.players
    wins = np.zeros(n)
    rows = 0
    for shard in range(-(-games // config.shard_size)):
        table = pq.read_table(shard_path(out, "players", shard),
                              columns=["game_id", "seat", "win_share"])
        keep = table["game_id"].to_numpy() < games
        seats = table["seat"].to_numpy()[keep].astype(np.int64)
        shares = table["win_share"].to_numpy()[keep].astype(np.float64)
        wins += np.bincount(seats, weights=shares, minlength=n)
        rows += int(keep.sum())
    if rows != games * n:
        raise RunError(f"the players table holds {rows // n} of the first {games} games; run "
                       "the same command again", source=str(out))
    return wins


def _add(total: dict[str, Any], timings: Mapping[str, Any], first: bool) -> None:
    """Sum one `execute` call's timings into the whole command's."""
    for key in ("seconds", "games_played", "decisions", "shards_repaired"):
        total[key] = round(total.get(key, 0) + (timings.get(key) or 0), 3)
    if first:
        total["games_resumed"] = timings.get("games_resumed", 0)
    for key in ("jobs", "backend", "engine"):
        total[key] = timings.get(key)
    total["rounds"] = total.get("rounds", 0) + 1


def play_to_precision(config: RunConfig, plan: Plan, out: str | Path, *, jobs: int = 1,
                      quiet: bool = False, log: Callable[[str], None] | None = None,
                      progress: Callable[[int], None] | None = None,
                      pool: Pool | None = None, **execute_options: Any) -> Outcome:
    """Play `config` (its game count aside) into `out` in the rounds of `plan` until the
    rule stops; record the `precision` block in the manifest and return the outcome.

    What the folder already holds of this configuration is kept: its unfinished shards
    are played first (an interrupted round), the looks it covers are decided again on
    its games, and play goes on from there. A folder holding more games than the rule's
    stop (a run made with another rule or count) is refused, and so is one holding more
    than the maximum, before anything is written. `log` receives one line per look;
    `execute_options` go to `Run.execute` (backend, scheduler, its timeout, engine, bar);
    every round
    plays on `pool` (else one opened for the whole call)."""
    out = Path(out)
    held, kept = _held(out, config)
    if held > plan.maximum:
        raise RunError(f"this folder holds {held:,} games of this configuration, more than "
                       f"the maximum of {plan.maximum:,} asked; ask for {held:,} or more, or "
                       "use another --out", source=str(out))
    looks: list[dict[str, Any]] = []
    timings: dict[str, Any] = {}

    def play(games: int, extra: Mapping[str, Any] | None = None) -> None:
        block = {"precision": precision_block(plan, "running", looks)}
        run = Run(dataclasses.replace(config, games=games), out,
                  extra=block if extra is None else extra)
        _add(timings, run.execute(quiet=quiet, progress=progress, pool=workers,
                                  **execute_options), first=not timings)

    backend = {k: execute_options.pop(k) for k in ("backend", "scheduler", "scheduler_timeout")
               if k in execute_options}
    with pool_for(pool, Execution(jobs, **backend)) as workers:
        return _rounds(config, plan, out, held, kept, looks, timings, play, log)


def _rounds(config: RunConfig, plan: Plan, out: Path, held: int,
            kept: Mapping[str, Any] | None, looks: list[dict[str, Any]],
            timings: dict[str, Any], play: Callable[..., None],
            log: Callable[[str], None] | None) -> Outcome:
    """The rounds of `play_to_precision`: play, look, stop or go on."""
    have = 0
    if held:
        play(held, kept)  # the folder's own games first: an interrupted round is finished
        have = held
    points = plan.looks()
    for k, n in enumerate(points):
        if n > have:
            play(n)
            have = n
        wins = seat_wins(out, config, n)
        widths = plan.half_widths(wins, n)
        met = bool(plan.met(wins, n))
        looks.append({"games": n, "half_width": float(widths.max())})
        stop = plan.stops(met, k)
        if log:
            then = ("target met, stopping" if met else "maximum reached, stopping" if stop
                    else f"next round to {min(n + plan.step, plan.maximum):,} games")
            log(f"{n:,} games: widest seat ±{100 * widths.max():.2f} pp, target "
                f"±{100 * plan.target:.2f} pp: {then}")
        if stop:
            break
    if have > n:
        raise RunError(f"this folder holds {have:,} games of this configuration, more than "
                       f"the {n:,} at which this precision rule stops; it was made with "
                       "another rule or game count: run that again, or use another --out",
                       source=str(out))
    played = timings.get("games_played", 0)
    seconds = timings.get("seconds", 0)
    timings["games_per_second"] = round(played / seconds, 2) if played and seconds else None
    outcome = Outcome(plan=plan, games=n, stopped="target" if met else "maximum",
                      half_width=float(widths.max()), widest_seat=int(widths.argmax()),
                      half_widths=[float(x) for x in widths], looks=looks, timings=timings,
                      config=dataclasses.replace(config, games=n))
    Run(outcome.config, out, extra={"precision": outcome.block()}).finish(timings)
    return outcome


def outcome_line(block: Mapping[str, Any]) -> str:
    """One sentence on where a cell stopped: its reached precision and what it cost."""
    hw, target = 100 * block["half_width"], 100 * block["target_half_width"]
    games, most = block["games"], block["max_games"]
    if block["stopped"] == "target":
        return (f"precision: every seat within ±{hw:.2f} pp (seat {block['widest_seat']} "
                f"widest): target ±{target:.2f} pp met after {games:,} games (maximum "
                f"{most:,})")
    return (f"precision: the widest seat (seat {block['widest_seat']}) is ±{hw:.2f} pp at "
            f"the maximum of {most:,} games: target ±{target:.2f} pp NOT met")
