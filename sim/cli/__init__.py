"""The `portobello` command line: one module per command on shared option builders."""

from __future__ import annotations

import signal
import sys
import threading

TYPE_CHECKING = False  # typing is not imported: Ctrl-C is answered from the first lines
if TYPE_CHECKING:
    from collections.abc import Sequence
    from types import FrameType
    from typing import NoReturn

_EARLY: list[int] = []  # interrupts that came before `sim.run.interrupts` was loaded


def _early_interrupt(signum: int, frame: FrameType | None) -> None:
    """Ctrl-C while the handler of `sim.run.interrupts` is still loading: noted here, since
    Python may drop the KeyboardInterrupt inside an import's callback."""
    _EARLY.append(signum)
    raise KeyboardInterrupt


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line (`sim.cli.command.main`); Ctrl-C while it is still loading is the
    same one line and exit status 130 as later, even when Python drops the interrupt inside
    an import (`sim.run.interrupts`)."""
    original = None
    if threading.current_thread() is threading.main_thread() and \
            signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:
        _EARLY.clear()
        original = signal.signal(signal.SIGINT, _early_interrupt)
    try:
        try:
            from sim.run.interrupts import came_of_ctrl_c
            from sim.run.interrupts import ctrl_c_noted
            from sim.run.interrupts import raise_if_interrupted
            from sim.run.interrupts import stop_while_loading
            if _EARLY:
                raise KeyboardInterrupt
        except KeyboardInterrupt:
            print("portobello: interrupted", file=sys.stderr)
            return 130
        with ctrl_c_noted():
            try:
                from sim.cli.command import main as run

                if _EARLY:
                    raise KeyboardInterrupt
                raise_if_interrupted()
            except KeyboardInterrupt:
                stop_while_loading()
            except Exception as exc:  # Ctrl-C surfacing as another error while loading
                if not (_EARLY or came_of_ctrl_c(exc)):
                    raise
                stop_while_loading()
            return run(argv)
    finally:
        if original is not None:
            signal.signal(signal.SIGINT, original)


def command() -> NoReturn:
    """The `portobello` program: `main` on the process's arguments, then its exit status
    (after Ctrl-C, 130 by `sim.run.interrupts.exit_interrupted`)."""
    code = main()
    if code == 130:
        from sim.run.interrupts import exit_interrupted

        exit_interrupted()
    sys.exit(code)


__all__ = ["command", "main"]
