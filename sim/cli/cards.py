"""`portobello cards check` (validate a River Market card set) and `portobello cards list`
(print it, card by card, as the cards would read)."""

from __future__ import annotations

import argparse
from typing import Any

from sim.cli import options as O
from sim.core.outputs import atomic_write
from sim.games.river.cards import RULEBOOK_DECK
from sim.games.river.cards import load_cards
from sim.games.river.words import listing


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
    text = listing(load_cards(args.file), markdown=args.markdown)
    if args.out is None:
        print(text, end="")
        return 0
    out = O.check_out(args, args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(out, text.encode())
    print(f"wrote {out}")
    return 0


def add_parser(subparsers: Any) -> None:
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
