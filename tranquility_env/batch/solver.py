"""The omniscient solver: a search for a winning line of the whole team in one game of which it
sees everything (every hand, every deck in order), on the batched engine's rows.

It is a limited discrepancy search (Harvey and Ginsberg, 1995), weighted: the moves of a decision
are ordered, the heuristic's value model first (``value_model.choose``), taking the ``i``-th costs
as many discrepancies as ``i`` has bits (the second move 1, the third and fourth 2, ...), and pass
``k`` tries every line that costs at most ``k``, for ``k = 0, 1, 2, ...``, until a line wins, the
game is proven unwinnable or the budget of moves made is spent. Three things keep it small:

- **Cards.** A state is dead when the cards still in hands and decks cannot fill the mountain
  (for every row ``t``, the empty slots and bridges of rows ``t`` and up against the Ascent
  cards numbered ``t`` or more and the campfires), when no Summit is left, when too few goats
  are left for the goats' goal (GO4) or too few cards to pay for the slots, the Summit and a
  lower bound of the herd steps still needed, or when an objective no row can still hold is
  unmet (PA2).
- **Payments.** Paying a penalty with cards A then B ends where B then A ends (the order of a
  discard pile is never read again), so an action pays its cards in kind order only.
- **A transposition table** of the states at the start of a turn known to fail: proven (their
  whole tree failed) or failed within a number of discrepancies (enough for every later pass
  that would give them no more). The key is a 64-bit hash of what the rest of the game depends
  on: the mountain, goats, hands, deck sizes (the decks' orders are fixed; in solo, where a rope
  reshuffles, the decks themselves and the turn), objectives met and the seat to act.

A rope's shuffle (K7) is Python's, so the compiled search calls back into Python for it.
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np
from numba import njit

from tranquility_env.batch import rules, value_model
from tranquility_env.batch.engine import finish_rope
from tranquility_env.batch.layout import (
    ACHIEVED,
    C_CAMPS,
    C_GOATS,
    C_GOATS_NEEDED,
    C_PANORAMAS,
    C_PLAYERS,
    C_ROPES,
    CURRENT,
    DECK,
    DECK_LEN,
    DECODE,
    GOATS,
    HAND,
    HAS_GOAT,
    LEGAL,
    LOST,
    MAX_LEGAL,
    MAX_PILE,
    MOUNTAIN,
    MOVING_CARD,
    N_LEGAL,
    NUMBER,
    OBJECTIVE,
    ONGOING,
    OWED,
    PENDING,
    POS_ROW,
    ROPE_SHUFFLE,
    ROW_SIZE,
    ROW_SLOTS,
    ROW_START,
    STATUS,
    TURN,
    WON,
)
from tranquility_env.rules import actions as A
from tranquility_env.rules.board import N_POS, N_SLOTS, ROWS
from tranquility_env.rules.cards import BRIDGE, CAMP, N_ASCENT, N_KINDS, SUMMIT
from tranquility_env.rules.status import NO_PENDING

__all__ = ["LOST_PROVEN", "SOLVED", "UNDECIDED", "dead", "order", "ordered_moves", "solve_row", "state_key"]

UNDECIDED, SOLVED, LOST_PROVEN = 0, 1, 2  # what ``solve_row`` found
MAX_DEPTH = 1024  # decisions in one line: a game makes far fewer (each turn spends a card)
TABLE_BITS = 20
PROVEN = 32767  # a table entry's failure that no discrepancy budget changes
HERD_FROM = 44  # cards on the mountain from which a herd goes before the value model's move
EMPTY = -1
PAY_ID, SUMMIT_ID = A.FIRST[A.PAY], A.FIRST[A.PLAY_SUMMIT]


# ------------------------------------------------------------------------------ pruning
@njit(cache=True)
def dead(g, cfg) -> bool:
    """Whether the cards left in hands and decks can no longer win the game (see the module)."""
    supply = np.zeros(N_KINDS, dtype=np.int64)
    for seat in range(cfg[C_PLAYERS]):
        for k in range(N_KINDS):
            supply[k] += g[HAND + seat * N_KINDS + k]
        for i in range(g[DECK_LEN + seat]):
            supply[g[DECK + seat * MAX_PILE + i]] += 1
    if supply[SUMMIT] == 0:
        return True
    need = np.zeros(ROWS + 2, dtype=np.int64)  # the slots of each row an Ascent card or campfire must still take
    for p in range(N_SLOTS):
        card = g[MOUNTAIN + p]
        if card < 0 or card == BRIDGE:  # empty, or a bridge to replace
            need[POS_ROW[p]] += 1
    have = np.zeros(ROWS + 2, dtype=np.int64)  # Ascent cards in supply by the highest row they may take
    goats = 0
    for k in range(N_ASCENT):
        have[min(NUMBER[k], ROWS)] += supply[k]
        goats += supply[k] * HAS_GOAT[k]
    camps = supply[CAMP[0]] + supply[CAMP[1]] + supply[CAMP[2]] if cfg[C_CAMPS] else 0
    needed, available = 0, camps
    for r in range(ROWS, 0, -1):
        needed += need[r]
        available += have[r]
        if needed > available:
            return True
    if cfg[C_GOATS]:
        for p in range(N_POS):
            goats += g[GOATS + p]
        if goats < cfg[C_GOATS_NEEDED]:
            return True
        cards_left = 0
        for k in range(N_KINDS):
            cards_left += supply[k]
        if cards_left < needed + 1 + herd_steps_needed(g, cfg, supply, need[ROWS]):
            return True  # every slot, the Summit and each herd step take a card of their own
    if cfg[C_PANORAMAS]:
        by_number = np.zeros(13, dtype=np.int64)
        for k in range(N_ASCENT):
            by_number[NUMBER[k]] += supply[k]
        for i in range(cfg[C_PANORAMAS]):
            if not g[ACHIEVED + i] and not value_model.objective_possible(g, g[OBJECTIVE + i], by_number):
                return True
    return False


@njit(cache=True)
def herd_steps_needed(g, cfg, supply, row8_free: int) -> int:
    """A lower bound on the herd steps still needed for GO4: goat cards numbered 8 or more may go
    straight to row 8's free slots; of the other goats (on the mountain, or goat cards placed as
    high as they may, row 7 at most), the one that must come from lowest has 8 - its row to walk."""
    short = cfg[C_GOATS_NEEDED]
    for p in range(ROW_START[ROWS], ROW_START[ROWS] + ROW_SLOTS[ROWS]):
        short -= g[GOATS + p]
    by_row = np.zeros(ROWS + 1, dtype=np.int64)
    straight = 0
    for k in range(N_ASCENT):
        if HAS_GOAT[k] and supply[k]:
            if NUMBER[k] >= ROWS and straight < row8_free:
                straight += 1
                by_row[ROWS - 1] += supply[k] - 1
            else:
                by_row[min(NUMBER[k], ROWS - 1)] += supply[k]
    short -= straight
    if short <= 0:
        return 0
    for p in range(ROW_START[ROWS]):
        by_row[POS_ROW[p]] += g[GOATS + p]
    for r in range(ROWS - 1, 0, -1):
        short -= by_row[r]
        if short <= 0:
            return ROWS - r
    return 0


@njit(cache=True)
def mix(h: np.uint64, x: int) -> np.uint64:
    """One step of the state hash (splitmix64's finaliser over the running value and ``x``)."""
    z = h ^ np.uint64(x + 0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(cache=True)
def state_key(g, cfg) -> np.uint64:
    """The hash of what the rest of a game depends on, at the start of a turn (see the module)."""
    h = np.uint64(cfg[C_PLAYERS])
    for p in range(N_POS):
        h = mix(h, g[MOUNTAIN + p] * 64 + g[GOATS + p])
    for seat in range(cfg[C_PLAYERS]):
        for k in range(N_KINDS):
            if g[HAND + seat * N_KINDS + k]:
                h = mix(h, seat * 4096 + k * 64 + g[HAND + seat * N_KINDS + k])
        h = mix(h, 1 << 20 | g[DECK_LEN + seat])
        if cfg[C_ROPES]:  # a rope reshuffles a deck, seeded by the turn (K7)
            for i in range(g[DECK_LEN + seat]):
                h = mix(h, g[DECK + seat * MAX_PILE + i])
            h = mix(h, g[TURN])
    for i in range(cfg[C_PANORAMAS]):
        h = mix(h, 2 << 20 | g[ACHIEVED + i])
    return mix(h, 3 << 20 | g[CURRENT])


@njit(cache=True)
def table_find(keys, values, key: np.uint64) -> int:
    """The failure budget stored for ``key``, or -1."""
    mask = len(keys) - 1
    at = int(key & np.uint64(mask))
    for i in range(8):
        j = (at + i) & mask
        if keys[j] == key:
            return values[j]
        if values[j] < 0:
            return -1
    return -1


@njit(cache=True)
def table_store(keys, values, key: np.uint64, budget: int) -> None:
    mask = len(keys) - 1
    at = int(key & np.uint64(mask))
    for i in range(8):
        j = (at + i) & mask
        if values[j] < 0 or keys[j] == key:
            keys[j] = key
            values[j] = max(values[j], budget)
            return
    keys[at], values[at] = key, budget  # a full run: the newest wins its home slot


# ------------------------------------------------------------------------------ move order
@njit(cache=True)
def objective_step(g, cfg, card: int, p: int) -> float:
    """How far ``card`` at ``p`` would carry an unmet objective (PA2), the most over them
    (``value_model.objective_step``: ``j + 1`` for a card that follows the first ``j`` of a
    sequence, 1.5 for a start the same hand can go on with); 0 when it carries none."""
    hand = g[HAND + g[CURRENT] * N_KINDS : HAND + (g[CURRENT] + 1) * N_KINDS]
    best = 0.0
    for i in range(cfg[C_PANORAMAS]):
        if not g[ACHIEVED + i]:
            best = max(best, value_model.objective_step(g, hand, g[OBJECTIVE + i], card, p))
    return best


@njit(cache=True)
def pay_order(g, cfg, md, legal, floor: int, out) -> int:
    """The kinds a payment may take (``floor`` and up) as PAY ids: first the cards the value model
    would give up (the owed number of least worth), in kind order so that the payment can go on
    with the rest of them, then the others, least worth first; goat cards last (GO1)."""
    seat = g[CURRENT]
    kinds = np.empty(len(legal), dtype=np.int64)
    m = 0
    for a in legal:
        if DECODE[a, 1] >= floor:
            kinds[m] = DECODE[a, 1]
            m += 1
    ranked = value_model.ranked_worths(md, kinds[:m], md.slots, md.n_slots)[1]
    chosen = np.zeros(m, dtype=np.bool_)
    owed = g[OWED]
    for goat in range(2):
        for i in range(m):
            if owed > 0 and (cfg[C_GOATS] and HAS_GOAT[ranked[i]]) == goat:
                chosen[i] = True
                owed -= g[HAND + seat * N_KINDS + ranked[i]]
    n = 0
    for k in range(N_KINDS):  # the chosen ones, in kind order
        for i in range(m):
            if chosen[i] and ranked[i] == k:
                out[n] = PAY_ID + k
                n += 1
    for goat in range(2):
        for i in range(m):
            if not chosen[i] and (cfg[C_GOATS] and HAS_GOAT[ranked[i]]) == goat:
                out[n] = PAY_ID + ranked[i]
                n += 1
    return n


@njit(cache=True)
def order(g, cfg, deck_counts, s, weights, weight_sums, floor: int, out) -> int:
    """The legal moves of ``g`` into ``out`` in the order the search tries them; their number.
    A payment offers only kinds from ``floor`` up, least worth to the value model first; other
    decisions lead with the value model's move, then plays by their penalty, campfires, bridges,
    herds, discards (least worth first) and a rope."""
    legal = g[LEGAL : LEGAL + g[N_LEGAL]]
    n = len(legal)
    md = value_model.model(g, cfg, deck_counts, s, weights, weight_sums)
    if DECODE[legal[0], 0] == A.PAY:
        return pay_order(g, cfg, md, legal, floor, out)
    for a in legal:
        if a == SUMMIT_ID:  # the Summit wins at once
            out[0] = a
            return 1
    best = value_model.choose_in(md, legal.astype(np.int64))
    rank = np.zeros(N_KINDS, dtype=np.int64)
    ranked = value_model.ranked_worths(md, md.hand, md.slots, md.n_slots)[1]
    for i in range(len(ranked) - 1, -1, -1):
        rank[ranked[i]] = i
    keys = np.empty(n, dtype=np.float64)
    for i in range(n):
        kind, x, y = DECODE[legal[i], 0], DECODE[legal[i], 1], DECODE[legal[i], 2]
        goal = objective_step(g, cfg, x, y) if kind == A.PLAY and cfg[C_PANORAMAS] else 0.0
        if goal > 1:
            key = -goal  # an objective under way first, even before the value model's choice
        elif legal[i] == best:
            key = -1.0
        elif kind == A.PLAY:
            key = rules.play_penalty(g, x, y) - POS_ROW[y] / 16 - goal / 2
            if cfg[C_GOATS] and HAS_GOAT[x]:
                key -= 0.5 + POS_ROW[y] / 8  # a goat placed high walks less
        elif kind == A.MOVE:
            key = rules.play_penalty(g, g[MOVING_CARD], y) - POS_ROW[y] / 16
        elif kind == A.STEP:
            key = 0.0
        elif kind == A.CAMP or kind == A.STOP:
            key = 1.0
        elif kind == A.PLAY_BRIDGE:
            key = 2.0
        elif kind == A.HERD:
            key = (-1.5 if md.filled >= HERD_FROM else 0.5) - POS_ROW[y] / 16  # late, the goats up (GO4)
        elif kind == A.DISCARD:
            key = 10.0 + rank[x] + rank[y]
            if cfg[C_GOATS]:
                key += 20.0 * (HAS_GOAT[x] + HAS_GOAT[y])  # a discarded goat is lost (GO1)
        else:
            key = 100.0
        keys[i] = key
    idx = np.argsort(keys, kind="mergesort")  # ties keep the id order
    for i in range(n):
        out[i] = legal[idx[i]]
    return n


# ------------------------------------------------------------------------------ the search
@njit(cache=True)
def _rope(row, cfg) -> None:
    with numba.objmode():
        finish_rope(row, cfg)


@njit(cache=True)
def _pass(
    root, cfg, deck_counts, s, weights, weight_sums, limit, budget, nodes, keys, values, line,
    rows, moves, counts, tried, used, floors, cuts, hashes,
):  # fmt: skip
    """One pass with at most ``limit`` discrepancies: (outcome, moves made, length of the line
    into ``line``); outcome LOST_PROVEN only if nothing was cut by the limit or the table."""
    rows[0, :] = root
    counts[0] = order(rows[0], cfg, deck_counts, s, weights, weight_sums, 0, moves[0])
    tried[0], used[0], floors[0], cuts[0] = 0, 0, 0, False
    hashes[0] = state_key(root, cfg) if root[PENDING] == NO_PENDING else np.uint64(0)
    d = 0
    while d >= 0:
        if tried[d] == counts[d]:  # every move of this decision failed
            if hashes[d] != 0:
                table_store(keys, values, hashes[d], limit - used[d] if cuts[d] else PROVEN)
            if d > 0 and cuts[d]:
                cuts[d - 1] = True
            d -= 1
            continue
        i = tried[d]
        extra = 0  # the i-th move costs as many discrepancies as i has bits: near ones are cheap
        while i >> extra:
            extra += 1
        if used[d] + extra > limit:
            cuts[d] = True
            tried[d] = counts[d]
            continue
        tried[d] += 1
        a = moves[d, i]
        line[d] = a
        child = rows[d + 1]
        child[:] = rows[d]
        rules.apply(child, cfg, a)
        if child[ROPE_SHUFFLE]:
            _rope(child, cfg)
        nodes += 1
        if child[STATUS] == WON:
            return SOLVED, nodes, d + 1
        if nodes >= budget or d + 2 >= MAX_DEPTH:
            return UNDECIDED, nodes, 0
        if child[STATUS] == LOST:
            continue
        h = np.uint64(0)
        floor = 0
        if child[PENDING] == NO_PENDING:
            if dead(child, cfg):
                continue
            h = state_key(child, cfg)
            found = table_find(keys, values, h)
            if found == PROVEN or found >= limit - used[d] - extra:
                if found != PROVEN:
                    cuts[d] = True
                continue
        elif DECODE[child[LEGAL], 0] == A.PAY:  # a payment goes on: in kind order
            floor = DECODE[a, 1] if DECODE[a, 0] == A.PAY else 0
        d += 1
        counts[d] = order(child, cfg, deck_counts, s, weights, weight_sums, floor, moves[d])
        tried[d], used[d], floors[d], cuts[d], hashes[d] = 0, used[d - 1] + extra, floor, False, h
    return (UNDECIDED if cuts[0] else LOST_PROVEN), nodes, 0


@njit(cache=True)
def _solve(root, cfg, deck_counts, s, weights, weight_sums, budget, table_bits, line):
    keys = np.zeros(1 << table_bits, dtype=np.uint64)
    values = np.full(1 << table_bits, -1, dtype=np.int16)
    rows = np.empty((MAX_DEPTH, ROW_SIZE), dtype=np.int16)
    moves = np.empty((MAX_DEPTH, MAX_LEGAL), dtype=np.int64)
    counts, tried = np.zeros(MAX_DEPTH, dtype=np.int64), np.zeros(MAX_DEPTH, dtype=np.int64)
    used, floors = np.zeros(MAX_DEPTH, dtype=np.int64), np.zeros(MAX_DEPTH, dtype=np.int64)
    cuts = np.zeros(MAX_DEPTH, dtype=np.bool_)
    hashes = np.zeros(MAX_DEPTH, dtype=np.uint64)
    nodes, limit = 0, 0
    while True:
        outcome, nodes, length = _pass(
            root, cfg, deck_counts, s, weights, weight_sums, limit, budget, nodes, keys, values, line,
            rows, moves, counts, tried, used, floors, cuts, hashes,
        )  # fmt: skip
        if outcome != UNDECIDED or nodes >= budget:
            return outcome, nodes, length, limit
        limit += 1


def solve_row(row: np.ndarray, cfg: np.ndarray, deck_counts: np.ndarray, bot: Any, budget: int) -> tuple:
    """Search the game in ``row`` (ongoing, at any decision) for a winning line, making at most
    ``budget`` moves: (outcome ``SOLVED``, ``LOST_PROVEN`` or ``UNDECIDED``, moves made, the
    winning line's action ids, the last pass's discrepancy limit). ``bot`` is the
    ``HeuristicBot`` whose value model orders the moves; ``deck_counts`` every card of the game
    (``GameBatch.deck_counts``)."""
    if row[STATUS] != ONGOING or row[ROPE_SHUFFLE]:
        raise ValueError("the game is over or waits for a rope's shuffle: there is nothing to solve")
    table_bits = int(min(TABLE_BITS, max(10, np.log2(max(budget, 1)) + 1)))
    line = np.zeros(MAX_DEPTH, dtype=np.int64)
    outcome, nodes, length, limit = _solve(
        row.copy(), cfg, deck_counts, *value_model.settings(bot, int(cfg[C_PLAYERS])), budget, table_bits, line
    )
    return int(outcome), int(nodes), line[:length].tolist(), int(limit)


def ordered_moves(row: np.ndarray, cfg: np.ndarray, deck_counts: np.ndarray, bot: Any) -> list[int]:
    """The legal moves of the game in ``row`` in the order the search tries them (``order``):
    what the seat to act knows decides it, so every deal of the hidden cards gives the same."""
    if row[STATUS] != ONGOING or row[ROPE_SHUFFLE] or row[N_LEGAL] == 0:
        raise ValueError("the game is over or waits for a rope's shuffle: there is no move to order")
    out = np.empty(MAX_LEGAL, dtype=np.int64)
    n = order(row, cfg, deck_counts, *value_model.settings(bot, int(cfg[C_PLAYERS])), 0, out)
    return out[:n].tolist()
