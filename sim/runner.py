"""Mass simulation: many games in parallel, stored as Parquet shards, resumable.

A run folder holds `manifest.json` and the tables `games/`, `players/` (and optionally
`events/`, `records/`) as one file per shard. Every game's seed comes from the run seed and
the game's index, so the tables do not depend on the number of jobs, the shard size or the
backend. Workers play whole shards and send back encoded files; only this process writes,
each file under a temporary name and then renamed, so a killed run leaves only whole shards
and the same command resumes it.
"""

from __future__ import annotations

import contextlib
import functools
import gzip
import hashlib
import io
import json
import os
import platform
import socket
import subprocess
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from sim.agents.registry import make_agent, parse_spec
from sim.board import Board, board_from_dict
from sim.errors import PortobelloError
from sim.game import Game
from sim.play import derive_seed, play_game
from sim.records import actions_to_json, record_from_game
from sim.rules import Rules, rules_from_dict
from sim.tables import event_rows, results_from_games, results_tables, to_table

RUN_FORMAT = "portobello-run/1"
TABLES = ("games", "players", "events", "records")
LOCK_NAME = ".lock"


class RunError(PortobelloError):
    """A run folder that cannot be used as asked (other config, locked, damaged shard)."""


# -- configuration -----------------------------------------------------------------------------
@functools.cache
def play_code_hash() -> str:
    """A hash of the sources that decide how games are played: rules, engine, agents and
    the compiled path."""
    root = Path(__file__).parent
    files = [root / name for name in ("actions.py", "board.py", "game.py", "play.py",
                                      "rules.py")]
    files += sorted((root / "agents").glob("*.py")) + sorted((root / "fast").glob("*.py"))
    digest = hashlib.sha256()
    for path in files:
        digest.update(path.relative_to(root).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]

@dataclass(frozen=True)
class RunConfig:
    """Everything that decides a run's tables (not how it is executed)."""

    board: Board
    board_ref: str
    rules: Rules
    agents: tuple[str, ...]
    games: int
    seed: int
    shard_size: int = 1000
    events: bool = False
    records: bool = False

    def __post_init__(self) -> None:
        if len(self.agents) != self.rules.players:
            raise RunError(f"{len(self.agents)} agent specs for {self.rules.players} players",
                           field="agents")
        for spec in self.agents:
            parse_spec(spec)
        if self.games < 1:
            raise RunError("must be at least 1", field="games")
        if self.shard_size < 1:
            raise RunError("must be at least 1", field="shard_size")
        self.rules.check_board(self.board, source=self.board_ref)

    @property
    def n_shards(self) -> int:
        return -(-self.games // self.shard_size)

    def shard_range(self, shard: int) -> range:
        lo = shard * self.shard_size
        return range(lo, min(lo + self.shard_size, self.games))

    def seats(self, game_id: int) -> list[str]:
        """Agents by seat for one game: seats rotate so each agent sits everywhere equally."""
        n = len(self.agents)
        r = game_id % n
        return [self.agents[(s + r) % n] for s in range(n)]

    def game_seed(self, game_id: int) -> int:
        return derive_seed(self.seed, "game", game_id)

    def identity(self) -> dict[str, Any]:
        """The fields a resumed run must share with the run already in the folder (the code
        that plays the games too: a run finished by other code would mix two programs)."""
        return {
            "board_hash": self.board.content_hash,
            "play_code": play_code_hash(),
            "rules": self.rules.to_dict(),
            "agents": list(self.agents),
            "games": self.games,
            "seed": self.seed,
            "shard_size": self.shard_size,
            "events": self.events,
            "records": self.records,
        }

    @property
    def run_id(self) -> str:
        blob = json.dumps(self.identity(), sort_keys=True).encode()
        return hashlib.sha256(blob).hexdigest()[:12]

    def payload(self) -> dict[str, Any]:
        """Plain data a worker rebuilds the configuration from (cheap to send)."""
        data = {k: v for k, v in self.identity().items() if k not in ("board_hash",
                                                                       "play_code")}
        return data | {"board": self.board.to_dict(), "board_ref": self.board_ref}

    @staticmethod
    def from_payload(p: dict[str, Any]) -> RunConfig:
        return RunConfig(board=board_from_dict(p["board"], source=p["board_ref"]),
                         board_ref=p["board_ref"], rules=rules_from_dict(p["rules"]),
                         agents=tuple(p["agents"]), games=p["games"], seed=p["seed"],
                         shard_size=p["shard_size"], events=p["events"], records=p["records"])


# -- playing a shard (runs in workers) ---------------------------------------------------------
_WORKER_CACHE: dict[str, tuple[RunConfig, dict[str, Any], Any]] = {}
ENGINES = ("auto", "compiled", "python")


def compiled_engine(config: RunConfig, engine: str = "auto") -> bool:
    """Whether a run plays on the compiled path (`sim.fast`) or the reference one.

    `auto` takes the compiled path whenever every agent has a compiled twin; both paths
    give the same games (the differential tests hold them to it)."""
    if engine not in ENGINES:
        raise RunError(f"unknown engine {engine!r} (engines: {', '.join(ENGINES)})",
                       field="--engine")
    if engine == "python":
        return False
    from sim.fast.batch import supports

    if supports(config.agents):
        return True
    if engine == "compiled":
        raise RunError("no compiled version of some of these agents: "
                       f"{', '.join(config.agents)} (compiled: random, greedy, heuristic "
                       "and their restricted forms)", field="--engine")
    return False


def _worker_state(payload: dict[str, Any]) -> tuple[RunConfig, dict[str, Any], Any]:
    key = hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()
    if key not in _WORKER_CACHE:
        config = RunConfig.from_payload(payload)
        fast: Any = None
        agents: dict[str, Any] = {}
        if compiled_engine(config, payload.get("engine", "auto")):
            from sim.fast.batch import FastGames

            fast = FastGames(config.board, config.rules, config.agents)
        else:
            agents = {spec: make_agent(spec) for spec in set(config.agents)}
        _WORKER_CACHE.clear()
        _WORKER_CACHE[key] = (config, agents, fast)
    return _WORKER_CACHE[key]


def _parquet_bytes(table: pa.Table, run_id: str) -> bytes:
    table = table.replace_schema_metadata({b"portobello_run_id": run_id.encode()})
    sink = io.BytesIO()
    pq.write_table(table, sink, compression="zstd", compression_level=9)
    return sink.getvalue()


def replayed(board: Board, rules: Rules, seed: int, log: Sequence[int],
             events: bool = False) -> Game:
    """The game of an action log, replayed by the reference engine; with `events`, its
    events each tagged with their turn, round and seat (for the events table)."""
    g = Game(board, rules, seed=seed, record_events=events)
    if g.events is None:
        for action in log:
            g.apply(action)
        return g
    for action, obj in zip(log, actions_to_json(board, log), strict=True):
        before = len(g.events)
        when = {"turn": g.turn, "round": g.round}
        seat = g.seat
        if obj["type"] == "play_token":
            g.events.append({"type": "play_token", "seat": seat, "value": obj["value"]})
        elif obj["type"] == "draw_customer":
            g.events.append({"type": "draw_customer", "seat": seat,
                             "customer": obj.get("customer")})
        g.apply(action)
        for ev in g.events[before:]:
            ev.update(when)
    return g


def play_shard(payload: dict[str, Any], shard: int) -> dict[str, Any]:
    """Play one shard's games; return its tables encoded as files, and timings."""
    config, agents, fast = _worker_state(payload)
    run_id = config.run_id
    start = time.perf_counter()
    ids = list(config.shard_range(shard))
    seeds = [config.game_seed(i) for i in ids]
    lineups = [config.seats(i) for i in ids]
    keep_log = config.events or config.records
    if fast is not None:
        res = fast.play(seeds, lineups, keep_log=keep_log)
        games: list[Game] = []
    else:
        played = [play_game(config.board, config.rules, [agents[s] for s in lineup], seed,
                            keep_log=keep_log) for seed, lineup in zip(seeds, lineups,
                                                                       strict=True)]
        games = [g for g, _ in played]
        res = results_from_games(games, [d for _, d in played])
    if config.events or (config.records and not games):
        # One reference replay per game gives the events and the game a record is made of.
        games = [replayed(config.board, config.rules, s, log, events=config.events)
                 for s, log in zip(seeds, res.logs or [], strict=True)]
    games_table, players_table = results_tables(res, run_id, ids, seeds, lineups, config.rules,
                                                config.board.name)
    out: dict[str, Any] = {
        "shard": shard,
        "games": _parquet_bytes(games_table, run_id),
        "players": _parquet_bytes(players_table, run_id),
        "n": len(ids),
        "decisions": int(res.decisions.sum()),
        "seconds": time.perf_counter() - start,
    }
    if config.events:
        events: list[dict[str, Any]] = []
        for game_id, game in zip(ids, games, strict=True):
            assert game.events is not None
            events.extend(event_rows(game_id, game.events))
        out["events"] = _parquet_bytes(to_table("events", events), run_id)
    if config.records:
        records = [json.dumps({"game_id": game_id, **record_from_game(
            game, board_ref=config.board_ref, agents=lineup)}, separators=(",", ":"))
            for game_id, game, lineup in zip(ids, games, lineups, strict=True)]
        out["records"] = gzip.compress(("\n".join(records) + "\n").encode(), mtime=0)
    return out


# -- the run folder ---------------------------------------------------------------------------
def shard_path(out: Path, table: str, shard: int) -> Path:
    suffix = "jsonl.gz" if table == "records" else "parquet"
    return out / table / f"part-{shard:05d}.{suffix}"


def _atomic_write(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def write_json_atomic(path: Path, obj: Any) -> None:
    _atomic_write(path, (json.dumps(obj, indent=2, sort_keys=False) + "\n").encode())


@contextlib.contextmanager
def run_lock(out: Path) -> Iterator[None]:
    """One writer per folder: a lock file naming the holder; a dead holder's lock is taken."""
    path = out / LOCK_NAME
    me = f"{socket.gethostname()} {os.getpid()}"
    for _ in range(2):
        try:
            fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            holder = path.read_text().strip() if path.exists() else ""
            host, _, pid = holder.partition(" ")
            if host == socket.gethostname() and pid.isdigit() and not _alive(int(pid)):
                path.unlink(missing_ok=True)  # left by a killed run
                continue
            raise RunError(f"another run is writing this folder (lock held by {holder or '?'}); "
                           f"wait for it, or delete {path} if it is gone",
                           source=str(out)) from None
        with os.fdopen(fd, "w") as f:
            f.write(me)
        break
    try:
        yield
    finally:
        with contextlib.suppress(FileNotFoundError):
            if path.read_text().strip() == me:
                path.unlink()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _git_commit() -> str | None:
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True,
                             cwd=Path(__file__).resolve().parent, timeout=5, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None


def _versions() -> dict[str, str]:
    out = {"python": platform.python_version()}
    for lib in ("numpy", "pyarrow", "polars", "pandas", "joblib", "dask", "distributed",
                "numba"):
        with contextlib.suppress(metadata.PackageNotFoundError):
            out[lib] = metadata.version(lib)
    return out


def _code_version() -> str:
    try:
        return metadata.version("portobello")
    except metadata.PackageNotFoundError:
        return "unknown"


def check_shard(path: Path, run_id: str, table: str, expected_rows: int) -> None:
    """Refuse a shard that is damaged, belongs to another run, or is incomplete."""
    try:
        meta = pq.read_metadata(path)
    except Exception as exc:  # pyarrow raises several types for damaged files
        raise RunError(f"shard is damaged and cannot be read ({exc}); delete it and run the "
                       "same command again to replay its games", source=str(path)) from None
    owner = (meta.metadata or {}).get(b"portobello_run_id", b"").decode()
    if owner != run_id:
        raise RunError(f"shard belongs to another run ({owner or 'not a portobello shard'}, this "
                       f"run is {run_id}); remove it from this folder", source=str(path))
    if expected_rows >= 0 and meta.num_rows != expected_rows:
        raise RunError(f"shard has {meta.num_rows} rows, expected {expected_rows}; delete it "
                       "and run the same command again", source=str(path))


class Run:
    """A run folder bound to a configuration."""

    def __init__(self, config: RunConfig, out: Path) -> None:
        self.config = config
        self.out = Path(out)
        self.tables = [t for t in TABLES
                       if t in ("games", "players") or getattr(config, t)]

    # The manifest --------------------------------------------------------------------------
    def manifest(self, status: str, timings: dict[str, Any] | None = None) -> dict[str, Any]:
        c = self.config
        return {
            "format": RUN_FORMAT,
            "run_id": c.run_id,
            "status": status,
            "board": {"name": c.board.name, "ref": c.board_ref, "hash": c.board.content_hash,
                      "content": c.board.to_dict()},
            "rules": c.rules.to_dict(),
            "agents": list(c.agents),
            "seed": c.seed,
            "games": c.games,
            "shard_size": c.shard_size,
            "shards": c.n_shards,
            "tables": self.tables,
            "identity": c.identity(),
            "code_version": _code_version(),
            "git_commit": _git_commit(),
            "libraries": _versions(),
            "timings": timings or {},
        }

    def _check_folder(self) -> None:
        """Refuse a folder that holds another run or something that is not a run."""
        path = self.out / "manifest.json"
        if path.exists():
            try:
                old = json.loads(path.read_text())
                identity = old["identity"]
            except (json.JSONDecodeError, KeyError, TypeError):
                raise RunError("manifest.json is not a portobello run manifest",
                               source=str(path)) from None
            mine = self.config.identity()
            diff = [k for k in sorted(set(mine) | set(identity)) if mine.get(k) != identity.get(k)]
            if diff:
                details = "; ".join(f"{k}: folder has {identity.get(k)!r}, asked {mine.get(k)!r}"
                                    for k in diff[:3])
                raise RunError(f"this folder holds a run with a different configuration "
                               f"({details}); use another --out", source=str(self.out))
        elif self.out.exists() and any(p.name != LOCK_NAME for p in self.out.iterdir()):
            raise RunError("folder is not empty and holds no run manifest; use an empty or new "
                           "folder", source=str(self.out))

    def _clean_temporaries(self) -> None:
        for table in TABLES:
            folder = self.out / table
            if folder.exists():
                for tmp in folder.glob(".*.tmp-*"):
                    tmp.unlink(missing_ok=True)

    def finished_shards(self) -> set[int]:
        """Shards whose every table file is present (and checked)."""
        done = set()
        c = self.config
        for shard in range(c.n_shards):
            paths = [shard_path(self.out, t, shard) for t in self.tables]
            if all(p.exists() for p in paths):
                n = len(c.shard_range(shard))
                rows = {"games": n, "players": n * c.rules.players, "events": -1}
                for t, p in zip(self.tables, paths, strict=True):
                    if t != "records":
                        check_shard(p, c.run_id, t, rows[t])
                done.add(shard)
        return done

    def _write_shard(self, result: dict[str, Any]) -> None:
        shard = result["shard"]
        # games last: a shard counts as finished only when all its files are there.
        for table in sorted(self.tables, key=lambda t: t == "games"):
            _atomic_write(shard_path(self.out, table, shard), result[table])

    # Execution -----------------------------------------------------------------------------
    def execute(self, jobs: int = 1, backend: str = "loky", scheduler: str | None = None,
                quiet: bool = False, progress: Callable[[int], None] | None = None,
                engine: str = "auto") -> dict[str, Any]:
        """Play every missing shard; returns the manifest's timings. `engine` picks the
        compiled or the reference path (`compiled_engine`); the tables are the same."""
        compiled = compiled_engine(self.config, engine)
        self.out.mkdir(parents=True, exist_ok=True)
        self._check_folder()
        with run_lock(self.out):
            for table in self.tables:
                (self.out / table).mkdir(exist_ok=True)
            self._clean_temporaries()
            done = self.finished_shards()
            todo = [s for s in range(self.config.n_shards) if s not in done]
            if not (self.out / "manifest.json").exists() or todo:
                write_json_atomic(self.out / "manifest.json", self.manifest("running"))
            already = sum(len(self.config.shard_range(s)) for s in done)
            start = time.perf_counter()
            played = decisions = 0
            bar = _progress_bar(self.config.games, already, quiet)
            try:
                payload = self.config.payload() | {"engine": engine}
                for result in _results(payload, todo, jobs, backend, scheduler):
                    self._write_shard(result)
                    played += result["n"]
                    decisions += result["decisions"]
                    bar.update(result["n"])
                    if progress:
                        progress(result["n"])
            finally:
                bar.close()
            seconds = time.perf_counter() - start
            timings = {
                "seconds": round(seconds, 3),
                "games_played": played,
                "games_resumed": already,
                "games_per_second": round(played / seconds, 2) if played and seconds else None,
                "decisions": decisions,
                "jobs": jobs,
                "backend": backend if scheduler is None else f"dask@{scheduler}",
                "engine": "compiled" if compiled else "python",
            }
            write_json_atomic(self.out / "manifest.json", self.manifest("complete", timings))
            return timings


def _progress_bar(total: int, initial: int, quiet: bool) -> Any:
    from tqdm import tqdm

    return tqdm(total=total, initial=initial, unit="game", disable=quiet, smoothing=0.1,
                dynamic_ncols=True, desc="games")


def _results(payload: dict[str, Any], shards: Sequence[int], jobs: int, backend: str,
             scheduler: str | None) -> Iterator[dict[str, Any]]:
    """Shard results as they finish, from this process, joblib (loky) or Dask."""
    if not shards:
        return
    if backend == "dask" or scheduler:
        yield from _dask_results(payload, shards, jobs, scheduler)
        return
    if backend != "loky":
        raise RunError(f"unknown backend {backend!r} (backends: loky, dask)", field="--backend")
    if jobs == 1:
        for shard in shards:
            yield play_shard(payload, shard)
        return
    from joblib import Parallel, delayed

    parallel = Parallel(n_jobs=jobs, backend="loky", return_as="generator_unordered",
                        pre_dispatch="2*n_jobs")
    yield from parallel(delayed(play_shard)(payload, s) for s in shards)


def _dask_results(payload: dict[str, Any], shards: Sequence[int], jobs: int,
                  scheduler: str | None) -> Iterator[dict[str, Any]]:
    from dask.distributed import Client, LocalCluster, as_completed

    cluster = None
    if scheduler:
        try:
            client = Client(scheduler, timeout="10s")
        except OSError as exc:
            raise RunError(f"cannot reach the Dask scheduler: {exc}",
                           field="--scheduler") from None
    else:
        cluster = LocalCluster(n_workers=jobs, threads_per_worker=1, processes=True,
                               dashboard_address=None, host="127.0.0.1")
        client = Client(cluster)
    try:
        futures = [client.submit(play_shard, payload, s, pure=False) for s in shards]
        for future in as_completed(futures):
            yield future.result()
            future.release()
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
