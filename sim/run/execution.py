"""Where a command's games are played: in this process, in local worker processes (joblib's
loky), on a local Dask cluster, or on an existing Dask cluster reached by its scheduler's
address. Every command that plays many games (`simulate`, `study`, `tune`, `tournament` and
its `--probe`, `agents tune`) opens one `Pool` for its whole run and hands it tasks.

A task is a plain function and its arguments; it depends on nothing but them (each game on
its own seed), so a task gives the same result wherever and whenever it runs. Results come
back as tasks finish, tagged with their task's index, and the caller merges them in task
order (`Pool.ordered`), so the bytes a command writes do not depend on the backend, the
number of workers or the order in which tasks finish. Only the main process writes files.

A scheduler's address is checked before Dask's client is given it (`sim.run.scheduler`):
whatever else answers there is one line within `--scheduler-timeout` seconds. Local
workers leave Ctrl-C to the command, which stops them (`kept_from_children`), and the
results a command stopped reading are closed without joblib's note that tasks were
cancelled: after Ctrl-C the command's one line is all that shows.

On Dask, a worker that dies mid-task has its tasks run again elsewhere (Dask's own
retries); a lost scheduler stops the command with one line (`RunError`), and what the
command had already written (a study's shards, a tuning's log) is kept for the same
command to resume. Before any task runs, every worker is asked which version of the
playing code it runs (`worker_identity`): a worker that cannot import the project, or runs
other code, is refused with one message naming it, and each task checks the code again on
the worker that runs it, so a worker joining later cannot mix other games in either.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import logging
import os
import platform
import sys
import warnings
from collections.abc import Callable
from collections.abc import Iterator
from collections.abc import Sequence
from concurrent.futures import CancelledError
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sim.core.errors import PortobelloError
from sim.run.config import RunError
from sim.run.interrupts import kept_from_children
from sim.run.scheduler import SCHEDULER_TIMEOUT
from sim.run.scheduler import check_scheduler
from sim.run.scheduler import timeout_problem
from sim.run.task_store import TaskStore

BACKENDS = ("loky", "dask")
WORKER_WAIT = 30.0  # seconds a Dask cluster may take to have a worker
# Dask's own log (connection errors, retries, tracebacks) goes to this file when the variable
# names one; otherwise nowhere: the toolkit says in one line what happened.
DASK_LOG_VARIABLE = "PORTOBELLO_DASK_LOG"
DASK_LOGGERS = ("distributed", "tornado", "asyncio", "bokeh")  # and their children
# joblib's note, when its results are closed before their end (Ctrl-C, an error), that the
# tasks not yet used were cancelled: what stopping means, no news to the user.
CANCELLED_NOTE = r"(?s).*You could benefit from adjusting the input task iterator"


@dataclass(frozen=True)
class Execution:
    """How a command plays its tasks (the `--jobs`, `--backend`, `--scheduler` and
    `--scheduler-timeout` flags): never what it plays, so no result depends on it.
    `scheduler_timeout` None is the default (`SCHEDULER_TIMEOUT`); given, it goes with a
    scheduler only."""

    jobs: int = 1
    backend: str = "loky"
    scheduler: str | None = None
    scheduler_timeout: float | None = None

    def __post_init__(self) -> None:
        if self.backend not in BACKENDS:
            raise RunError(f"unknown backend {self.backend!r} (backends: "
                           f"{', '.join(BACKENDS)})", field="--backend")
        if self.scheduler_timeout is not None:
            problem = timeout_problem(self.scheduler_timeout)
            if problem is None and self.scheduler is None:
                problem = ("goes with --scheduler ADDRESS only (the time its scheduler has to "
                           "answer)")
            if problem is not None:
                raise RunError(problem, field="--scheduler-timeout")

    @property
    def timeout(self) -> float:
        """Seconds the scheduler has to answer (to a connection, then to Dask's client)."""
        return SCHEDULER_TIMEOUT if self.scheduler_timeout is None else self.scheduler_timeout

    @property
    def dask(self) -> bool:
        return self.backend == "dask" or self.scheduler is not None

    def label(self) -> str:
        """What the manifests record as the backend."""
        return f"dask@{self.scheduler}" if self.scheduler else self.backend

    def describe(self) -> str:
        """Where the tasks go, in words (for a command's closing line)."""
        if self.scheduler:
            return f"the Dask cluster at {self.scheduler}"
        if self.backend == "dask":
            return f"a local Dask cluster of {self.jobs} worker(s)"
        return "this process" if self.jobs == 1 else f"{self.jobs} local processes"


class WorkerMismatch(PortobelloError):
    """A worker runs other code than this command (or cannot import the project)."""


@functools.cache
def _code() -> str:
    """A hash of the project's installed sources (every module and data file under `sim`,
    by its place in the package): a worker must run these very files, not only code that
    plays alike."""
    root = Path(__file__).resolve().parents[1]
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.suffix in (".py", ".toml")):
        digest.update(path.relative_to(root).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def worker_identity() -> dict[str, str]:
    """What a worker runs: the hash of its sources, Python and the
    machine's name (for the message that refuses it)."""
    return {"code": _code(), "python": platform.python_version(), "host": platform.node()}


def run_checked(code: str, fn: Callable[..., Any], args: tuple[Any, ...]) -> Any:
    """A task on a worker: refused if the worker's playing code is not the command's."""
    if _code() != code:
        raise WorkerMismatch(f"worker {platform.node()} runs other playing code ({_code()}, "
                             f"this command {code}); install the same version of the project "
                             "on every worker and restart them", field="--scheduler")
    return fn(*args)


def _indexed(index: int, fn: Callable[..., Any], args: tuple[Any, ...]) -> tuple[int, Any]:
    return index, fn(*args)


class Pool:
    """The workers of one command, opened once (`with Pool(execution) as pool`) and given
    any number of task lists. `workers` is how many can play at once."""

    def __init__(self, execution: Execution | None = None) -> None:
        self.execution = execution or Execution()
        self.workers = max(1, self.execution.jobs)
        self._client: Any = None
        self._cluster: Any = None
        self._stack = contextlib.ExitStack()
        self._where = self.execution.scheduler or "a local cluster"
        self._results: list[Any] = []  # joblib's generators of results not yet at their end

    def __enter__(self) -> Pool:
        if self.execution.dask:
            self._stack.enter_context(dask_log())
            self._stack.enter_context(warnings.catch_warnings())
            # Dask's own notes on its diagnostics server's port: not the user's concern.
            warnings.filterwarnings("ignore", message=r"(?s).*Port \d+ is already in use")
            try:
                self._open_dask()
            except BaseException:
                self._stack.close()
                raise
        return self

    def __exit__(self, *exc: object) -> None:
        while self._results:  # a caller stopped reading them (Ctrl-C, an error)
            _close_quietly(self._results.pop())
        if self._client is not None:
            with contextlib.suppress(Exception):
                self._client.close(timeout=5)
        if self._cluster is not None:
            with contextlib.suppress(Exception):
                self._cluster.close()
        self._stack.close()

    # Dask ------------------------------------------------------------------------------------
    def _open_dask(self) -> None:
        from dask.distributed import Client
        from dask.distributed import LocalCluster

        scheduler = self.execution.scheduler
        if scheduler:
            timeout = self.execution.timeout
            check_scheduler(scheduler, timeout)  # a Dask scheduler answers there
            try:
                self._client = Client(scheduler, timeout=f"{timeout}s")
            except Exception as exc:  # whatever Dask meets on its way: one line
                text = (str(exc).strip().splitlines() or [""])[0][:200]
                raise RunError(f"{scheduler}: Dask's client could not connect "
                               f"({type(exc).__name__}: {text}); check the address, or give "
                               f"it longer than {timeout:g} s with --scheduler-timeout "
                               "SECONDS", field="--scheduler") from None
        else:
            self._cluster = LocalCluster(n_workers=self.execution.jobs, threads_per_worker=1,
                                         processes=True, dashboard_address=None,
                                         host="127.0.0.1")
            self._client = Client(self._cluster)
        try:
            self._client.wait_for_workers(1, timeout=WORKER_WAIT)
        except (OSError, TimeoutError):
            raise RunError(f"no Dask worker joined {self._where} within {WORKER_WAIT:.0f} s; "
                           "start workers (dask worker ADDRESS) and run the same command "
                           "again", field="--scheduler") from None
        self.check_workers()

    def check_workers(self) -> None:
        """Refuse the cluster if any worker cannot import the project or runs other
        playing code than this command; count the workers."""
        try:
            found = self._client.run(worker_identity, on_error="return")
        except (OSError, TimeoutError, CancelledError) as exc:
            raise self._lost(exc) from None
        mine = _code()
        problems = []
        for address, identity in sorted(found.items()):
            if isinstance(identity, BaseException):
                problems.append(f"{address} cannot import the project "
                                f"({type(identity).__name__}: {identity})")
            elif identity["code"] != mine:
                problems.append(f"{address} ({identity['host']}) runs other playing code "
                                f"({identity['code']}, this command {mine})")
        if problems:
            raise WorkerMismatch(f"{len(problems)} of {len(found)} Dask worker(s) refused "
                                 f"before any game: {problems[0]}"
                                 + (f" (and {len(problems) - 1} more)" if len(problems) > 1
                                    else "")
                                 + "; install this version of the project on every worker "
                                 "(docs/cluster.md) and restart them", field="--scheduler")
        self.workers = max(1, len(found))

    def _lost(self, exc: BaseException) -> RunError:
        return RunError(f"lost the Dask scheduler at {self._where} ({type(exc).__name__}); "
                        "what was finished is kept: run the same command again once it is "
                        "back", field="--scheduler")

    def _dask_unordered(self, fn: Callable[..., Any], tasks: Sequence[tuple[Any, ...]]
                        ) -> Iterator[tuple[int, Any]]:
        from dask.distributed import as_completed

        code = _code()
        futures = {self._client.submit(run_checked, code, fn, args, pure=False): i
                   for i, args in enumerate(tasks)}
        try:
            for future in as_completed(futures):
                result = future.result()
                yield futures[future], result
                future.release()
        except PortobelloError:
            raise
        except (OSError, TimeoutError, CancelledError) as exc:
            raise self._lost(exc) from None
        finally:
            for future in futures:
                with contextlib.suppress(Exception):
                    future.cancel()

    # Any backend -----------------------------------------------------------------------------
    def unordered(self, fn: Callable[..., Any], tasks: Sequence[tuple[Any, ...]]
                  ) -> Iterator[tuple[int, Any]]:
        """`fn(*args)` for every `args` of `tasks`, as each finishes: (its index, result)."""
        if not tasks:
            return
        if self._client is not None:
            yield from self._dask_unordered(fn, tasks)
            return
        if self.workers == 1 or len(tasks) == 1:
            for i, args in enumerate(tasks):
                yield i, fn(*args)
            return
        from joblib import Parallel
        from joblib import delayed

        parallel = Parallel(n_jobs=self.workers, backend="loky",
                            return_as="generator_unordered", pre_dispatch="2*n_jobs")
        results = None
        try:
            with kept_from_children():  # the workers start here: Ctrl-C is this process's
                results = parallel(delayed(_indexed)(i, fn, args)
                                   for i, args in enumerate(tasks))
            self._results.append(results)
            # Not `yield from`: closing this generator early (Ctrl-C, an error) must not
            # close joblib's before the `finally` below can silence its note.
            for item in results:  # noqa: UP028 (see above)
                yield item
        finally:
            if results is not None:
                _close_quietly(results)
                with contextlib.suppress(ValueError):
                    self._results.remove(results)

    def ordered(self, fn: Callable[..., Any], tasks: Sequence[tuple[Any, ...]],
                done: Callable[[int, Any], None] | None = None,
                store: TaskStore | None = None, keys: Sequence[str] | None = None
                ) -> list[Any]:
        """Every task's result, in task order whatever order they finished in; `done(index,
        result)` is called as each finishes (progress). With a `store` (and each task's
        key), finished tasks are kept as they arrive and read back instead of played."""
        results: list[Any] = [None] * len(tasks)
        todo = list(range(len(tasks)))
        if store is not None and keys is not None:
            todo = []
            for i, key in enumerate(keys):
                found, result = store.get(key)
                if found:
                    results[i] = result
                    if done is not None:
                        done(i, result)
                else:
                    todo.append(i)
        for k, result in self.unordered(fn, [tasks[i] for i in todo]):
            i = todo[k]
            results[i] = result
            if store is not None and keys is not None:
                store.put(keys[i], result)
            if done is not None:
                done(i, result)
        return results


def _close_quietly(results: Any) -> None:
    """Close joblib's generator of results (it cancels the tasks not yet used and stops
    the workers), without its note that it did (`CANCELLED_NOTE`): a command stopped by
    Ctrl-C says so in its one line."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=CANCELLED_NOTE, category=UserWarning)
        results.close()


@contextlib.contextmanager
def pool_for(pool: Pool | None, execution: Execution | None = None) -> Iterator[Pool]:
    """The command's open pool, or one opened for this call alone."""
    if pool is not None:
        yield pool
        return
    with Pool(execution) as own:
        yield own


def chunks(items: Sequence[Any], size: int) -> list[Sequence[Any]]:
    """`items` cut into consecutive pieces of at most `size` (tasks of a balanced size)."""
    return [items[i:i + size] for i in range(0, len(items), size)]


def task_size(count: int, workers: int, least: int, most: int) -> int:
    """Items per task: about four tasks per worker, so that a slow task does not leave the
    others idle, but at least `least` items (a task's fixed cost) and at most `most`.
    Results merged in task order do not depend on it."""
    return max(least, min(most, -(-count // (4 * max(1, workers)))))


def progress_bar(total: int, initial: int = 0, quiet: bool = False, unit: str = "game",
                 workers: int = 1, desc: str = "games") -> Any:
    """The command's one progress bar: its games (or other units) done of the total, the
    rate, and how many workers play them."""
    from tqdm import tqdm

    bar = tqdm(total=total, initial=initial, unit=unit, disable=quiet, smoothing=0.1,
               dynamic_ncols=True, desc=desc, file=sys.stderr)
    if not quiet:
        bar.set_postfix_str(f"{workers} worker{'s' if workers != 1 else ''}", refresh=False)
    return bar


@contextlib.contextmanager
def dask_log() -> Iterator[None]:
    """Dask's log kept out of the terminal while a command uses a cluster: written to the
    file `$PORTOBELLO_DASK_LOG` names, or dropped."""
    target = os.environ.get(DASK_LOG_VARIABLE)
    handler: logging.Handler
    try:
        handler = logging.FileHandler(target) if target else logging.NullHandler()
    except OSError:
        handler = logging.NullHandler()
    handler.setFormatter(logging.Formatter("%(asctime)s %(name)s %(levelname)s %(message)s"))
    import distributed  # noqa: F401  (it sets up its loggers on import: replace theirs)

    names = [n for n in list(logging.root.manager.loggerDict)
             if n.split(".")[0] in DASK_LOGGERS]
    saved = []
    for name in sorted(set(names) | set(DASK_LOGGERS)):
        log = logging.getLogger(name)
        saved.append((log, log.handlers[:], log.propagate))
        top = name in DASK_LOGGERS
        log.handlers = [handler] if top else []
        log.propagate = not top
    try:
        yield
    finally:
        for log, handlers, propagate in saved:
            log.handlers, log.propagate = handlers, propagate
        handler.close()
