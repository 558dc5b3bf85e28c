"""Where shards are played: in this process, in joblib (loky) workers, or on a Dask cluster
(a local one, or an existing one by scheduler address). Results come back as shards finish;
only the main process writes files."""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Iterator
from collections.abc import Sequence
from concurrent.futures import CancelledError
from typing import Any

from sim.engine.errors import PortobelloError
from sim.run.config import RunError
from sim.run.shard import play_shard

WORKER_WAIT = 30.0  # seconds a Dask cluster may take to have a worker
# Dask's own log (connection errors, retries, tracebacks) goes to this file when the variable
# names one; otherwise nowhere: the toolkit says in one line what happened.
DASK_LOG_VARIABLE = "PORTOBELLO_DASK_LOG"
DASK_LOGGERS = ("distributed", "tornado", "asyncio", "bokeh")  # and their children


def progress_bar(total: int, initial: int, quiet: bool) -> Any:
    from tqdm import tqdm

    return tqdm(total=total, initial=initial, unit="game", disable=quiet, smoothing=0.1,
                dynamic_ncols=True, desc="games")


def shard_results(payload: dict[str, Any], shards: Sequence[int], jobs: int, backend: str,
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
    from joblib import Parallel
    from joblib import delayed

    parallel = Parallel(n_jobs=jobs, backend="loky", return_as="generator_unordered",
                        pre_dispatch="2*n_jobs")
    yield from parallel(delayed(play_shard)(payload, s) for s in shards)


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


def _dask_results(payload: dict[str, Any], shards: Sequence[int], jobs: int,
                  scheduler: str | None) -> Iterator[dict[str, Any]]:
    with dask_log():
        yield from _dask_shards(payload, shards, jobs, scheduler)


def _dask_shards(payload: dict[str, Any], shards: Sequence[int], jobs: int,
                 scheduler: str | None) -> Iterator[dict[str, Any]]:
    from dask.distributed import Client
    from dask.distributed import LocalCluster
    from dask.distributed import as_completed

    cluster = None
    where = scheduler or "a local cluster"
    if scheduler:
        try:
            client = Client(scheduler, timeout="10s")
        except (OSError, TimeoutError) as exc:
            raise RunError(f"cannot reach the Dask scheduler ({exc}); start it, or check the "
                           "address", field=f"--scheduler {scheduler}") from None
    else:
        cluster = LocalCluster(n_workers=jobs, threads_per_worker=1, processes=True,
                               dashboard_address=None, host="127.0.0.1")
        client = Client(cluster)
    try:
        try:
            client.wait_for_workers(1, timeout=WORKER_WAIT)
        except (OSError, TimeoutError):
            raise RunError(f"no Dask worker joined {where} within {WORKER_WAIT:.0f} s; start "
                           "workers (dask worker ADDRESS) and run the same command again",
                           field="--scheduler") from None
        futures = [client.submit(play_shard, payload, s, pure=False) for s in shards]
        try:
            for future in as_completed(futures):
                yield future.result()
                future.release()
        except PortobelloError:
            raise
        except (OSError, TimeoutError, CancelledError) as exc:
            raise RunError(f"lost the Dask scheduler at {where} ({type(exc).__name__}); the "
                           "finished shards are kept: run the same command again once it is "
                           "back", field="--scheduler") from None
    finally:
        with contextlib.suppress(Exception):
            client.close(timeout=5)
        if cluster is not None:
            cluster.close()
