"""The vector view (``encoding.py``) as compiled functions on one game's row.

Same layout, same values, byte for byte: every float is computed in float64 and rounded to
float32 once, as numpy does for ``encoding``. ``tests/test_batch.py`` compares the two.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from tranquility_env import encoding
from tranquility_env.batch.layout import (
    ACHIEVED,
    C_BRIDGES,
    C_CAMPS,
    C_GOATS,
    C_GOATS_NEEDED,
    C_GREEN,
    C_HAND_SIZE,
    C_PANORAMAS,
    C_PAYS,
    C_PLAYERS,
    C_ROPES,
    COLOUR,
    CURRENT,
    DECK,
    DECK_LEN,
    DISCARD,
    DISCARD_LEN,
    GOATS,
    HAND,
    HAND_LEN,
    HERD_AT,
    HERD_STEPS,
    LEGAL,
    MAX_PILE,
    MOUNTAIN,
    MOVING_CARD,
    MOVING_FROM,
    N_LEGAL,
    NUMBER,
    OBJECTIVE,
    OPEN_COLOUR,
    OPEN_REF,
    OWED,
    PENDING,
    REMOVED,
    REMOVED_LEN,
    STATUS,
    TURN,
)
from tranquility_env.batch.rules import cards_on_mountain, goats_on_row8, has_green_path, open_pos
from tranquility_env.rules.board import N_POS, ROWS
from tranquility_env.rules.cards import BRIDGE, N_ASCENT, N_KINDS
from tranquility_env.rules.status import HERD_PENDING, MOVE_PENDING

__all__ = ["action_mask", "observation", "state", "unseen_counts"]

CARD_ROWS = np.ascontiguousarray(encoding.CARD_ROWS)  # row K: an empty slot
F = encoding.SLOT_FEATURES
N_PANORAMA = encoding.N_PANORAMA
ROW_FEATURES = encoding.ROW_FEATURES
_PRIV = encoding.offsets(encoding.PRIVATE_LAYOUT)
_PUB = encoding.offsets(encoding.PUBLIC_LAYOUT)
FIT, BEST, UNSEEN = _PRIV["hand fit"], _PRIV["hand best fit"], _PRIV["unseen"]
SEATS, REMOVED_AT, PENDING_AT = _PUB["seats"], _PUB["removed"], _PUB["pending"]
CONFIG_AT, PROGRESS, PANORAMA_AT, OPEN_ROWS = _PUB["config"], _PUB["progress"], _PUB["panorama"], _PUB["open rows"]
PRIVATE_SIZE, PUBLIC_SIZE = encoding.PRIVATE_SIZE, encoding.PUBLIC_SIZE
MOVING_FEATURES = np.array([*range(1, 13), 13, 14, 15, 19], dtype=np.int64)  # of CARD_ROWS, in the pending block


@njit(cache=True)
def public(g, cfg, viewer: int, out) -> None:
    """The public part of the observation (and the state's first part), seats from ``viewer``."""
    out[:] = 0
    pending = g[PENDING]
    for p in range(N_POS):
        card = g[MOUNTAIN + p]
        at = p * F
        kind = card if card >= 0 else N_KINDS
        for j in range(20):
            out[at + j] = CARD_ROWS[kind, j]
        out[at + 20] = g[GOATS + p]
    for r in range(1, ROWS + 1):
        p = open_pos(g, r)
        if p >= 0:
            out[p * F + 21] = 1
    if pending == MOVE_PENDING:
        out[g[MOVING_FROM] * F + 22] = 1
    if pending == HERD_PENDING:
        out[g[HERD_AT] * F + 23] = 1
    players = cfg[C_PLAYERS]
    for rel in range(players):
        s = (viewer + rel) % players
        at = SEATS + rel * 5
        out[at] = 1
        out[at + 1] = s == g[CURRENT]
        out[at + 2] = g[HAND_LEN + s]
        out[at + 3] = g[DECK_LEN + s] / 10
        out[at + 4] = g[DISCARD_LEN + s] / 10
    for i in range(g[REMOVED_LEN]):
        out[REMOVED_AT + (0 if g[REMOVED + i] == BRIDGE else 1)] += 1
    out[PENDING_AT + pending] = 1
    out[PENDING_AT + 4] = g[OWED]
    if pending == MOVE_PENDING:
        card = g[MOVING_CARD]
        for j in range(16):
            out[PENDING_AT + 5 + j] = CARD_ROWS[card, MOVING_FEATURES[j]]
    out[PENDING_AT + 21] = g[HERD_STEPS]
    out[CONFIG_AT + players - 1] = 1
    out[CONFIG_AT + 5] = cfg[C_HAND_SIZE] / 10
    out[CONFIG_AT + 6] = cfg[C_BRIDGES] / 10
    out[CONFIG_AT + 7] = cfg[C_CAMPS] / 3
    out[CONFIG_AT + 8] = cfg[C_ROPES] / 6
    out[CONFIG_AT + 9] = cfg[C_PAYS]
    out[CONFIG_AT + 10] = cfg[C_GREEN]
    out[CONFIG_AT + 11] = cfg[C_PANORAMAS] / 5
    out[CONFIG_AT + 12] = cfg[C_GOATS]
    out[CONFIG_AT + 13] = cfg[C_GOATS_NEEDED] / 12
    out[CONFIG_AT + 14] = cfg[C_PANORAMAS] > 0
    out[PROGRESS] = cfg[C_GREEN] and has_green_path(g)
    out[PROGRESS + 1] = goats_on_row8(g) / 12
    out[PROGRESS + 2] = cards_on_mountain(g) / 44
    out[PROGRESS + 3] = g[TURN] / 128
    for i in range(cfg[C_PANORAMAS]):
        at = PANORAMA_AT + i * (N_PANORAMA + 1)
        out[at + g[OBJECTIVE + i]] = 1
        out[at + N_PANORAMA] = g[ACHIEVED + i]
    for r in range(1, ROWS + 1):
        if open_pos(g, r) >= 0:
            at = OPEN_ROWS + (r - 1) * ROW_FEATURES
            out[at] = 1
            out[at + 1 + g[OPEN_REF + r]] = 1
            out[at + 15 + g[OPEN_COLOUR + r]] = 1


@njit(cache=True)
def observation(g, cfg, seat: int, deck_counts, out) -> None:
    """``encoding.observation(game, seat)`` into ``out``."""
    public(g, cfg, seat, out[PRIVATE_SIZE:])
    out[:PRIVATE_SIZE] = 0
    hand, pile = HAND + seat * N_KINDS, DISCARD + seat * MAX_PILE
    for k in range(N_KINDS):
        out[k] = g[hand + k]
    for i in range(g[DISCARD_LEN + seat]):
        out[N_KINDS + g[pile + i]] += 1
    open_rows = PRIVATE_SIZE + OPEN_ROWS  # the public block, written above, says which rows are open
    for k in range(N_ASCENT):
        if not g[hand + k]:
            continue
        for r in range(1, ROWS + 1):
            if not out[open_rows + (r - 1) * ROW_FEATURES]:
                continue
            if NUMBER[k] >= r and COLOUR[k] != g[OPEN_COLOUR + r]:
                ref = g[OPEN_REF + r]
                penalty = abs(NUMBER[k] - ref) if ref else 0
                fit = np.float32(1 - penalty / 13)
                out[FIT + k * ROWS + r - 1] = fit
                if fit > out[BEST + k]:
                    out[BEST + k] = fit
    unseen_counts(g, seat, deck_counts, out[UNSEEN : UNSEEN + N_KINDS])


@njit(cache=True)
def unseen_counts(g, seat: int, deck_counts, out) -> None:
    """``views.unseen_in_game(game, seat)`` into ``out``: the game's cards less those the seat
    has seen (the mountain, its hand and discards, the removed cards, a card being moved)."""
    hand, pile = HAND + seat * N_KINDS, DISCARD + seat * MAX_PILE
    for k in range(N_KINDS):
        out[k] = deck_counts[k] - g[hand + k]
    for i in range(g[DISCARD_LEN + seat]):
        out[g[pile + i]] -= 1
    for p in range(N_POS):
        if g[MOUNTAIN + p] >= 0:
            out[g[MOUNTAIN + p]] -= 1
    for i in range(g[REMOVED_LEN]):
        out[g[REMOVED + i]] -= 1
    if g[MOVING_CARD] >= 0:
        out[g[MOVING_CARD]] -= 1


@njit(cache=True)
def state(g, cfg, out) -> None:
    """``encoding.state(game)`` into ``out``."""
    public(g, cfg, 0, out[:PUBLIC_SIZE])
    out[PUBLIC_SIZE:] = 0
    for s in range(cfg[C_PLAYERS]):
        at = PUBLIC_SIZE + s * 3 * N_KINDS
        for k in range(N_KINDS):
            out[at + k] = g[HAND + s * N_KINDS + k]
        for i in range(g[DISCARD_LEN + s]):
            out[at + N_KINDS + g[DISCARD + s * MAX_PILE + i]] += 1
        for i in range(g[DECK_LEN + s]):
            out[at + 2 * N_KINDS + g[DECK + s * MAX_PILE + i]] += 1


@njit(cache=True)
def action_mask(g, out) -> None:
    """``encoding.action_mask(game, game.current)`` into ``out``."""
    out[:] = 0
    if g[STATUS] == 0:
        for i in range(g[N_LEGAL]):
            out[g[LEGAL + i]] = 1
