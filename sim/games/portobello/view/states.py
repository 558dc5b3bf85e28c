"""A game record, replayed by the engine, as one compact state per step for the viewer.

Step 0 is the game before its first action; step k is the game after the record's first k
actions. Every state is read from the engine through `Game` (`sim.games.portobello.records`), so
what the page shows is what `portobello replay` computes: the page draws, it never plays.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sim.games.portobello.codes import PHASE_NAMES
from sim.games.portobello.game import Game
from sim.games.portobello.records import apply_record_action
from sim.games.portobello.view.words import action_text
from sim.games.portobello.view.words import event_texts


@dataclass(frozen=True)
class Step:
    """One step of the game: what was done (the action in words, and what it caused, such
    as scorings) and the state after it, as plain JSON-ready values."""

    text: str
    notes: list[str]
    scoring: bool
    state: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {"text": self.text, "notes": self.notes, "scoring": self.scoring,
                **self.state}


def snapshot(game: Game, tokens_in_districts: Sequence[int]) -> dict[str, Any]:
    """The state of `game` the page draws: scores, stalls, tokens, customers, pieces.

    `tokens_in_districts` holds the value of the token played into each district (0 when
    none), which the engine does not keep (it keeps only who scored the district)."""
    n = game.n
    return {
        "round": game.round,
        "turn": game.turn,
        "seat": game.seat,
        "phase": PHASE_NAMES[game.phase],
        "actions_left": game.actions_left,
        "scores": game.scores[:],
        "stalls_left": game.stalls_left[:],
        # Each seat's tokens: [value, neutral (0/1), face up (0/1)].
        "tokens": [[[v, int(neutral), int(up)] for v, neutral, up in game.held_tokens(p)]
                   for p in range(n)],
        "spots": game.spot_seat[:],  # by board spot order: the seat holding it, or -1
        "customers": game.square_customer[:],  # by square: 0 none, 1 citizen, 2 aristocrat,
        # 3 baron
        "bobby": game.bobby,
        "districts": [[seat, value] for seat, value in zip(game.district_scored,
                                                           tokens_in_districts, strict=True)],
        "lanes_scored": [int(x) for x in game.lane_scored],
        "customers_left": game.customers_left,
        "bag": {"citizen": game.bag[1], "aristocrat": game.bag[2]},
        "next_customer": game.next_customer(),
        "neutrals_left": len(game.rules.neutral_stack) - game.neutral_top,
        "end_reason": game.end_reason,
        "finished": game.finished,
    }


def replay_steps(game: Game, actions: Sequence[Any]) -> list[Step]:
    """Replay `actions` (record form) on the fresh `game`, one Step per state (one more
    than there are actions). `game` must record events and keep its log; an illegal
    action raises IllegalActionError naming its index, as `portobello replay` does."""
    if game.events is None or game.log is None:
        raise ValueError("the game must record events and keep its log")
    district_tokens = [0] * game.board.n_districts
    placer = game.rules.bobby_placer_seat
    steps = [Step(text=f"The game is set up: seat {placer} is to place the Bobby.", notes=[],
                  scoring=False, state=snapshot(game, district_tokens))]
    for index, obj in enumerate(actions):
        before = game.copy()
        n_events, n_log = len(game.events), len(game.log)
        apply_record_action(game, obj, index)
        done = game.log[n_log:]
        events = game.events[n_events:]
        for ev in events:
            if ev["type"] == "score_district":
                district_tokens[game.board.district_ids.index(ev["district"])] = ev["value"]
        steps.append(Step(text=action_text(before, game, done, events),
                          notes=event_texts(before, game, events),
                          scoring=any(ev["type"] in ("score_lane", "score_district")
                                      for ev in events),
                          state=snapshot(game, district_tokens)))
    return steps

