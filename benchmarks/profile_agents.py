"""Where the game loop played decision by decision spends its time: cProfile over
`sim.games.portobello.loop.play_game` (the Python loop through `Game`, the agents' compiled
decisions and the compiled rules under it).

For each case (agent, players, games) the games are played once without the profiler (for
the plain wall time) and once under cProfile, as the runner plays them (`keep_log=False`,
every action validated; `--no-validate` plays them as `portobello bench` does). Prints the
top functions by cumulative time and by own time, in percent of the profiled total.

    .venv/bin/python benchmarks/profile_agents.py                # the three default cases
    .venv/bin/python benchmarks/profile_agents.py --case greedy:2:50 --top 15 --json
"""

from __future__ import annotations

import argparse
import cProfile
import json
import pstats
import sys
import time
from pathlib import Path
from typing import Any

from sim.cli.options import Parser
from sim.cli.options import add_seed
from sim.cli.options import positive_int
from sim.games.portobello.agents.registry import make_agent
from sim.games.portobello.board import load_board
from sim.games.portobello.loop import play_game
from sim.games.portobello.rules import Rules
from sim.run.loop import derive_seed

DEFAULT_CASES = ("random:2:300", "greedy:3:30", "heuristic:3:10")
ROOT = Path(__file__).resolve().parents[1]


def _case(text: str) -> tuple[str, int, int]:
    try:
        agent, players, games = text.rsplit(":", 2)
        return agent, int(players), int(games)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be AGENT:PLAYERS:GAMES, got {text!r}") from None


def _name(func: tuple[str, int, str]) -> str:
    path, line, name = func
    if path == "~":  # built-ins: "{method 'append' of 'list' objects}"
        return name
    p = Path(path)
    try:
        p = p.resolve().relative_to(ROOT)
    except ValueError:
        p = Path(*p.parts[-2:])
    return f"{p}:{line}({name})"


def _play(board: Any, rules: Rules, agents: list[Any], games: int, seed: int,
          validate: bool) -> int:
    decisions = 0
    for i in range(games):
        _, d = play_game(board, rules, agents, derive_seed(seed, i), keep_log=False,
                         validate=validate)
        decisions += d
    return decisions


def profile_case(agent: str, players: int, games: int, seed: int = 0, top: int = 10,
                 validate: bool = True, board: str = "standard") -> dict[str, Any]:
    b = load_board(board)
    rules = Rules(players=players)
    agents = [make_agent(agent, seed=s) for s in range(players)]
    start = time.perf_counter()
    decisions = _play(b, rules, agents, games, seed, validate)
    plain = time.perf_counter() - start
    prof = cProfile.Profile()
    start = time.perf_counter()
    prof.enable()
    _play(b, rules, agents, games, seed, validate)
    prof.disable()
    profiled = time.perf_counter() - start
    stats = pstats.Stats(prof)
    entries = stats.stats.items()  # type: ignore[attr-defined]
    rows = [{"function": _name(func), "calls": nc, "own_seconds": tt, "cum_seconds": ct}
            for func, (_, nc, tt, ct, _) in entries if "_lsprof.Profiler" not in func[2]]
    # 100% is the profiled loop (`_play`); cProfile's own times add up to a few percent less
    # (`own_total_pct`), so percentages of the cumulative time stay at or below 100.
    total = next(ct for func, (_, _, _, ct, _) in entries if func[2] == "_play")
    own_total = stats.total_tt  # type: ignore[attr-defined]

    def table(key: str) -> list[dict[str, Any]]:
        best = sorted(rows, key=lambda r: r[key], reverse=True)[:top]
        return [{"function": r["function"], "calls": r["calls"],
                 "own_seconds": round(r["own_seconds"], 4),
                 "own_pct": round(100 * r["own_seconds"] / total, 1),
                 "cum_seconds": round(r["cum_seconds"], 4),
                 "cum_pct": round(100 * r["cum_seconds"] / total, 1)} for r in best]

    return {"agent": agent, "players": players, "games": games, "seed": seed,
            "validate": validate, "decisions": decisions,
            "seconds": round(plain, 3), "games_per_second": round(games / plain, 1),
            "decisions_per_second": round(decisions / plain, 0),
            "profiled_seconds": round(profiled, 3), "profiled_total_seconds": round(total, 3),
            "own_total_pct": round(100 * own_total / total, 1),
            "by_cumulative": table("cum_seconds"), "by_own": table("own_seconds")}


def show(r: dict[str, Any]) -> list[str]:
    lines = [f"{r['agent']}, {r['players']} players, {r['games']} games "
             f"({'validated' if r['validate'] else 'not validated'}): {r['seconds']:.2f} s "
             f"plain ({r['games_per_second']:.1f} games/s, {r['decisions_per_second']:.0f} "
             f"decisions/s), {r['profiled_seconds']:.2f} s under cProfile (own times add "
             f"up to {r['own_total_pct']:.0f}% of the loop)"]
    for title, key in (("by cumulative time", "by_cumulative"), ("by own time", "by_own")):
        lines.append(f"  top {len(r[key])} {title}:")
        lines.append(f"    {'cum %':>6} {'own %':>6} {'calls':>9}  function")
        for row in r[key]:
            lines.append(f"    {row['cum_pct']:6.1f} {row['own_pct']:6.1f} {row['calls']:9d}  "
                         f"{row['function']}")
    return lines


def main(argv: list[str] | None = None) -> int:
    p = Parser(prog="profile_agents", description=__doc__.split("\n\n")[0])
    p.add_argument("--case", type=_case, action="append", metavar="AGENT:PLAYERS:GAMES",
                   help=f"repeatable (default: {' '.join(DEFAULT_CASES)})")
    p.add_argument("--top", type=positive_int, default=10, metavar="N",
                   help="functions in each table")
    add_seed(p, help="seed of the games (game i plays seed derive_seed(SEED, i))")
    p.add_argument("--no-validate", action="store_true", help="skip the legality check of "
                   "each action (as `portobello bench` does)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    args = p.parse_args(argv)
    cases = args.case or [_case(c) for c in DEFAULT_CASES]
    results = [profile_case(a, n, g, seed=args.seed, top=args.top,
                            validate=not args.no_validate) for a, n, g in cases]
    if args.json:
        print(json.dumps({"cases": results}))
    else:
        print("\n\n".join("\n".join(show(r)) for r in results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
