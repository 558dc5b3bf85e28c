"""`portobello agents list` (every game's agents, their parameters and weight sets, as each
game's commands facet lists them, `sim.cli.games`) and `portobello agents tune` (the
heuristic's weights tuned by self-play, `sim.tuning.search`, for any game whose tuning facet
has weights, `sim.tuning.games`)."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from sim.cli import games as G
from sim.cli import options as O
from sim.cli.summary import compile_first
from sim.games.registry import default_game
from sim.games.registry import kinds
from sim.tuning import search as S
from sim.tuning.games import has_weights
from sim.tuning.games import weights_facet


def cmd_agents_list(args: argparse.Namespace) -> int:
    """Print every game's agents (the default game's first): each with its parameters and
    defaults, the restrictions and the weight sets `heuristic:weights=NAME` accepts."""
    blocks = [G.member(g, "agents_listing") for g in kinds().values()]
    print("\n\n".join("\n".join(listing()) for listing in blocks if listing is not None))
    return 0


def cmd_agents_tune(args: argparse.Namespace) -> int:
    """Tune (or resume tuning) the heuristic's weights of the game; print where the weight
    set is."""
    from sim.run.game_runs import compile_notice

    game = O.game_from_args(args)
    rules = O.rules_from_args(args, game, players=args.players)
    board, board_ref = O.material_from_args(args, game)
    start = args.start or weights_facet(game.name).START
    config = S.TuneConfig(board=board, board_ref=board_ref, rules=rules, start=start,
                          generations=args.generations, population=args.population,
                          blocks=args.blocks, hall=args.hall, sigma=args.sigma,
                          guards=tuple(args.guard or ()),
                          opponents=tuple(args.opponent or ()),
                          final_blocks=args.final_blocks, seed=args.seed, name=args.name or "",
                          game=game.name)
    out = Path(args.out) if args.out else Path("data/runs") / f"tune-{config.tune_id}"
    O.check_out(args, out, owned=[out])
    n = rules.players
    per = n * args.blocks
    which = "" if G.is_default(game) else f"{game.title} "
    print(f"tuning {config.tune_id}: {which}heuristic weights for "
          f"{n} players, starting from {start}; {args.generations} generations of "
          f"{args.population} candidates, each {per} games against every panel member; seed "
          f"{args.seed}; in {out}", flush=True)
    compile_first(compile_notice(game.name, ["heuristic", *config.opponents], "auto", board),
                  game.name)
    start = time.perf_counter()
    from sim.run.execution import Pool
    from sim.run.execution import progress_bar

    with Pool(O.execution_from_args(args)) as pool:
        bar = progress_bar(args.generations, quiet=args.quiet, unit="gen", desc="tuning")
        workers = f"{pool.workers} worker{'s' if pool.workers != 1 else ''}"
        played = [0]

        def progress(t: S.Tuning) -> None:
            if bar.n == 0 and len(t.generations) > 1:
                bar.update(len(t.generations) - 1)  # resumed: the replayed generations
            g = t.generations[-1]
            played[0] += (len(g.weights) * (len(g.panel) + len(config.guards))
                          * config.blocks * config.players)
            rate = played[0] / max(time.perf_counter() - start, 1e-9)
            bar.set_postfix_str(f"best {max(g.share):.3f} vs panel of {len(g.panel)}; "
                                f"{workers}, {rate:,.0f} games/s")
            bar.update(1)

        try:
            tuning = S.tune(config, out, progress=progress, pool=pool)
        finally:
            bar.close()
    final = tuning.final
    assert final is not None
    chosen = final["finalists"][final["chosen"]]
    lo, hi = chosen["interval"]
    seconds = time.perf_counter() - start
    print(f"chosen: finalist {final['chosen'] + 1} of {len(final['finalists'])}: win share "
          f"{chosen['win_share']:.3f} [{lo:.3f}, {hi:.3f}] against the starting weights"
          f"{' and the opponents' if args.opponent else ''} over "
          f"{chosen['games']} games (parity {final['parity']:.3f}); {seconds:.0f} s")
    print(weights_advice(out / S.RESULT, (lo, hi), final["parity"], config.start,
                         None if G.is_default(game) else game.name))
    return 0


def weights_advice(path: Path, interval: tuple[float, float], parity: float, start: str,
                   game: str | None = None) -> str:
    """The closing line of `agents tune`: where the tuned weights are, and whether to play
    them, from where the chosen finalist's 95% interval against the starting weights lies
    beside parity. Only weights shown to beat the starting weights are recommended; weights
    that lose to them, or are not told apart from them, come with the advice to keep the
    starting weights and how to tune further, so that a short tuning's weaker set is not
    taken for an improvement. `game`: the game to name with `--game` (None: the default)."""
    flag = f" with --game {game}" if game else ""
    tuned = f"heuristic:weights={path}{flag}"
    keep = f"heuristic:weights={start}{flag}"
    further = "more --generations or --blocks, or another --start"
    lo, hi = interval
    if lo > parity:
        return f"weights: {path} (they beat the starting weights: play them as {tuned})"
    if hi < parity:
        return (f"weights: {path}: WARNING: they lose to the starting weights (the whole "
                f"interval is below parity {parity:.3f}): keep the starting weights ({keep}); "
                f"to tune further: {further}")
    return (f"weights: {path}: not shown better than the starting weights (the interval "
            f"holds parity {parity:.3f}): keep the starting weights ({keep}) unless a longer "
            f"tuning shows a gain ({further}); to try these anyway: {tuned}")


def _tuned_games() -> list[str]:
    """The games whose heuristic weights `agents tune` tunes (`sim.tuning.games`)."""
    return [name for name in kinds() if has_weights(name)]


def _guards() -> list[str]:
    """Every restriction a tuned game's candidates may be made to beat."""
    found: dict[str, None] = {}
    for name in _tuned_games():
        found.update(dict.fromkeys(weights_facet(name).GUARDS))
    return list(found)


def cmd_agents_train(args: argparse.Namespace) -> int:
    """Run (or resume) a training; one line per round, then the model's path."""
    from sim.learning.spec import load_spec
    from sim.learning.train import RESULT
    from sim.learning.train import check_folder
    from sim.learning.train import train
    from sim.run.game_runs import compile_notice

    spec = load_spec(args.file)
    out = Path(args.out) if args.out else Path("data/runs/training") / spec.name
    O.check_out(args, out, owned=[out])
    check_folder(out)  # before the first compile: one line, nothing written

    def log(line: str) -> None:
        print(line, file=sys.stderr)

    game = default_game()  # the learned agent's (`sim.learning` trains the default game's)
    compile_first(compile_notice(game, [spec.teacher], "auto", spec.board), game)
    book = train(spec, out, O.execution_from_args(args), quiet=args.quiet, log=log)
    last = book["rounds"][-1]
    print(f"model: {out / RESULT} (round {last['round']}; play it as "
          f"expert:model={out / RESULT})")
    return 0


def add_parser(subparsers: Any) -> None:
    """Register `portobello agents list|tune|train`."""
    p = O.add_command(subparsers, "agents", "list the agents and weight sets, or tune the "
                      "heuristic's weights by self-play")
    modes = O.add_subcommands(p, "action")
    O.add_command(modes, "list", "list the agents with their parameters, the restrictions and "
                  "the weight sets", cmd_agents_list)
    paragraphs = (S.__doc__ or "").split("\n\n")
    q = O.add_command(modes, "tune", "tune the heuristic's weights by self-play for given "
                      "rules and a player count; resumable", cmd_agents_tune,
                      description=" ".join(paragraphs[:3]))
    O.add_game(q)
    O.add_players(q)
    O.add_rules(q)
    O.add_materials(q)
    starts = "; ".join(f"{name}: {weights_facet(name).START}" for name in _tuned_games())
    q.add_argument("--start", default=None, metavar="SET",
                   help="weight set the search starts from and the panel keeps: a shipped "
                   "name of the game's (`portobello agents list`) or a file (default: the "
                   f"game's, {starts})")
    q.add_argument("--generations", type=O.positive_int, default=30, metavar="N",
                   help="CMA-ES generations (a larger number extends a finished tuning)")
    q.add_argument("--population", type=O.Integer(2), default=10,
                   metavar="N", help="candidates per generation")
    q.add_argument("--blocks", type=O.game_count, default=40, metavar="N",
                   help="blocks of one game per seat rotation, per candidate and panel member")
    q.add_argument("--hall", type=O.Integer(0), default=2,
                   metavar="N", help="earlier incumbents kept in the panel")
    q.add_argument("--opponent", action="append", metavar="SET",
                   help="a weight set kept in the panel beside the start, and played in the "
                   "final evaluation too (repeatable; a shipped name or a file), so the "
                   "result must beat a wider field; default: none")
    q.add_argument("--guard", action="append", choices=tuple(_guards()), metavar="WRAPPER",
                   help="a restriction each candidate must also beat in its own restricted "
                   f"version (repeatable; {', '.join(_guards())}; for a game whose agents "
                   "have them), so the tuned weights have no weakness the restriction would "
                   "expose; default: none")
    q.add_argument("--sigma", type=float, default=0.15,
                   help="first search step, as a share of each weight's range")
    q.add_argument("--final-blocks", type=O.game_count, default=300, metavar="N",
                   help="blocks per finalist in the final evaluation against the start")
    q.add_argument("--name", default=None, help="name written in the weight set "
                   "(default tuned-<players>p)")
    O.add_seed(q, help="seed of the optimiser and of every game")
    O.add_execution(q)
    O.add_out(q, "DIR", "tuning folder (default: data/runs/tune-<tuning id>)")
    O.add_quiet(q)
    t = O.add_command(modes, "train", "train the learned agent (expert) by expert iteration "
                      "with the search as teacher; resumable", cmd_agents_train,
                      description="Rounds of expert iteration: games labelled by the "
                      "search (the spec's teacher; after the first round the last model "
                      "plays some of the moves, DAgger), a network fitted on every round's "
                      "labels (scikit-learn, the learn extra; the mean of `fits` networks), "
                      "and an evaluation against the tuned heuristic; the games spread "
                      "over the spec's presets and rule variants (their start scores "
                      "spread with a start_bonus). Resumable: the same "
                      "command continues a stopped training with the same result. The "
                      "model is OUT/expert.model; play it as expert:model=FILE (`expert` "
                      "alone plays the shipped model for the player count).")
    t.add_argument("file", metavar="SPEC",
                   help="training spec (TOML; fields in docs/learning.md; the shipped models' "
                   "specs: data/training/expert-{2,3,4}p.toml)")
    O.add_execution(t)
    O.add_out(t, "DIR", "training folder (default: data/runs/training/<name>)")
    O.add_quiet(t, "no progress bar (the round lines still print)")
