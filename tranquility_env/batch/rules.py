"""The rules of ``Game`` as compiled functions on one game's row (``layout.py``).

Each function mirrors the ``Game`` method of the same name and keeps its order of work, so that
the legal ids come out in the same order and every state follows exactly; the differential tests
(``tests/test_batch.py``) hold the two to each other. ``g`` is a game's row, ``cfg`` its config
as ``layout.CONFIG_FIELDS``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from tranquility_env.batch.layout import (
    ACHIEVED,
    C_GOATS,
    C_GOATS_NEEDED,
    C_GREEN,
    C_HAND_SIZE,
    C_PANORAMAS,
    C_PAYS,
    C_PLAYERS,
    COLOUR,
    CURRENT,
    DECK,
    DECK_LEN,
    DECODE,
    DISCARD,
    DISCARD_ID,
    DISCARD_LEN,
    GOATS,
    HAND,
    HAND_LEN,
    HAS_GOAT,
    HERD_AT,
    HERD_STEPS,
    LEGAL,
    LOST,
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
    PANORAMA,
    PANORAMA_LEN,
    PENDING,
    POS_COL,
    POS_ROW,
    REMOVED,
    REMOVED_LEN,
    ROPE_SHUFFLE,
    ROW_LEN,
    ROW_SLOTS,
    ROW_START,
    STATUS,
    TURN,
    WON,
)
from tranquility_env.rules import actions as A
from tranquility_env.rules.board import N_SLOTS, ROWS, SUMMIT_POS
from tranquility_env.rules.cards import BRIDGE, CAMP, N_ASCENT, N_KINDS, ROPE, SUMMIT
from tranquility_env.rules.status import HERD_PENDING, MOVE_PENDING, NO_PENDING, PAY_PENDING

__all__ = [
    "apply",
    "cards_on_mountain",
    "difference",
    "finish_rope",
    "generate",
    "goats_on_row8",
    "has_green_path",
    "is_legal",
    "open_pos",
    "play_penalty",
    "reference",
    "refill",
    "refresh_all",
    "start_turn",
]

EMPTY = -1
CAMP_G = CAMP[0]
PLAY_BRIDGE, PLAY_SUMMIT, CAMP_ID = A.FIRST[A.PLAY_BRIDGE], A.FIRST[A.PLAY_SUMMIT], A.FIRST[A.CAMP]
MOVE_ID, PAY_ID, ROPE_ID = A.FIRST[A.MOVE], A.FIRST[A.PAY], A.FIRST[A.ROPE]
HERD_ID, STEP_ID, STOP_ID = A.FIRST[A.HERD], A.FIRST[A.STEP], A.FIRST[A.STOP]
PLAY, T_PLAY_BRIDGE, T_PLAY_SUMMIT, T_CAMP, T_MOVE, T_DISCARD, T_PAY, T_ROPE, T_HERD, T_STEP, T_STOP = range(11)


# ------------------------------------------------------------------------------ the mountain
@njit(cache=True)
def colour_of(card: int) -> int:
    return COLOUR[card] if card >= 0 else -1


@njit(cache=True)
def reference(g, p: int, stop: int, step: int) -> int:
    """P3/B3 scan (``mountain.reference``): the first number, campfires skipped, 0 at a bridge,
    an empty slot or the row's end."""
    while p != stop:
        card = g[MOUNTAIN + p]
        if card < N_ASCENT:
            return NUMBER[card] if card >= 0 else 0
        if card == BRIDGE:
            return 0
        p += step
    return 0


@njit(cache=True)
def difference(card: int, ref: int) -> int:
    return abs(NUMBER[card] - ref) if ref else 0


@njit(cache=True)
def play_penalty(g, card: int, p: int) -> int:
    r = POS_ROW[p]
    start = ROW_START[r]
    left = difference(card, reference(g, p - 1, start - 1, -1)) if p > start else 0
    if g[MOUNTAIN + p] == BRIDGE:
        right = difference(card, reference(g, p + 1, start + ROW_SLOTS[r], 1))
        return max(left, right)
    return left


@njit(cache=True)
def refresh_row(g, r: int) -> None:
    c = g[ROW_LEN + r] + 1
    if c > ROW_SLOTS[r]:
        return
    left = ROW_START[r] + c - 2
    g[OPEN_COLOUR + r] = colour_of(g[MOUNTAIN + left]) if c > 1 else -1
    g[OPEN_REF + r] = reference(g, left, ROW_START[r] - 1, -1) if c > 1 else 0


@njit(cache=True)
def refresh_all(g) -> None:
    """Row lengths and open-slot facts from the mountain (after a game is loaded)."""
    for r in range(ROWS + 2):
        g[ROW_LEN + r] = 0
    for p in range(SUMMIT_POS + 1):
        if g[MOUNTAIN + p] != EMPTY:
            g[ROW_LEN + POS_ROW[p]] += 1
    for r in range(1, ROWS + 2):
        refresh_row(g, r)


@njit(cache=True)
def open_pos(g, r: int) -> int:
    """The open empty slot of row ``r`` (M2, M3), or -1."""
    c = g[ROW_LEN + r] + 1
    if c <= ROW_SLOTS[r] and (r == 1 or g[ROW_LEN + r - 1] > c):
        return ROW_START[r] + c - 1
    return -1


@njit(cache=True)
def cards_on_mountain(g) -> int:
    n = 0
    for p in range(N_SLOTS):
        card = g[MOUNTAIN + p]
        if card != EMPTY and card != BRIDGE:
            n += 1
    return n


@njit(cache=True)
def has_green_path(g) -> bool:
    """GP1: green cards from row 1 to row 8, (r + 1, c) resting on (r, c) and (r, c + 1)."""
    reach = np.zeros(10, dtype=np.bool_)
    for c in range(1, ROW_SLOTS[1] + 1):
        reach[c] = colour_of(g[MOUNTAIN + c - 1]) == 0
    for r in range(2, ROWS + 1):
        nxt = np.zeros(10, dtype=np.bool_)
        for c in range(1, ROW_SLOTS[r] + 1):
            if colour_of(g[MOUNTAIN + ROW_START[r] + c - 1]) == 0 and (reach[c] or reach[c + 1]):
                nxt[c] = True
        reach = nxt
    return reach.any()


@njit(cache=True)
def goats_on_row8(g) -> int:
    start = ROW_START[ROWS]
    n = 0
    for p in range(start, start + ROW_SLOTS[ROWS]):
        n += g[GOATS + p]
    return n


@njit(cache=True)
def summit_goals_met(g, cfg) -> bool:
    if cards_on_mountain(g) < N_SLOTS:
        return False
    if cfg[C_GREEN] and not has_green_path(g):
        return False
    for i in range(cfg[C_PANORAMAS]):
        if not g[ACHIEVED + i]:
            return False
    if cfg[C_GOATS]:
        return goats_on_row8(g) >= cfg[C_GOATS_NEEDED]
    return True


@njit(cache=True)
def check_objectives(g, cfg, p: int) -> None:  # PA2
    r, c = POS_ROW[p], POS_COL[p]
    start, width = ROW_START[r], g[ROW_LEN + r]
    for i in range(cfg[C_PANORAMAS]):
        if g[ACHIEVED + i]:
            continue
        seq = g[OBJECTIVE + i]
        n = PANORAMA_LEN[seq]
        for first in range(max(1, c - n + 1), min(c, width - n + 1) + 1):
            ok = True
            for j in range(n):
                k = g[MOUNTAIN + start + first - 1 + j]
                if not (0 <= k < N_ASCENT and NUMBER[k] == PANORAMA[seq, j]):
                    ok = False
                    break
            if ok:
                g[ACHIEVED + i] = 1
                break


# ------------------------------------------------------------------------------ move generation
@njit(cache=True)
def move_targets(g, cfg, card: int, source: int, in_hand: int, out, at: int, first_only: bool) -> int:
    """C2/C3: the open slots in higher rows where a displaced ``card`` may go, written to
    ``out[at:]`` as MOVE ids; returns the new end."""
    n, colour, row = NUMBER[card], COLOUR[card], POS_ROW[source]
    for r in range(1, ROWS + 1):
        p = open_pos(g, r)
        if p < 0:
            continue
        if row < r <= n and colour != g[OPEN_COLOUR + r]:
            ref = g[OPEN_REF + r]
            if not cfg[C_PAYS] or not ref or abs(n - ref) <= in_hand:
                out[at] = MOVE_ID + p
                at += 1
                if first_only:
                    break
    return at


@njit(cache=True)
def herd_steps(g, p: int, out, at: int) -> int:  # GO2
    r, c = POS_ROW[p], POS_COL[p]
    if r >= ROWS:
        return at
    for col in (c - 1, c):
        if 1 <= col <= ROW_SLOTS[r + 1]:
            target = ROW_START[r + 1] + col - 1
            card = g[MOUNTAIN + target]
            if card != EMPTY and card != BRIDGE:
                out[at] = STEP_ID + target
                at += 1
    return at


@njit(cache=True)
def bridge_replacement_ok(g, kind: int, p: int, spare: int) -> bool:  # B3
    r, c = POS_ROW[p], POS_COL[p]
    if NUMBER[kind] < r:
        return False
    colour = COLOUR[kind]
    if colour_of(g[MOUNTAIN + p - 1]) == colour:
        return False
    if c < g[ROW_LEN + r] and colour_of(g[MOUNTAIN + p + 1]) == colour:
        return False
    return play_penalty(g, kind, p) <= spare


@njit(cache=True)
def turn_actions(g, cfg, out) -> int:
    seat = g[CURRENT]
    hand = HAND + seat * N_KINDS
    size = g[HAND_LEN + seat]
    spare = size - 1
    n = 0
    scratch = out[len(out) - 4 :]  # room for the few ids a yes/no question writes; never a legal id's place
    for kind in range(N_KINDS):
        if g[hand + kind] == 0:
            continue
        if kind < N_ASCENT:
            number, colour = NUMBER[kind], COLOUR[kind]
            base = kind * N_SLOTS
            for r in range(1, ROWS + 1):
                p = open_pos(g, r)
                if p >= 0 and number >= r and colour != g[OPEN_COLOUR + r]:
                    ref = g[OPEN_REF + r]
                    if not ref or abs(number - ref) <= spare:
                        out[n] = base + p
                        n += 1
            for p in range(N_SLOTS):
                if g[MOUNTAIN + p] == BRIDGE and bridge_replacement_ok(g, kind, p, spare):
                    out[n] = base + p
                    n += 1
        elif kind == BRIDGE:
            for r in range(1, ROWS + 1):
                p = open_pos(g, r)
                if p >= 0 and 1 < POS_COL[p] < ROW_SLOTS[r]:
                    out[n] = PLAY_BRIDGE + p
                    n += 1
        elif kind < SUMMIT:  # a campfire
            colour = kind - CAMP_G
            for p in range(N_SLOTS):
                card = g[MOUNTAIN + p]
                # C1 (and GO3): an Ascent card of the campfire's colour, without goats; C2: somewhere to go.
                replaceable = 0 <= card < N_ASCENT and COLOUR[card] == colour and not g[GOATS + p]
                if replaceable and move_targets(g, cfg, card, p, spare, scratch, 0, True):
                    out[n] = CAMP_ID + colour * N_SLOTS + p
                    n += 1
        elif kind == SUMMIT:
            if summit_goals_met(g, cfg):
                out[n] = PLAY_SUMMIT
                n += 1
        else:
            out[n] = ROPE_ID
            n += 1
    if spare >= 1:  # T2: any two cards
        for a in range(N_KINDS):
            if g[hand + a] == 0:
                continue
            for b in range(a, N_KINDS):
                if g[hand + b] > (1 if b == a else 0):
                    out[n] = DISCARD_ID[a, b]
                    n += 1
    if cfg[C_GOATS] and size:
        for p in range(N_SLOTS):
            if g[GOATS + p] and herd_steps(g, p, scratch, 0):
                out[n] = HERD_ID + p
                n += 1
    out[:n].sort()
    return n


@njit(cache=True)
def generate(g, cfg) -> int:
    """The legal ids into the LEGAL field, ascending; their number."""
    out = g[LEGAL:]
    seat = g[CURRENT]
    size = g[HAND_LEN + seat]
    pending = g[PENDING]
    if pending == NO_PENDING:
        n = turn_actions(g, cfg, out)
    elif pending == MOVE_PENDING:
        n = move_targets(g, cfg, g[MOVING_CARD], g[MOVING_FROM], size, out, 0, False)
    elif g[OWED]:  # a payment (P5, GO2)
        n = 0
        for kind in range(N_KINDS):
            if g[HAND + seat * N_KINDS + kind]:
                out[n] = PAY_ID + kind
                n += 1
    else:
        n = herd_steps(g, g[HERD_AT], out, 0) if size else 0
        if g[HERD_STEPS]:
            out[n] = STOP_ID
            n += 1
    g[N_LEGAL] = n
    return n


# ------------------------------------------------------------------------------ making moves
@njit(cache=True)
def hand_remove(g, seat: int, kind: int) -> None:
    g[HAND + seat * N_KINDS + kind] -= 1
    g[HAND_LEN + seat] -= 1


@njit(cache=True)
def discard(g, seat: int, kind: int) -> None:
    g[DISCARD + seat * MAX_PILE + g[DISCARD_LEN + seat]] = kind
    g[DISCARD_LEN + seat] += 1


@njit(cache=True)
def remove_from_game(g, kind: int) -> None:
    g[REMOVED + g[REMOVED_LEN]] = kind
    g[REMOVED_LEN] += 1


@njit(cache=True)
def refill(g, cfg, seat: int) -> None:  # T3
    while g[HAND_LEN + seat] < cfg[C_HAND_SIZE] and g[DECK_LEN + seat]:
        g[DECK_LEN + seat] -= 1
        kind = g[DECK + seat * MAX_PILE + g[DECK_LEN + seat]]
        g[HAND + seat * N_KINDS + kind] += 1
        g[HAND_LEN + seat] += 1


@njit(cache=True)
def start_turn(g, cfg) -> None:
    if generate(g, cfg) == 0:
        g[STATUS] = LOST  # E2


@njit(cache=True)
def end_action(g, cfg) -> None:  # K4
    g[PENDING] = NO_PENDING
    g[OWED] = 0
    refill(g, cfg, g[CURRENT])
    g[TURN] += 1
    g[CURRENT] = (g[CURRENT] + 1) % cfg[C_PLAYERS]
    start_turn(g, cfg)


@njit(cache=True)
def place(g, cfg, card: int, p: int) -> None:
    r = POS_ROW[p]
    g[MOUNTAIN + p] = card
    if POS_COL[p] > g[ROW_LEN + r]:
        g[ROW_LEN + r] = POS_COL[p]
    refresh_row(g, r)
    if cfg[C_PANORAMAS] and card < N_ASCENT:
        check_objectives(g, cfg, p)


@njit(cache=True)
def settle(g, cfg, penalty: int) -> None:
    if penalty:
        g[PENDING] = PAY_PENDING
        g[OWED] = penalty
        generate(g, cfg)
    else:
        end_action(g, cfg)


@njit(cache=True)
def is_legal(g, action: int) -> bool:
    for i in range(g[N_LEGAL]):
        if g[LEGAL + i] == action:
            return True
    return False


@njit(cache=True)
def apply(g, cfg, action: int) -> None:
    """``Game.apply_action`` for a legal ``action``. A rope stops before its shuffle, with
    ROPE_SHUFFLE set: K7 seeds the shuffle with a hash of the state, which Python finishes."""
    kind, x, y = DECODE[action, 0], DECODE[action, 1], DECODE[action, 2]
    seat = g[CURRENT]
    if kind == PLAY:
        hand_remove(g, seat, x)
        penalty = play_penalty(g, x, y)
        if g[MOUNTAIN + y] == BRIDGE:
            remove_from_game(g, BRIDGE)  # B3
        place(g, cfg, x, y)
        if cfg[C_GOATS] and HAS_GOAT[x]:
            g[GOATS + y] += 1  # GO1
        settle(g, cfg, penalty)
    elif kind == T_PAY:
        hand_remove(g, seat, x)
        discard(g, seat, x)
        g[OWED] -= 1
        if g[OWED] == 0 and g[PENDING] == PAY_PENDING:
            end_action(g, cfg)
        else:
            generate(g, cfg)
    elif kind == T_DISCARD:
        hand_remove(g, seat, x)
        hand_remove(g, seat, y)
        discard(g, seat, x)
        discard(g, seat, y)
        end_action(g, cfg)
    elif kind == T_PLAY_BRIDGE:
        hand_remove(g, seat, BRIDGE)
        place(g, cfg, BRIDGE, y)
        end_action(g, cfg)
    elif kind == T_CAMP:
        hand_remove(g, seat, x)
        g[PENDING] = MOVE_PENDING
        g[MOVING_CARD] = g[MOUNTAIN + y]
        g[MOVING_FROM] = y
        g[MOUNTAIN + y] = x
        refresh_row(g, POS_ROW[y])
        generate(g, cfg)
    elif kind == T_MOVE:
        card = g[MOVING_CARD]
        g[MOVING_CARD] = EMPTY
        g[MOVING_FROM] = EMPTY
        g[PENDING] = NO_PENDING
        penalty = play_penalty(g, card, y) if cfg[C_PAYS] else 0
        place(g, cfg, card, y)
        settle(g, cfg, penalty)
    elif kind == T_HERD:
        g[PENDING] = HERD_PENDING
        g[HERD_AT] = y
        g[HERD_STEPS] = 0
        g[OWED] = 0
        generate(g, cfg)
    elif kind == T_STEP:
        g[GOATS + y] += g[GOATS + g[HERD_AT]]  # K3
        g[GOATS + g[HERD_AT]] = 0
        g[HERD_AT] = y
        g[HERD_STEPS] += 1
        g[OWED] = 1
        generate(g, cfg)
    elif kind == T_STOP:
        g[HERD_AT] = EMPTY
        g[HERD_STEPS] = 0
        end_action(g, cfg)
    elif kind == T_ROPE:  # T4: the hand goes onto the deck, which Python then shuffles
        hand_remove(g, seat, ROPE)
        remove_from_game(g, ROPE)
        deck = DECK + seat * MAX_PILE
        for k in range(N_KINDS):
            for _ in range(g[HAND + seat * N_KINDS + k]):
                g[deck + g[DECK_LEN + seat]] = k
                g[DECK_LEN + seat] += 1
            g[HAND + seat * N_KINDS + k] = 0
        g[HAND_LEN + seat] = 0
        g[ROPE_SHUFFLE] = 1
        g[N_LEGAL] = 0
    else:  # PLAY_SUMMIT; K5: no refill, the current seat stays
        hand_remove(g, seat, SUMMIT)
        g[MOUNTAIN + SUMMIT_POS] = SUMMIT
        g[ROW_LEN + ROWS + 1] = 1
        g[STATUS] = WON
        g[TURN] += 1
        g[N_LEGAL] = 0


@njit(cache=True)
def finish_rope(g, cfg) -> None:
    """The end of a rope's action, once Python has shuffled the deck."""
    g[ROPE_SHUFFLE] = 0
    end_action(g, cfg)
