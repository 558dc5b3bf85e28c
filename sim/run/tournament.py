"""`portobello tournament`: agents x player counts x games, with seats rotated and the same
seeds across matchups, summarised as head-to-head win rates with Wilson intervals and as
ratings, and written as Parquet (one row per game and seat).

Design. A matchup is `A vs B` in 2 players (A and B alternate seats) and `A vs (n-1)xB` in
n > 2 players: one A against n-1 copies of B, A rotated through every seat. Games come in
blocks of n that share one game seed (one game per rotation), and block k has the same
seed in every matchup, so matchups differ only by their agents. A's win share (a tie shares
the win, 1/k each) is compared with parity 1/n: "A beats B" when the whole 95% Wilson
interval lies above parity. For n > 2 both directions are played (`A vs 2xB`, `B vs 2xA`).

Engines. `engine` is `auto` (default), `compiled` or `python`, decided per matchup through
`sim.run.engines.engine_name`: `auto` plays a matchup on the compiled engine (whole games
in compiled batches) when both of its agents have compiled versions (random, greedy,
heuristic and their restricted forms), else decision by decision through `Game` (`python`);
`compiled` refuses a matchup that cannot play there. Both ways play the same compiled rules
and agents and give the same games, so scores, ranks and win shares (and the tournament id)
do not depend on the engine. A compiled matchup is played in large batches
(`COMPILED_CHUNK` blocks per `Engine.play` call), a `python` one one block at a time.

Timing. Games played decision by decision time every decision; the compiled batches
cannot. The table keeps one schema on both: on rows of compiled games `decisions`, `decision_time`,
`max_decision_time`, `decision_cpu_time` and `max_decision_cpu_time` are null (NaN in
pandas, null in Parquet), and the summary's milliseconds per decision read "–".

An agent that raises or returns an illegal action does not stop the run: the game is
reported (seed, seat, state; `sim.run.loop.AgentError`) and left out, and the command exits 1.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING
from typing import Any

import numpy as np

from sim.core.errors import PortobelloError
from sim.games.portobello.agents.registry import parse_spec
from sim.games.portobello.board import Board
from sim.games.portobello.board import load_board
from sim.games.portobello.rules import Rules
from sim.run.engines import COMPILE_NOTICE
from sim.run.engines import COMPILE_NOTICE_PLANNER
from sim.run.engines import ENGINES
from sim.run.engines import compiled_code_cached
from sim.run.engines import engine_name
from sim.run.engines import needs_planner
from sim.run.engines import select_engine
from sim.run.execution import Execution
from sim.run.execution import Pool
from sim.run.execution import pool_for
from sim.run.execution import progress_bar
from sim.run.loop import AgentError
from sim.run.loop import derive_seed
from sim.run.ratings import bradley_terry
from sim.run.ratings import wilson_interval
from sim.run.tables import Results
from sim.run.task_store import TaskStore
from sim.run.task_store import task_key

if TYPE_CHECKING:  # pandas loads with the first frame: every command imports this module
    import pandas as pd

PAIRINGS = ("all", "ladder", "first")
# Blocks per compiled `Engine.play` call: large enough that the batch, not Python, sets the
# pace (a few hundred games), small enough that the progress bar and `jobs` have work units.
COMPILED_CHUNK = 64
TIMING_COLUMNS = ("decisions", "decision_time", "max_decision_time", "decision_cpu_time",
                  "max_decision_cpu_time")


@dataclass(frozen=True)
class Matchup:
    """One agent (`focus`) against `players - 1` copies of another (`field`)."""

    focus: str
    field: str
    players: int

    @property
    def label(self) -> str:
        if self.players == 2:
            return f"{self.focus} vs {self.field}"
        return f"{self.focus} vs {self.players - 1}x {self.field}"

    def lineup(self, rotation: int) -> list[str]:
        """Seats for one rotation: the focus agent sits in seat `rotation`."""
        seats = [self.field] * self.players
        seats[rotation] = self.focus
        return seats


def pairs_of(agents: Sequence[str], pairing: str) -> list[tuple[str, str]]:
    """Which agents meet: every pair, neighbours in the given order, or the first against
    each other one. The earlier-listed agent is the focus."""
    if pairing not in PAIRINGS:
        raise PortobelloError(f"unknown pairing {pairing!r} (pairings: {', '.join(PAIRINGS)})",
                              field="--pairs")
    if pairing == "ladder":
        return [(agents[i], agents[i + 1]) for i in range(len(agents) - 1)]
    if pairing == "first":
        return [(agents[0], b) for b in agents[1:]]
    return [(agents[i], agents[j]) for i in range(len(agents)) for j in range(i + 1, len(agents))]


def matchups(agents: Sequence[str], players: Sequence[int], pairing: str = "all"
             ) -> list[Matchup]:
    """The matchups of a tournament: for each player count and pair, `A vs B` (and, with
    more than 2 players, `B vs (n-1)xA` too)."""
    out = []
    for n in players:
        for a, b in pairs_of(agents, pairing):
            out.append(Matchup(a, b, n))
            if n > 2:
                out.append(Matchup(b, a, n))
    return out


def block_seed(seed: int, players: int, block: int) -> int:
    """The game seed of a block: the same in every matchup of a tournament."""
    return derive_seed(seed, "tournament", players, block)


@dataclass
class TournamentConfig:
    """Everything that decides a tournament's games."""

    agents: tuple[str, ...]
    players: tuple[int, ...] = (2,)
    games: int = 100  # per matchup (rounded up to whole blocks of n games)
    seed: int = 0
    board: Board | None = None
    board_ref: str = "standard"
    rules: Rules = field(default_factory=Rules)
    pairing: str = "all"
    jobs: int = 1
    engine: str = "auto"  # auto | compiled | python (see the module docstring)
    # River Market (docs/river-market.md): its rules (`RiverRules`) instead of `rules` and a
    # board, its agents, always on its compiled batches.
    river: Any = None

    def __post_init__(self) -> None:
        if len(self.agents) < 2:
            raise PortobelloError("a tournament needs at least two agents", field="--agents")
        if len(set(self.agents)) != len(self.agents):
            raise PortobelloError("the same agent is listed twice", field="--agents")
        if self.river is not None:
            self._check_river()
            return
        for spec in self.agents:
            parse_spec(spec)
        for n in self.players:
            self.rules.with_changes(players=n)  # validates the player count
        if self.games < 1:
            raise PortobelloError("games must be at least 1", field="--games")
        if self.board is None:
            self.board = load_board(self.board_ref)
        if self.engine not in ENGINES:
            raise PortobelloError(f"unknown engine {self.engine!r} (engines: "
                                  f"{', '.join(ENGINES)})", field="--engine")
        for m in matchups(self.agents, self.players, self.pairing):
            self.engine_for(m)  # `compiled` refuses a matchup without compiled versions

    def _check_river(self) -> None:
        """A River Market tournament's agents, player counts, games and engine."""
        from sim.games.river.play import parse_agent
        from sim.games.river.rules import PLAYERS

        for spec in self.agents:
            try:
                parse_agent(spec)
            except ValueError as exc:
                raise PortobelloError(str(exc), field="--agents") from None
        for n in self.players:
            if not PLAYERS[0] <= n <= PLAYERS[1]:
                raise PortobelloError(f"River Market is for {PLAYERS[0]} to {PLAYERS[1]} "
                                      f"players, got {n}", field="--players")
        if self.games < 1:
            raise PortobelloError("games must be at least 1", field="--games")
        if self.engine == "python":
            raise PortobelloError("River Market's tournaments play on its compiled batches: "
                                  "give --engine auto or compiled", field="--engine")

    @cached_property
    def game_ref(self) -> str:
        """What the games are played on: the board's name, or River Market's card set."""
        if self.river is None:
            return self.board_ref
        from sim.games.river.cards import load_cards

        return f"river-market cards {load_cards().content_hash}"

    def engine_for(self, matchup: Matchup) -> str:
        """The engine (`compiled` or `python`) that plays this matchup."""
        if self.river is not None:
            return "compiled"
        return engine_name([matchup.focus, matchup.field], self.engine, self.board)

    def engines(self) -> dict[str, int]:
        """How many matchups each engine plays (`compiled`, `python`)."""
        count: dict[str, int] = {}
        for m in matchups(self.agents, self.players, self.pairing):
            name = self.engine_for(m)
            count[name] = count.get(name, 0) + 1
        return count

    def compile_notice(self) -> str | None:
        """`COMPILE_NOTICE` (or `COMPILE_NOTICE_PLANNER`, when a planner plays) when compiled
        matchups will first compile the compiled games."""
        if self.river is not None:
            return None
        planner = needs_planner(self.agents)
        if "compiled" not in self.engines() or compiled_code_cached(planner):
            return None
        return COMPILE_NOTICE_PLANNER if planner else COMPILE_NOTICE

    @property
    def tournament_id(self) -> str:
        fields = [list(self.agents), list(self.players), self.games, self.seed,
                  self.board_ref, self.rules.to_dict(changed_only=True), self.pairing]
        if self.river is not None:  # (a Portobello Market tournament's id is unchanged)
            fields += [self.game_ref, self.river.to_dict()]
        text = json.dumps(fields, sort_keys=True)
        return f"t{self.seed}-{hashlib.blake2b(text.encode(), digest_size=4).hexdigest()}"

    def game_count(self, workers: int | None = None) -> int:
        """The games `tasks` plays (whole blocks of n)."""
        return sum(len(t[2]) * t[1].players for t in self.tasks(workers))

    def tasks(self, workers: int | None = None) -> list[tuple[int, Matchup, range, str]]:
        """(matchup index, matchup, blocks, engine): each task plays the n rotations of its
        blocks, one block per task played decision by decision, `COMPILED_CHUNK` on the
        compiled engine (each matchup cut into at least `workers` pieces, default `jobs`,
        so workers share it). The rows, merged in task order, do not depend on the cut."""
        parts = workers or self.jobs
        out = []
        for i, m in enumerate(matchups(self.agents, self.players, self.pairing)):
            blocks = math.ceil(self.games / m.players)
            engine = self.engine_for(m)
            step = 1 if engine == "python" else \
                max(1, min(COMPILED_CHUNK, math.ceil(blocks / parts)))
            out.extend((i, m, range(b, min(b + step, blocks)), engine)
                       for b in range(0, blocks, step))
        return out


@dataclass(frozen=True)
class RiverResults:
    """River Market's batch results as `_game_rows` reads them (turns in place of rounds)."""

    scores: np.ndarray
    rounds: np.ndarray
    end_reasons: list[str]
    timing: None = None


def play_river_blocks(rules: Any, matchup: Matchup, index: int, blocks: range, seed: int,
                      tid: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """`play_blocks` for River Market: the blocks' games in one compiled batch."""
    from dataclasses import replace as with_players

    from sim.games.river.cards import load_cards
    from sim.games.river.play import RES_END
    from sim.games.river.play import RES_SCORES
    from sim.games.river.play import RES_TURNS
    from sim.games.river.play import play
    from sim.games.river.shard import END_REASONS
    from sim.games.river.tables import cached_tables

    n = matchup.players
    tables = cached_tables(load_cards(), with_players(rules, players=n))
    games = [(b, r, block_seed(seed, n, b)) for b in blocks for r in range(n)]
    out = play(tables, np.array([g[2] for g in games], np.uint64),
               [matchup.lineup(g[1]) for g in games])
    res = RiverResults(out[:, RES_SCORES:], out[:, RES_TURNS],
                       [END_REASONS.get(int(e), "unfinished") for e in out[:, RES_END]])
    rows: list[dict[str, Any]] = []
    for k, (b, r, gseed) in enumerate(games):
        rows.extend(_game_rows(tid, matchup, index, b, r, gseed, res, k))
    return rows, []


def play_blocks(board: Board, rules: Rules, matchup: Matchup, index: int, blocks: range,
                seed: int, tid: str, engine: str = "python", river: Any = None
                ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Play the n rotations of each block: rows per (game, seat), and errors. `python`
    plays game by game, decision by decision and timed (an agent error loses one game);
    `compiled` plays all the blocks' games in one batch, untimed. With `river` (River
    Market's rules), River Market's games."""
    if river is not None:
        return play_river_blocks(river, matchup, index, blocks, seed, tid)
    n = matchup.players
    game_rules = rules.with_changes(players=n)
    rows: list[dict[str, Any]] = []
    errors: list[dict[str, Any]] = []
    specs = [matchup.focus, matchup.field]
    games = [(b, r, block_seed(seed, n, b)) for b in blocks for r in range(n)]
    if engine == "compiled":
        res = select_engine(board, game_rules, specs, "compiled").play(
            [g[2] for g in games], [matchup.lineup(g[1]) for g in games])
        for k, (b, r, gseed) in enumerate(games):
            rows.extend(_game_rows(tid, matchup, index, b, r, gseed, res, k))
        return rows, errors
    timed = select_engine(board, game_rules, specs, "python", timed=True)
    for b, r, gseed in games:
        try:
            res = timed.play([gseed], [matchup.lineup(r)])
        except AgentError as exc:
            errors.append({"tournament": tid, "matchup": matchup.label, "players": n,
                           "block": b, "rotation": r, "game_seed": gseed,
                           "seat": exc.seat, "agent": exc.agent, "message": str(exc)})
            continue
        rows.extend(_game_rows(tid, matchup, index, b, r, gseed, res, 0))
    return rows, errors


def _game_rows(tid: str, matchup: Matchup, index: int, block: int, rotation: int,
               gseed: int, res: Results | RiverResults, k: int) -> list[dict[str, Any]]:
    """The rows (one per seat) of game `k` of a batch; timing columns null when untimed."""
    n = matchup.players
    lineup = matchup.lineup(rotation)
    scores = [int(x) for x in res.scores[k]]
    best = max(scores)
    winners = [seat for seat in range(n) if scores[seat] == best]
    rows = []
    for seat in range(n):
        decisions: int | None = None
        seconds = slowest = cpu = slowest_cpu = math.nan
        if res.timing is not None:
            count, seconds, slowest, cpu, slowest_cpu = res.timing[k, seat]
            decisions = int(count)
        others = [scores[q] for q in range(n) if q != seat]
        rows.append({
            "tournament": tid,
            "matchup": matchup.label,
            "matchup_index": index,
            "focus": matchup.focus,
            "field": matchup.field,
            "players": n,
            "block": block,
            "rotation": rotation,
            "game": f"{n}-{index}-{block}-{rotation}",
            "game_seed": gseed,
            "agent": lineup[seat],
            "role": "focus" if seat == rotation else "field",
            "seat": seat,
            "score": scores[seat],
            "rank": 1 + sum(1 for s in scores if s > scores[seat]),
            "win_share": 1.0 / len(winners) if seat in winners else 0.0,
            "margin": scores[seat] - max(others),
            "decisions": decisions,
            "decision_time": float(seconds),
            "max_decision_time": float(slowest),
            "decision_cpu_time": float(cpu),
            "max_decision_cpu_time": float(slowest_cpu),
            "rounds": int(res.rounds[k]),
            "end_reason": res.end_reasons[k],
        })
    return rows


def run_tournament(config: TournamentConfig, progress: bool = False, desc: str | None = None,
                   pool: Pool | None = None, bar: Any = None, store: TaskStore | None = None
                   ) -> tuple[pd.DataFrame, list[dict[str, Any]]]:
    """Play every game (on `pool`, a command's open pool, else on `jobs` local processes);
    the per-seat table and the errors. The table does not depend on where it is played or
    on the engine: every game depends only on its seed and lineup, and the tasks' rows are
    merged in task order. `progress` shows a bar counted in games (`desc` labels it), or
    `bar` (a command's own) counts them. With a `store`, finished tasks are kept as they
    arrive, so a stopped tournament run again plays only the rest."""
    import pandas as pd

    tid = config.tournament_id
    board = config.board
    assert board is not None or config.river is not None
    ref = board.content_hash if board is not None else config.game_ref
    with pool_for(pool, Execution(config.jobs)) as workers:
        tasks = config.tasks(workers.workers)
        own = bar is None
        if own:
            bar = progress_bar(sum(len(t[2]) * t[1].players for t in tasks),
                               quiet=not progress, workers=workers.workers,
                               desc=desc or "games")
        try:
            results = workers.ordered(
                play_blocks,
                [(board, config.rules, m, i, blocks, config.seed, tid, engine, config.river)
                 for i, m, blocks, engine in tasks],
                done=lambda k, _: bar.update(len(tasks[k][2]) * tasks[k][1].players),
                store=store, keys=[task_key(tid, ref, i, b.start, b.stop, engine)
                                   for i, _, b, engine in tasks])
        finally:
            if own:
                bar.close()
    rows: list[dict[str, Any]] = []
    errors: list[dict[str, Any]] = []
    for r, e in results:
        rows.extend(r)
        errors.extend(e)
    df = pd.DataFrame(rows)
    if not df.empty:  # one schema on both engines: decision counts are nullable integers
        df["decisions"] = df["decisions"].astype("Int64")
        for col in TIMING_COLUMNS[1:]:
            df[col] = df[col].astype("float64")
    return df, errors


# -- summaries ---------------------------------------------------------------------------------
def summary(df: pd.DataFrame) -> pd.DataFrame:
    """One row per matchup: games, the focus agent's win rate with its 95% Wilson interval
    against parity 1/n, mean scores and margins, and milliseconds per decision."""
    import pandas as pd

    out = []
    for (n, _, label), g in df.groupby(["players", "matchup_index", "matchup"], sort=True):
        focus = g[g.role == "focus"]
        fieldrows = g[g.role == "field"]
        games = len(focus)
        wins = float(focus.win_share.sum())
        lo, hi = wilson_interval(wins, games)
        parity = 1.0 / n
        out.append({
            "players": n,
            "matchup": label,
            "games": games,
            "win_rate": wins / games,
            "ci_low": lo,
            "ci_high": hi,
            "parity": parity,
            "verdict": "above" if lo > parity else ("below" if hi < parity else "even"),
            "focus_score": focus.score.mean(),
            "field_score": fieldrows.score.mean(),
            "focus_margin": focus.margin.mean(),
            "focus_ms": _ms_per_decision(focus),
            "field_ms": _ms_per_decision(fieldrows),
            "focus_max_ms": 1000 * focus.max_decision_time.max(),
            "focus_max_cpu_ms": 1000 * focus.max_decision_cpu_time.max(),
        })
    return pd.DataFrame(out)


def _ms_per_decision(rows: pd.DataFrame) -> float:
    """Milliseconds per timed decision (NaN when no row was timed: compiled games)."""
    timed = rows[rows.decision_time.notna()]
    if timed.empty:
        return math.nan
    return float(1000 * timed.decision_time.sum() / max(1, int(timed.decisions.sum())))


def _ms(x: float, digits: int = 2) -> str:
    """Milliseconds as the summary writes them: "–" when untimed."""
    return "–" if math.isnan(x) else f"{x:.{digits}f}"


def ratings(df: pd.DataFrame) -> pd.DataFrame:
    """openskill (Plackett-Luce, games in table order, ties share a rank) and
    Bradley-Terry (every pair of seats with different agents in a game) per agent."""
    import pandas as pd
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    current = {name: model.rating(name=name) for name in sorted(df.agent.unique())}
    pairs: list[tuple[str, str, float]] = []
    for _, g in df.groupby(["players", "matchup_index", "block", "rotation"], sort=True):
        g = g.sort_values("seat")
        agents = list(g.agent)
        scores = list(g.score)
        teams = [[current[a]] for a in agents]
        ranks = [1 + sum(1 for s in scores if s > score) for score in scores]
        rated = model.rate(teams, ranks=ranks)
        new: dict[str, list[tuple[float, float]]] = {}
        for a, team in zip(agents, rated, strict=True):
            new.setdefault(a, []).append((team[0].mu, team[0].sigma))
        for a, values in new.items():  # an agent in several seats moves by the mean update
            r = current[a]
            r.mu = sum(v[0] for v in values) / len(values)
            r.sigma = sum(v[1] for v in values) / len(values)
        for i in range(len(agents)):
            for j in range(i + 1, len(agents)):
                if agents[i] != agents[j]:
                    s = 1.0 if scores[i] > scores[j] else 0.5 if scores[i] == scores[j] else 0.0
                    pairs.append((agents[i], agents[j], s))
    bt = bradley_terry(pairs)
    out = [{"agent": a, "games": int((df.agent == a).groupby(
                [df.players, df.matchup_index, df.block, df.rotation]).any().sum()),
            "openskill_mu": r.mu, "openskill_sigma": r.sigma,
            "openskill_ordinal": r.mu - 3 * r.sigma, "bradley_terry_elo": bt.get(a, 0.0)}
           for a, r in current.items()]
    return pd.DataFrame(out).sort_values("openskill_ordinal", ascending=False,
                                         ignore_index=True)


def format_summary(table: pd.DataFrame) -> str:
    """The summary as a Markdown table (prints well and pastes into a README)."""
    lines = ["| players | matchup (focus vs field) | games | focus win rate [95% CI] | "
             "parity | verdict | score focus / field | focus margin | ms/decision focus / "
             "field | focus slowest ms (wall / cpu) |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in table.itertuples():
        lines.append(
            f"| {r.players} | {r.matchup} | {r.games} | {r.win_rate:.3f} "
            f"[{r.ci_low:.3f}, {r.ci_high:.3f}] | {r.parity:.3f} | {r.verdict} | "
            f"{r.focus_score:.1f} / {r.field_score:.1f} | {r.focus_margin:+.1f} | "
            f"{_ms(r.focus_ms)} / {_ms(r.field_ms)} | {_ms(r.focus_max_ms, 0)} / "
            f"{_ms(r.focus_max_cpu_ms, 0)} |")
    return "\n".join(lines)


def format_ratings(table: pd.DataFrame) -> str:
    lines = ["| agent | games | openskill mu | sigma | ordinal (mu - 3 sigma) | "
             "Bradley-Terry Elo |", "|---|---|---|---|---|---|"]
    for r in table.itertuples():
        lines.append(f"| {r.agent} | {r.games} | {r.openskill_mu:.2f} | "
                     f"{r.openskill_sigma:.2f} | {r.openskill_ordinal:.2f} | "
                     f"{r.bradley_terry_elo:+.0f} |")
    return "\n".join(lines)


def write_parquet(df: pd.DataFrame, path: Path) -> None:
    """Write atomically (temporary file, then rename)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    df.to_parquet(tmp, index=False)
    tmp.replace(path)
