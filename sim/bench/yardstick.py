"""The yardstick: random games in plain C beside the compiled engine's, in one run.

`benchmarks/yardstick/random_games.c` plays the same rules with the random agent's turn
shape (its own generator, so the same kind of games, not the same games). This module
writes the board and rules as the integers the program reads, builds it with the system's
C compiler (`cc -O2`, in a temporary folder), plays `games` games with it and with the
compiled engine (`random` in every seat, one core each, the compiled code loaded before
the clock starts), and reports both rates, their ratio and the games' averages: mean
score per seat, mean rounds and the end reasons. The averages are how a reader (and
`tests/test_bench.py`) sees that both play the same game; the ratio is the figure.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from sim.bench.common import BenchError
from sim.games.portobello.board import Board
from sim.games.portobello.rules import Rules

SOURCE = Path(__file__).resolve().parents[2] / "benchmarks" / "yardstick" / "random_games.c"
# The random agent's defaults (sim.games.portobello.agents.random_agent).
MOVE_CHANCE, MAX_MOVES = 0.25, 2


def program_input(board: Board, rules: Rules, games: int, seed: int) -> str:
    """The integers `random_games.c` reads (its header says the order)."""
    bag = rules.bag
    line: list[int] = [
        rules.players, rules.stalls, rules.max_rounds, int(rules.negative_scores),
        int(rules.bobby_tie == "pay_bank"), int(rules.baron),
        int(rules.customer_order == "known"), bag["citizen"], bag["aristocrat"],
        rules.bobby_placer_seat,
        len(rules.player_tokens), *rules.player_tokens,
        len(rules.neutral_stack), *rules.neutral_stack,
        len(rules.district_tokens), *rules.district_tokens,
        *rules.seat_start_scores, *rules.multiplier_table(),
        board.n_squares, board.n_lanes, board.n_districts,
    ]
    for lane in range(board.n_lanes):
        a, b = board.lane_ends[lane]
        line += [a, b, len(board.lane_spots[lane]), *board.lane_spots[lane]]
    for lanes in board.district_lanes:
        line += [len(lanes), *lanes]
    line += [games, seed, round(MOVE_CHANCE * 1000), MAX_MOVES]
    return " ".join(map(str, line)) + "\n"


def build(folder: Path) -> Path:
    """Compile the yardstick into `folder`; a missing compiler is a BenchError."""
    compiler = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if compiler is None:
        raise BenchError("no C compiler (cc, gcc or clang) on PATH: the yardstick is C",
                         field="yardstick")
    exe = folder / "random_games"
    done = subprocess.run([compiler, "-O2", "-o", str(exe), str(SOURCE)],
                          capture_output=True, text=True)
    if done.returncode:
        last = (done.stderr.strip().splitlines() or ["no message"])[-1]
        raise BenchError(f"{compiler} could not build {SOURCE}: {last}", field="yardstick")
    return exe


def run_c(exe: Path, board: Board, rules: Rules, games: int, seed: int) -> dict[str, Any]:
    """Play `games` games with the built program; its rate and averages."""
    done = subprocess.run([str(exe)], input=program_input(board, rules, games, seed),
                          capture_output=True, text=True)
    if done.returncode:
        raise BenchError(done.stderr.strip() or f"the yardstick failed ({done.returncode})",
                         field="yardstick")
    fields = [int(x) for x in done.stdout.split()]
    n = rules.players
    played, ns = fields[0], fields[1]
    sums, rounds, ends = fields[2:2 + n], fields[2 + n], fields[3 + n:6 + n]
    return {"games": played, "seconds": ns / 1e9, "games_per_second": played / (ns / 1e9),
            "mean_scores": [s / played for s in sums], "mean_rounds": rounds / played,
            "end_reasons": dict(zip(("last_stall", "board_exhausted", "round_limit"),
                                    (e / played for e in ends), strict=True))}


def run_compiled(board: Board, rules: Rules, games: int, seed: int) -> dict[str, Any]:
    """The compiled engine's random games (the seeds of `portobello bench`)."""
    from sim.bench.agents import game_seeds
    from sim.games.portobello.engines import CompiledEngine

    specs = ["random"] * rules.players
    fast = CompiledEngine(board, rules, specs)
    seeds = game_seeds(seed, games)
    fast.play(seeds[:1], [specs])  # loads (or compiles) the compiled code
    start = time.perf_counter()
    res = fast.play(seeds, [specs] * games)
    seconds = time.perf_counter() - start
    reasons = res.end_reasons
    return {"games": games, "seconds": seconds, "games_per_second": games / seconds,
            "mean_scores": [float(x) for x in np.asarray(res.scores).mean(axis=0)],
            "mean_rounds": float(np.asarray(res.rounds).mean()),
            "end_reasons": {r: reasons.count(r) / games
                            for r in ("last_stall", "board_exhausted", "round_limit")}}


def bench_yardstick(board: Board, rules: Rules, games: int, seed: int = 0, rounds: int = 3
                    ) -> dict[str, Any]:
    """Both rates, their ratio and both sets of averages: `portobello bench yardstick
    --json`. The sides alternate for `rounds` rounds (C, then compiled, the same games each
    round); the ratio is the median round's, whose figures are the ones given (on a shared
    machine a single pair can be disturbed on one side only)."""
    if rules.customer_sequence is not None:
        raise BenchError("the yardstick shuffles its own line: give customer_order = "
                         "\"known\" without a customer_sequence", field="rules")
    if rounds < 1:
        raise BenchError(f"rounds must be at least 1, got {rounds}", field="rounds")
    pairs = []
    with tempfile.TemporaryDirectory(prefix="portobello-yardstick-") as tmp:
        exe = build(Path(tmp))
        for _ in range(rounds):
            c = run_c(exe, board, rules, games, seed)
            compiled = run_compiled(board, rules, games, seed)
            pairs.append((compiled["games_per_second"] / c["games_per_second"], c, compiled))
    ratios = [r for r, _, _ in pairs]
    ratio, c, compiled = sorted(pairs, key=lambda x: x[0])[(rounds - 1) // 2]
    return {"players": rules.players, "games": games, "rounds": rounds, "c": c,
            "compiled": compiled, "ratio": ratio, "ratios": ratios}
