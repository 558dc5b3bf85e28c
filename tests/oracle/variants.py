"""Rules to play the engine under: both readings of every switch, and further readings of the
switches with more than two."""

from __future__ import annotations

from typing import Any

# Both readings of every switch (the default reading is `Rules()` itself).
VARIANTS: dict[str, dict[str, Any]] = {
    "defaults": {},
    "players": {"players": 4},
    "stalls_per_player": {"stalls_per_player": 7},
    "start_score": {"start_score": 0},
    "start_scores": {"start_scores": (10, 13)},
    "player_tokens": {"player_tokens": (1, 2, 3, 4)},
    "neutral_stack": {"neutral_stack": (1, 1, 1, 1, 2, 2, 3, 3)},
    "district_tokens": {"district_tokens": (2, 3, 4)},
    "customers": {"customers": (("citizen", 8), ("aristocrat", 2))},
    "baron": {"baron": False},
    "customer_order": {"customer_order": "known"},
    "customer_sequence": {"customer_order": "known", "customer_sequence": (
        "aristocrat", "citizen", "aristocrat", "citizen", "citizen", "aristocrat",
        "aristocrat", "citizen", "citizen", "aristocrat")},
    "bobby_placer": {"bobby_placer": "last", "players": 3},
    "bobby_tie": {"bobby_tie": "pay_bank", "players": 3},
    "negative_scores": {"negative_scores": True, "start_score": 2},
    "max_rounds": {"max_rounds": 6},
    "multipliers": {"multipliers": (("citizen-citizen", 2), ("citizen-aristocrat", 3),
                                    ("aristocrat-aristocrat", 5), ("citizen-baron", 1),
                                    ("aristocrat-baron", 7))},
}


# Further readings of switches with more than two (each also drawn by tests/strategies.py).
MORE_VARIANTS: dict[str, dict[str, Any]] = {
    "bobby_placer_next": {"bobby_placer": "next", "players": 3},
    "bobby_placer_next_4p": {"bobby_placer": "next", "players": 4},
    "start_scores_3p": {"start_scores": (0, 5, 12), "players": 3},
    "start_scores_low": {"start_scores": (1, 0), "negative_scores": True},
    "start_scores_and_next": {"start_scores": (3, 9, 14, 20), "players": 4,
                              "bobby_placer": "next"},
}
