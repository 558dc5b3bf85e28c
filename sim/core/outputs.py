"""Where commands write. Two promises hold for every output:

- an output never replaces one of the command's own inputs, nor a file inside a folder
  another command owns (a run folder holds `manifest.json`, a study folder `study.json`,
  a tuning folder `tuning.json`, an agent tuning folder `tune.json`): such an `--out` is
  refused in one line before any work;
- a folder of outputs (a report: `index.html`, `summary.json`, its games' pages) is
  replaced whole. The new folder is written beside the old one and switched in with one
  rename, so a killed command leaves the old report or the new one, never a mix.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import os
import shutil
import sys
from collections.abc import Callable
from collections.abc import Iterable
from collections.abc import Mapping
from pathlib import Path

from sim.core.errors import PortobelloError

# The file that marks a folder a command owns, and the command that owns it.
OWNED: dict[str, str] = {
    "manifest.json": "a run folder (`portobello simulate`)",
    "study.json": "a study folder (`portobello study`)",
    "tuning.json": "a tuning folder (`portobello tune`)",
    "tune.json": "an agent tuning folder (`portobello agents tune`)",
}
# What a report folder holds: anything else in an existing --out folder means it is not one
# (and replacing it whole would delete someone's files).
REPORT_ENTRIES = frozenset({"index.html", "summary.json", "games", "rules"})
# Subfolders an owner writes through the report commands (`STUDY/report`, `TUNING/report`).
REPORT_SUBFOLDER = "report"


class OutputError(PortobelloError):
    """An output path that would destroy an input or another command's files."""


def _resolved(path: str | Path) -> Path:
    return Path(os.path.abspath(os.path.expanduser(str(path)))).resolve()


def owner_of(path: Path) -> tuple[Path, str] | None:
    """The nearest folder at or above `path` that a command owns, with what it is."""
    for folder in (path, *path.parents):
        for marker, what in OWNED.items():
            if (folder / marker).is_file():
                return folder, what
    return None


def _same(a: Path, b: Path) -> bool:
    if a == b:
        return True
    try:
        return a.exists() and b.exists() and os.path.samefile(a, b)
    except OSError:
        return False


def check_output(out: str | Path, inputs: Iterable[str | Path] = (), *, field: str = "--out",
                 owned: Iterable[str | Path] = (), report: bool = False) -> Path:
    """`out` when writing it destroys nothing; an `OutputError` in one line otherwise.

    Refused: an `out` that is one of `inputs` (or, for a folder, holds one or lies in one),
    and an `out` inside a folder another command owns, unless that folder is in `owned`
    (the command's own) or `out` is that folder's `report/` subfolder and `report` is set.
    With `report`, `out` is a folder to be replaced whole: an existing one must be empty or
    hold only a report's files."""
    target = _resolved(out)
    for item in inputs:
        source = _resolved(item)
        if _same(target, source):
            raise OutputError(f"is also this command's input ({item}); give another path so "
                              "that the input is not overwritten", source=str(out), field=field)
        if report and (target in source.parents or source in target.parents):
            where = "holds" if target in source.parents else "lies inside"
            raise OutputError(f"{where} this command's input {item}; give a report folder "
                              "apart from it", source=str(out), field=field)
    mine = {_resolved(p) for p in owned}
    found = owner_of(target if target.is_dir() else target.parent)
    if found is not None and found[0] not in mine:
        folder, what = found
        allowed = report and target == folder / REPORT_SUBFOLDER
        if not allowed:
            raise OutputError(f"lies inside {folder}, {what}; this command does not write "
                              "there: give a path outside it", source=str(out), field=field)
    if report and target.is_dir():
        foreign = sorted(p.name for p in target.iterdir()
                         if p.name not in REPORT_ENTRIES and not p.name.startswith("."))
        if foreign:
            shown = ", ".join(foreign[:3]) + (", ..." if len(foreign) > 3 else "")
            raise OutputError(f"is a folder holding files that are not a report's ({shown}); "
                              "a report replaces its folder whole: give an empty or new "
                              "folder, or an earlier report's", source=str(out), field=field)
    elif report and target.exists():
        raise OutputError("is a file; give the report folder to write", source=str(out),
                          field=field)
    return Path(out)


# -- writing a file whole ----------------------------------------------------------------------
def atomic_write(path: str | Path, data: bytes) -> None:
    """Write under a temporary name, then rename: a reader sees the old file or the new
    one, never half of it; on failure (a full disk) the temporary file is removed, and the
    error names `path` (the disk fills while the file is written, not when it is named)."""
    write_together({path: data})


def write_together(files: Mapping[str | Path, bytes]) -> None:
    """Replace several files as one: each new content is written beside its file under a
    temporary name and flushed to disk, and only when every one of them is written are
    they renamed over their files, one after the other (a rename needs no room on the
    disk). When a write fails (a full disk) every temporary file is removed and no file is
    touched, so files that must agree (README and the reports' index) never show two
    states; the error names the file being written, not its temporary name."""
    staged = [(Path(path), _temporary(Path(path)), data) for path, data in files.items()]
    current: tuple[Path, Path] | None = None  # the file being written or renamed
    try:
        for path, tmp, data in staged:
            current = path, tmp
            with open(tmp, "wb") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
        for path, tmp, _ in staged:
            current = path, tmp
            os.replace(tmp, path)
    except OSError as exc:
        _remove(t for _, t, _ in staged)
        if current is not None and exc.errno is not None and (
                exc.filename is None or str(exc.filename) == str(current[1])):
            raise OSError(exc.errno, exc.strerror or str(exc), str(current[0])) from None
        raise
    except BaseException:
        _remove(t for _, t, _ in staged)
        raise


def _temporary(path: Path) -> Path:
    """The name a new content of `path` is written under, beside it (the same file system,
    so that the rename is one step): hidden, and marked with the writing process."""
    return path.with_name(f".{path.name}.tmp-{os.getpid()}")


def _remove(paths: Iterable[Path]) -> None:
    """Remove temporary files that may or may not exist (a write that failed early)."""
    for path in paths:
        with contextlib.suppress(OSError):
            path.unlink()


# -- replacing a folder whole ----------------------------------------------------------------
_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def _exchange(a: Path, b: Path) -> bool:
    """Swap two folders in one atomic step (Linux `renameat2` with RENAME_EXCHANGE); False
    where the system or the file system cannot."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        call = libc.renameat2
    except (OSError, AttributeError):
        return False
    call.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p,
                     ctypes.c_uint]
    if call(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP, errno.EOPNOTSUPP):
        return False
    raise OSError(code, os.strerror(code), str(b))


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _leftovers(dest: Path) -> None:
    """Clear what a killed replacement of `dest` left: a staging folder of a process that
    is gone; and, where the switch needed two renames, put the old folder back if the new
    one never arrived."""
    parent = dest.parent
    if not parent.is_dir():
        return
    for kind in ("new", "old"):
        for path in parent.glob(f".{dest.name}.{kind}-*"):
            pid = path.name.rsplit("-", 1)[-1]
            if pid.isdigit() and _alive(int(pid)) and int(pid) != os.getpid():
                continue
            if kind == "old" and not dest.exists():
                os.rename(path, dest)
            else:
                shutil.rmtree(path, ignore_errors=True)


def replace_folder(dest: str | Path, build: Callable[[Path], None]) -> Path:
    """Write a folder's new content with `build(staging)` into a staging folder beside
    `dest`, then switch it in place of `dest` in one rename (an exchange of the two where
    the system offers one; elsewhere two renames, which the next call repairs if killed
    between them). Until the switch `dest` is untouched; on any failure the staging folder
    is removed and `dest` stays as it was."""
    dest = Path(dest)
    _leftovers(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    staging = dest.with_name(f".{dest.name}.new-{os.getpid()}")
    shutil.rmtree(staging, ignore_errors=True)
    try:
        staging.mkdir()
        build(staging)
        _sync_folder(staging)
        if not dest.exists():
            os.rename(staging, dest)
        elif _exchange(staging, dest):
            pass  # `staging` now holds the old report
        else:
            old = dest.with_name(f".{dest.name}.old-{os.getpid()}")
            os.rename(dest, old)
            os.rename(staging, dest)
            staging = old
        _sync_folder(dest.parent)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return dest


def _sync_folder(folder: Path) -> None:
    """Flush a folder's entries to disk, so the switch is not undone by a crash."""
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
