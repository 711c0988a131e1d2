"""``HeuristicBot``'s value model as compiled functions on a game's row, for the rollouts of its
end-game search, which make thousands of decisions a move.

Each function mirrors the ``ValueModel`` method of the same name (``bots/value_model.py`` stays
the readable reference) and does its arithmetic in the same order, so that ``choose`` picks
exactly ``ValueModel.from_game(game, legal, bot).ranked()[0]``:

- Python's ``sum`` of floats is repeated as this CPython does it (``py_sum``: left to right, with
  Neumaier's compensation from 3.12 on); the weights ``hand_decay ** i`` and their sums come
  from Python (``weights``).
- The expected cost of an unseen card is a numpy dot product there and a sum in order here: the
  same number whenever every term is exact, i.e. ``no_fit`` a multiple of 1/1024 (``exact``).

The model of one decision is a ``Model`` (a named tuple: numba compiles it into a struct).
"""

from __future__ import annotations

import sys
from collections import namedtuple
from typing import Any

import numba
import numpy as np
from numba import njit, prange

from tranquility_env.batch import encode, rules
from tranquility_env.batch.layout import (
    ACHIEVED,
    C_GREEN,
    C_PANORAMAS,
    C_PAYS,
    C_PLAYERS,
    COLOUR,
    CURRENT,
    DECK_LEN,
    DECODE,
    DISCARD,
    DISCARD_ID,
    DISCARD_LEN,
    GOATS,
    HAND,
    HAND_LEN,
    HAS_GOAT,
    LEGAL,
    MAX_PILE,
    MOUNTAIN,
    MOVING_CARD,
    N_LEGAL,
    NUMBER,
    OBJECTIVE,
    ONGOING,
    PANORAMA,
    PANORAMA_LEN,
    POS_COL,
    POS_ROW,
    ROPE_SHUFFLE,
    ROW_SLOTS,
    ROW_START,
    STATUS,
)
from tranquility_env.rules import actions as A
from tranquility_env.rules.board import N_POS, N_SLOTS, ROWS
from tranquility_env.rules.cards import BRIDGE, CAMP, N_ASCENT, N_KINDS, ROPE, SUMMIT

__all__ = [
    "choices",
    "choose",
    "choose_in",
    "exact",
    "filled",
    "model",
    "objective_possible",
    "objective_step",
    "play_out",
    "ranked_worths",
    "settings",
]

assert MOUNTAIN == 0  # the mountain leads a row, so ``rules``' mountain scans take a bare mountain too
EMPTY = -1
NEUMAIER = sys.version_info >= (3, 12)  # CPython's sum() of floats compensates from 3.12 on
PAY_ID, SUMMIT_ID = A.FIRST[A.PAY], A.FIRST[A.PLAY_SUMMIT]

# The bot's settings as one float array (``settings``), in this order.
SETTINGS = (
    "lookahead",
    "progress",
    "draw_cost",
    "no_fit",
    "bridge_debt",
    "spare_margin",
    "late_game",
    "fit_discount",
    "summit_from",
    "steep",
    "open_bonus",
    "reach",
    "bridge_lock",
    "scarcity",
    "green",
    "green_lost",
    "green_keep",
    "panorama",
    "panorama_done",
    "panorama_lost",
    "goat_keep",
    "goat_high",
    "goat_herd",
    "goat_reserve",
)
LOOKAHEAD, PROGRESS, DRAW_COST, NO_FIT, BRIDGE_DEBT, SPARE_MARGIN, LATE_GAME = range(7)
FIT_DISCOUNT, SUMMIT_FROM, STEEP, OPEN_BONUS, REACH, BRIDGE_LOCK, SCARCITY, GREEN, GREEN_LOST, GREEN_KEEP = range(7, 17)
PANORAMA_GAIN, PANORAMA_DONE, PANORAMA_LOST, GOAT_KEEP, GOAT_HIGH, GOAT_HERD, GOAT_RESERVE = range(17, 24)
NO_GREEN_PATH = 99  # ``ValueModel``'s

Model = namedtuple(
    "Model",
    "s weights weight_sums m row_len slots n_slots filled reachable hand holdings seat summits moving pays "
    "unseen unseen_total scarcity green_path green_need green_top "
    "hand_counts by_number objectives objectives_lost goats",
)


def settings(bot: Any, players: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``bot``'s settings for ``players`` seats as ``SETTINGS``, the weights ``hand_decay ** i``
    of a hand's i-th cheapest card and their sums over the first n (as ``ValueModel.hand_cost``
    computes them)."""
    values = [bot.setting(n, players) if n in ("steep", "open_bonus", "reach") else getattr(bot, n) for n in SETTINGS]
    weights = [bot.hand_decay**i for i in range(MAX_PILE + 1)]
    sums = [sum(weights[:n]) for n in range(MAX_PILE + 2)]
    return np.array(values, dtype=np.float64), np.array(weights), np.array(sums)


def exact(bot: Any) -> bool:
    """Whether ``choose`` repeats ``ValueModel`` exactly for ``bot``: its ``no_fit`` a multiple
    of 1/1024, so that every term of the unseen cards' expected cost is exact."""
    return float(bot.no_fit * 1024).is_integer() and abs(bot.no_fit) < 2**20


# ------------------------------------------------------------------------------ the model
@njit(cache=True)
def py_sum(values, n: int) -> float:
    """``sum(values[:n])`` as CPython adds a list of floats (0 when empty)."""
    if n == 0:
        return 0.0
    total, c = 0.0 + values[0], 0.0
    for i in range(1, n):
        x = values[i]
        if NEUMAIER:
            t = total + x
            c += (total - t) + x if abs(total) >= abs(x) else (x - t) + total
            total = t
        else:
            total += x
    if NEUMAIER and c != 0.0 and np.isfinite(c):
        total += c
    return total


@njit(cache=True)
def row_lengths(m):
    out = np.zeros(ROWS + 2, dtype=np.int64)
    for p in range(N_POS):
        if m[p] != EMPTY:
            out[POS_ROW[p]] += 1
    return out


@njit(cache=True)
def open_slot_facts(m, row_len, out) -> int:
    """(row, colour left of it or -1, left reference or 0) of every open empty slot into
    ``out``; their number (``mountain.open_slot_facts``)."""
    n = 0
    for r in range(1, ROWS + 1):
        c = row_len[r] + 1
        if c <= ROW_SLOTS[r] and (r == 1 or row_len[r - 1] > c):
            p = ROW_START[r] + c - 1
            first = p == ROW_START[r]
            out[n, 0] = r
            out[n, 1] = -1 if first or m[p - 1] == EMPTY else COLOUR[m[p - 1]]
            out[n, 2] = 0 if first else rules.reference(m, p - 1, ROW_START[r] - 1, -1)
            n += 1
    return n


@njit(cache=True)
def model(g, cfg, deck_counts, s, weights, weight_sums):
    """``ValueModel.from_game``: the model of the decision of the seat to act in game ``g``."""
    seat, players = g[CURRENT], cfg[C_PLAYERS]
    m = g[MOUNTAIN : MOUNTAIN + N_POS].copy()
    row_len = row_lengths(m)
    slots = np.empty((ROWS, 3), dtype=np.int64)
    n_slots = open_slot_facts(m, row_len, slots)
    filled = 0
    for p in range(N_SLOTS):
        filled += m[p] != EMPTY
    reachable = np.zeros(ROWS + 1, dtype=np.int64)
    for r in range(1, ROWS + 1):
        reachable[r] = reachable[r - 1] + ROW_SLOTS[r] - row_len[r]
    holdings = np.empty(players, dtype=np.int64)
    others = 0
    for i in range(players):
        holdings[i] = g[HAND_LEN + i] + g[DECK_LEN + i]
        others += holdings[i] if i != seat else 0
    gap = 0.0
    if players > 1:
        mean = others / (players - 1)
        gap = (mean - holdings[seat]) / max(1.0, mean)
    scarcity = min(3.0, max(0.5, 1.0 + s[SCARCITY] * gap))
    hand = np.empty(g[HAND_LEN + seat], dtype=np.int64)
    n = 0
    for k in range(N_KINDS):
        for _ in range(g[HAND + seat * N_KINDS + k]):
            hand[n] = k
            n += 1
    summits = 0
    for i in range(g[DISCARD_LEN + seat]):
        summits += g[DISCARD + seat * MAX_PILE + i] == SUMMIT
    counts = np.empty(N_KINDS, dtype=np.int64)
    encode.unseen_counts(g, seat, deck_counts, counts)
    unseen = counts[:N_ASCENT].astype(np.float64)
    green_path = cfg[C_GREEN] != 0
    need = green_need(m) if green_path else 0
    by_number = np.zeros(13, dtype=np.int64)  # read only with objectives
    for k in range(N_ASCENT if cfg[C_PANORAMAS] else 0):
        by_number[NUMBER[k]] += g[HAND + seat * N_KINDS + k] + counts[k]
    objectives = np.empty(cfg[C_PANORAMAS], dtype=np.int64)
    n_objectives, unmet = 0, 0
    for i in range(cfg[C_PANORAMAS]):
        if not g[ACHIEVED + i]:
            unmet += 1
            if objective_possible(m, g[OBJECTIVE + i], by_number):
                objectives[n_objectives] = g[OBJECTIVE + i]
                n_objectives += 1
    return Model(
        s, weights, weight_sums, m, row_len, slots, n_slots, filled, reachable, hand, holdings, seat, summits,
        g[MOVING_CARD], cfg[C_PAYS] != 0, unseen, unseen.sum(), scarcity, green_path, need,
        green_top(m) if 0 < need < NO_GREEN_PATH else 0,
        g[HAND + seat * N_KINDS : HAND + (seat + 1) * N_KINDS].copy(), by_number, objectives[:n_objectives],
        unmet > n_objectives, g[GOATS : GOATS + N_POS].copy(),
    )  # fmt: skip


@njit(cache=True)
def lowest(seq: int) -> int:
    """The lowest number of sequence ``seq`` (an index of ``PANORAMA``): it stands in rows up to that (P1)."""
    out = 12
    for j in range(PANORAMA_LEN[seq]):
        out = min(out, PANORAMA[seq, j])
    return out


@njit(cache=True)
def objective_possible(m, seq: int, by_number) -> bool:
    """``ValueModel``'s ``objective_possible`` for sequence ``seq`` (an index of ``PANORAMA``)."""
    n = PANORAMA_LEN[seq]
    wanted = np.zeros(13, dtype=np.int64)
    for r in range(1, min(lowest(seq), ROWS) + 1):
        start = ROW_START[r]
        for first in range(ROW_SLOTS[r] - n + 1):
            wanted[:] = 0
            ok = True
            for j in range(n):
                card = m[start + first + j]
                if card in (EMPTY, BRIDGE):
                    wanted[PANORAMA[seq, j]] += 1
                elif not (card < N_ASCENT and NUMBER[card] == PANORAMA[seq, j]):
                    ok = False
                    break
            if ok:
                for number in range(1, 13):
                    if wanted[number] > by_number[number]:
                        ok = False
                        break
            if ok:
                return True
    return False


@njit(cache=True)
def objective_step(m, hand_counts, seq: int, card: int, p: int) -> float:
    """``ValueModel``'s ``objective_step`` for sequence ``seq``; ``hand_counts`` the hand by kind."""
    r, col = POS_ROW[p], POS_COL[p]
    n = PANORAMA_LEN[seq]
    if card >= N_ASCENT or lowest(seq) < r:
        return 0.0
    for j in range(min(n, col) - 1, -1, -1):
        if NUMBER[card] != PANORAMA[seq, j] or col - j + n - 1 > ROW_SLOTS[r]:
            continue
        ok = True
        for q in range(j):
            k = m[p - j + q]
            if not (0 <= k < N_ASCENT and NUMBER[k] == PANORAMA[seq, q]):
                ok = False
                break
        if ok:
            return 1.5 if j == 0 and holds(hand_counts, PANORAMA[seq, 1], card) else j + 1.0
    return 0.0


@njit(cache=True)
def holds(hand_counts, number: int, playing: int) -> bool:
    """Whether a hand (counts by kind) holds an Ascent card numbered ``number`` besides ``playing``."""
    for k in range(N_ASCENT):
        if NUMBER[k] == number and hand_counts[k] > (1 if k == playing else 0):
            return True
    return False


@njit(cache=True)
def panorama_gain(md, card: int, p: int) -> float:
    gain, lost = 0.0, False
    if len(md.objectives) == 0:
        return gain
    m = md.m.copy()
    m[p] = card
    by_number = md.by_number.copy()
    if card < N_ASCENT:
        by_number[NUMBER[card]] -= 1
    for seq in md.objectives:
        step = objective_step(md.m, md.hand_counts, seq, card, p)
        if step:
            done = md.s[PANORAMA_DONE] if step == PANORAMA_LEN[seq] else 0.0
            gain = max(gain, md.s[PANORAMA_GAIN] * step + done)
        if step < PANORAMA_LEN[seq] and not md.objectives_lost:
            lost = lost or not objective_possible(m, seq, by_number)
    return gain - md.s[PANORAMA_LOST] if lost else gain


@njit(cache=True)
def green_need(m) -> int:
    """The fewest green cards still to place for a green path; ``NO_GREEN_PATH`` if none is left."""
    need = np.zeros(ROW_SLOTS[1] + 2, dtype=np.int64)
    for r in range(1, ROWS + 1):
        below = need
        need = np.full(ROW_SLOTS[1] + 2, NO_GREEN_PATH, dtype=np.int64)
        for c in range(1, ROW_SLOTS[r] + 1):
            card = m[ROW_START[r] + c - 1]
            if card in (EMPTY, BRIDGE):
                cost = 1
            elif COLOUR[card] == 0:
                cost = 0
            else:
                continue
            under = min(below[c], below[c + 1]) if r > 1 else 0
            need[c] = min(NO_GREEN_PATH, under + cost)
    return need.min()


@njit(cache=True)
def green_top(m) -> int:
    for r in range(ROWS, 0, -1):
        green = False
        for p in range(ROW_START[r], ROW_START[r] + ROW_SLOTS[r]):
            green |= m[p] != EMPTY and COLOUR[m[p]] == 0
        if not green:
            return r
    return 0


@njit(cache=True)
def green_cost(md, card: int, p: int) -> float:
    if not md.green_path:
        return 0.0
    m = md.m.copy()
    m[p] = card
    need = green_need(m)
    if need >= NO_GREEN_PATH:
        return 0.0 if md.green_need >= NO_GREEN_PATH else md.s[GREEN_LOST]
    return md.s[GREEN] * (need - md.green_need)


@njit(cache=True)
def slots_after(md, card: int, p: int, out) -> int:
    """The open slots once ``card`` stands at ``p``, into ``out``; their number."""
    m, row_len = md.m.copy(), md.row_len.copy()
    row_len[POS_ROW[p]] += md.m[p] == EMPTY  # onto a bridge: the row keeps its length
    m[p] = card
    return open_slot_facts(m, row_len, out)


@njit(cache=True)
def dead(md, kind: int) -> bool:
    return md.reachable[min(NUMBER[kind], ROWS)] == 0


@njit(cache=True)
def card_cost(md, kind: int, slots, n_slots: int) -> float:
    if kind in (SUMMIT, ROPE):
        return 0.0
    if kind < N_ASCENT and dead(md, kind):
        return 0.0
    if CAMP[0] <= kind <= CAMP[2]:
        return 0.5
    if kind == BRIDGE:
        return 3.0 if md.filled >= md.s[LATE_GAME] else 1.0
    n, colour = NUMBER[kind], COLOUR[kind]
    best = md.s[NO_FIT]
    for i in range(n_slots):
        r, left_colour, ref = slots[i, 0], slots[i, 1], slots[i, 2]
        if n >= r and colour != left_colour:
            best = min(best, abs(n - ref) if ref else 0)
    return best


@njit(cache=True)
def unseen_cost(md, slots, n_slots: int) -> float:
    """The expected cheapest penalty of an unseen Ascent card on ``slots``."""
    no_fit = md.s[NO_FIT]
    if not md.unseen_total or not n_slots:
        return no_fit
    total = 0.0
    for k in range(N_ASCENT):
        best = np.inf
        for i in range(n_slots):
            r, left_colour, ref = slots[i, 0], slots[i, 1], slots[i, 2]
            fits = NUMBER[k] >= r and COLOUR[k] != left_colour
            cost = (abs(NUMBER[k] - ref) if ref else 0) if fits else no_fit
            best = min(best, cost)
        total += best * md.unseen[k]
    return total / md.unseen_total


@njit(cache=True)
def hand_cost(md, hand, slots, n_slots: int) -> float:
    n = len(hand)
    if n == 0:
        return 0.0
    costs = np.empty(n, dtype=np.float64)
    for i in range(n):
        costs[i] = card_cost(md, hand[i], slots, n_slots)
    costs.sort()
    for i in range(n):
        costs[i] *= md.weights[i]
    return py_sum(costs, n) * n / md.weight_sums[n]


@njit(cache=True)
def reach_factor(md, kind: int) -> float:
    share = md.reachable[min(NUMBER[kind], ROWS)] / max(1, md.reachable[ROWS])
    return 1.0 - md.s[REACH] * (1.0 - share)


@njit(cache=True)
def ranked_worths(md, hand, slots, n_slots: int):
    """``sorted(ValueModel.worths(hand, slots))``: (worths, kinds), least worth first (ties:
    the lower kind)."""
    n = len(hand)
    worth, kind = np.empty(n, dtype=np.float64), np.empty(n, dtype=np.int64)
    summits = 0
    keep = md.filled >= md.s[SUMMIT_FROM] or md.summits > 0
    for i in range(n):
        k = hand[i]
        if k == SUMMIT:
            w = 2.0 if summits == 0 and keep else 0.0
            summits += 1
        elif k == ROPE:
            w = 3.0
        elif CAMP[0] <= k <= CAMP[2]:
            w = 1.2
        elif k == BRIDGE:
            w = 0.1 if md.filled >= md.s[LATE_GAME] else 0.6
        elif dead(md, k):
            w = 0.0
        else:
            w = (1.0 - md.s[FIT_DISCOUNT] * min(card_cost(md, k, slots, n_slots), 4.0)) * reach_factor(md, k)
            if md.green_top and COLOUR[k] == 0 and NUMBER[k] >= md.green_top:
                w += md.s[GREEN_KEEP]
            if HAS_GOAT[k]:
                w += md.s[GOAT_KEEP]
        j = i  # insertion sort on (worth, kind)
        while j > 0 and (worth[j - 1] > w or (worth[j - 1] == w and kind[j - 1] > k)):
            worth[j], kind[j] = worth[j - 1], kind[j - 1]
            j -= 1
        worth[j], kind[j] = w, k
    return worth, kind


@njit(cache=True)
def without(hand, kind: int):
    """``hand`` less one ``kind``."""
    out = np.empty(len(hand) - 1, dtype=np.int64)
    j, done = 0, False
    for k in hand:
        if k == kind and not done:
            done = True
        else:
            out[j] = k
            j += 1
    return out


@njit(cache=True)
def after(md, hand, spend: int, slots, n_slots: int, drawn: int) -> float:
    """``ValueModel.after``: worth lost by giving up ``spend`` cards (``spend``), plus lookahead x
    the future cost of the hand left and of the ``drawn`` cards that refill it."""
    worth, kind = ranked_worths(md, hand, slots, n_slots)
    count = min(spend, len(hand))
    lost = py_sum(worth, count)
    rest = hand.copy()
    for i in range(count):
        rest = without(rest, kind[i])
    lost += md.s[STEEP] * max(0, spend - 2)
    unseen = unseen_cost(md, slots, n_slots)
    return lost * md.scarcity + md.s[LOOKAHEAD] * (
        hand_cost(md, rest, slots, n_slots) + drawn * md.s[DRAW_COST] * unseen
    )


@njit(cache=True)
def bridge_lock(md, card: int, p: int) -> int:
    m = md.m
    first_of_row = p == ROW_START[POS_ROW[p]]
    if m[p] != EMPTY or first_of_row or m[p - 1] != BRIDGE:
        return 0
    q = p - 1
    start = ROW_START[POS_ROW[q]]
    ref = rules.reference(m, q - 1, start - 1, -1) if q > start else 0
    return (rules.difference(card, ref) + 1) // 2


@njit(cache=True)
def value_of_play(md, card: int, p: int, scratch) -> float:
    s = md.s
    penalty = rules.play_penalty(md.m, card, p)
    onto_bridge = md.m[p] == BRIDGE
    n_slots = slots_after(md, card, p, scratch)
    rest = without(md.hand, card)
    progress = s[PROGRESS] * (2 if onto_bridge and md.filled >= s[LATE_GAME] else 1)
    progress += s[OPEN_BONUS] * (n_slots - md.n_slots)
    value = after(md, rest, penalty, scratch, n_slots, 1 + penalty) - progress
    value += green_cost(md, card, p)
    value -= panorama_gain(md, card, p)
    if HAS_GOAT[card]:
        value -= s[GOAT_HIGH] * POS_ROW[p]
    return value + s[BRIDGE_LOCK] * bridge_lock(md, card, p) if s[BRIDGE_LOCK] else value


@njit(cache=True)
def move_cost(md, card: int, p: int) -> int:
    return rules.play_penalty(md.m, card, p) if md.pays else 0


@njit(cache=True)
def move_value(md, card: int, p: int) -> float:
    return move_cost(md, card, p) + green_cost(md, card, p)


@njit(cache=True)
def spare(md) -> int:
    needed = N_SLOTS - rules.cards_on_mountain(md.m) + 1
    players = len(md.holdings)
    return md.holdings[md.seat] - (needed + players - 1) // players


# ------------------------------------------------------------------------------ choosing
@njit(cache=True)
def sub_decision(md, legal) -> int:
    """The move of a payment, campfire move or herd (``ValueModel.ranked``); -1 if none is
    pending."""
    first = DECODE[legal[0], 0]
    if first == A.PAY:
        kinds = np.empty(len(legal), dtype=np.int64)
        for i in range(len(legal)):
            kinds[i] = DECODE[legal[i], 1]
        kind = ranked_worths(md, kinds, md.slots, md.n_slots)[1]
        return PAY_ID + kind[0]
    if first == A.MOVE:
        best, best_cost = -1, 0.0
        for a in legal:
            cost = move_value(md, md.moving, DECODE[a, 2])
            if best < 0 or cost < best_cost:
                best, best_cost = a, cost
        return best
    if first == A.STEP or first == A.STOP:  # the steps' ids come before STOP's
        stop = legal[-1] if DECODE[legal[-1], 0] == A.STOP else -1
        if first == A.STOP or (stop >= 0 and len(md.hand) <= md.s[GOAT_RESERVE]):
            return stop
        best = legal[0]  # the step onto the most goats, ties to the lower id
        for a in legal:
            if DECODE[a, 0] == A.STEP and md.goats[DECODE[a, 2]] > md.goats[DECODE[best, 2]]:
                best = a
        return best
    return -1


@njit(cache=True)
def choose(g, cfg, deck_counts, s, weights, weight_sums) -> int:
    """``ValueModel.from_game(game, legal, bot).ranked()[0]`` for game ``g``."""
    md = model(g, cfg, deck_counts, s, weights, weight_sums)
    return choose_in(md, g[LEGAL : LEGAL + g[N_LEGAL]].astype(np.int64))


@njit(cache=True)
def choose_in(md, legal) -> int:
    """``choose`` on the model ``md`` of the decision whose legal ids are ``legal``."""
    s = md.s
    forced = sub_decision(md, legal)
    if forced >= 0:
        return forced
    for a in legal:
        if a == SUMMIT_ID:
            return a
    best, best_cost, options = legal[0], 0.0, 0  # with no option the model weighs: the first move
    scratch = np.empty((ROWS, 3), dtype=np.int64)
    discard, rope, herd, herd_row = -1, -1, -1, -1
    for a in legal:
        kind, x, y = DECODE[a, 0], DECODE[a, 1], DECODE[a, 2]
        if kind == A.PLAY:
            cost = value_of_play(md, x, y, scratch)
        elif kind == A.CAMP:
            card = md.m[y]
            spent, value = -1, 0.0  # the best destination's penalty and value (ties: the first)
            for r in range(POS_ROW[y] + 1, ROWS + 1):
                c = md.row_len[r] + 1
                if c <= ROW_SLOTS[r] and (r == 1 or md.row_len[r - 1] > c):
                    q = ROW_START[r] + c - 1
                    here = move_value(md, card, q)
                    if spent < 0 or here < value:
                        spent, value = move_cost(md, card, q), here
            cost = after(md, without(md.hand, x), spent, md.slots, md.n_slots, 1 + spent) - s[PROGRESS]
            cost += value - spent
        elif kind == A.PLAY_BRIDGE and md.filled < s[LATE_GAME]:
            n_slots = slots_after(md, BRIDGE, y, scratch)
            cost = s[BRIDGE_DEBT] + after(md, without(md.hand, BRIDGE), 0, scratch, n_slots, 1)
        elif kind == A.ROPE:
            rope = a
            continue
        elif kind == A.DISCARD:
            discard = a
            continue
        elif kind == A.HERD:
            if POS_ROW[y] > herd_row:
                herd, herd_row = a, POS_ROW[y]
            continue
        else:
            continue
        best, best_cost, options = pick(best, best_cost, options, a, cost)
    if rope >= 0:
        fresh = (len(md.hand) - 1) * s[DRAW_COST] * unseen_cost(md, md.slots, md.n_slots)
        best, best_cost, options = pick(best, best_cost, options, rope, s[LOOKAHEAD] * fresh)
    if discard >= 0 and (options == 0 or spare(md) >= s[SPARE_MARGIN]):
        kind = ranked_worths(md, md.hand, md.slots, md.n_slots)[1]
        pair = DISCARD_ID[kind[0], kind[1]]
        cost = after(md, md.hand, 2, md.slots, md.n_slots, 2)
        best, best_cost, options = pick(best, best_cost, options, pair, cost)
    if herd >= 0:
        cost = 0.5 + after(md, md.hand, 1, md.slots, md.n_slots, 1) - s[GOAT_HERD] * md.goats[DECODE[herd, 2]]
        best, best_cost, options = pick(best, best_cost, options, herd, cost)
    return best


@njit(cache=True)
def pick(best: int, best_cost: float, options: int, a: int, cost: float):
    """The cheaper of the best option so far and (``cost``, ``a``); ties to the lower id."""
    if options == 0 or cost < best_cost or (cost == best_cost and a < best):
        return a, cost, options + 1
    return best, best_cost, options + 1


# ------------------------------------------------------------------------------ batched
@njit(cache=True, parallel=True)
def _choose_all(rows, games, cfg, deck_counts, s, weights, weight_sums, out) -> None:
    for j in prange(len(games)):
        g = rows[games[j]]
        out[j] = choose(g, cfg, deck_counts, s, weights, weight_sums) if g[STATUS] == ONGOING else -1


@njit(cache=True, parallel=True)
def _play_out(rows, cfg, deck_counts, s, weights, weight_sums) -> None:
    for i in prange(rows.shape[0]):
        g = rows[i]
        while g[STATUS] == ONGOING and not g[ROPE_SHUFFLE]:
            a = g[LEGAL] if g[N_LEGAL] == 1 else choose(g, cfg, deck_counts, s, weights, weight_sums)
            rules.apply(g, cfg, a)


def choices(batch: Any, bot: Any, games: np.ndarray | None = None) -> np.ndarray:
    """The move ``bot``'s value model makes in each game of ``batch`` (a ``GameBatch``), or in
    the slots ``games``; -1 in a finished one. The games do not change."""
    games = np.arange(batch.num_games) if games is None else np.asarray(games, dtype=np.int64)
    out = np.empty(len(games), dtype=np.int64)
    numba.set_num_threads(batch.threads)
    _choose_all(batch.rows, games, batch.cfg, batch.deck_counts, *settings(bot, batch.config.players), out)
    return out


def filled(batch: Any) -> np.ndarray:
    """The filled slots of each game's mountain, bridges included (``ValueModel.filled``)."""
    return (batch.rows[:, MOUNTAIN : MOUNTAIN + N_SLOTS] != EMPTY).sum(axis=1)


def play_out(batch: Any, bot: Any) -> None:
    """Finish every game of ``batch``, every seat making the move of ``bot``'s value model (the
    only one when there is one)."""
    s = settings(bot, batch.config.players)
    while True:
        numba.set_num_threads(batch.threads)
        _play_out(batch.rows, batch.cfg, batch.deck_counts, *s)
        if not batch.rows[:, ROPE_SHUFFLE].any():
            return
        batch.finish_ropes()
