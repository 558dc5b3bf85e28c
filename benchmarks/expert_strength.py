"""How strong the learned agent is: seat-rotated tournaments on seeds no training used.

    .venv/bin/python benchmarks/expert_strength.py [--agent expert] [--games 2000]
        [--search-games 200] [--variant-games 1000] [--players 2,3,4] [--seed 8812]
        [--jobs 2] [--skip-search] [--json OUT.json]

For each player count: `AGENT` against the tuned heuristic (at 3 and 4 players both ways:
one AGENT against the others, and one heuristic against AGENTs), against the search's
skill-ladder level (`fastmcts:iterations=100`), and against the heuristic in every rule
variant the committed studies compare (the training specs' rule sets,
`data/training/expert-Np.toml`, and the committed compensation report's recommended start
scores, `reports/compensation/summary.json`). One markdown row per matchup: the focus
agent's win share with its 95% interval, parity 1/n and the verdict. The tables of
docs/learning.md are this script's output.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from sim.games.portobello.rules import Rules
from sim.games.portobello.rules import rules_from_dict
from sim.learning.spec import load_spec
from sim.run.tournament import TournamentConfig
from sim.run.tournament import run_tournament
from sim.run.tournament import summary

ROOT = Path(__file__).resolve().parent.parent


def matchup_rows(agent: str, other: str, players: int, games: int, seed: int, rules: Rules,
                 jobs: int, label: str) -> list[dict[str, Any]]:
    start = time.perf_counter()
    config = TournamentConfig(agents=(agent, other), players=(players,), games=games,
                              seed=seed, board_ref="standard",
                              rules=rules.with_changes(players=players), pairing="first",
                              jobs=jobs)
    df, errors = run_tournament(config)
    if errors:
        raise SystemExit(f"{len(errors)} game(s) failed: {errors[0]}")
    seconds = time.perf_counter() - start
    return [{"players": players, "rules": label, "matchup": str(r.matchup),
             "games": int(r.games), "win_share": round(float(r.win_rate), 4),
             "interval": [round(float(r.ci_low), 4), round(float(r.ci_high), 4)],
             "parity": round(float(r.parity), 4), "verdict": str(r.verdict),
             "seconds": round(seconds, 1)}
            for r in summary(df).itertuples()]


def recommendations(players: int) -> list[tuple[str, Rules]]:
    """The committed compensation report's recommended start scores at this player count
    (`reports/compensation/summary.json`), each with its rules (the customer order)."""
    summary = json.loads((ROOT / "reports" / "compensation" / "summary.json").read_text())
    out = []
    for cell in summary["cells"]:
        if cell["players"] == players and cell.get("recommended"):
            changes = cell["recommended"]["rules"]
            rules = rules_from_dict(changes, base=Rules(players=players))
            out.append((f"start scores {changes['start_scores']} ({cell['variant']})", rules))
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--agent", default="expert")
    p.add_argument("--games", type=int, default=2000, help="per matchup against the heuristic")
    p.add_argument("--search-games", type=int, default=200,
                   help="per matchup against fastmcts:iterations=100")
    p.add_argument("--variant-games", type=int, default=1000, help="per variant matchup")
    p.add_argument("--players", default="2,3,4")
    p.add_argument("--seed", type=int, default=8812)
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--skip-search", action="store_true")
    p.add_argument("--json", type=Path)
    args = p.parse_args(argv)
    rows: list[dict[str, Any]] = []
    print("| players | rules | matchup | games | win share [95%] | parity | verdict |")
    print("|---|---|---|---|---|---|---|")

    def show(new: list[dict[str, Any]]) -> None:
        for r in new:
            lo, hi = r["interval"]
            print(f"| {r['players']} | {r['rules']} | {r['matchup']} | {r['games']:,} | "
                  f"{r['win_share']:.3f} [{lo:.3f}, {hi:.3f}] | {r['parity']:.3f} | "
                  f"{r['verdict']} |", flush=True)
        rows.extend(new)

    for n in (int(v) for v in args.players.split(",")):
        show(matchup_rows(args.agent, "heuristic", n, args.games, args.seed, Rules(), args.jobs,
                          "standard"))
        if not args.skip_search:
            show(matchup_rows(args.agent, "fastmcts:iterations=100", n, args.search_games,
                              args.seed, Rules(), args.jobs, "standard"))
        spec = load_spec(ROOT / "data" / "training" / f"expert-{n}p.toml")
        for name in spec.presets[1:]:
            show(matchup_rows(args.agent, "heuristic", n, args.variant_games, args.seed,
                              spec.rules(name), args.jobs, name))
        for label, rules in recommendations(n):
            show(matchup_rows(args.agent, "heuristic", n, args.variant_games, args.seed,
                              rules, args.jobs, label))
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
