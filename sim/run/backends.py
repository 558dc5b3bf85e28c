"""Where shards are played: in this process, in joblib (loky) workers, or on a Dask cluster
(a local one, or an existing one by scheduler address). Results come back as shards finish;
only the main process writes files."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from collections.abc import Sequence
from concurrent.futures import CancelledError
from typing import Any

from sim.engine.errors import PortobelloError
from sim.run.config import RunError
from sim.run.shard import play_shard

WORKER_WAIT = 30.0  # seconds a Dask cluster may take to have a worker


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


def _dask_results(payload: dict[str, Any], shards: Sequence[int], jobs: int,
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
