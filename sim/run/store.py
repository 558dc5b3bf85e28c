"""The files of a run folder: shard paths, atomic writes, the one-writer lock, shard checks
and the provenance a manifest records (code version, git commit, library versions)."""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
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

from sim.core.outputs import atomic_write
from sim.run.config import RunError

RUN_FORMAT = "portobello-run/2"
# Runs of an earlier format are read and reported as they are, never resumed or topped up:
# /1 games were played with CPython's Mersenne Twister, so their seeds no longer give them.
READABLE_FORMATS = ("portobello-run/1", RUN_FORMAT)
TABLES = ("games", "players", "events", "records")
CHECKSUMS = "checksums"  # one JSON per finished shard: each file's sha256, size and rows
LOCK_NAME = ".lock"


def manifest_cost(manifest: Any) -> dict[str, Any]:
    """What playing a run's games has cost over every command that played some, from its
    manifest: `seconds`, `games_played` and the `jobs` used (zeros when none is recorded).
    A manifest older than its `cost` field gives its last command's timings, when that
    command played games."""
    cost = manifest.get("cost") if isinstance(manifest, dict) else None
    if cost is None and isinstance(manifest, dict):
        last = manifest.get("timings") or {}
        if last.get("games_played"):
            cost = {"seconds": last.get("seconds", 0.0),
                    "games_played": last["games_played"], "jobs": [last.get("jobs", 1)]}
    if not isinstance(cost, dict):
        return {"seconds": 0.0, "games_played": 0, "jobs": []}
    return {"seconds": float(cost.get("seconds", 0.0)),
            "games_played": int(cost.get("games_played", 0)),
            "jobs": sorted({int(j) for j in cost.get("jobs", [])})}


def shard_path(out: Path, table: str, shard: int) -> Path:
    suffix = "jsonl.gz" if table == "records" else "parquet"
    return out / table / f"part-{shard:05d}.{suffix}"


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


def check_shard(path: Path, run_id: str, table: str, expected_rows: int, *,
                damaged_ok: bool = False) -> int:
    """Refuse a shard that is damaged, belongs to another run, or holds more rows than its
    games; returns its rows (fewer than expected: the last shard of a shorter run of the
    same configuration, to be played again when the run is topped up). With `damaged_ok` a
    file that cannot be read returns -1 (its checksum will not match: it is played again);
    a file of another run is refused in any case."""
    try:
        meta = pq.read_metadata(path)
    except Exception as exc:  # pyarrow raises several types for damaged files
        if damaged_ok:
            return -1
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


# -- integrity: a checksum file per finished shard -------------------------------------------
def checksum_path(out: Path, shard: int) -> Path:
    return out / CHECKSUMS / f"part-{shard:05d}.json"


def file_entry(data: bytes, rows: int) -> dict[str, Any]:
    return {"sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data), "rows": rows}


def write_checksums(out: Path, shard: int, run_id: str, games: int,
                    files: dict[str, dict[str, Any]]) -> None:
    """Record a shard as finished: written last, atomically, after all its files."""
    checksum_path(out, shard).parent.mkdir(exist_ok=True)
    write_json_atomic(checksum_path(out, shard), {"run_id": run_id, "shard": shard,
                                                  "games": games, "files": files})


def verify_shard(out: Path, shard: int, tables: list[str], run_id: str) -> str | None:
    """None when the shard's checksum file and every table file are present and match;
    otherwise what is wrong, naming the file (missing, damaged, from another run)."""
    path = checksum_path(out, shard)
    if not path.is_file():
        return f"{path} is missing (the shard never finished)"
    try:
        sums = json.loads(path.read_text())
        files = sums["files"]
        owner = sums["run_id"]
    except (OSError, ValueError, KeyError, TypeError):
        return f"{path} is damaged"
    if owner != run_id:
        return f"{path} belongs to another run ({owner})"
    for table in tables:
        file = shard_path(out, table, shard)
        entry = files.get(table) if isinstance(files, dict) else None
        if not isinstance(entry, dict):
            return f"{file} is not recorded in {path}"
        try:
            data = file.read_bytes()
        except FileNotFoundError:
            return f"{file} is missing"
        except OSError as exc:
            return f"{file} cannot be read ({exc.strerror or exc})"
        if len(data) != entry.get("bytes") or \
                hashlib.sha256(data).hexdigest() != entry.get("sha256"):
            owner = _owner(file) if table != "records" else None
            if owner is not None and owner != run_id:
                return f"{file} belongs to another run ({owner or 'not a portobello shard'})"
            return f"{file} is damaged (its checksum does not match)"
    return None


def _owner(path: Path) -> str | None:
    """The run id a Parquet shard names, or None when it cannot be read."""
    try:
        meta = pq.read_metadata(path)
    except Exception:  # pyarrow raises several types for damaged files
        return None
    return (meta.metadata or {}).get(b"portobello_run_id", b"").decode()
