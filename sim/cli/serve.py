"""`portobello serve`: a local web app to play against the bots in the browser."""

from __future__ import annotations

import argparse
import socket
from pathlib import Path
from typing import Any

from sim.cli import options as O
from sim.engine.errors import PortobelloError


def check_port(port: int) -> None:
    """Refuse a port another program holds, in one line, before the server starts."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
        except OSError as exc:
            raise PortobelloError(f"cannot listen on 127.0.0.1:{port} ({exc.strerror}): give "
                                  "another with --port", field="--port") from None


def cmd_serve(args: argparse.Namespace) -> int:
    """Serve the play page on 127.0.0.1 until interrupted."""
    try:
        import uvicorn

        from sim.web.app import build_app
    except ImportError as exc:
        raise PortobelloError(f"the web app needs starlette and uvicorn ({exc.name} is missing:"
                              " pip install 'portobello[web]')") from None
    if Path(args.out).exists() and not Path(args.out).is_dir():
        raise PortobelloError("is not a folder: give the folder to save games in",
                              source=args.out, field="--out")
    if args.port > 65535:
        raise PortobelloError(f"must be a port of at most 65535, got {args.port}",
                              field="--port")
    check_port(args.port)
    app = build_app(args.out, bot_delay_ms=args.bot_delay)
    print(f"playing at http://127.0.0.1:{args.port}/ (finished games saved in {args.out}; "
          "Ctrl-C stops)")
    uvicorn.run(app, host="127.0.0.1", port=args.port, log_level="warning")
    return 0


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
    O.add_out(p, "DIR", "folder the finished games' records are saved in",
              default="data/runs/play")
