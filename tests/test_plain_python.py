"""The compiled rules and agents run as plain Python with numba's JIT disabled, for
stepping through them in a debugger: the same source plays the same games to the same
results and records as the compiled run (a child process, since the switch is read when
numba is first imported)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

GAMES = textwrap.dedent("""
    import json
    import numpy as np
    from sim.games.portobello.agents.registry import make_agent
    from sim.games.portobello.board import load_board
    from sim.games.portobello.rules import Rules
    from sim.games.portobello.engines import CompiledEngine
    from sim.games.portobello.loop import play_game

    board = load_board("standard")
    out = {}
    with np.errstate(over="ignore"):  # numpy scalars warn where compiled words wrap
        for players, order, lineup in ((3, "known", ["random"] * 3),
                                       (2, "drawn", ["heuristic", "greedy"]),
                                       (4, "known", ["no-bobby(random)", "heuristic",
                                                     "first-end(greedy)", "random"])):
            rules = Rules(players=players, customer_order=order)
            r = CompiledEngine(board, rules, lineup).play([1, 2], [lineup] * 2, keep_log=True)
            out[",".join(lineup)] = [np.asarray(r.scores).tolist(),
                                     [[int(a) for a in log] for log in r.logs]]
        game, _ = play_game(board, Rules(players=2), [make_agent("fastmcts:iterations=8"),
                                                      make_agent("heuristic")], 5)
        out["fastmcts"] = [list(game.scores), [int(a) for a in game.log]]
    print(json.dumps(out))
""")


def _games(disable_jit: bool) -> dict[str, object]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("NUMBA_DISABLE_JIT", None)
    if disable_jit:
        env["NUMBA_DISABLE_JIT"] = "1"
    done = subprocess.run([sys.executable, "-c", GAMES], capture_output=True, text=True,
                          env=env, timeout=900)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_plain_python_plays_the_compiled_games() -> None:
    plain, compiled = _games(True), _games(False)
    assert set(plain) == {"random,random,random", "heuristic,greedy",
                          "no-bobby(random),heuristic,first-end(greedy),random", "fastmcts"}
    for key, (scores, logs) in compiled.items():
        assert all(len(log) > 50 for log in logs) if key != "fastmcts" else len(logs) > 50
        assert plain[key] == [scores, logs], key
