"""The grammar of a line-up of agent specs, shared by every game: `--agents` text and a spec's
`agents` value are split into one spec per seat the same way whatever the game, so the
command line, studies, tuning and reports read a line-up without asking the game."""

from __future__ import annotations


def split_specs(text: str) -> list[str]:
    """Split `--agents` text into specs: seats are separated by ',' or ';', and a piece
    `key=value` after a spec with parameters belongs to that spec
    (`mcts:iterations=400,c=1.2,greedy` is two specs)."""
    pieces: list[str] = []
    depth = 0
    current = ""
    for ch in text:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if ch in ",;" and depth == 0:
            pieces.append(current)
            current = ""
        else:
            current += ch
    pieces.append(current)
    specs: list[str] = []
    for piece in (p.strip() for p in pieces):
        if not piece:
            continue
        if "=" in piece and ":" not in piece and "(" not in piece and specs:
            specs[-1] += "," + piece
        else:
            specs.append(piece)
    return specs
