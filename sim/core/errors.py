"""Errors a user can meet: each names the file, the field and the reason in one line."""

from __future__ import annotations

import errno
from typing import Any

QUOTE_LIMIT = 60  # characters of a value an error message quotes
MESSAGE_LIMIT = 1_000  # characters of a whole message (a reason built from user data)


def quote(value: Any) -> str:
    """A value as an error message quotes it: its repr, cut to a short length, so a huge or
    hostile value in a file never floods the terminal."""
    text = repr(value)
    return text if len(text) <= QUOTE_LIMIT else text[:QUOTE_LIMIT - 3] + "..."


class PortobelloError(Exception):
    """A problem with user input; the command line prints it as one line and exits non-zero."""

    exit_code = 1

    def __init__(self, reason: str, *, source: str | None = None, field: str | None = None):
        self.reason = reason
        self.source = source
        self.field = field
        super().__init__(self.message)

    @property
    def message(self) -> str:
        where = ""
        if self.source:
            where = f"{self.source}: "
        if self.field:
            where += f"{self.field}: "
        # One line whatever the ids in it hold (a square id may contain a newline).
        text = f"{where}{self.reason}".replace("\r", "\\r").replace("\n", "\\n")
        return text if len(text) <= MESSAGE_LIMIT else text[:MESSAGE_LIMIT - 3] + "..."

    def __str__(self) -> str:
        return self.message


class BoardError(PortobelloError):
    """A board file that does not describe a playable board."""


class CardError(PortobelloError):
    """A card-set file that does not describe a playable set of River Market cards."""


class RulesError(PortobelloError):
    """A rules configuration that is malformed or inconsistent."""


class RecordError(PortobelloError):
    """A game record that cannot be read (malformed JSON, unknown fields...)."""


class IllegalActionError(PortobelloError, ValueError):
    """An action that the rules do not allow in the current state."""

    exit_code = 2


class AgentError(PortobelloError):
    """An agent raised or chose an illegal action; carries the game seed and the state (a
    game's play loop raises it, the toolkit reports the game and goes on: a tournament
    leaves the game out, a study names it)."""

    def __init__(self, reason: str, *, seed: int | None, seat: int, agent: str,
                 state: str) -> None:
        self.seed, self.seat, self.agent, self.state = seed, seat, agent, state
        super().__init__(f"agent {agent} (seat {seat}) in game seed {seed}: {reason}; "
                         f"state: {state}")

    def __reduce__(self) -> tuple[object, ...]:
        # Worker processes send errors back pickled; keep the same message and fields.
        return (_restore_agent_error, (self.reason, self.seed, self.seat, self.agent,
                                       self.state))


def _restore_agent_error(message: str, seed: int | None, seat: int, agent: str,
                         state: str) -> AgentError:
    err = AgentError.__new__(AgentError)
    err.seed, err.seat, err.agent, err.state = seed, seat, agent, state
    PortobelloError.__init__(err, message)
    return err


class OperatingSystemError(PortobelloError):
    """An operating-system error (a full disk, a missing folder, no permission...)."""


ADVICE = {
    errno.ENOSPC: "the disk is full; free some space and run the same command again "
                  "(what was finished is kept)",
    errno.EDQUOT: "the disk quota is used up; free some space and run the same command again",
    errno.EACCES: "no permission; choose a place you may write to",
    errno.EPERM: "not permitted; choose a place you may write to",
    errno.EROFS: "a read-only file system; choose a place you may write to",
    errno.ENOENT: "no such file or folder; check the path",
    errno.ENOTDIR: "a part of the path is a file, not a folder",
    errno.EEXIST: "already exists and is not a folder; choose another path",
    errno.EISDIR: "is a folder; a file is expected here",
}


def from_os_error(exc: OSError) -> PortobelloError:
    """One line for an operating-system error: the path, what happened and what to do."""
    advice = ADVICE.get(exc.errno or -1) or (exc.strerror or str(exc))
    path = exc.filename if exc.filename is not None else None
    plain = exc.errno not in ADVICE or not exc.strerror or exc.errno == errno.ENOENT
    return OperatingSystemError(advice if plain else f"{exc.strerror.lower()}: {advice}",
                                source=str(path) if path is not None else None)
