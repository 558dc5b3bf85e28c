"""`portobello tournament`: agents x player counts x games, with seats rotated and the same
seeds across matchups, summarised as head-to-head win rates with Wilson intervals and as
ratings, and written as Parquet (one row per game and seat).

Design. A matchup is `A vs B` in 2 players (A and B alternate seats) and `A vs (n-1)xB` in
n > 2 players: one A against n-1 copies of B, A rotated through every seat. Games come in
blocks of n that share one game seed (one game per rotation), and block k has the same
seed in every matchup, so matchups differ only by their agents. A's win share (a tie shares
the win, 1/k each) is compared with parity 1/n: "A beats B" when the whole 95% Wilson
interval lies above parity. For n > 2 both directions are played (`A vs 2xB`, `B vs 2xA`).

Games. The tournament names no game: it plays the game of its configuration through the
game's "runs" facet (`sim.run.game_runs`: a player for a matchup's agents, a batch of games
from their seeds and line-ups, each game's outcome), so any game with runs has tournaments.

Engines. `engine` is `auto` (default), `compiled` or `python`, decided per matchup by the
game (`sim.run.game_runs.engine_name`): Portobello Market, say, plays a matchup on the
compiled engine (whole games in compiled batches) when both of its agents have compiled
versions (random, greedy, heuristic and their restricted forms), else decision by decision
through `Game` (`python`), and `compiled` refuses a matchup that cannot play there; a game
with one way to play (River Market's compiled batches) refuses the other. Both ways play
the same compiled rules and agents and give the same games, so scores, ranks and win shares
(and the tournament id) do not depend on the engine. A compiled matchup is played in large
batches (`COMPILED_CHUNK` blocks per batch), a `python` one one block at a time.

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
from pathlib import Path
from typing import TYPE_CHECKING
from typing import Any

from sim.core.errors import PortobelloError
from sim.core.tables import Outcomes
from sim.games.registry import default_game
from sim.games.registry import kind
from sim.run.execution import Execution
from sim.run.execution import Pool
from sim.run.execution import pool_for
from sim.run.execution import progress_bar
from sim.run.game_runs import ENGINES
from sim.run.game_runs import compile_notice
from sim.run.game_runs import engine_name
from sim.run.game_runs import runs_of
from sim.run.game_runs import tournament_fields
from sim.run.game_runs import tournament_tag
from sim.run.game_runs import with_players
from sim.run.loop import AgentError
from sim.run.loop import derive_seed
from sim.run.ratings import bradley_terry
from sim.run.ratings import wilson_interval
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
# How a game plays on each engine, as a refusal says it.
ENGINE_WORDS = {"compiled": "on its compiled batches", "python": "decision by decision"}


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
    """Everything that decides a tournament's games: the game (`sim.games.registry`; the
    default game when none is named), its material (`board`, loaded from `board_ref`, the
    game's default material when none is named) and rules (the game's default rules when
    none are given), the agents and how they meet."""

    agents: tuple[str, ...]
    players: tuple[int, ...] = (2,)
    games: int = 100  # per matchup (rounded up to whole blocks of n games)
    seed: int = 0
    board: Any = None
    board_ref: str = ""
    rules: Any = None
    pairing: str = "all"
    jobs: int = 1
    engine: str = "auto"  # auto | compiled | python (see the module docstring)
    game: str = field(default_factory=default_game)

    def __post_init__(self) -> None:
        if len(self.agents) < 2:
            raise PortobelloError("a tournament needs at least two agents", field="--agents")
        if len(set(self.agents)) != len(self.agents):
            raise PortobelloError("the same agent is listed twice", field="--agents")
        game = kind(self.game)
        for spec in self.agents:
            game.check_agent(spec)
        if self.rules is None:
            self.rules = game.default_rules()
        for n in self.players:
            with_players(self.game, self.rules, n)  # validates the player count
        if self.games < 1:
            raise PortobelloError("games must be at least 1", field="--games")
        self.board_ref = self.board_ref or game.default_material
        if self.board is None:
            self.board = game.load_material(self.board_ref, None)
        if self.engine not in ENGINES:
            raise PortobelloError(f"unknown engine {self.engine!r} (engines: "
                                  f"{', '.join(ENGINES)})", field="--engine")
        for m in matchups(self.agents, self.players, self.pairing):
            used = self.engine_for(m)  # the game refuses an engine that cannot play it
            if self.engine != "auto" and used != self.engine:  # a game with one way to play
                words = ENGINE_WORDS.get(used, f"on its {used} engine")
                raise PortobelloError(f"{game.title}'s tournaments play {words}: give "
                                      f"--engine auto or {used}", field="--engine")

    def engine_for(self, matchup: Matchup) -> str:
        """The engine (`compiled` or `python`) that plays this matchup (the game refuses an
        engine that cannot play it)."""
        return engine_name(self.game, [matchup.focus, matchup.field], self.engine, self.board)

    def engines(self) -> dict[str, int]:
        """How many matchups each engine plays (`compiled`, `python`)."""
        count: dict[str, int] = {}
        for m in matchups(self.agents, self.players, self.pairing):
            name = self.engine_for(m)
            count[name] = count.get(name, 0) + 1
        return count

    def compile_notice(self) -> str | None:
        """The game's first-compile line (`sim.run.game_runs.compile_notice`) for the agents
        of the matchups played on the compiled engine, when their code is not cached yet."""
        compiled = [spec for m in matchups(self.agents, self.players, self.pairing)
                    if self.engine_for(m) == "compiled" for spec in (m.focus, m.field)]
        if not compiled:
            return None
        return compile_notice(self.game, list(dict.fromkeys(compiled)), "compiled",
                              self.board)

    @property
    def tournament_id(self) -> str:
        ref, rules, more = tournament_fields(self.game, self.board_ref, self.board,
                                             self.rules)
        fields = [list(self.agents), list(self.players), self.games, self.seed, ref, rules,
                  self.pairing, *more]
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


def play_blocks(game: str, board: Any, rules: Any, matchup: Matchup, index: int,
                blocks: range, seed: int, tid: str, engine: str = "python"
                ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Play the n rotations of each block of `game`: rows per (game, seat), and errors.
    `python` plays game by game, decision by decision and timed (an agent error loses one
    game); `compiled` plays all the blocks' games in one batch, untimed."""
    runs = runs_of(game)
    n = matchup.players
    game_rules = with_players(game, rules, n)
    rows: list[dict[str, Any]] = []
    errors: list[dict[str, Any]] = []
    specs = [matchup.focus, matchup.field]
    games = [(b, r, block_seed(seed, n, b)) for b in blocks for r in range(n)]
    if engine == "compiled":
        player = runs.player(board, game_rules, specs, "compiled")
        res = runs.outcomes(runs.play(player, [g[2] for g in games],
                                      [matchup.lineup(g[1]) for g in games]))
        for k, (b, r, gseed) in enumerate(games):
            rows.extend(_game_rows(tid, matchup, index, b, r, gseed, res, k))
        return rows, errors
    timed = runs.player(board, game_rules, specs, "python", timed=True)
    for b, r, gseed in games:
        try:
            res = runs.outcomes(runs.play(timed, [gseed], [matchup.lineup(r)]))
        except AgentError as exc:
            errors.append({"tournament": tid, "matchup": matchup.label, "players": n,
                           "block": b, "rotation": r, "game_seed": gseed,
                           "seat": exc.seat, "agent": exc.agent, "message": str(exc)})
            continue
        rows.extend(_game_rows(tid, matchup, index, b, r, gseed, res, 0))
    return rows, errors


def _game_rows(tid: str, matchup: Matchup, index: int, block: int, rotation: int,
               gseed: int, res: Outcomes, k: int) -> list[dict[str, Any]]:
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
    ref = tournament_tag(config.game, config.board)
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
                [(config.game, config.board, config.rules, m, i, blocks, config.seed, tid,
                  engine) for i, m, blocks, engine in tasks],
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
