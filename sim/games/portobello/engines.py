"""Portobello Market's engine seam: one interface, `Engine.play(seeds, lineups) -> Results`,
with two ways to play the one compiled implementation of the rules, chosen in one place
(`select_engine`):

- `CompiledEngine` plays whole games in compiled batches (`play_batch`, or
  `play_batch_random` when every agent is random, which compiles without the planner);
- `StepEngine` plays them decision by decision through `Game`
  (`sim.games.portobello.loop.play_game`), for line-ups the compiled batches cannot play (a
  plain-Python agent, the search, an OpenSpiel bot) and for timed decisions.

The runner and the tournament (through the game's "runs" facet,
`sim.games.portobello.runs`) and the benchmarks play through this seam only. Both engines
play a game from its seed and line-up alone and give the same games (the tests compare them
and hold both to golden action logs):

- every seat owns its agent: an agent object is never shared by two seats, even when they
  play the same spec (shared objects would share one generator and any per-game memory);
- each seat's agent is reseeded from the game seed and the seat (`seat_seeds`), the game's
  chance draws from the game seed;
- an agent plays in a compiled batch through the row of the compiled agent table it
  declares (`BaseAgent.compiled_row`), so `sim.games.portobello.agents.compiled` never needs to know
  the agent classes.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable
from collections.abc import Iterator
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from typing import Protocol

import numpy as np

from sim.core.errors import PortobelloError
from sim.games.portobello.agents.base import BaseAgent
from sim.games.portobello.agents.base import CompiledRow
from sim.games.portobello.agents.registry import compiled_row
from sim.games.portobello.agents.registry import make_agent
from sim.games.portobello.agents.timing import TimedAgent
from sim.games.portobello.agents.weight_sets import PLAYER_COUNTS
from sim.games.portobello.board import Board
from sim.games.portobello.codes import N_STATS
from sim.games.portobello.loop import play_game
from sim.games.portobello.rules import Rules
from sim.games.portobello.tables import Results
from sim.games.portobello.tables import results_from_games
from sim.run.interrupts import interrupts_held

ENGINES = ("auto", "compiled", "python")  # the toolkit's words too (`sim.run.game_runs`)
COMPILE_NOTICE = ("compiling the fast engine (once per machine and code version, under a "
                  "minute; a line every 10 s until it is done)...")
COMPILE_NOTICE_PLANNER = ("compiling the fast engine and the planner of the greedy and heuristic "
                          "agents (once per machine and code version, under two minutes; a "
                          "line every 10 s until it is done)...")
COMPILE_NOTICE_NETWORKS = ("compiling the fast engine, the planner and the learned agent (once "
                           "per machine and code version, under three minutes; a line every "
                           "10 s until it is done)...")
COMPILE_TICK = 10.0  # seconds between the lines that say the compile goes on
BATCH_GAMES = 512  # games per compiled call: how long a Ctrl-C may wait
LOG_START = 2048  # record actions kept per game at first; a longer game is replayed with more


class EngineError(PortobelloError):
    """An engine that cannot play the line-up asked for."""


class Engine(Protocol):
    """Plays whole games: one per seed, `lineups[g][seat]` the agent spec at each seat."""

    name: str

    def play(self, seeds: Sequence[int], lineups: Sequence[Sequence[str]],
             keep_log: bool = False) -> Results:
        ...



def supports(specs: Sequence[str], board: Board | None = None) -> bool:
    """Whether every agent of a line-up can play on the compiled path (on `board`: the
    compiled planner's tables cover lanes of up to `MAX_LANE_LEN` spots)."""
    return _unsupported(specs, board) is None


def _rows(specs: Sequence[str]) -> list[CompiledRow | None]:
    """Each spec's compiled row, or None (for any player count: the kinds agree)."""
    return [compiled_row(s, PLAYER_COUNTS[0]) for s in specs]


def _unsupported(specs: Sequence[str], board: Board | None) -> str | None:
    """Why a line-up cannot play on the compiled path, or None."""
    if any(r is None for r in _rows(specs)):
        return ("no compiled version of some of these agents: "
                f"{', '.join(dict.fromkeys(specs))} (compiled: random, greedy, heuristic and "
                "their restricted forms)")
    from sim.games.portobello.agents.compiled.params import MAX_LANE_LEN

    longest = max(board.lane_len) if board is not None else 0
    if longest > MAX_LANE_LEN and needs_planner(specs):
        return (f"the compiled greedy and heuristic agents handle lanes of up to "
                f"{MAX_LANE_LEN} spots; board {board.name if board else ''} has one of "
                f"{longest}")
    return None


def engine_name(specs: Sequence[str], engine: str = "auto",
                board: Board | None = None) -> str:
    """The engine (`compiled` or `python`) a run of these agents plays on.

    `auto` takes the compiled path whenever every agent has a compiled row that can play
    on the board; `compiled` refuses otherwise, saying why."""
    if engine not in ENGINES:
        raise EngineError(f"unknown engine {engine!r} (engines: {', '.join(ENGINES)})",
                          field="--engine")
    if engine == "python":
        return "python"
    why = _unsupported(specs, board)
    if why is None:
        return "compiled"
    if engine == "compiled":
        raise EngineError(why, field="--engine")
    return "python"


def needs_planner(specs: Sequence[str]) -> bool:
    """Whether a line-up's compiled games need the planner (any greedy or heuristic agent);
    random agents alone compile without it, in a fraction of the time."""
    from sim.games.portobello.agents.compiled.play import KIND_RANDOM

    return any(r is not None and r.kind != KIND_RANDOM for r in _rows(specs))


def needs_networks(specs: Sequence[str]) -> bool:
    """Whether a line-up's compiled games need the learned agent's network code."""
    return any(r is not None and r.network is not None for r in _rows(specs))


def compiled_code_cached(planner: bool = True, networks: bool = False) -> bool:
    """Whether this machine's cache already holds the compiled games (with the planner, or
    random agents only) for the present sources (`sim.games.portobello.compiled` keeps them in
    `numba.config.CACHE_DIR`, a folder named by a hash of them). False: the first compiled
    game compiles them.

    It asks numba's own index of the compiled games (`play._play`), which is empty when
    that index is missing or was written for another version of the source, for the
    version with the planner's work space (an array) or without it (None), with the
    learned agent's networks or without them; with another
    numba or another layout of `sim.games.portobello.agents.compiled`, any cache index file
    (`*.nbi`) in the folder counts."""
    import numba

    import sim.games.portobello.agents.compiled  # noqa: F401  (sets numba.config.CACHE_DIR)

    try:
        from sim.games.portobello.agents.compiled import play as FP

        index = FP._play._cache._cache_file._load_index()
        return any(_version(key[0]) == (planner, networks) for key in index)
    except Exception:  # numba's internals or the compiled agents moved: the files then
        return any(Path(numba.config.CACHE_DIR).rglob("*.nbi"))


def _version(signature: Sequence[Any]) -> tuple[bool, bool]:
    """Which version of the compiled games (`play._play`, by its argument types) this is:
    with the planner (its work space `WF` an array, not None), with the learned agent's
    networks (`NW` an array)."""
    import numba

    return signature[9] != numba.types.none, signature[17] != numba.types.none


def compile_notice(specs: Sequence[str], engine: str = "auto",
                   board: Board | None = None) -> str | None:
    """The line to show before games of these agents when they will first compile the
    compiled games (`COMPILE_NOTICE`, or `COMPILE_NOTICE_PLANNER` when they need the
    planner), else None (games played decision by decision, or cached code)."""
    planner, networks = needs_planner(specs), needs_networks(specs)
    if engine_name(specs, engine, board) != "compiled" or compiled_code_cached(planner,
                                                                               networks):
        return None
    if networks:
        return COMPILE_NOTICE_NETWORKS
    return COMPILE_NOTICE_PLANNER if planner else COMPILE_NOTICE


@contextlib.contextmanager
def still_saying(say: Callable[[str], None], what: str, every: float = COMPILE_TICK
                 ) -> Iterator[None]:
    """While the block runs, `say` "still WHAT (N s)" every `every` seconds (from a thread),
    so that a long silent step never looks hung."""
    done = threading.Event()
    start = time.monotonic()

    def tick() -> None:
        while not done.wait(every):
            say(f"  still {what} ({time.monotonic() - start:.0f} s)")

    thread = threading.Thread(target=tick, name="still-saying", daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()


def compile_now(say: Callable[[str], None], notice: str = COMPILE_NOTICE_PLANNER) -> None:
    """Compile what the notice announces here and now (the notice, then a line every
    `COMPILE_TICK` seconds, then the time it took), before any game: the workers then load
    it from the cache instead of each compiling it at once. With the planner, a second
    process compiles it meanwhile (`sim.games.portobello.precompile`)."""
    from sim.games.portobello import precompile

    say(notice)
    start = time.monotonic()
    helper = None if notice == COMPILE_NOTICE else precompile.start_helper(
        networks=notice == COMPILE_NOTICE_NETWORKS)
    try:
        with still_saying(say, "compiling the fast engine"):
            compile_for(notice)
    finally:
        precompile.stop_helper(helper)
    say(f"compiled in {time.monotonic() - start:.0f} s")


def compile_for(notice: str) -> None:
    """Compile (or load) the compiled games the notice announces, in this process. Their
    types are the same for every board, rules and line-up, so one compile serves them all;
    random agents alone (`COMPILE_NOTICE`) leave the planner out, and only a learned agent
    (`COMPILE_NOTICE_NETWORKS`) brings the network code in (any network of the right
    inputs has its types: a blank one is compiled with)."""
    from sim.games.portobello.board import load_board

    specs = ["random"] * 2 if notice == COMPILE_NOTICE else ["heuristic", "random"]
    engine = CompiledEngine(load_board("standard"), Rules(), specs)
    if notice == COMPILE_NOTICE_NETWORKS:
        from sim.games.portobello.agents.compiled.expert import pack_networks
        from sim.games.portobello.agents.compiled.features import input_count
        from sim.games.portobello.agents.model import Model

        blank = Model.from_layers([np.zeros((int(input_count(engine.B)), 1)),
                                   np.zeros((1, 2))], [np.zeros(1), np.zeros(2)])
        engine.nets = pack_networks([(blank.W, blank.L, 1, 0.0), None])
    engine.compile()


def select_engine(board: Board, rules: Rules, specs: Sequence[str], engine: str = "auto",
                  *, timed: bool = False) -> StepEngine | CompiledEngine:
    """The one place an engine is chosen. `timed` (decision counts and times per seat)
    needs games played decision by decision."""
    if timed or engine_name(specs, engine, board) == "python":
        return StepEngine(board, rules, timed=timed)
    return CompiledEngine(board, rules, specs)


# -- the step-by-step engine -------------------------------------------------------------------
class StepEngine:
    """Games played decision by decision by `sim.games.portobello.loop.play_game` through
    `Game`: each agent's `choose` is asked for every decision, so any agent can play
    (compiled agents seated at the `Game`, plain-Python agents, OpenSpiel bots), and each
    decision can be timed."""

    name = "python"

    def __init__(self, board: Board, rules: Rules, *, timed: bool = False) -> None:
        self.board = board
        self.rules = rules
        self.timed = timed

    def seat_agents(self, lineup: Sequence[str]) -> list[BaseAgent]:
        """Fresh agent objects for one game, one per seat (never shared between seats or
        carried over from another game; `play_game` reseeds each from its seat)."""
        agents = [make_agent(spec, seed=seat) for seat, spec in enumerate(lineup)]
        return [TimedAgent(a) for a in agents] if self.timed else agents

    def play(self, seeds: Sequence[int], lineups: Sequence[Sequence[str]],
             keep_log: bool = False) -> Results:
        games, decisions, timing = [], [], []
        for seed, lineup in zip(seeds, lineups, strict=True):
            agents = self.seat_agents(lineup)
            game, count = play_game(self.board, self.rules, agents, seed, keep_log=keep_log)
            games.append(game)
            decisions.append(count)
            if self.timed:
                timing.append([[a.decisions, a.seconds, a.slowest, a.cpu_seconds,
                                a.slowest_cpu] for a in agents if isinstance(a, TimedAgent)])
        res = results_from_games(games, decisions)
        if self.timed:
            res.timing = np.array(timing, np.float64).reshape(len(games), self.rules.players, 5)
        return res


# -- the compiled engine -----------------------------------------------------------------------
class CompiledEngine:
    """Games played in batches by `sim.games.portobello.agents.compiled.play.play_batch` (numba; or
    `play_batch_random`, without the planner, when every agent is random), the agents given
    as rows of a table built from the rows they declare (`compiled_row`)."""

    name = "compiled"

    def __init__(self, board: Board, rules: Rules, specs: Sequence[str]) -> None:
        from sim.core import rng as FR
        from sim.games.portobello.agents.compiled import play as FP
        from sim.games.portobello.agents.compiled.expert import pack_networks
        from sim.games.portobello.agents.compiled_agent import network_entry
        from sim.games.portobello.compiled.layout import pack

        self._fp = FP
        self._rng = FR
        self.board = board
        self.rules = rules
        self.B = pack(board, rules)
        self.specs = list(dict.fromkeys(specs))
        self.index = {s: i for i, s in enumerate(self.specs)}
        k = len(self.specs)
        self.kinds = np.zeros(k, np.int64)
        self.params = np.zeros((k, FP.N_PARAMS), np.float64)
        self.restrict = np.zeros((k, 4), np.int64)
        networks = []
        for i, spec in enumerate(self.specs):
            row = compiled_row(spec, rules.players)
            if row is None:
                raise EngineError(f"agent {spec} has no compiled version", field="agents")
            self.kinds[i] = row.kind
            self.params[i] = row.params
            self.restrict[i] = np.array(row.restrict, np.int64)
            networks.append(network_entry(row, board, self.B, rules.players))
        # The learned agents' networks, or None: the batches then compile without them.
        self.nets = pack_networks(networks) if any(e is not None for e in networks) else None

    @property
    def nets_arg(self) -> tuple[Any, ...]:
        """The networks as `play_batch`'s last argument (none for random-only batches)."""
        return (self.nets,) if self.nets is not None else ()

    def prepare(self, seeds: Sequence[int], lineups: Sequence[Sequence[str]]
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The batch's arrays: game seeds, every seat's seed (`seat_seeds`) and every
        seat's row of the agent table."""
        n = self.rules.players
        g = len(seeds)
        words = [self._rng.word(s) for s in seeds]  # any whole number, by its low 64 bits
        game_seeds = np.array(words, np.uint64).view(np.int64)
        per_seat = self._rng.seat_seeds_batch(game_seeds, n)
        ids: dict[tuple[str, ...], int] = {}  # few distinct line-ups (rotations)
        which = np.fromiter((ids.setdefault(key, len(ids)) for key in map(tuple, lineups)),
                            np.int64, count=g)
        table = np.array([[self.index[s] for s in key] for key in ids], np.int64)
        return game_seeds, per_seat, table.reshape(len(ids), n)[which]

    @property
    def entry(self) -> Any:
        """The compiled batch these agents enter: without the planner when all are random."""
        FP = self._fp
        random_only = bool((self.kinds == FP.KIND_RANDOM).all())
        return FP.play_batch_random if random_only else FP.play_batch

    def compile(self) -> None:
        """Compile (or load from the cache) the compiled game loop, on no games."""
        seeds, per_seat, seat_agent = self.prepare([], [])
        self._batch(seeds, per_seat, seat_agent, 0)

    def _batch(self, game_seeds: np.ndarray, per_seat: np.ndarray, seat_agent: np.ndarray,
               log_cap: int) -> tuple[np.ndarray, np.ndarray]:
        """`play_batch` over the games in slices of `BATCH_GAMES` (each game is played from
        its own seeds, so the slices change nothing), Ctrl-C held until a slice returns:
        an interrupt inside compiled code can crash the process, between slices it is a
        plain KeyboardInterrupt."""
        entry = self.entry
        version = (entry is self._fp.play_batch, self.nets is not None)
        versions = getattr(self._fp._play, "signatures", None)  # None: JIT disabled
        if versions is not None and not any(_version(v) == version for v in versions):
            # The first call compiles (a minute with a cold cache) or loads the compiled
            # code: done on no games, outside the held block, so that Ctrl-C stops a
            # compile at once.
            entry(self.B, game_seeds[:0], per_seat[:0], seat_agent[:0], self.kinds,
                  self.params, self.restrict, log_cap, *self.nets_arg)
        parts = []
        for lo in range(0, max(len(game_seeds), 1), BATCH_GAMES):
            cut = slice(lo, lo + BATCH_GAMES)
            with interrupts_held():
                parts.append(entry(self.B, game_seeds[cut], per_seat[cut], seat_agent[cut],
                                   self.kinds, self.params, self.restrict, log_cap,
                                   *self.nets_arg))
        if len(parts) == 1:
            return parts[0]
        return (np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts]))

    def play(self, seeds: Sequence[int], lineups: Sequence[Sequence[str]],
             keep_log: bool = False) -> Results:
        FP = self._fp
        n = self.rules.players
        g = len(seeds)
        game_seeds, per_seat, seat_agent = self.prepare(seeds, lineups)
        res, logs = self._batch(game_seeds, per_seat, seat_agent, LOG_START if keep_log else 0)
        h = FP.R_HEAD
        out_logs = None
        if keep_log:
            out_logs = [logs[i, :res[i, FP.R_LOG_LEN]].tolist() for i in range(g)]
            cap = LOG_START
            long = np.flatnonzero(res[:, FP.R_OVERFLOW])
            while long.size:  # the same games again (same seeds, same play) with more room
                cap *= 4
                res2, more = self._batch(game_seeds[long], per_seat[long], seat_agent[long],
                                         cap)
                for j, i in enumerate(long):
                    out_logs[i] = more[j, :res2[j, FP.R_LOG_LEN]].tolist()
                long = long[res2[:, FP.R_OVERFLOW] != 0]
        return Results(
            n=n, end_code=res[:, FP.R_END], rounds=res[:, FP.R_ROUNDS],
            turns=res[:, FP.R_TURNS], baron_square=res[:, FP.R_BARON_SQ],
            decisions=res[:, FP.R_DECISIONS], scores=res[:, h:h + n],
            stalls_left=res[:, h + n:h + 2 * n],
            stats=res[:, h + 2 * n:h + (2 + N_STATS) * n].reshape(g, n, N_STATS),
            logs=out_logs)
