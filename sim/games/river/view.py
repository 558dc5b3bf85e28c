"""A River Market game as a self-contained page to step through (`portobello view RECORD`
for a River Market record): the river's two rows of Booths with their owners' houses, the
pawns and the Events' attendees; each player's resources, houses, hand (every hand, or one
seat's view with the others' hidden) and Helpers; the score so far, part by part; and the
game action by action in words, each step that changes a score marked as a scoring. Its
controls, keys and address (`#step=N`) are the Portobello Market viewer's.

This module is River Market's "view" facet (`analysis.view.viewer.ViewFacet`): it claims
the record files of its format and draws their pages; its runs keep no records, so a run
folder's game has no page."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from analysis.view.page import script_json
from analysis.view.page import seat_colours
from analysis.view.page import templates
from analysis.view.source import RunRecord
from analysis.view.source import ViewError
from analysis.view.viewer import Page
from sim.games.river import compiled as C
from sim.games.river import tables as T
from sim.games.river.effects import RESOURCES
from sim.games.river.game import RiverGame
from sim.games.river.records import FORMAT
from sim.games.river.records import action_to_json
from sim.games.river.records import read_record
from sim.games.river.words import card_line

TEMPLATE = "river_view.html.j2"


def snapshot(g: RiverGame) -> dict[str, Any]:
    """What the page draws of one position."""
    players = g.players
    river = []
    for c in g.river():
        d = g.tables.designs[int(g.tables.CARD[c])]
        attend = int(g.S[g.tables.R[T.R_O_ATTEND] + c])
        river.append({"id": int(c), "name": d.name, "kind": d.kind, "owner": g.owner(c),
                      "pawns": [p for p in range(players) if g.pawn(p) == c],
                      "stars": [p for p in range(players) if (attend >> p) & 1]})
    seats = []
    for p in range(players):
        helpers = [g.card_name(c) for c in range(g.tables.n_cards)
                   if g.location(c) == C.LOC_HIRED and g.owner(c) == p]
        parts = g.score_parts(p)
        seats.append({"res": [g.resources(p)[r] for r in RESOURCES], "houses": g.houses(p),
                      "hand": [g.card_name(c) for c in g.hand(p)], "helpers": helpers,
                      "zoom": int(g.S[g.tables.R[T.R_O_ZOOM] + p]), "parts": parts,
                      "score": sum(parts)})
    return {"river": river, "top": int(g.S[T.TOP_LEN]), "seats": seats, "turn": g.turn,
            "seat": g.seat, "phase": g.phase, "deck": int(g.S[T.DECK_LEN]),
            "discard": int(g.S[T.DISC_LEN]), "over": g.over,
            "final_left": int(g.S[T.FINAL_LEFT]) if g.S[T.TRIGGERED] else None,
            "scores": g.scores() if g.over else None}


PARTS = ("events", "booths", "helpers", "coins", "goods")  # `RiverGame.score_parts`' order


def score_notes(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """What a step did to the scores, a line per seat whose score changed, part by part
    (`seat 1 scores 2 (booths +2)`): a step with any is a scoring, which the viewer marks
    on its slider and jumps to, as it does Portobello Market's lane scorings."""
    notes = []
    for p, (b, a) in enumerate(zip(before["seats"], after["seats"], strict=True)):
        delta = a["score"] - b["score"]
        if delta:
            parts = ", ".join(f"{name} {y - x:+d}" for name, x, y
                              in zip(PARTS, b["parts"], a["parts"], strict=True) if y != x)
            verb = "scores" if delta > 0 else "loses"
            notes.append(f"seat {p} {verb} {abs(delta)} point{'s' if abs(delta) != 1 else ''}"
                         f" ({parts})")
    return notes


def river_steps(start: RiverGame, actions: list[int]) -> list[dict[str, Any]]:
    """Step 0 is the position after setup; step i the position after action i, with what
    it did to the scores (`notes`; `scoring` when it changed any)."""
    g = start.copy()
    steps = [{"text": "setup: the river's four Starting Booths, four cards and four Coins "
              "each", "who": None, "state": snapshot(g), "notes": [], "scoring": False}]
    for a in actions:
        who = g.decider
        text = g.describe(a)
        record = action_to_json(g, a)
        if record["type"] == "move":
            n = record["steps"]
            text += f" ({n} step{'s' if n != 1 else ''})"
        g.apply(a)
        state = snapshot(g)
        notes = score_notes(steps[-1]["state"], state)
        steps.append({"text": text, "who": who, "state": state, "notes": notes,
                      "scoring": bool(notes)})
    return steps


def render(g0: RiverGame, actions: list[int], title: str) -> str:
    """The page of a game from its start `g0` and its actions, as one HTML string."""
    cards = {d.name: card_line(d) for d in g0.tables.designs}
    data = {"title": title, "players": g0.players, "colours": seat_colours(g0.players),
            "resources": list(RESOURCES), "cards": cards, "seed": g0.seed,
            "steps": river_steps(g0, actions)}
    return templates().get_template(TEMPLATE).render(title=title, data=script_json(data))


def is_record(data: Mapping[str, Any]) -> bool:
    """Whether a record file's JSON is a River Market record (by its format)."""
    return data.get("format") == FORMAT


def record_page(path: Path) -> Page:
    """The page of a River Market record (refused, with the reason, when it is not valid)."""
    end = read_record(path)
    start = RiverGame.new(end.rules, seed=end.seed)
    actions = list(end.history)
    html = render(start, actions, f"River Market, {end.players} players, seed {end.seed}")
    return Page(html, len(actions) + 1, f"the River Market game in {path}")


def run_page(run: RunRecord) -> Page:
    """River Market runs keep no records (`GameKind.optional_tables`): no run game has a
    page."""
    raise ViewError("River Market runs keep no game records", source=str(run.folder))

