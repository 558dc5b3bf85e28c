"""Finished tasks kept on disk, so that a command stopped midway (a lost Dask scheduler, a
Ctrl-C, a killed process) plays again only the tasks it had not finished.

For the commands whose own files keep nothing until they end (a tournament writes its
table once every game is played): each task's result is written as it arrives, under a
key that says everything the task's result depends on, and read back by the same command
run again. A file that cannot be read (cut short by a crash) is a task not finished. The
folder goes once the command's own file is written.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import pickle
import shutil
from pathlib import Path
from typing import Any

from sim.core.outputs import atomic_write
from sim.run.config import play_code


def task_key(*parts: Any) -> str:
    """A key for a task from everything its result depends on (plain data), and the
    version of the playing code, so that no other code's result is ever read back."""
    return json.dumps([play_code(), *parts], sort_keys=True, default=str)


class TaskStore:
    """The finished tasks of one command's work, in `folder`, by key."""

    def __init__(self, folder: str | Path) -> None:
        self.folder = Path(folder)

    def _path(self, key: str) -> Path:
        return self.folder / (hashlib.blake2b(key.encode(), digest_size=16).hexdigest()
                              + ".pickle")

    def get(self, key: str) -> tuple[bool, Any]:
        """(True, the result) for a finished task, else (False, None)."""
        try:
            data = self._path(key).read_bytes()
            stored_key, result = pickle.loads(data)  # the command's own files
        except (OSError, pickle.UnpicklingError, EOFError, ValueError, TypeError,
                AttributeError, ImportError):
            return False, None
        return (True, result) if stored_key == key else (False, None)

    def put(self, key: str, result: Any) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        atomic_write(self._path(key), pickle.dumps((key, result),
                                                   protocol=pickle.HIGHEST_PROTOCOL))

    def clear(self) -> None:
        """Remove the folder (the command's own file now holds every result)."""
        with contextlib.suppress(OSError):
            shutil.rmtree(self.folder)
