"""A card set and its rules as the integer tables the compiled engine reads
(`sim.games.river.compiled`): one row per card design (`CD`), one per plank (`PL`), the design of
every physical card (`CARD`), and the rules with the state's layout (`R`).

Physical cards: the deck's cards first (each design's copies in file order), then the four
Starting Booths. Resources are numbered as `RESOURCES` lists them: Coins 0, Goods 1 to 5.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from sim.games.river.effects import RESOURCES
from sim.games.river.effects import ZOOM
from sim.games.river.effects import Ability
from sim.games.river.effects import Card
from sim.games.river.effects import CardSet
from sim.games.river.effects import Plank
from sim.games.river.effects import Score
from sim.games.river.rules import RiverRules

NRES = len(RESOURCES)
COIN = 0
KIND_CODES = {"action": 0, "booth": 1, "event": 2, "helper": 3, "start": 4}
WHEN_CODES = {"either": 0, "before": 1, "after": 2}
ZOOM_STEPS = -1
MAX_PLANKS = 8  # planks of one card (a card's plank usage is kept in that many slots)

# Card-design columns (CD).
(K_KIND, K_STEPS, K_POINTS, K_CHOOSE, K_WHEN, K_PLANK_AT, K_PLANK_N, K_OWNER, K_STORE_RES,
 K_STORE_LIMIT, K_STORE_PTS, K_ATT_PTS, K_ATT_RES, K_ATT_K, K_ATT_DIFF, K_ATT_OWNED,
 K_BON_PTS, K_BON_RES, K_BON_K, K_BON_DIFF, K_BON_OWNED, K_AB_STEPS, K_AB_HAND, K_AB_DISC,
 K_AB_ACT, K_AB_BUILD, K_AB_ATTEND, K_START, K_COST) = range(29)
N_CD = K_COST + NRES

# Plank columns (PL): gains by resource, any, different; payments by resource, any,
# matching, different; times.
P_GAIN = 0
P_GAIN_ANY = NRES
P_GAIN_DIFF = NRES + 1
P_SPEND = NRES + 2
P_SPEND_ANY = 2 * NRES + 2
P_SPEND_MATCH = 2 * NRES + 3
P_SPEND_DIFF = 2 * NRES + 4
P_TIMES = 2 * NRES + 5
N_PL = P_TIMES + 1

# Rules and layout (R): the switches, sizes, and where each block of the state begins.
(R_PLAYERS, R_HOUSES, R_HAND, R_COINS, R_FINAL, R_ZOOM, R_MULLIGAN, R_MAX_TURNS, R_N,
 R_NDECK, R_HMAX, R_SWAP, R_O_RES, R_O_HOUSES, R_O_ZOOM, R_O_PAWN, R_O_HAND, R_O_HAND_LEN,
 R_O_OWNER, R_O_LOC, R_O_ATTEND, R_O_RIVER, R_O_DECK, R_O_DISC, R_O_SCORE,
 R_O_STACK, R_O_USED, R_O_FXUSED, R_O_COST, R_O_AB, R_O_HIRED, R_O_NHIRED, R_NH,
 R_O_WORK, R_SIZE, R_SEAT_COINS) = range(36)
N_R = R_SEAT_COINS + 5  # each seat's starting Coins (rules.seat_start_coins)
STACK = 16  # pending effects (plank, who) at most
# Each player's sums of their Helpers' abilities (kept as Helpers are hired).
AB_STEPS, AB_HAND, AB_DISC = range(3)
N_AB = 3
# Scoring's work space in the state (so that scoring allocates nothing): the holdings, what
# is left of them once stores are filled, the five parts of a score, a batching scratch.
W_HELD, W_LEFT, W_PARTS, W_SCRATCH = 0, NRES, 2 * NRES, 2 * NRES + 5
WORK = 2 * NRES + 10

# The state's header fields, before the blocks. The river is kept clockwise (R_O_RIVER,
# RIVER_LEN Booths): the top row left to right (its first TOP_LEN), then the bottom row
# right to left.
(PHASE, SEAT, DECIDER, TURN, TRIGGERED, TRIGGER_NOW, FINAL_LEFT, PLAYED, BOOTH, BOOTH_CLOSED,
 OWNER_PAID, ACTED, ZOOMING, JOB_PLANK, JOB_WHO, PAY_LEFT, PAY_KIND, PAY_GOOD, PAY_MASK,
 GAIN_LEFT, GAIN_KIND, GAIN_MASK, AFTER, DISC_LEFT, BUILD_END, STACK_LEN, RNG_KEY, RNG_CTR,
 TOP_LEN, RIVER_LEN, DECK_LEN, DISC_LEN, END_REASON, ACTIONS_DONE) = range(34)
HEADER = 34


@dataclass(frozen=True)
class Tables:
    """The compiled engine's view of one card set under one set of rules."""

    CD: np.ndarray
    PL: np.ndarray
    CARD: np.ndarray
    R: np.ndarray
    designs: tuple[Card, ...]

    @property
    def n_cards(self) -> int:
        return int(self.R[R_N])


def _plank_row(p: Plank) -> list[int]:
    row = [0] * N_PL
    for r, n in p.gain:
        row[P_GAIN + RESOURCES.index(r)] = n
    row[P_GAIN_ANY], row[P_GAIN_DIFF] = p.gain_any, p.gain_different
    for r, n in p.spend:
        row[P_SPEND + RESOURCES.index(r)] = n
    row[P_SPEND_ANY], row[P_SPEND_MATCH] = p.spend_any, p.spend_matching
    row[P_SPEND_DIFF], row[P_TIMES] = p.spend_different, p.times
    return row


def _score(s: Score | None) -> list[int]:
    """(points, resource or -1, per how many, per set of different, per owned kind or -1)."""
    if s is None:
        return [0, -1, 0, 0, -1]
    return [s.points, RESOURCES.index(s.per[0]) if s.per else -1, s.per[1] if s.per else 0,
            s.per_different, KIND_CODES[s.per_owned] if s.per_owned else -1]


def build_tables(cards: CardSet, rules: RiverRules) -> Tables:
    """The tables of `cards` under `rules`."""
    planks: list[list[int]] = []
    rows = []
    for d in cards.cards:
        row = [0] * N_CD
        row[K_KIND] = KIND_CODES[d.kind]
        row[K_STEPS] = ZOOM_STEPS if d.steps == ZOOM else int(d.steps)
        row[K_POINTS], row[K_CHOOSE], row[K_WHEN] = d.points, int(d.choose), WHEN_CODES[d.when]
        row[K_PLANK_AT], row[K_PLANK_N] = len(planks), len(d.planks)
        if len(d.planks) > MAX_PLANKS:
            raise ValueError(f"card {d.id}: more than {MAX_PLANKS} planks")
        planks += [_plank_row(p) for p in d.planks]
        row[K_OWNER] = _add(planks, d.owner_bonus)
        store = d.store
        row[K_STORE_RES] = RESOURCES.index(store.resource) if store else -1
        row[K_STORE_LIMIT], row[K_STORE_PTS] = (store.limit, store.points) if store else (0, 0)
        row[K_ATT_PTS:K_ATT_OWNED + 1] = _score(d.attend)
        row[K_BON_PTS:K_BON_OWNED + 1] = _score(d.bonus)
        ab = d.ability or Ability()
        row[K_AB_STEPS], row[K_AB_HAND], row[K_AB_DISC] = (ab.extra_steps, ab.hand_limit,
                                                           ab.build_discount)
        row[K_AB_ACT] = _add(planks, ab.on_activate)
        row[K_AB_BUILD] = _add(planks, ab.on_build)
        row[K_AB_ATTEND] = _add(planks, ab.on_attend)
        row[K_START] = int(d.start)
        for r, n in d.cost:
            row[K_COST + RESOURCES.index(r)] = n
        rows.append(row)
    deck = [i for i, d in enumerate(cards.cards) if d.kind != "start" for _ in range(d.copies)]
    starts = [i for i, d in enumerate(cards.cards) if d.kind == "start"]
    card = deck + starts
    n, p = len(card), rules.players
    hmax = rules.hand_limit + sum(d.copies * (d.ability.hand_limit if d.ability else 0)
                                  for d in cards.cards)
    R = np.zeros(N_R, np.int64)
    R[R_PLAYERS], R[R_HOUSES], R[R_HAND] = p, rules.house_count, rules.hand_limit
    R[R_COINS], R[R_FINAL], R[R_ZOOM] = rules.start_coins, rules.final_turns, rules.zoom_tokens
    R[R_MULLIGAN], R[R_MAX_TURNS], R[R_N], R[R_NDECK] = (rules.mulligan, rules.max_turns, n,
                                                         len(deck))
    R[R_HMAX] = hmax
    R[R_SEAT_COINS:R_SEAT_COINS + p] = rules.seat_start_coins()
    helpers = sum(d.copies for d in cards.cards if d.kind == "helper")
    R[R_NH] = helpers
    R[R_SWAP] = len(deck) + starts.index(next(i for i in starts if cards.cards[i].start))
    at = HEADER
    for key, size in ((R_O_RES, p * NRES), (R_O_HOUSES, p), (R_O_ZOOM, p), (R_O_PAWN, p),
                      (R_O_HAND, p * hmax), (R_O_HAND_LEN, p), (R_O_OWNER, n), (R_O_LOC, n),
                      (R_O_ATTEND, n), (R_O_RIVER, n), (R_O_DECK, n),
                      (R_O_DISC, n), (R_O_SCORE, p), (R_O_STACK, 2 * STACK),
                      (R_O_USED, MAX_PLANKS), (R_O_FXUSED, MAX_PLANKS), (R_O_COST, NRES),
                      (R_O_AB, p * N_AB), (R_O_HIRED, p * helpers), (R_O_NHIRED, p),
                      (R_O_WORK, WORK)):
        R[key] = at
        at += size
    R[R_SIZE] = at
    PL = np.array(planks, np.int64).reshape(len(planks), N_PL)
    return Tables(np.array(rows, np.int64), PL, np.array(card, np.int64), R, cards.cards)


def _add(planks: list[list[int]], p: Plank | None) -> int:
    """Append a plank's row; its index, or -1 for none."""
    if p is None:
        return -1
    planks.append(_plank_row(p))
    return len(planks) - 1


@functools.lru_cache(maxsize=4)
def cached_tables(cards: CardSet, rules: RiverRules) -> Tables:
    """`build_tables`, built once a process for the few card sets and rules a worker plays
    (a run's shards, a tuning's settings): the tables are read, never written."""
    return build_tables(cards, rules)
