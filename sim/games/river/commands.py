"""River Market's side of the command line (its "commands" facet, what
`sim.cli.games.CommandsFacet` lists): the `cards check|list` command, its benchmark mode, the
flags of a run it does not take (in its own words), its player counts, one game played for
`portobello play`, its agents, presets and weight sets in words."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from collections.abc import Mapping
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from sim.cli import options as O
from sim.cli.bench_mode import Mode
from sim.cli.bench_mode import bad_input_exits_2
from sim.cli.bench_mode import emit
from sim.core.errors import PortobelloError
from sim.core.outputs import atomic_write
from sim.games.river import weight_sets
from sim.games.river.cards import RULEBOOK_DECK
from sim.games.river.cards import load_cards
from sim.games.river.cards import resolve_cards_path
from sim.games.river.play import SPECS
from sim.games.river.rules import PLAYERS

HELP = "docs/river-market.md, its card set (--cards), presets, switches and agents"
RUN_AGENTS = "heuristic"  # its tuned heuristic: its strongest cheap agent
PRESET_NOTES: Mapping[str, str] = {
    "standard": "the rulebook's rules (docs/river-market.md)",
    "short": "the rulebook's shorter game: four houses",
}
# What a tuning spec of River Market says (`portobello tune --help`).
TUNE_EXAMPLE = """\
River Market (docs/river-market.md): game = "river-market" and cards = "river-market"
instead of board; its presets, rules switches and agents (greedy, ...), 2 to 5 players,
and its seat bonus switch = "seat_coins" (extra starting Coins, low 0 or more) with the
same seats; its integer switches (houses, start_coins, hand_limit, ...) take low/high.
data/tuning/river-coins.toml is one."""
NO_BOARD = "River Market has no board: its river is its cards"
# The flags of a run River Market does not take, and why: each is refused whatever its
# value (`--board standard` as much as a board file).
REFUSED: Mapping[str, str] = {
    "--customers": "River Market has no customers: the customer order is Portobello Market's",
    "--neutral-stack": "River Market has no neutral tokens: the neutral stack is Portobello "
                       "Market's",
    "--events": "River Market runs keep the games and players tables: the event log is "
                "Portobello Market's",
    "--records": "River Market runs keep the games and players tables: a run's game records "
                 "are Portobello Market's",
    "--engine": "River Market plays in its own compiled batches: the choice of engine is "
                "Portobello Market's",
    "--board": NO_BOARD,
}


def check_players(players: int) -> None:
    """The rulebook's player counts only, refused naming `--players`."""
    if not PLAYERS[0] <= players <= PLAYERS[1]:
        raise PortobelloError(f"River Market is for {PLAYERS[0]} to {PLAYERS[1]} players, "
                              f"got {players}", field="--players")


def agent_names() -> list[str]:
    return list(SPECS)


def agents_listing() -> list[str]:
    """Its agents and the heuristic's weight sets."""
    lines = [f"River Market (--game river-market): {', '.join(SPECS)}",
             "  weight sets (heuristic:weights=NAME, or a file `portobello agents tune --game "
             "river-market` wrote):"]
    for name in weight_sets.names():
        default = " (the heuristic's default)" if name == weight_sets.DEFAULT else ""
        lines.append(f"  {name:10} {weight_sets.describe(name)}{default}")
    return lines


def material_path(ref: str) -> Path:
    """Where a card-set reference is read from (a shipped set's file)."""
    return resolve_cards_path(ref)


# -- one game ---------------------------------------------------------------------------------
def play_game(material: Any, material_ref: str, rules: Any, specs: Sequence[str], seed: int
              ) -> tuple[dict[str, Any], list[str]]:
    """One game through the readable front (docs/river-market.md): its record and its
    summary, every seat's score part by part."""
    from sim.games.river.play import parse_agent
    from sim.games.river.play import play_one
    from sim.games.river.records import record_of

    for s in specs:
        try:
            parse_agent(s)
        except ValueError as exc:
            raise PortobelloError(str(exc), field="--agents") from None
    game, actions = play_one(rules, list(specs), seed, cards=material_ref)
    start = game.__class__.new(rules, material_ref, seed)
    record = record_of(start, actions, cards=material_ref)
    scores = game.scores()
    top = max(scores)
    winners = [p for p, s in enumerate(scores) if s == top]
    width = max(len(s) for s in specs)
    lines = [f"River Market, {rules.players} players, seed {seed}: ended after "
             f"{game.turn} turns ({len(actions)} actions)"]
    for seat, (spec, score) in enumerate(zip(specs, scores, strict=True)):
        parts = ", ".join(f"{n} {v}" for n, v in zip(
            ("events", "booths", "helpers", "coins", "goods"), game.score_parts(seat),
            strict=True))
        lines.append(f"  seat {seat}  {spec:{width}}  {score:4d}  ({parts})"
                     + ("  winner" if seat in winners else ""))
    who = " and ".join(f"seat {s} ({specs[s]})" for s in winners)
    lines.append(f"{'tie' if len(winners) > 1 else 'winner'}: {who} with {top} points")
    return record, lines


def write_record(path: str | Path, record: Mapping[str, Any]) -> None:
    from sim.games.river.records import write_record as write

    write(path, record)


# -- portobello cards check|list --------------------------------------------------------------
def cmd_cards_check(args: argparse.Namespace) -> int:
    """Load the card set; print its composition and hash."""
    cards = load_cards(args.file)
    designs = len(cards.cards)
    deck = dict(cards.deck)
    rulebook = "the rulebook's composition" if deck == RULEBOOK_DECK else \
        "not the rulebook's composition (24 actions, 29 booths, 12 helpers, 4 start)"
    made = sum(1 for c in cards.cards if c.reconstructed)
    events = cards.count("event")
    print(f"{args.file}: card set {cards.name!r} is valid: {cards.count('action')} Actions, "
          f"{cards.count('booth', 'event')} Booths ({events} of them Events), "
          f"{cards.count('helper')} Helpers, {cards.count('start')} Starting Booths "
          f"({rulebook}); {designs} designs, {made} reconstructed; hash {cards.content_hash}")
    return 0


def cmd_cards_list(args: argparse.Namespace) -> int:
    """Print (or write to --out) the listing."""
    from sim.games.river.words import listing

    text = listing(load_cards(args.file), markdown=args.markdown)
    if args.out is None:
        print(text, end="")
        return 0
    out = O.check_out(args, args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(out, text.encode())
    print(f"wrote {out}")
    return 0


def add_cards_parser(subparsers: Any) -> None:
    """Register `portobello cards check|list`."""
    p = O.add_command(subparsers, "cards", "check or list a River Market card set",
                      description="Check a River Market card-set file (docs/river-market.md), "
                      "or list its cards as they read.")
    modes = O.add_subcommands(p, "cards_command")
    q = O.add_command(modes, "check", "validate a card-set file (exit 1 if invalid)",
                      cmd_cards_check)
    q.add_argument("file", metavar="CARDS", help="card-set TOML file or shipped set name "
                   "(river-market)")
    q = O.add_command(modes, "list", "print every card in words, kind by kind",
                      cmd_cards_list)
    q.add_argument("file", metavar="CARDS", nargs="?", default="river-market",
                   help="card-set TOML file or shipped set name (default: river-market)")
    q.add_argument("--markdown", action="store_true", help="Markdown headings and lists")
    O.add_out(q, "FILE", "write the listing to FILE (default: print it)", default=None)


def commands() -> dict[str, Callable[[Any], None]]:
    return {"cards": add_cards_parser}


# -- benchmark --------------------------------------------------------------------------------
def add_river_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--players", type=O.player_counts, default=None, metavar="N[,N...]",
                   help="player counts (default: 2,3,4,5)")
    O.add_games(p, 20_000, "games at each player count")
    O.add_seed(p, help="first game seed (game i plays seed SEED + i)")
    O.add_json(p, "the figures")


@bad_input_exits_2
def cmd_river(args: argparse.Namespace) -> int:
    """`portobello bench river`."""
    from sim.bench.river import bench_river

    r = bench_river(args.players or [2, 3, 4, 5], args.games, args.seed)
    lines = [f"River Market random games ({r['cards']} cards), one core, load "
             f"{r['load']:.2f}:"]
    for x in r["rows"]:
        scores = ", ".join(f"{s:.1f}" for s in x["mean_scores"])
        lines.append(f"  {x['players']} players: {x['games_per_second']:>9,.0f} games/s, "
                     f"{x['actions_per_second']:>12,.0f} actions/s ({x['games']:,} games in "
                     f"{x['seconds']:.2f} s; {x['mean_turns']:.1f} turns, "
                     f"{x['mean_actions']:.0f} actions a game; mean scores {scores})")
    return emit(args, r, lines)


def bench_modes() -> dict[str, Mode]:
    return {"river": Mode("River Market's random games per second on one core, per player "
                          "count", add_river_arguments, lambda p: cmd_river)}
