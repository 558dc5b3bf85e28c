"""The files of a run folder: shard paths, atomic writes, the one-writer lock, shard checks
and the provenance a manifest records (code version, git commit, library versions)."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import platform
import socket
import subprocess
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from sim.run.config import RunError

RUN_FORMAT = "portobello-run/1"
TABLES = ("games", "players", "events", "records")
LOCK_NAME = ".lock"


def shard_path(out: Path, table: str, shard: int) -> Path:
    suffix = "jsonl.gz" if table == "records" else "parquet"
    return out / table / f"part-{shard:05d}.{suffix}"


def atomic_write(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def write_json_atomic(path: Path, obj: Any) -> None:
    atomic_write(path, (json.dumps(obj, indent=2, sort_keys=False) + "\n").encode())


@contextlib.contextmanager
def run_lock(out: Path) -> Iterator[None]:
    """One writer per folder, held as an operating-system lock (`fcntl.flock`) on `.lock`.

    The lock dies with its holder, so a killed run leaves nothing stale to take over, and two
    processes can never both hold it (a process that opened the file just as the holder
    removed it checks that it locked the file now at the path, and tries again otherwise).
    The file names the holder, for the message a second writer gets."""
    path = out / LOCK_NAME
    me = f"{socket.gethostname()} {os.getpid()}"
    while True:
        fd = os.open(path, os.O_CREAT | os.O_RDWR, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 200, 0).decode(errors="replace").strip()
            os.close(fd)
            raise RunError(f"another run is writing this folder (lock held by {holder or '?'}); "
                           "wait for it to finish", source=str(out)) from None
        try:
            current = os.stat(path).st_ino == os.fstat(fd).st_ino
        except FileNotFoundError:
            current = False
        if current:
            break
        os.close(fd)  # locked a file its holder had just removed: lock the new one
    os.ftruncate(fd, 0)
    os.pwrite(fd, me.encode(), 0)
    try:
        yield
    finally:
        path.unlink(missing_ok=True)  # while still holding it: the next writer locks afresh
        os.close(fd)


def git_commit() -> str | None:
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True,
                             cwd=Path(__file__).resolve().parent, timeout=5, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None


def library_versions() -> dict[str, str]:
    out = {"python": platform.python_version()}
    for lib in ("numpy", "pyarrow", "polars", "pandas", "joblib", "dask", "distributed",
                "numba"):
        with contextlib.suppress(metadata.PackageNotFoundError):
            out[lib] = metadata.version(lib)
    return out


def code_version() -> str:
    try:
        return metadata.version("portobello")
    except metadata.PackageNotFoundError:
        return "unknown"


def check_shard(path: Path, run_id: str, table: str, expected_rows: int) -> int:
    """Refuse a shard that is damaged, belongs to another run, or holds more rows than its
    games; returns its rows (fewer than expected: the last shard of a shorter run of the
    same configuration, to be played again when the run is topped up)."""
    try:
        meta = pq.read_metadata(path)
    except Exception as exc:  # pyarrow raises several types for damaged files
        raise RunError(f"shard is damaged and cannot be read ({exc}); delete it and run the "
                       "same command again to replay its games", source=str(path)) from None
    owner = (meta.metadata or {}).get(b"portobello_run_id", b"").decode()
    if owner != run_id:
        raise RunError(f"shard belongs to another run ({owner or 'not a portobello shard'}, this "
                       f"run is {run_id}); remove it from this folder", source=str(path))
    if expected_rows >= 0 and meta.num_rows > expected_rows:
        raise RunError(f"shard has {meta.num_rows} rows, expected {expected_rows}; delete it "
                       "and run the same command again", source=str(path))
    return int(meta.num_rows)
