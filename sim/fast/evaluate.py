"""The position evaluator of `sim.agents.evaluate`, compiled, bit for bit.

The greedy and heuristic agents break ties (within 1e-9) with their generator, so a compiled
twin must not merely approximate the reference values: it must produce the very same
floats, or one tie would be broken differently and the two games would part ways. Every
function here therefore repeats the reference's float operations in the same order and with
the same int/float mix (`sum(list)` as a left-to-right sum, `margin` as
`v[seat] - rival * (sum - v[seat]) / (n - 1)`, `potential` as `pot_w * sum(v * (c + extra))`,
powers taken from tables built in Python, ...).

The evaluation cache `State` is two arrays: `ef` (float64) and `ei` (int64), made by
`new_state(B)`; `ei`'s header holds the offsets of the tables of both (see the `I_*` and
`F_*` constants). `state(B, S, P, ef, ei)` fills them for a position `S`; the `*_delta`
functions then price one action from the cache, writing every seat's value change into a
float64 array of length n. `P` is an agent's parameter row (`planner_params`): the weights,
the evaluator mode and the planner switches, plus the power tables.

The caches skip entries that no delta reads (the spot values of a scored lane, the stall
counts of a scored district), and `lane_state` evaluates only what pricing a customer's
square reads. Functions are compiled without reference counts (`_nrt=False`,
see `sim.fast.planner`), the small and hot ones inlined into their callers.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from numba import njit

from sim.engine.codes import BARON
from sim.fast.layout import (
    BAG_ARISTOCRATS,
    BAG_CITIZENS,
    BAG_SIZE,
    BARON_SQUARE,
    END_REASON,
    KNOWN_ORDER,
    LINE_POS,
    N_DISTRICTS,
    N_LANES,
    N_NEUTRAL,
    N_PLAYERS,
    N_SQUARES,
    N_TOKENS,
    NEUTRAL_TOP,
    O_DISTRICT_LANES,
    O_DISTRICT_LANES_AT,
    O_IS_DISTRICT_TOKEN,
    O_LANE_DISTRICT0,
    O_LANE_DISTRICT1,
    O_LANE_END0,
    O_LANE_END1,
    O_LANE_INNER,
    O_LANE_LEN,
    O_LANE_OFFSET,
    O_MULTIPLIER,
    O_NEUTRAL_STACK,
    O_SPOT_VALUE,
    O_SQUARE_LANES,
    O_SQUARE_LANES_AT,
    S_DISTRICT_SCORED,
    S_LANE_COUNT,
    S_LANE_DIR,
    S_LANE_SCORED,
    S_LANE_SEAT,
    S_LINE,
    S_SCORES,
    S_SPOT_SEAT,
    S_SQUARE_CUSTOMER,
    S_STALLS_LEFT,
    S_TOK_NEUTRAL,
    S_TOK_UP,
    S_TOK_VAL,
    TOKEN_MAX,
    WITH_BARON,
)
from sim.fast.transitions import move_cost

# -- the parameter row (float64) ---------------------------------------------------------------
# Weights, in this order (the fields of the reference's `Weights`; a test holds them equal).
WEIGHT_NAMES = ("lane", "fill", "end", "district", "growth", "horizon", "majority", "stall",
                "tempo", "bobby", "rival")
W_LANE, W_FILL, W_END, W_DISTRICT, W_GROWTH, W_HORIZON, W_MAJORITY, W_STALL, W_TEMPO, \
    W_BOBBY, W_RIVAL = range(len(WEIGHT_NAMES))
# Planner switches: min_gain, simulate (token pricing by a played-out turn), immediate
# evaluator (greedy), leave option (Bobby moved at the end of a turn).
P_MIN_GAIN, P_SIMULATE, P_IMMEDIATE, P_LEAVE = range(11, 15)
P_STALLS_PER_TURN = 15  # stalls an average turn places (the turns-left estimate)
P_END_POW = 16  # [1, end, end ** 2]
P_FILL_POW = 19  # fill ** r for r = 0..MAX_LANE_LEN
MAX_LANE_LEN = 44
N_PARAMS = P_FILL_POW + MAX_LANE_LEN + 1  # 64

# -- the evaluation cache ----------------------------------------------------------------------
# Float scalars of `ef`.
F_E1, F_E2, F_POTW, F_STALLW, F_TURNS = 0, 4, 5, 6, 7
FH = 8
# Int scalars of `ei` and the offsets of the tables: own[lane * n + p] (sum of the seat's spot
# values in the lane), lead[lane], dcnt[d * n + p] (stalls bordering district d), dtok[p * T +
# i] (district tokens, largest first) and ndtok[p], top[p * nd + j] / topc[p * nd + j] (open
# districts by (count, d) descending), ntop[p] and rank[p * nd + d] (d's place in top, nd if
# scored); in `ef`: values[p], pot[p], tau[p], term[lane * n + p], bump[p * nl + lane] (the
# memo of `_bumped_potential`, valid where stamp[p * nl + lane] in `ei` equals the position's
# generation I_GEN, which `state` advances).
I_HAND, I_OWN, I_LEAD, I_DCNT, I_DTOK, I_NDTOK, I_TOP, I_TOPC, I_NTOP, I_VAL, I_POT, I_TAU, \
    I_TERM, I_GEN, I_RANK, I_STAMP, I_BUMP = range(17)
IH = 20


def planner_params(weights: Mapping[str, float], stalls_per_turn: float, *,
                   immediate: bool = False, simulate: bool = True, min_gain: float = 0.0,
                   leave: bool = True) -> np.ndarray:
    """The parameter row of an evaluator + planner from the reference agent's weights (by
    name, `WEIGHT_NAMES`) and constants (`sim.agents.evaluate.compiled_params` calls this).
    The power tables are computed here, by Python, exactly as the reference does."""
    row = np.zeros(N_PARAMS, np.float64)
    for i, name in enumerate(WEIGHT_NAMES):
        row[i] = weights[name]
    row[P_MIN_GAIN] = min_gain
    row[P_SIMULATE] = simulate
    row[P_IMMEDIATE] = immediate
    row[P_LEAVE] = leave
    row[P_STALLS_PER_TURN] = stalls_per_turn
    end, fill = weights["end"], weights["fill"]
    row[P_END_POW:P_END_POW + 3] = [1.0, end, end ** 2]
    row[P_FILL_POW:P_FILL_POW + MAX_LANE_LEN + 1] = [fill ** r for r in range(MAX_LANE_LEN + 1)]
    return row


@njit(cache=True, _nrt=False)
def state_sizes(B: np.ndarray) -> tuple[int, int]:
    """Lengths of `ef` and `ei` for a board and rules."""
    n, nl, nd, t = B[N_PLAYERS], B[N_LANES], B[N_DISTRICTS], B[N_TOKENS]
    return (FH + 3 * n + nl * n + n * nl,
            IH + nl * n + nl + nd * n + n * t + n + 2 * n * nd + n + n * nd + n * nl)


@njit(cache=True, _nrt=False)
def init_state(B: np.ndarray, ef: np.ndarray, ei: np.ndarray) -> None:
    """Write the table offsets into a fresh `ei` (buffers of `state_sizes(B)` or longer)."""
    n, nl, nd, t = B[N_PLAYERS], B[N_LANES], B[N_DISTRICTS], B[N_TOKENS]
    ei[I_OWN] = IH
    ei[I_LEAD] = ei[I_OWN] + nl * n
    ei[I_DCNT] = ei[I_LEAD] + nl
    ei[I_DTOK] = ei[I_DCNT] + nd * n
    ei[I_NDTOK] = ei[I_DTOK] + n * t
    ei[I_TOP] = ei[I_NDTOK] + n
    ei[I_TOPC] = ei[I_TOP] + n * nd
    ei[I_NTOP] = ei[I_TOPC] + n * nd
    ei[I_RANK] = ei[I_NTOP] + n
    ei[I_STAMP] = ei[I_RANK] + n * nd
    ei[I_VAL] = FH
    ei[I_POT] = FH + n
    ei[I_TAU] = FH + 2 * n
    ei[I_TERM] = FH + 3 * n
    ei[I_BUMP] = ei[I_TERM] + nl * n
    ei[I_GEN] = 1
    for i in range(n * nl):
        ei[ei[I_STAMP] + i] = 0
    ef[0] = 0.0


@njit(cache=True)
def new_state(B: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Empty evaluation buffers (ef, ei) for a board and rules."""
    fs, is_ = state_sizes(B)
    ef = np.zeros(fs, np.float64)
    ei = np.zeros(is_, np.int64)
    init_state(B, ef, ei)
    return ef, ei


# -- building blocks ---------------------------------------------------------------------------
@njit(cache=True, _nrt=False, inline='always')
def margin(values: np.ndarray, n: int, seat: int, rival: float) -> float:
    """`Evaluator.margin`: the seat's value minus rival x the mean of the others'."""
    if n == 1:
        return values[0]
    s = 0.0
    for p in range(n):
        s += values[p]
    return values[seat] - rival * (s - values[seat]) / (n - 1)


@njit(cache=True, _nrt=False, inline='always')
def token_term(P: np.ndarray, sum_up: int, len_up: int, sum_held: int, len_held: int,
               turns: float) -> float:
    """`Evaluator.token_term` from the sums and counts of the face-up and held values."""
    if P[P_IMMEDIATE] != 0.0 or len_held == 0:
        return 0.0
    mean = sum_held / len_held
    return P[W_TEMPO] * (sum_up - len_up * mean + turns * mean)


@njit(cache=True, _nrt=False, inline='always')
def seat_tokens(B: np.ndarray, S: np.ndarray, seat: int) -> tuple[int, int, int, int]:
    """(sum of face-up values, their count, sum of held values, their count)."""
    t = B[N_TOKENS]
    su = lu = sh = lh = 0
    for i in range(seat * t, seat * t + t):
        v = S[B[S_TOK_VAL] + i]
        if v:
            sh += v
            lh += 1
            if S[B[S_TOK_UP] + i]:
                su += v
                lu += 1
    return su, lu, sh, lh


@njit(cache=True, _nrt=False, inline='always')
def _leader(S: np.ndarray, base: int, n: int, bump: int) -> int:
    """`Evaluator._leader` of S[base:base + n] with seat `bump` counted once more (-1: none)."""
    most = 0
    for p in range(n):
        c = S[base + p] + (1 if p == bump else 0)
        if c > most:
            most = c
    if most == 0:
        return -1
    lead = -1
    for p in range(n):
        if S[base + p] + (1 if p == bump else 0) == most:
            if lead >= 0:
                return -1
            lead = p
    return lead


@njit(cache=True, _nrt=False, inline='always')
def lane_factor(B: np.ndarray, P: np.ndarray, ef: np.ndarray, ei: np.ndarray, lane: int,
                count: int, ca: int, cb: int, baron_end: bool) -> float:
    """`Evaluator.lane_factor`."""
    if ca and cb:
        m = float(B[B[O_MULTIPLIER] + ca * 4 + cb])
    elif ca or cb:
        m = ef[F_E1 + (ca if ca else cb)]
    else:
        m = ef[F_E2]
    if baron_end:
        return m * P[W_LANE]
    missing = B[B[O_LANE_LEN] + lane] - count
    if missing > ei[I_HAND]:
        return 0.0
    ends = (1 if ca == 0 else 0) + (1 if cb == 0 else 0)
    return m * P[W_LANE] * P[P_FILL_POW + missing] * P[P_END_POW + ends]


@njit(cache=True, _nrt=False, inline='always')
def _factor(P: np.ndarray, ef: np.ndarray, mult: int, e2: float, w_lane: float, missing: int,
            hand: int, ca: int, cb: int, baron_end: bool) -> float:
    """`lane_factor` with its table reads done by the caller: `mult` is the multiplier of
    (ca, cb), `missing` the lane's empty spots after the count considered."""
    if ca and cb:
        m = float(mult)
    elif ca or cb:
        m = ef[F_E1 + (ca if ca else cb)]
    else:
        m = e2
    if baron_end:
        return m * w_lane
    if missing > hand:
        return 0.0
    ends = (1 if ca == 0 else 0) + (1 if cb == 0 else 0)
    return m * w_lane * P[P_FILL_POW + missing] * P[P_END_POW + ends]


@njit(cache=True, _nrt=False, inline='always')
def potential(ef: np.ndarray, P: np.ndarray, tok: np.ndarray, t0: int, ntok: int, tskip: int,
              cnt: np.ndarray, c0: int, ncnt: int, cskip: int, left: int) -> float:
    """`Evaluator.potential` of tok[t0:t0 + ntok] (largest first) paired with
    cnt[c0:c0 + ncnt] (largest first), leaving out the items at `tskip` / `cskip` (-1:
    none), so that a list minus one item needs no copy."""
    if ntok - (1 if tskip >= 0 else 0) <= 0 or ef[F_POTW] == 0.0:
        return 0.0
    extra = P[W_GROWTH] * left
    s = 0.0
    i = 0
    j = 0
    while i < ntok and j < ncnt:
        if i == tskip:
            i += 1
            continue
        if j == cskip:
            j += 1
            continue
        s += tok[t0 + i] * (cnt[c0 + j] + extra)
        i += 1
        j += 1
    return ef[F_POTW] * s


@njit(cache=True, _nrt=False)
def pool(B: np.ndarray, S: np.ndarray, ef: np.ndarray) -> None:
    """`Evaluator.pool`: expected multipliers of an empty lane end into ef[F_E1..F_E2]."""
    if B[KNOWN_ORDER]:
        cit = 0
        ari = 0
        line = B[S_LINE]
        for i in range(S[LINE_POS], B[BAG_SIZE]):
            c = S[line + i]
            if c == 1:
                cit += 1
            elif c == 2:
                ari += 1
    else:
        cit = S[BAG_CITIZENS]
        ari = S[BAG_ARISTOCRATS]
    bar = 1 if B[WITH_BARON] and S[BARON_SQUARE] < 0 else 0
    total = cit + ari + bar
    if total == 0:
        for c in range(4):
            ef[F_E1 + c] = 0.0
        ef[F_E2] = 0.0
        return
    p1 = cit / total
    p2 = ari / total
    p3 = bar / total
    mult = B[O_MULTIPLIER]
    for c in range(4):
        ef[F_E1 + c] = p1 * B[mult + c * 4 + 1] + p2 * B[mult + c * 4 + 2] \
            + p3 * B[mult + c * 4 + 3]
    ef[F_E2] = p1 * ef[F_E1 + 1] + p2 * ef[F_E1 + 2] + p3 * ef[F_E1 + 3]


# -- whole positions ------------------------------------------------------------------------
@njit(cache=True, _nrt=False)
def state(B: np.ndarray, S: np.ndarray, P: np.ndarray, ef: np.ndarray, ei: np.ndarray) -> None:
    """`Evaluator.state`: evaluate the position S into the cache (ef, ei)."""
    _evaluate(B, S, P, ef, ei, False)


@njit(cache=True, _nrt=False)
def lane_state(B: np.ndarray, S: np.ndarray, P: np.ndarray, ef: np.ndarray,
               ei: np.ndarray) -> None:
    """The part of `state` that `customer_delta` reads (pool, stalls in hand, own spot
    values and terms of the lanes): enough to price the squares for a customer."""
    _evaluate(B, S, P, ef, ei, True)


@njit(cache=True, _nrt=False)
def _evaluate(B: np.ndarray, S: np.ndarray, P: np.ndarray, ef: np.ndarray, ei: np.ndarray,
              light: bool) -> None:
    # Offsets are read once into locals: numba cannot tell that B, S, ef and ei never
    # overlap, so a table offset read inside a loop would be reloaded after every store.
    n, nl, nd, t = B[N_PLAYERS], B[N_LANES], B[N_DISTRICTS], B[N_TOKENS]
    imm = P[P_IMMEDIATE] != 0.0
    pool(B, S, ef)
    ei[I_GEN] += 1  # invalidates the memos of the last position
    stalls = B[S_STALLS_LEFT]
    hand = 0
    for p in range(n):
        hand += S[stalls + p]
    ei[I_HAND] = hand
    val = ei[I_VAL]
    own_o = ei[I_OWN]
    term_o = ei[I_TERM]
    lead_o = ei[I_LEAD]
    scores = B[S_SCORES]
    for p in range(n):
        ef[val + p] = float(S[scores + p])
    lc, ldir, lsc, lseat = B[S_LANE_COUNT], B[S_LANE_DIR], B[S_LANE_SCORED], B[S_LANE_SEAT]
    spot, sqc = B[S_SPOT_SEAT], B[S_SQUARE_CUSTOMER]
    o_len, o_loff, o_spots = B[O_LANE_LEN], B[O_LANE_OFFSET], B[O_SPOT_VALUE]
    o_ea, o_eb = B[O_LANE_END0], B[O_LANE_END1]
    o_inner, o_mult = B[O_LANE_INNER], B[O_MULTIPLIER]
    baron = S[BARON_SQUARE]
    majority = P[W_MAJORITY]
    w_lane = P[W_LANE]
    e2 = ef[F_E2]
    for lane in range(nl):
        own0 = own_o + lane * n
        c = S[lc + lane]
        scored = S[lsc + lane]
        # `own` of a scored lane is never read (the reference computes it all the same).
        if not scored:
            for p in range(n):
                ei[own0 + p] = 0
        if c and not scored:
            length = B[o_len + lane]
            off = B[o_loff + lane]
            first = 0 if S[ldir + lane] == 0 else length - c
            for k in range(first, first + c):
                ei[own0 + S[spot + off + k]] += B[o_spots + off + k]
        term0 = term_o + lane * n
        if c == 0 or imm or scored:
            for p in range(n):
                ef[term0 + p] = 0.0
        else:
            a = B[o_ea + lane]
            z = B[o_eb + lane]
            ca = S[sqc + a]
            cb = S[sqc + z]
            f = _factor(P, ef, B[o_mult + ca * 4 + cb], e2, w_lane, B[o_len + lane] - c, hand,
                        ca, cb, baron in (a, z))
            for p in range(n):
                x = ei[own0 + p] * f
                ef[term0 + p] = x
                ef[val + p] += x
        lead = -1
        if B[o_inner + lane] and c and not imm and not light:
            lead = _leader(S, lseat + lane * n, n, -1)
            if lead >= 0:
                ef[val + lead] += majority
        ei[lead_o + lane] = lead
    if light:
        return
    dcnt = ei[I_DCNT]
    o_dls, o_dl = B[O_DISTRICT_LANES_AT], B[O_DISTRICT_LANES]
    dsc = B[S_DISTRICT_SCORED]
    for d in range(nd):
        if S[dsc + d] >= 0:
            continue  # the counts of a scored district are never read
        lo, hi = B[o_dls + d], B[o_dls + d + 1]
        for p in range(n):
            c = 0
            for i in range(lo, hi):
                c += S[lseat + B[o_dl + i] * n + p]
            ei[dcnt + d * n + p] = c
    if imm:
        ef[F_POTW] = 0.0
        ef[F_STALLW] = 0.0
        ef[F_TURNS] = 0.0
        pot_o, tau_o, ndtok, ntop = ei[I_POT], ei[I_TAU], ei[I_NDTOK], ei[I_NTOP]
        for p in range(n):
            ef[pot_o + p] = 0.0
            ef[tau_o + p] = 0.0
            ei[ndtok + p] = 0
            ei[ntop + p] = 0
        return
    if S[END_REASON] != 0:
        tl = 0.0
    else:
        low = S[stalls]
        for p in range(1, n):
            if S[stalls + p] < low:
                low = S[stalls + p]
        tl = low / P[P_STALLS_PER_TURN]
    ef[F_TURNS] = tl
    h = P[W_HORIZON]
    fade = min(1.0, max(0.0, (tl - 2.0) / h)) if h > 0 else 1.0
    ef[F_POTW] = P[W_DISTRICT] * fade
    ef[F_STALLW] = P[W_STALL] * (min(1.0, max(0.0, (tl - 1.0) / h)) if h > 0 else 1.0)
    stall_w = ef[F_STALLW]
    dtok, ndtok, top, topc, ntop = ei[I_DTOK], ei[I_NDTOK], ei[I_TOP], ei[I_TOPC], ei[I_NTOP]
    rank = ei[I_RANK]
    pot_o, tau_o = ei[I_POT], ei[I_TAU]
    s_tv, s_tn = B[S_TOK_VAL], B[S_TOK_NEUTRAL]
    o_dtok, dtok_max = B[O_IS_DISTRICT_TOKEN], B[TOKEN_MAX]
    for p in range(n):
        # District tokens, largest first (insertion sort).
        k = 0
        for i in range(p * t, p * t + t):
            v = S[s_tv + i]
            if v and not S[s_tn + i] and v <= dtok_max and B[o_dtok + v]:
                j = k
                while j > 0 and ei[dtok + p * t + j - 1] < v:
                    ei[dtok + p * t + j] = ei[dtok + p * t + j - 1]
                    j -= 1
                ei[dtok + p * t + j] = v
                k += 1
        ei[ndtok + p] = k
        # Open districts by (count, district) descending: inserted from the highest
        # district down, so that equal counts never move past each other.
        m = 0
        row = p * nd
        for d in range(nd - 1, -1, -1):
            if S[dsc + d] >= 0:
                continue
            c = ei[dcnt + d * n + p]
            j = m
            while j > 0 and ei[topc + row + j - 1] < c:
                ei[topc + row + j] = ei[topc + row + j - 1]
                ei[top + row + j] = ei[top + row + j - 1]
                j -= 1
            ei[topc + row + j] = c
            ei[top + row + j] = d
            m += 1
        ei[ntop + p] = m
        for d in range(nd):
            ei[rank + row + d] = nd
        for j in range(m):
            ei[rank + row + ei[top + row + j]] = j
        sl = S[stalls + p]
        pot = potential(ef, P, ei, dtok + p * t, k, -1, ei, topc + row, m, -1, sl)
        su, lu, sh, lh = seat_tokens(B, S, p)
        tau = token_term(P, su, lu, sh, lh, tl)
        ef[pot_o + p] = pot
        ef[tau_o + p] = tau
        ef[val + p] += pot + stall_w * sl + tau


@njit(cache=True, _nrt=False)
def value_margins(B: np.ndarray, ef: np.ndarray, ei: np.ndarray, out: np.ndarray) -> None:
    """`Evaluator.value_margins` of the evaluated position: each seat's value minus the best
    other seat's value."""
    n = B[N_PLAYERS]
    val = ei[I_VAL]
    for p in range(n):
        best = 0.0
        first = True
        for q in range(n):
            if q != p and (first or ef[val + q] > best):
                best = ef[val + q]
                first = False
        out[p] = ef[val + p] - best


# -- deltas of single actions ------------------------------------------------------------------
@njit(cache=True, _nrt=False, inline='always')
def _bumped_potential(B: np.ndarray, S: np.ndarray, P: np.ndarray, ef: np.ndarray,
                      ei: np.ndarray, seat: int, lane: int, tmp: np.ndarray) -> float:
    """`Evaluator._bumped_potential`: the seat's potential with one more stall in `lane`
    (memoised per position, like the reference)."""
    ntok = ei[ei[I_NDTOK] + seat]
    if ntok == 0:
        return 0.0
    n, nl, nd, t = B[N_PLAYERS], B[N_LANES], B[N_DISTRICTS], B[N_TOKENS]
    key = seat * nl + lane
    gen = ei[I_GEN]
    if ei[ei[I_STAMP] + key] == gen:
        return ef[ei[I_BUMP] + key]
    d0 = B[B[O_LANE_DISTRICT0] + lane]
    d1 = B[B[O_LANE_DISTRICT1] + lane]
    row = seat * nd
    top, topc, rank = ei[I_TOP] + row, ei[I_TOPC] + row, ei[I_RANK] + row
    k = min(ntok + 2, ei[ei[I_NTOP] + seat])
    cnt = 0
    for j in range(k):
        d = ei[top + j]
        c = ei[topc + j]
        tmp[cnt] = c + 1 if d in (d0, d1) else c
        cnt += 1
    dsc = B[S_DISTRICT_SCORED]
    if d0 >= 0 and S[dsc + d0] < 0 and ei[rank + d0] >= k:
        tmp[cnt] = ei[ei[I_DCNT] + d0 * n + seat] + 1
        cnt += 1
    if d1 >= 0 and S[dsc + d1] < 0 and ei[rank + d1] >= k:
        tmp[cnt] = ei[ei[I_DCNT] + d1 * n + seat] + 1
        cnt += 1
    for i in range(1, cnt):  # descending
        v = tmp[i]
        j = i
        while j > 0 and tmp[j - 1] < v:
            tmp[j] = tmp[j - 1]
            j -= 1
        tmp[j] = v
    value = potential(ef, P, ei, ei[I_DTOK] + seat * t, ntok, -1, tmp, 0, cnt, -1,
                      S[B[S_STALLS_LEFT] + seat] - 1)
    ef[ei[I_BUMP] + key] = value
    ei[ei[I_STAMP] + key] = gen
    return value


@njit(cache=True, _nrt=False)
def _ending_delta(B: np.ndarray, S: np.ndarray, ef: np.ndarray, ei: np.ndarray, seat: int,
                  lane: int, value: int, scored_now: bool, delta: np.ndarray) -> None:
    """`Evaluator._ending_delta`: the seat's last stall ends the game."""
    n = B[N_PLAYERS]
    sqc = B[S_SQUARE_CUSTOMER]
    mult = B[O_MULTIPLIER]
    own_o = ei[I_OWN]
    o_ea, o_eb = B[O_LANE_END0], B[O_LANE_END1]
    scores = B[S_SCORES]
    for p in range(n):
        delta[p] = float(S[scores + p])
    if scored_now:
        m = B[mult + S[sqc + B[o_ea + lane]] * 4 + S[sqc + B[o_eb + lane]]]
        for p in range(n):
            delta[p] += (ei[own_o + lane * n + p] + (value if p == seat else 0)) * m
    baron = S[BARON_SQUARE]
    if baron >= 0:
        lsc = B[S_LANE_SCORED]
        o_sql = B[O_SQUARE_LANES]
        for i in range(B[B[O_SQUARE_LANES_AT] + baron], B[B[O_SQUARE_LANES_AT] + baron + 1]):
            bl = B[o_sql + i]
            if S[lsc + bl] or (bl == lane and scored_now):
                continue
            a = B[o_ea + bl]
            z = B[o_eb + bl]
            m = B[mult + BARON * 4 + (S[sqc + z] if a == baron else S[sqc + a])]
            for p in range(n):
                o = ei[own_o + bl * n + p] + (value if (bl == lane and p == seat) else 0)
                delta[p] += o * m
    val = ei[I_VAL]
    for p in range(n):
        delta[p] = delta[p] - ef[val + p]


@njit(cache=True, _nrt=False, inline='always')
def stall_delta(B: np.ndarray, S: np.ndarray, P: np.ndarray, ef: np.ndarray, ei: np.ndarray,
                seat: int, lane: int, end: int, delta: np.ndarray, tmp: np.ndarray) -> None:
    """`Evaluator.stall_delta` into delta[:n]: `seat` places a stall in `lane` from `end`."""
    n = B[N_PLAYERS]
    c = S[B[S_LANE_COUNT] + lane]
    length = B[B[O_LANE_LEN] + lane]
    off = B[B[O_LANE_OFFSET] + lane]
    v = B[B[O_SPOT_VALUE] + off + (c if end == 0 else length - 1 - c)]
    own0 = ei[I_OWN] + lane * n
    term0 = ei[I_TERM] + lane * n
    a = B[B[O_LANE_END0] + lane]
    z = B[B[O_LANE_END1] + lane]
    sqc = B[S_SQUARE_CUSTOMER]
    ca = S[sqc + a]
    cb = S[sqc + z]
    imm = P[P_IMMEDIATE] != 0.0
    scored_now = c + 1 == length and ca != 0 and cb != 0
    mult = B[B[O_MULTIPLIER] + ca * 4 + cb]
    if scored_now:
        f = float(mult)
    elif imm:
        for p in range(n):
            delta[p] = 0.0
        return
    else:
        f = _factor(P, ef, mult, ef[F_E2], P[W_LANE], length - c - 1, ei[I_HAND], ca, cb,
                    S[BARON_SQUARE] in (a, z))
    for p in range(n):
        o = ei[own0 + p] + (v if p == seat else 0)
        delta[p] = o * f - ef[term0 + p]
    if imm:
        return
    if S[B[S_STALLS_LEFT] + seat] == 1 and S[END_REASON] == 0:
        _ending_delta(B, S, ef, ei, seat, lane, v, scored_now, delta)
        return
    if B[B[O_LANE_INNER] + lane]:
        lead = _leader(S, B[S_LANE_SEAT] + lane * n, n, seat)
        old = ei[ei[I_LEAD] + lane]
        if lead != old:
            mj = P[W_MAJORITY]
            if old >= 0:
                delta[old] -= mj
            if lead >= 0:
                delta[lead] += mj
    if ef[F_POTW] != 0.0:
        delta[seat] += _bumped_potential(B, S, P, ef, ei, seat, lane, tmp) \
            - ef[ei[I_POT] + seat]
    delta[seat] -= ef[F_STALLW]


@njit(cache=True, _nrt=False, inline='always')
def customer_delta(B: np.ndarray, S: np.ndarray, P: np.ndarray, ef: np.ndarray,
                   ei: np.ndarray, square: int, customer: int, last: bool,
                   delta: np.ndarray) -> None:
    """`Evaluator.customer_delta` into delta[:n]: `customer` placed on `square` (`last`: the
    baron follows on the first other empty square)."""
    n = B[N_PLAYERS]
    sqc = B[S_SQUARE_CUSTOMER]
    for p in range(n):
        delta[p] = 0.0
    baron = S[BARON_SQUARE]
    extra = -1
    if last and B[WITH_BARON] and baron < 0:
        for s in range(B[N_SQUARES]):
            if S[sqc + s] == 0 and s != square:
                extra = s
                baron = s
                break
    imm = P[P_IMMEDIATE] != 0.0
    own_o = ei[I_OWN]
    term_o = ei[I_TERM]
    o_sqs, o_sql = B[O_SQUARE_LANES_AT], B[O_SQUARE_LANES]
    o_ea, o_eb, o_len, o_mult = B[O_LANE_END0], B[O_LANE_END1], B[O_LANE_LEN], B[O_MULTIPLIER]
    lsc, lc = B[S_LANE_SCORED], B[S_LANE_COUNT]
    e2 = ef[F_E2]
    w_lane = P[W_LANE]
    hand = ei[I_HAND]
    for x in range(2):
        s = square if x == 0 else extra
        if s < 0:
            break
        for i in range(B[o_sqs + s], B[o_sqs + s + 1]):
            lane = B[o_sql + i]
            if S[lsc + lane]:
                continue
            a = B[o_ea + lane]
            z = B[o_eb + lane]
            if x == 1 and (a == square or z == square):
                continue  # seen from the first square
            own0 = own_o + lane * n
            anyone = False
            for p in range(n):
                if ei[own0 + p]:
                    anyone = True
            if not anyone:
                continue
            ca = customer if a == square else (BARON if a == extra else S[sqc + a])
            cb = customer if z == square else (BARON if z == extra else S[sqc + z])
            count = S[lc + lane]
            term0 = term_o + lane * n
            length = B[o_len + lane]
            if ca and cb and count == length:
                m = B[o_mult + ca * 4 + cb]
                for p in range(n):
                    delta[p] += ei[own0 + p] * m - ef[term0 + p]
            elif not imm:
                f = _factor(P, ef, B[o_mult + ca * 4 + cb], e2, w_lane, length - count, hand,
                            ca, cb, baron in (a, z))
                for p in range(n):
                    delta[p] += ei[own0 + p] * f - ef[term0 + p]


@njit(cache=True, _nrt=False, inline='always')
def token_delta(B: np.ndarray, S: np.ndarray, P: np.ndarray, ef: np.ndarray, ei: np.ndarray,
                seat: int, value: int) -> float:
    """`Evaluator.token_delta`: change of the seat's token term when it plays `value`."""
    su, lu, sh, lh = seat_tokens(B, S, seat)
    before = ef[ei[I_TAU] + seat]
    su -= value
    lu -= 1
    if lu == 0:
        su, lu = sh, lh
    return token_term(P, su, lu, sh, lh, ef[F_TURNS]) - before


@njit(cache=True, _nrt=False, inline='always')
def district_delta(B: np.ndarray, S: np.ndarray, P: np.ndarray, ef: np.ndarray,
                   ei: np.ndarray, seat: int, value: int, district: int,
                   delta: np.ndarray) -> None:
    """`Evaluator.district_delta` into delta[:n]: `seat` scores `district` with `value`."""
    n, nd, t = B[N_PLAYERS], B[N_DISTRICTS], B[N_TOKENS]
    for p in range(n):
        delta[p] = 0.0
    delta[seat] = float(value * ei[ei[I_DCNT] + district * n + seat])
    if P[P_IMMEDIATE] == 0.0:
        su, lu, sh, lh = seat_tokens(B, S, seat)
        su -= value
        lu -= 1
        sh -= value
        lh -= 1
        if S[NEUTRAL_TOP] < B[N_NEUTRAL]:
            x = B[B[O_NEUTRAL_STACK] + S[NEUTRAL_TOP]]
            su += x
            lu += 1
            sh += x
            lh += 1
        if lu == 0:
            su, lu = sh, lh
        delta[seat] += token_term(P, su, lu, sh, lh, ef[F_TURNS]) - ef[ei[I_TAU] + seat]
    if ef[F_POTW] != 0.0:
        dtok, top, topc = ei[I_DTOK], ei[I_TOP], ei[I_TOPC]
        for p in range(n):
            ntok = ei[ei[I_NDTOK] + p]
            tskip = -1
            if p == seat:
                for i in range(ntok):
                    if ei[dtok + p * t + i] == value:
                        tskip = i
                        break
            m = ei[ei[I_NTOP] + p]
            cskip = -1
            for j in range(m):
                if ei[top + p * nd + j] == district:
                    cskip = j
                    break
            delta[p] += potential(ef, P, ei, dtok + p * t, ntok, tskip, ei, topc + p * nd, m,
                                  cskip, S[B[S_STALLS_LEFT] + p]) - ef[ei[I_POT] + p]


@njit(cache=True, _nrt=False, inline='always')
def move_margin(B: np.ndarray, S: np.ndarray, P: np.ndarray, seat: int,
                lane: int) -> tuple[float, int]:
    """`Evaluator.move_delta` priced as the mover's margin: (margin change, points lost).

    The delta is -loss for the mover and +1.0 for each of k gainers: small integers, so the
    reference's left-to-right `sum(delta) - delta[seat]` is exactly k and its margin is
    exactly `(0.0 - loss) - rival * k / (n - 1)`, computed here without the list."""
    n = B[N_PLAYERS]
    loss, k, _ = move_cost(B, S, lane, seat)
    mover = 0.0 - loss
    if n == 1:
        return mover, loss
    return mover - P[W_RIVAL] * k / (n - 1), loss
