"""``Game.new`` in compiled code: Python's Mersenne Twister and ``random.shuffle``, step for step.

``Game.new(config, seed)`` seeds ``random.Random(seed)`` and shuffles the card pool, the deck
sizes and the panorama cards; this module repeats those draws exactly (CPython's
``init_by_array``, ``genrand_uint32``, ``_randbelow`` and ``shuffle``), so that a batch deals its
games without leaving compiled code. Seeds from 0 to 2**63 - 1 (and their negatives) are dealt
here; ``GameBatch`` checks once that a deal here equals ``Game.new`` before trusting it, and
deals in Python otherwise.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from tranquility_env.batch import layout as L
from tranquility_env.batch import rules
from tranquility_env.rules import cards
from tranquility_env.rules.config import Config

__all__ = ["MAX_SEED", "deal", "new_mt", "pool_of"]

N, M = 624, 397
MASK32 = 0xFFFFFFFF
MATRIX_A, UPPER, LOWER = 0x9908B0DF, 0x80000000, 0x7FFFFFFF
MAX_SEED = 2**63 - 1


@njit(cache=True)
def seed_mt(mt, seed: int) -> None:
    """``random.Random(seed)``: ``init_by_array`` on the 32-bit words of ``abs(seed)``; ``mt[N]``
    is the index of the next word."""
    seed = abs(seed)
    key = np.empty(2, dtype=np.int64)
    key[0], key[1] = seed & MASK32, seed >> 32
    key_len = 2 if key[1] else 1
    mt[0] = 19650218
    for i in range(1, N):
        mt[i] = (1812433253 * (mt[i - 1] ^ (mt[i - 1] >> 30)) + i) & MASK32
    i, j = 1, 0
    for _ in range(max(N, key_len)):
        mt[i] = ((mt[i] ^ (((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1664525) & MASK32)) + key[j] + j) & MASK32
        i += 1
        j += 1
        if i >= N:
            mt[0] = mt[N - 1]
            i = 1
        if j >= key_len:
            j = 0
    for _ in range(N - 1):
        mt[i] = ((mt[i] ^ (((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1566083941) & MASK32)) - i) & MASK32
        i += 1
        if i >= N:
            mt[0] = mt[N - 1]
            i = 1
    mt[0] = 0x80000000
    mt[N] = N


@njit(cache=True)
def next_word(mt) -> int:
    """``genrand_uint32``."""
    if mt[N] >= N:
        for kk in range(N):
            y = (mt[kk] & UPPER) | (mt[(kk + 1) % N] & LOWER)
            mt[kk] = mt[(kk + M) % N] ^ (y >> 1) ^ (MATRIX_A if y & 1 else 0)
        mt[N] = 0
    y = mt[mt[N]]
    mt[N] += 1
    y ^= y >> 11
    y ^= (y << 7) & 0x9D2C5680
    y ^= (y << 15) & 0xEFC60000
    y ^= y >> 18
    return y & MASK32


@njit(cache=True)
def below(mt, n: int) -> int:
    """``random._randbelow(n)`` for 0 < n < 2**32: rejection sampling on ``n.bit_length()`` bits."""
    k = 0
    while (1 << k) <= n:
        k += 1
    r = next_word(mt) >> (32 - k)
    while r >= n:
        r = next_word(mt) >> (32 - k)
    return r


@njit(cache=True)
def shuffle(mt, x) -> None:
    """``random.shuffle`` in place."""
    for i in range(len(x) - 1, 0, -1):
        j = below(mt, i + 1)
        x[i], x[j] = x[j], x[i]


@njit(cache=True)
def deal(g, cfg, pool_template, seed: int, mt) -> None:
    """Row ``g`` becomes ``Game.new(config, seed)``; ``pool_template`` is the card pool in the order
    ``Game.new`` lists it, the dealt bridges taken out (``pool_of``)."""
    g[:] = 0
    g[L.MOUNTAIN : L.MOUNTAIN + 45] = -1
    g[L.MOVING_CARD] = g[L.MOVING_FROM] = g[L.HERD_AT] = -1
    players = cfg[L.C_PLAYERS]
    dealt_bridges = 0 if players == 1 else (1 if players <= 3 else 2)
    for h in range(dealt_bridges):  # U2: seats 1 and 3
        seat = 1 + 2 * h
        g[L.HAND + seat * cards.N_KINDS + cards.BRIDGE] += 1
        g[L.HAND_LEN + seat] += 1
    seed_mt(mt, seed)
    pool = pool_template.copy()
    shuffle(mt, pool)
    small, extra = divmod(len(pool), players)
    rest = np.empty(players - 1, dtype=np.int64)
    for s in range(1, players):
        rest[s - 1] = small + 1 if s < extra else small
    shuffle(mt, rest)
    start = 0
    for seat in range(players):
        size = (small + 1 if extra else small) if seat == 0 else rest[seat - 1]
        g[L.DECK + seat * L.MAX_PILE : L.DECK + seat * L.MAX_PILE + size] = pool[start : start + size]
        g[L.DECK_LEN + seat] = size
        start += size
    for seat in range(players):
        rules.refill(g, cfg, seat)  # U4
    n = cfg[L.C_PANORAMAS]
    if n:  # PA1
        order = np.arange(len(L.PANORAMA_LEN))
        shuffle(mt, order)
        g[L.OBJECTIVE : L.OBJECTIVE + n] = order[:n]
    rules.refresh_all(g)
    rules.start_turn(g, cfg)


def pool_of(config: Config) -> np.ndarray:
    """The card pool of ``Game.new`` before its shuffle, the dealt bridges taken out."""
    deck = cards.game_deck(config.players, config.bridges, config.campfires_per_colour, config.ropes, config.goats)
    pool = list(deck.elements())
    for _ in range(config.dealt_bridges):
        pool.remove(cards.BRIDGE)
    return np.array(pool, dtype=np.int64)


@njit(cache=True)
def new_mt() -> np.ndarray:
    """Room for one generator's state."""
    return np.zeros(N + 1, dtype=np.int64)
