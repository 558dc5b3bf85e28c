"""Ctrl-C that is never lost, and never lands inside compiled code.

Python drops a KeyboardInterrupt raised while it runs some internal callbacks (one of them
releases an import lock: "Exception ignored in ... KeyboardInterrupt"), and compiled code
that imports a module may print its failure and go on (a traceback ending in
KeyboardInterrupt), so a Ctrl-C in the first second of a command, while it imports, could
be swallowed, or shown as a traceback, and the command run on for minutes. The command
line's handler (`ctrl_c_noted`) therefore also notes each interrupt, and the places where
stopping is safe (`raise_if_interrupted`: after loading, before each slice of compiled
play) raise one that was noted but lost. `interrupts_held` defers an interrupt to the end
of a block of compiled play, which a signal could crash.

A Ctrl-C also ends the command within `STOP_WITHIN` seconds whatever it is waiting for: a
library's shutdown (joblib's workers being stopped, say) can wait on something that never
comes, and a command that ignores Ctrl-C is worse than one that leaves without its cleanup.
Every file the toolkit writes is written whole (to a temporary name, then renamed), so such
an exit loses nothing already written; the same command resumes.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections.abc import Callable
from collections.abc import Iterator
from types import FrameType
from typing import Any
from typing import NoReturn

STOP_WITHIN = 20.0  # seconds from a Ctrl-C to the end of the command, at most

_noted = threading.Event()
_said = threading.Event()  # "portobello: interrupted" is printed once
_watchdog: list[threading.Timer] = []


def _on_sigint(signum: int, frame: FrameType | None) -> None:
    _noted.set()
    arm_stop()
    raise KeyboardInterrupt


INTERRUPTED = "portobello: interrupted"  # an interrupted command's one line


def _first_word() -> bool:
    """True the first time it is asked since the command began: the line is said once."""
    first = not _said.is_set()
    _said.set()
    return first


def say_interrupted() -> None:
    """The one line of an interrupted command, on standard error (once)."""
    if _first_word():
        print(INTERRUPTED, file=sys.stderr, flush=True)


def _stop_now() -> None:
    # From the watchdog's thread: the main thread may hold sys.stderr's lock.
    if _first_word():
        os.write(2, INTERRUPTED.encode() + b"\n")
    os._exit(130)


def arm_stop() -> None:
    """End the process with exit status 130 in `STOP_WITHIN` seconds unless it has ended by
    then (once armed, a second call changes nothing)."""
    if not _watchdog:
        timer = threading.Timer(STOP_WITHIN, _stop_now)
        timer.daemon = True
        _watchdog.append(timer)
        timer.start()


def disarm_stop() -> None:
    """The command is over and its caller goes on (a test, a notebook): no forced exit."""
    while _watchdog:
        _watchdog.pop().cancel()


def _main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


@contextlib.contextmanager
def ctrl_c_noted() -> Iterator[None]:
    """Ctrl-C raises KeyboardInterrupt and is noted for `raise_if_interrupted` while the
    block runs (a command); the previous handler comes back after it. Each command says
    its one line afresh, whichever thread runs it and whatever the handler was."""
    _said.clear()
    if not _main_thread() or signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        yield
        return
    _noted.clear()
    previous = signal.signal(signal.SIGINT, _on_sigint)
    before, before_except = sys.unraisablehook, sys.excepthook
    sys.unraisablehook = _quiet_about_interrupts(before)
    sys.excepthook = _quiet_printing(before_except)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        sys.unraisablehook = before
        sys.excepthook = before_except
        _noted.clear()
        disarm_stop()


def _quiet_about_interrupts(hook: Callable[[Any], object]) -> Callable[[Any], object]:
    """`sys.unraisablehook` without Python's "Exception ignored" account of a dropped
    KeyboardInterrupt (the interrupt is noted and raised later); others go to `hook`."""
    def quiet(unraisable: Any) -> object:
        if isinstance(unraisable.exc_value, KeyboardInterrupt):
            return None
        return hook(unraisable)
    return quiet


def _quiet_printing(hook: Callable[..., object]) -> Callable[..., object]:
    """`sys.excepthook` that prints no KeyboardInterrupt: compiled code that imports a
    module and prints its failure instead of raising it (`PyErr_Print`, which calls this
    hook) would otherwise show a Ctrl-C as a traceback; the interrupt is noted and raised
    later. Others go to `hook`."""
    def quiet(kind: type[BaseException], value: BaseException, tb: Any) -> object:
        if issubclass(kind, KeyboardInterrupt):
            _noted.set()
            return None
        return hook(kind, value, tb)
    return quiet


def exit_interrupted() -> NoReturn:
    """End an interrupted command's process with exit status 130, after its exit hooks:
    Python's own shutdown could report a kill by SIGINT instead when the interrupt hit code
    it ran for an extension module, and a caller reads 130 as "interrupted"."""
    import atexit

    arm_stop()  # the exit hooks below may wait on a library's shutdown
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(130)


def stop_while_loading() -> NoReturn:
    """Ctrl-C before a command has begun (nothing written yet): its one line, then
    `exit_interrupted`."""
    say_interrupted()
    exit_interrupted()


def interrupt_noted() -> bool:
    """Whether Ctrl-C came during `ctrl_c_noted` (whether or not it was lost on the way)."""
    return _noted.is_set()


def came_of_ctrl_c(exc: BaseException) -> bool:
    """Whether `exc` is Ctrl-C's doing: a KeyboardInterrupt in its chain of causes (inside
    compiled code it surfaces as a SystemError, inside a class body as a RuntimeError), or
    any error once a Ctrl-C was noted (a library's compiled import can lose it on the way
    and fail with an ImportError instead)."""
    seen: set[int] = set()
    link: BaseException | None = exc
    while link is not None and id(link) not in seen:
        if isinstance(link, KeyboardInterrupt):
            return True
        seen.add(id(link))
        link = link.__cause__ or link.__context__
    return interrupt_noted()


def raise_if_interrupted() -> None:
    """Raise KeyboardInterrupt if Ctrl-C came during `ctrl_c_noted` and was lost on the way."""
    if _noted.is_set():
        raise KeyboardInterrupt


@contextlib.contextmanager
def kept_from_children() -> Iterator[None]:
    """Processes started in the block (a pool's workers) never receive Ctrl-C themselves:
    a terminal sends it to every process of the command, and a worker still loading would
    print a traceback of its own, where the command's one line is all that should show.
    The command's process stops them instead (joblib cancels their tasks and ends them).
    SIGINT is blocked in this thread while they start, since a child inherits the blocked
    set; one that comes meanwhile is delivered as the block ends, so none is lost. Outside
    the main thread, or where signals cannot be blocked, the block just runs.

    Python's resource tracker, which every worker's start asks for, is started first:
    starting it unblocks SIGINT (before Python 3.14), which would undo the block."""
    if not hasattr(signal, "pthread_sigmask") or not _main_thread():
        yield
        return
    from multiprocessing import resource_tracker

    resource_tracker.ensure_running()
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


@contextlib.contextmanager
def interrupts_held() -> Iterator[None]:
    """Ctrl-C (SIGINT) noted but not raised while the block runs, then raised as
    KeyboardInterrupt; in a thread other than the main one (where Python delivers no signal)
    the block just runs. An interrupt noted before the block and lost is raised first."""
    raise_if_interrupted()
    if not _main_thread() or signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        yield
        return
    held: list[int] = []

    def hold(signum: int, frame: FrameType | None) -> None:
        held.append(signum)

    previous = signal.signal(signal.SIGINT, hold)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if held:
        _noted.set()
        raise KeyboardInterrupt
