"""`portobello serve`: a local web app to play against the bots in the browser."""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import socket
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

from sim.cli import options as O
from sim.core.errors import PortobelloError
from sim.core.errors import from_os_error
from sim.run.interrupts import say_interrupted

STOP_WAIT = 2  # seconds open requests get to finish once the server is told to stop


def check_port(port: int) -> None:
    """Refuse a port another program holds, in one line, before the server starts."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
        except OSError as exc:
            raise PortobelloError(f"cannot listen on 127.0.0.1:{port} ({exc.strerror}): give "
                                  "another with --port", field="--port") from None


def check_writable(folder: Path) -> None:
    """Refuse a folder the finished games cannot be saved in, before the server starts."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".probe-"):
            pass
    except OSError as exc:
        error = from_os_error(exc)
        raise PortobelloError(f"cannot save games there: {error.reason}", source=str(folder),
                              field="--out") from None


class StopNoise(logging.Filter):
    """Keeps uvicorn's own account of a stop out of the terminal: the requests it cuts short
    once `STOP_WAIT` has passed (a bot move or hint still thinking) are expected then."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.exc_info and isinstance(record.exc_info[1], asyncio.CancelledError):
            return False
        return "graceful shutdown exceeded" not in record.getMessage()


def cmd_serve(args: argparse.Namespace) -> int:
    """Serve the play page on 127.0.0.1 until interrupted (Ctrl-C or SIGTERM)."""
    try:
        import uvicorn

        from sim.web.app import build_app
        from sim.web.app import play_pages
    except ImportError as exc:
        raise PortobelloError(f"the web app needs starlette and uvicorn ({exc.name} is missing:"
                              " pip install 'portobello[web]')") from None
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise PortobelloError("is not a folder: give the folder to save games in",
                              source=args.out, field="--out")
    if args.port > 65535:
        raise PortobelloError(f"must be a port of at most 65535, got {args.port}",
                              field="--port")
    if args.files is not None and not Path(args.files).is_dir():
        raise PortobelloError("is not a folder: give the folder of rules and board files the "
                              "page may use", source=args.files, field="--files")
    O.check_out(args, out)
    check_writable(out)
    check_port(args.port)
    app = build_app(out, bot_delay_ms=args.bot_delay, port=args.port, files_dir=args.files)
    offered = f"; rules and board files from {args.files}" if args.files else ""
    others = "".join(f"{title}: http://127.0.0.1:{args.port}{path}; "
                     for path, title in play_pages().items() if path != "/")
    print(f"playing at http://127.0.0.1:{args.port}/ ({others}finished games saved in "
          f"{args.out}{offered}; Ctrl-C stops)", flush=True)
    logging.getLogger("uvicorn.error").addFilter(StopNoise())
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=args.port,
                                           log_level="warning",
                                           timeout_graceful_shutdown=STOP_WAIT))
    code = 0
    try:
        server.run()  # SIGTERM: uvicorn stops, then ends the process by the signal itself
    except KeyboardInterrupt:
        say_interrupted()
        code = 130
    if threading.active_count() > 1:
        # A bot or hint still thinking (at most `limits.MAX_SECONDS`) holds no file open:
        # records are written whole before a move is answered. Leave without waiting.
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    return code


def add_parser(subparsers: Any) -> None:
    """Register `portobello serve`."""
    p = O.add_command(subparsers, "serve", "play against the bots in the browser", cmd_serve,
                      description="Serve a local web page (on 127.0.0.1 only) where you play "
                      "against the bots: pick the board, rules (a preset, a rules file, "
                      "switches), the player count, your seat and each other seat's agent; "
                      "click a spot, square, district or token to act (an illegal click shows "
                      "the engine's reason), undo, and ask an agent for a hint. Each browser "
                      "tab plays its own game; a finished game is saved as a record and opens "
                      "in the viewer.")
    p.add_argument("--port", type=O.Integer(1, "a port (1-65535)"), default=8765,
                   help="the port to listen on")
    p.add_argument("--bot-delay", type=O.Integer(0, "milliseconds (at least 0)"), default=400,
                   metavar="MS", help="pause before each bot move, so you can follow it")
    p.add_argument("--files", metavar="DIR", default=None,
                   help="folder of rules and board TOML files the page may offer (default: "
                   "none; the shipped boards and presets only: the page reads no other file)")
    O.add_out(p, "DIR", "folder the finished games' records are saved in",
              default="data/runs/play")
