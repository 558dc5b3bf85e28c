"""The seats' seeds of many games at once, compiled: `sim.run.loop.seat_seeds` for a batch.

A seat's seed is `derive_seed(game_seed, "agent", seat)`: the first 8 bytes of BLAKE2b
(digest size 8) of the text `"{game_seed}/agent/{seat}"`, little-endian, shifted right by
one. Computing them in Python cost about a tenth of a compiled random game; here they are
BLAKE2b's single-block compression (RFC 7693; every such text fits one 128-byte block) in
numba, equal to `hashlib.blake2b` for every non-negative game seed (the tests compare them
over many seeds, the largest included).
"""

from __future__ import annotations

import numpy as np
from numba import njit

_IV = np.array([0x6A09E667F3BCC908, 0xBB67AE8584CAA73B, 0x3C6EF372FE94F82B,
                0xA54FF53A5F1D36F1, 0x510E527FADE682D1, 0x9B05688C2B3E6C1F,
                0x1F83D9ABFB41BD6B, 0x5BE0CD19137E2179], dtype=np.uint64)
_SIGMA = np.array([
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15],
    [14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3],
    [11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4],
    [7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8],
    [9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13],
    [2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9],
    [12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11],
    [13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10],
    [6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5],
    [10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0],
], dtype=np.int64)
_AGENT = np.frombuffer(b"/agent/", dtype=np.uint8).copy()
_DIGEST_SIZE = 8


@njit(cache=True, inline="always")
def _rotr(x: np.uint64, n: int) -> np.uint64:
    return (x >> np.uint64(n)) | (x << np.uint64(64 - n))


@njit(cache=True, inline="always")
def _g(a: np.uint64, b: np.uint64, c: np.uint64, d: np.uint64, x: np.uint64,
       y: np.uint64) -> tuple[np.uint64, np.uint64, np.uint64, np.uint64]:
    """BLAKE2b's mixing function G on one column or diagonal of the work matrix."""
    a = a + b + x
    d = _rotr(d ^ a, 32)
    c = c + d
    b = _rotr(b ^ c, 24)
    a = a + b + y
    d = _rotr(d ^ a, 16)
    c = c + d
    b = _rotr(b ^ c, 63)
    return a, b, c, d


@njit(cache=True)
def _blake2b_8(block: np.ndarray, length: int, m: np.ndarray) -> np.uint64:
    """BLAKE2b, digest size 8, of the first `length` (<= 128) bytes of `block` (the rest
    zero): the digest as one little-endian word. The work matrix is sixteen local words
    (kept in registers), not an array."""
    for i in range(16):  # the block as 16 little-endian words
        w = np.uint64(0)
        for b in range(8):
            w |= np.uint64(block[8 * i + b]) << np.uint64(8 * b)
        m[i] = w
    h0 = _IV[0] ^ np.uint64(0x01010000 | _DIGEST_SIZE)
    v0, v1, v2, v3, v4, v5, v6, v7 = h0, _IV[1], _IV[2], _IV[3], _IV[4], _IV[5], _IV[6], _IV[7]
    v8, v9, v10, v11 = _IV[0], _IV[1], _IV[2], _IV[3]
    v12 = _IV[4] ^ np.uint64(length)
    v13 = _IV[5]
    v14 = ~_IV[6]  # the last (and only) block
    v15 = _IV[7]
    for r in range(12):
        s = _SIGMA[r % 10]
        v0, v4, v8, v12 = _g(v0, v4, v8, v12, m[s[0]], m[s[1]])  # the columns
        v1, v5, v9, v13 = _g(v1, v5, v9, v13, m[s[2]], m[s[3]])
        v2, v6, v10, v14 = _g(v2, v6, v10, v14, m[s[4]], m[s[5]])
        v3, v7, v11, v15 = _g(v3, v7, v11, v15, m[s[6]], m[s[7]])
        v0, v5, v10, v15 = _g(v0, v5, v10, v15, m[s[8]], m[s[9]])  # the diagonals
        v1, v6, v11, v12 = _g(v1, v6, v11, v12, m[s[10]], m[s[11]])
        v2, v7, v8, v13 = _g(v2, v7, v8, v13, m[s[12]], m[s[13]])
        v3, v4, v9, v14 = _g(v3, v4, v9, v14, m[s[14]], m[s[15]])
    return h0 ^ v0 ^ v8


@njit(cache=True)
def _digits(value: int, out: np.ndarray, at: int) -> int:
    """Write the decimal digits of `value` (>= 0) into `out` from `at`; the next index."""
    n = 1
    t = value // 10
    while t:
        n += 1
        t //= 10
    for k in range(n - 1, -1, -1):
        out[at + k] = 48 + value % 10
        value //= 10
    return at + n


@njit(cache=True)
def seat_seeds_batch(game_seeds: np.ndarray, players: int) -> np.ndarray:
    """`[seat_seeds(s, players) for s in game_seeds]` as a (games, players) int64 array;
    game seeds must be non-negative (the simulator's are 63-bit)."""
    out = np.empty((game_seeds.shape[0], players), np.int64)
    block = np.zeros(128, np.uint8)
    m = np.zeros(16, np.uint64)
    for g in range(game_seeds.shape[0]):
        block[:] = 0
        at = _digits(game_seeds[g], block, 0)
        for k in range(_AGENT.shape[0]):
            block[at + k] = _AGENT[k]
        at += _AGENT.shape[0]
        for seat in range(players):
            block[at:at + 4] = 0
            end = _digits(seat, block, at)
            out[g, seat] = np.int64(_blake2b_8(block, end, m) >> np.uint64(1))
    return out
