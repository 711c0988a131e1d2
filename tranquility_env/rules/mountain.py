"""The mountain's rules as plain functions on its list of card kinds (``EMPTY`` = -1 for a free
slot, positions of ``board.py``): open slots (M2, M3), reference scans and penalties (P3, B3).

``Game`` uses them on its own state; bots use them on the mountain of their seat's view.
"""

from __future__ import annotations

import functools

import numpy as np

from tranquility_env.rules.board import N_POS, N_SLOTS, POS_ROW, ROW_SLOTS, ROW_START, ROWS
from tranquility_env.rules.cards import BRIDGE, COLOUR, N_ASCENT, NUMBER

__all__ = [
    "EMPTY",
    "cards_on_mountain",
    "difference",
    "green_path",
    "kind_penalties",
    "left_reference",
    "move_penalty",
    "open_slot_facts",
    "open_slots",
    "play_penalty",
    "reference",
    "row_lengths",
]

EMPTY = -1


def row_lengths(mountain: list[int]) -> list[int]:
    """Filled slots per row (index 1..9); rows fill left to right, so this is each row's prefix."""
    lengths = [0] * (ROWS + 2)
    for p in range(N_POS):
        if mountain[p] != EMPTY:
            lengths[POS_ROW[p]] += 1
    return lengths


def cards_on_mountain(mountain: list[int]) -> int:
    """Slots below the Summit holding an Ascent card or a campfire (bridges must still go, B5)."""
    slots = mountain[:N_SLOTS]
    return N_SLOTS - slots.count(EMPTY) - slots.count(BRIDGE)


def open_slots(row_len: list[int]) -> list[tuple[int, int]]:
    """(row, position) of every open empty slot (M2, M3): each row's next slot, if supported."""
    out = []
    for r in range(1, ROWS + 1):
        c = row_len[r] + 1
        if c <= ROW_SLOTS[r] and (r == 1 or row_len[r - 1] > c):
            out.append((r, ROW_START[r] + c - 1))
    return out


def open_slot_facts(mountain: list[int], row_len: list[int]) -> list[tuple[int, int, int]]:
    """(row, colour left of it or -1 (P2), left reference or 0 (P3)) of every open empty slot:
    all a card needs to know to be played there."""
    out = []
    for r, p in open_slots(row_len):
        left = mountain[p - 1] if p > ROW_START[r] else EMPTY
        out.append((r, COLOUR[left] if left != EMPTY else -1, left_reference(mountain, p)))
    return out


_NUMBERS = np.array(NUMBER[:N_ASCENT])
_COLOURS = np.array(COLOUR[:N_ASCENT])


@functools.lru_cache(maxsize=4096)
def kind_penalties(row: int, left_colour: int, ref: int) -> np.ndarray:
    """The P3 penalty of every Ascent kind on an open slot of ``open_slot_facts``; -1 where it may
    not stand (P1, P2). Cached and read-only: a game has few distinct slots, bots and the
    observation ask at every decision."""
    fits = np.greater_equal(_NUMBERS, row) & np.not_equal(_COLOURS, left_colour)
    penalties = np.where(fits, np.abs(_NUMBERS - ref) if ref else 0, -1)
    penalties.flags.writeable = False
    return penalties


def reference(mountain: list[int], p: int, stop: int, step: int) -> int:
    """P3/B3 scan from ``p`` towards ``stop`` (exclusive): the first number, campfires skipped,
    0 at a bridge, an empty slot or the row's end."""
    while p != stop:
        card = mountain[p]
        if card < N_ASCENT:
            return NUMBER[card] if card >= 0 else 0
        if card == BRIDGE:
            return 0
        p += step  # a campfire (C4)
    return 0


def left_reference(mountain: list[int], p: int) -> int:
    start = ROW_START[POS_ROW[p]]
    return reference(mountain, p - 1, start - 1, -1) if p > start else 0


def right_reference(mountain: list[int], p: int) -> int:
    r = POS_ROW[p]
    return reference(mountain, p + 1, ROW_START[r] + ROW_SLOTS[r], 1)


def difference(card: int, ref: int) -> int:
    """P3: the penalty of ``card`` against a reference number (0 = no reference)."""
    return abs(NUMBER[card] - ref) if ref else 0


def play_penalty(mountain: list[int], card: int, p: int) -> int:
    """What playing Ascent ``card`` at ``p`` costs: P3 on an empty slot, B3 onto a bridge."""
    left = difference(card, left_reference(mountain, p))
    if mountain[p] == BRIDGE:
        return max(left, difference(card, right_reference(mountain, p)))
    return left


def move_penalty(mountain: list[int], card: int, p: int, pays: bool) -> int:
    """C3: what a card displaced by a campfire pays at ``p`` (nothing with ``campfire_move_pays`` off)."""
    return play_penalty(mountain, card, p) if pays else 0


def green_path(mountain: list[int]) -> bool:
    """GP1: a chain of green cards (Ascent or campfire) from row 1 to row 8, each resting on the
    one before: (r + 1, c) rests on (r, c) and (r, c + 1)."""

    def green(r: int, c: int) -> bool:
        card = mountain[ROW_START[r] + c - 1]
        return card != EMPTY and COLOUR[card] == 0

    reach = {c for c in range(1, ROW_SLOTS[1] + 1) if green(1, c)}
    for r in range(2, ROWS + 1):
        reach = {c for c in range(1, ROW_SLOTS[r] + 1) if green(r, c) and (c in reach or c + 1 in reach)}
    return bool(reach)
