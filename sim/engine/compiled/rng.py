"""CPython's `random.Random` (MT19937) as numba functions, bit for bit.

The pure-Python agents and the engine draw from `random.Random(seed)`. A compiled game
loop must replay exactly the same choices from the same seed, so this module reproduces
CPython 3.11's Mersenne Twister, its int seeding and the few methods the simulator uses
(`random`, `randrange(n)`, `choice`, `shuffle`) with identical output, not merely the
same distribution.

A generator is one numpy `uint32` array of length 625 (`new_state()`): the 624 words of
the twister in slots 0..623 and the read index `mti` in slot 624. This is the layout of
the middle item of `random.Random.getstate()`, so `getstate_from_python` and
`setstate_to_python` hand a generator over between the Python and compiled paths.

Equivalences (for a state and a `random.Random` that start equal):

* `seed(state, s)`           == `rng.seed(s)` for an int with abs(s) < 2**64
* `next_u32(state)`          == `rng.getrandbits(32)`
* `random(state)`            == `rng.random()`
* `below(state, n)`          == `rng.randrange(n)` == `rng._randbelow(n)`, 1 <= n < 2**32
* `seq[below(state, len(seq))]` == `rng.choice(seq)` (no separate function needed)
* `shuffle(state, arr, n)`   == `rng.shuffle(lst)` applied to `arr[:n]`

`gauss`/`normalvariate` (which keep `gauss_next`) and the other methods are not ported.
Seeds of other types (str, bytes, ints >= 2**64) can be taken over with
`getstate_from_python(random.Random(s))`.

All compiled functions use `cache=True`: the first call in a fresh environment compiles
and writes the cache in `__pycache__`, later processes load it. The draws (`_next_u64`,
`random`, `below`) are inlined where they are called: a call with the generator array as
argument cost more than the draw itself (random games 17% faster, alternating runs).
"""

from __future__ import annotations

import random as _pyrandom

import numba
import numpy as np

N = 624
M = 397
STATE_SIZE = N + 1  # 624 words + the index
INDEX = N  # slot holding the index `mti`

# Everything is computed in uint64 and masked to 32 bits: numba widens uint32 arithmetic
# to uint64, and mixing it with int64 literals would give float64, so every constant is a
# typed uint64.
_MASK32 = np.uint64(0xFFFFFFFF)
_UPPER = np.uint64(0x80000000)
_LOWER = np.uint64(0x7FFFFFFF)
_MATRIX_A = np.uint64(0x9908B0DF)
_TEMPER_B = np.uint64(0x9D2C5680)
_TEMPER_C = np.uint64(0xEFC60000)
_U0 = np.uint64(0)
_U1 = np.uint64(1)
_S5 = np.uint64(5)
_S6 = np.uint64(6)
_S7 = np.uint64(7)
_S11 = np.uint64(11)
_S15 = np.uint64(15)
_S18 = np.uint64(18)
_S30 = np.uint64(30)
_S32 = np.uint64(32)
_ARRAY_MULT1 = np.uint64(1664525)
_ARRAY_MULT2 = np.uint64(1566083941)
_INIT_SEED = np.uint64(19650218)


def new_state() -> np.ndarray:
    """An unseeded generator state (all zeros): call `seed` before drawing from it."""
    return np.zeros(STATE_SIZE, np.uint32)


def _initial_table() -> np.ndarray:
    """The words CPython's `init_genrand(19650218)` leaves (index 624 aside): every int
    seeding starts from them."""
    state = np.zeros(STATE_SIZE, np.uint32)
    prev = 19650218
    state[0] = prev
    for i in range(1, N):
        prev = (1812433253 * (prev ^ (prev >> 30)) + i) & 0xFFFFFFFF
        state[i] = prev
    return state[:N].copy()


_INIT_TABLE = _initial_table()


@numba.njit(cache=True)
def init_by_array(state: np.ndarray, key: np.ndarray) -> None:
    """CPython `init_by_array` with a non-empty array of 32-bit key words."""
    key_length = key.shape[0]
    state[:N] = _INIT_TABLE  # CPython's `init_genrand(state, 19650218)`, computed once
    state[INDEX] = np.uint32(N)
    # The previous word is carried in a register: each step depends on the last one, so
    # reloading it from memory would put a store-to-load delay on the critical path.
    i = 1
    j = 0
    prev = np.uint64(state[0])
    for _ in range(max(N, key_length)):
        cur = (np.uint64(state[i]) ^ ((prev ^ (prev >> _S30)) * _ARRAY_MULT1)) \
            + np.uint64(key[j]) + np.uint64(j)
        prev = cur & _MASK32
        state[i] = np.uint32(prev)
        i += 1
        j += 1
        if i >= N:
            state[0] = state[N - 1]
            i = 1
        if j >= key_length:
            j = 0
    prev = np.uint64(state[i - 1])
    for _ in range(N - 1):
        cur = (np.uint64(state[i]) ^ ((prev ^ (prev >> _S30)) * _ARRAY_MULT2)) - np.uint64(i)
        prev = cur & _MASK32
        state[i] = np.uint32(prev)
        i += 1
        if i >= N:
            state[0] = state[N - 1]
            i = 1
    state[0] = np.uint32(0x80000000)  # MSB is 1, assuring a non-zero initial array
    state[INDEX] = np.uint32(N)


@numba.njit(cache=True)
def seed(state: np.ndarray, s: int) -> None:
    """Same as `random.Random(s)` / `rng.seed(s)` for an int with abs(s) < 2**64.

    CPython seeds with the little-endian 32-bit words of abs(s) (the key [0] for s == 0).
    `s` may be int64 (the simulator's 63-bit seeds) or uint64. From Python, numba's
    dispatcher converts a plain int to int64, so pass a seed >= 2**63 as `np.uint64(s)`.
    """
    u = np.uint64(-s) if s < 0 else np.uint64(s)  # two's complement: right for -2**63 too
    hi = u >> _S32
    if hi == _U0:
        key = np.empty(1, np.uint32)
    else:
        key = np.empty(2, np.uint32)
        key[1] = np.uint32(hi)
    key[0] = np.uint32(u & _MASK32)
    init_by_array(state, key)


@numba.njit(cache=True, _nrt=False, inline="always")
def _mix1(word: np.uint64, prev: np.uint64, add: np.uint64) -> np.uint64:
    """One step of init_by_array's first loop: the new word from the old one, the word
    before it and what the step adds (key[j] + j)."""
    return ((word ^ ((prev ^ (prev >> _S30)) * _ARRAY_MULT1)) + add) & _MASK32


@numba.njit(cache=True, _nrt=False, inline="always")
def _mix2(word: np.uint64, prev: np.uint64, i: np.uint64) -> np.uint64:
    """One step of init_by_array's second loop at index i."""
    return ((word ^ ((prev ^ (prev >> _S30)) * _ARRAY_MULT2)) - i) & _MASK32


@numba.njit(cache=True, _nrt=False, inline="always")
def _put(states: np.ndarray, r0: int, r1: int, r2: int, r3: int, i: int, p0: np.uint64,
         p1: np.uint64, p2: np.uint64, p3: np.uint64) -> None:
    """Word i of the four rows r0..r3."""
    states[r0, i] = np.uint32(p0)
    states[r1, i] = np.uint32(p1)
    states[r2, i] = np.uint32(p2)
    states[r3, i] = np.uint32(p3)


@numba.njit(cache=True, _nrt=False, inline="always")
def _second(states: np.ndarray, r0: int, r1: int, r2: int, r3: int, i: int, p0: np.uint64,
            p1: np.uint64, p2: np.uint64,
            p3: np.uint64) -> tuple[np.uint64, np.uint64, np.uint64, np.uint64]:
    """One step of init_by_array's second loop on word i of the four rows, from the words
    before them (p0..p3); returns the new words."""
    ui = np.uint64(i)
    p0 = _mix2(np.uint64(states[r0, i]), p0, ui)
    p1 = _mix2(np.uint64(states[r1, i]), p1, ui)
    p2 = _mix2(np.uint64(states[r2, i]), p2, ui)
    p3 = _mix2(np.uint64(states[r3, i]), p3, ui)
    _put(states, r0, r1, r2, r3, i, p0, p1, p2, p3)
    return p0, p1, p2, p3


@numba.njit(cache=True, _nrt=False)
def _seed_four(states: np.ndarray, r0: int, r1: int, r2: int, r3: int, s0: int, s1: int,
               s2: int, s3: int) -> None:
    """`seed(states[r], s)` for the four rows r0..r3 and their seeds (non-negative),
    stepped side by side. Rows should differ: two chains writing one row would wait on
    each other's stores.

    init_by_array's loops are laid out by where their index wraps, so that no step tests
    for it: the first loop (N steps) runs over words 1..N-1 of the initial table (still
    untouched, so read from the table itself), wraps and takes word 1 once more; the
    second (N - 1 steps) runs over words 2..N-1, wraps and ends on word 1. Each step adds
    key[j] + j, which for a key of one or two words alternates between two values (even
    and odd steps, equal for one word): the first loop is unrolled by two to add them
    without a test."""
    u0, u1, u2, u3 = np.uint64(s0), np.uint64(s1), np.uint64(s2), np.uint64(s3)
    e0, e1, e2, e3 = u0 & _MASK32, u1 & _MASK32, u2 & _MASK32, u3 & _MASK32
    o0 = (u0 >> _S32) + _U1 if u0 >> _S32 else e0
    o1 = (u1 >> _S32) + _U1 if u1 >> _S32 else e1
    o2 = (u2 >> _S32) + _U1 if u2 >> _S32 else e2
    o3 = (u3 >> _S32) + _U1 if u3 >> _S32 else e3
    p0 = p1 = p2 = p3 = np.uint64(_INIT_TABLE[0])
    for i in range(1, N - 1, 2):  # steps t = i - 1 (even) and t = i (odd)
        w = np.uint64(_INIT_TABLE[i])
        p0 = _mix1(w, p0, e0)
        p1 = _mix1(w, p1, e1)
        p2 = _mix1(w, p2, e2)
        p3 = _mix1(w, p3, e3)
        _put(states, r0, r1, r2, r3, i, p0, p1, p2, p3)
        w = np.uint64(_INIT_TABLE[i + 1])
        p0 = _mix1(w, p0, o0)
        p1 = _mix1(w, p1, o1)
        p2 = _mix1(w, p2, o2)
        p3 = _mix1(w, p3, o3)
        _put(states, r0, r1, r2, r3, i + 1, p0, p1, p2, p3)
    w = np.uint64(_INIT_TABLE[N - 1])  # step N - 2 (even: N is even), the last word
    p0 = _mix1(w, p0, e0)
    p1 = _mix1(w, p1, e1)
    p2 = _mix1(w, p2, e2)
    p3 = _mix1(w, p3, e3)
    _put(states, r0, r1, r2, r3, N - 1, p0, p1, p2, p3)
    # The wrap (word 0 := word N - 1, carried in p), then step N - 1 (odd) on word 1.
    p0 = _mix1(np.uint64(states[r0, 1]), p0, o0)
    p1 = _mix1(np.uint64(states[r1, 1]), p1, o1)
    p2 = _mix1(np.uint64(states[r2, 1]), p2, o2)
    p3 = _mix1(np.uint64(states[r3, 1]), p3, o3)
    _put(states, r0, r1, r2, r3, 1, p0, p1, p2, p3)
    for i in range(2, N):
        p0, p1, p2, p3 = _second(states, r0, r1, r2, r3, i, p0, p1, p2, p3)
    _second(states, r0, r1, r2, r3, 1, p0, p1, p2, p3)  # the wrap again, then word 1
    for r in (r0, r1, r2, r3):
        states[r, 0] = np.uint32(0x80000000)  # MSB is 1, assuring a non-zero initial array
        states[r, INDEX] = np.uint32(N)


@numba.njit(cache=True, _nrt=False)
def seed_rows(states: np.ndarray, seeds: np.ndarray, k: int) -> None:
    """`seed(states[g], seeds[g])` for rows g < k (non-negative int64 seeds), four at a
    time.

    Seeding is one long chain of dependent multiplications; stepping four chains side by
    side lets the processor overlap them, so four generators cost little more than one.
    Rows of `states` past k, up to the next multiple of four, are scratch: a last group
    of fewer than four fills up with them (see `seed_rows_room`) or, without them,
    repeats its last row (slower).
    """
    rows = states.shape[0]
    last = k - 1
    for g in range(0, k, 4):
        r1, r2, r3 = (g + 1 if g + 1 < rows else last, g + 2 if g + 2 < rows else last,
                      g + 3 if g + 3 < rows else last)
        _seed_four(states, g, r1, r2, r3, seeds[g], seeds[min(g + 1, last)],
                   seeds[min(g + 2, last)], seeds[min(g + 3, last)])


@numba.njit(cache=True)
def seed_rows_room(k: int) -> int:
    """How many rows to give `seed_rows` for k generators: k rounded up to a multiple of
    four, so that every group of four chains writes four different rows."""
    return -(-k // 4) * 4


@numba.njit(cache=True)
def _twist(state: np.ndarray) -> None:
    """Regenerate the 624 words (the first half of CPython's `genrand_uint32`)."""
    for kk in range(N - M):
        y = (np.uint64(state[kk]) & _UPPER) | (np.uint64(state[kk + 1]) & _LOWER)
        v = np.uint64(state[kk + M]) ^ (y >> _U1)
        v ^= (_U0 - (y & _U1)) & _MATRIX_A  # branch-free: the loop vectorises
        state[kk] = np.uint32(v)
    for kk in range(N - M, N - 1):
        y = (np.uint64(state[kk]) & _UPPER) | (np.uint64(state[kk + 1]) & _LOWER)
        v = np.uint64(state[kk + M - N]) ^ (y >> _U1)
        v ^= (_U0 - (y & _U1)) & _MATRIX_A  # branch-free: the loop vectorises
        state[kk] = np.uint32(v)
    y = (np.uint64(state[N - 1]) & _UPPER) | (np.uint64(state[0]) & _LOWER)
    v = np.uint64(state[M - 1]) ^ (y >> _U1)
    v ^= (_U0 - (y & _U1)) & _MATRIX_A
    state[N - 1] = np.uint32(v)
    state[INDEX] = np.uint32(0)


@numba.njit(cache=True, inline="always")
def _next_u64(state: np.ndarray) -> np.uint64:
    """The next tempered 32-bit output, widened to uint64 for further arithmetic."""
    if state[INDEX] >= N:
        _twist(state)
    mti = np.int64(state[INDEX])
    y = np.uint64(state[mti])
    state[INDEX] = np.uint32(mti + 1)
    y ^= y >> _S11
    y ^= (y << _S7) & _TEMPER_B
    y ^= (y << _S15) & _TEMPER_C
    y ^= y >> _S18
    return y


@numba.njit(cache=True)
def next_u32(state: np.ndarray) -> np.uint32:
    """CPython `genrand_uint32`: equals `rng.getrandbits(32)`."""
    return np.uint32(_next_u64(state))


@numba.njit(cache=True, inline="always")
def random(state: np.ndarray) -> float:
    """Equals `rng.random()`: a 53-bit float in [0, 1) from two 32-bit outputs."""
    a = _next_u64(state) >> _S5
    b = _next_u64(state) >> _S6
    return (np.float64(a) * 67108864.0 + np.float64(b)) * (1.0 / 9007199254740992.0)


@numba.njit(cache=True, inline="always")
def below(state: np.ndarray, n: int) -> int:
    """Equals `rng.randrange(n)` (`_randbelow`): uniform int in [0, n), 1 <= n < 2**32.

    Like CPython: k = n.bit_length(), take the top k bits of one 32-bit output
    (`getrandbits(k)`) and retry while the result is >= n. `choice(seq)` is
    `seq[below(state, len(seq))]`.
    """
    if n <= 0 or n > 0xFFFFFFFF:
        raise ValueError("below(n) needs 1 <= n < 2**32")
    k = 0
    t = n
    while t:
        k += 1
        t >>= 1
    shift = np.uint64(32 - k)
    un = np.uint64(n)
    r = _next_u64(state) >> shift
    while r >= un:
        r = _next_u64(state) >> shift
    return np.int64(r)


@numba.njit(cache=True)
def shuffle(state: np.ndarray, arr: np.ndarray, n: int) -> None:
    """Equals `rng.shuffle(lst)` applied in place to the first n items of `arr`."""
    for i in range(n - 1, 0, -1):
        j = below(state, i + 1)
        tmp = arr[i]
        arr[i] = arr[j]
        arr[j] = tmp


def getstate_from_python(rng: _pyrandom.Random) -> np.ndarray:
    """A new state array equal to `rng`'s current state (`rng` itself is not touched).

    Raises ValueError when `rng` holds a cached `gauss` value, which the compiled path
    cannot carry (it would silently change the next `gauss()` call).
    """
    version, internal, gauss_next = rng.getstate()
    if version != 3 or len(internal) != STATE_SIZE:
        raise ValueError(f"unsupported random.Random state (version {version})")
    if gauss_next is not None:
        raise ValueError("random.Random holds a cached gauss() value; cannot hand it over")
    return np.array(internal, dtype=np.uint32)


def setstate_to_python(state: np.ndarray, rng: _pyrandom.Random | None = None
                       ) -> _pyrandom.Random:
    """Put `state` into `rng` (a new `random.Random` when None) and return it.

    The state array is copied, not shared: later draws on either side do not affect
    the other.
    """
    if state.shape != (STATE_SIZE,):
        raise ValueError(f"state must have shape ({STATE_SIZE},), not {state.shape}")
    rng = rng if rng is not None else _pyrandom.Random()
    rng.setstate((3, tuple(int(x) for x in state), None))
    return rng
