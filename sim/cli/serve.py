"""`portobello serve`: a local web app to play against the bots in the browser."""

from __future__ import annotations

import argparse
from typing import Any

from sim.cli import options as O


def cmd_serve(args: argparse.Namespace) -> int:
    """Serve the play page on 127.0.0.1 until interrupted."""
    try:
        import uvicorn

        from sim.web.app import build_app
    except ImportError as exc:
        from sim.engine.errors import PortobelloError

        raise PortobelloError(f"the web app needs starlette and uvicorn ({exc.name} is missing:"
                              " pip install 'portobello[web]')") from None
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
