"""The vector view: a seat's observation and the global state as float32 arrays.

One fixed layout for every config, so one network fits every player count and module mix. The
observation is *seat-relative* (the viewer is seat 0 of the seat blocks, the next seat to play is
1, ...) and holds exactly what that seat may know (RULES.md T5): the mountain, goats and modules,
its own hand and discard pile, and public counts. ``OBSERVATION_LAYOUT`` and ``STATE_LAYOUT``
list every block: (name, size, upper bound of each value, meaning); the env docstring prints the
same table with index ranges.

Beside the raw facts, four derived blocks (v1) say what a player works out at a glance: each
row's open slot (its reference number and the colour it may not take), how well each card of the
hand fits each open slot and its best fit, and how many of each card this seat has not seen. A
network could in principle learn them; given them, it learns good play much sooner
(``docs/env.md``).
"""

from __future__ import annotations

import functools

import numpy as np

from tranquility_env.rules import actions, board, cards
from tranquility_env.rules import mountain as mountain_rules
from tranquility_env.rules.config import Config
from tranquility_env.rules.game import EMPTY, HERD_PENDING, MOVE_PENDING, ONGOING, Game
from tranquility_env.rules.tables import PANORAMA_SEQUENCES
from tranquility_env.views import unseen_in_game

__all__ = [
    "CARD_ROWS",
    "MAX_OBJECTIVES",
    "MAX_PLAYERS",
    "N_PANORAMA",
    "OBSERVATION_HIGH",
    "OBSERVATION_LAYOUT",
    "OBSERVATION_SIZE",
    "PRIVATE_LAYOUT",
    "PRIVATE_SIZE",
    "PUBLIC_LAYOUT",
    "PUBLIC_SIZE",
    "ROW_FEATURES",
    "SIZES",
    "SLOT_FEATURES",
    "STATE_HIGH",
    "STATE_LAYOUT",
    "STATE_SIZE",
    "VERSION",
    "action_mask",
    "clear_cache",
    "observation",
    "offsets",
    "state",
]

VERSION = 1  # the layout below; raised by any change to what an observation or state holds
SIZES = {1: 1941}  # the observation size of every version so far (a checkpoint that names no version)
MAX_PLAYERS = 5
MAX_OBJECTIVES = 5  # config 'panoramas' is at most 5
SLOT_FEATURES = 24  # per mountain slot, see SLOT_LAYOUT
K = cards.N_KINDS
A = cards.N_ASCENT
ROWS = board.ROWS
ROW_FEATURES = 18  # per row, see the 'open rows' block
N_PANORAMA = len(PANORAMA_SEQUENCES)

# Per slot (45 slots: r1c1 .. r8c2, then r9c1): (feature, upper bound).
SLOT_LAYOUT = (
    [("empty", 1)]
    + [(f"number {n}", 1) for n in range(1, 13)]
    + [(f"colour {c}", 1) for c in "GBR"]
    + [
        ("bridge", 1),
        ("campfire", 1),
        ("summit", 1),
        ("goat symbol", 1),
        ("goats standing here (count)", 12),
        ("open: the next slot of its row, supported", 1),
        ("the campfire of a pending move stands here", 1),
        ("the moving herd stands here", 1),
    ]
)
assert len(SLOT_LAYOUT) == SLOT_FEATURES

# (block, size, upper bound, meaning); bounds are per value.
PRIVATE_LAYOUT = [
    ("hand", K, 10, "own hand: count of each card kind (cards.py ids)"),
    ("discard", K, 10, "own discard pile: count of each card kind"),
    (
        "hand fit",
        A * ROWS,
        1,
        "Ascent kind k (0..47) x row r (1..8): 1 - penalty / 13 if a card of that kind in "
        "hand may be played to the row's open slot (P1, P2, P3), else 0",
    ),
    ("hand best fit", A, 1, "Ascent kind k: its best 'hand fit' over the rows (0: not in hand, or fits nowhere)"),
    (
        "unseen",
        K,
        10,
        "cards this seat has not seen (not on the mountain, in its hand or discard pile, or "
        "removed): count of each kind; the other hands, discard piles and decks hold them",
    ),
]
PUBLIC_LAYOUT = [
    ("mountain", board.N_POS * SLOT_FEATURES, 12, "45 slots x 24 features (SLOT_LAYOUT)"),
    (
        "seats",
        MAX_PLAYERS * 5,
        11,
        "per seat from the viewer on: present, to act, hand size, deck size / 10, discard size / 10",
    ),
    ("removed", 2, 10, "bridges replaced, ropes used"),
    (
        "pending",
        22,
        10,
        "kind one-hot (none, pay, move, herd), cards owed, moving card (number one-hot 12, "
        "colour one-hot 3, goat symbol), herd steps taken",
    ),
    (
        "config",
        15,
        1,
        "players one-hot 5, hand size / 10, bridges / 10, campfires per colour / 3, ropes / 6, "
        "campfire move pays, green path on, panoramas / 5, goats on, goats needed / 12, "
        "panorama module on",
    ),
    (
        "progress",
        4,
        1,
        "green path exists, goats on row 8 / 12, slots holding Ascent cards or campfires / 44, turn / 128",
    ),
    ("panorama", MAX_OBJECTIVES * (N_PANORAMA + 1), 1, "5 revealed objectives x (PA4 card one-hot 10, achieved)"),
    (
        "open rows",
        ROWS * ROW_FEATURES,
        1,
        "rows 1..8 x (has an open slot; its left reference one-hot: none, "
        "1..12 (P3); the colour left of it one-hot: none, G, B, R (P2))",
    ),
]
OBSERVATION_LAYOUT = PRIVATE_LAYOUT + PUBLIC_LAYOUT
STATE_LAYOUT = PUBLIC_LAYOUT + [
    (f"seat {s} {part}", K, 10, f"seat {s} (absolute): {part} count of each card kind")
    for s in range(MAX_PLAYERS)
    for part in ("hand", "discard", "deck")
]


def _size(layout: list) -> int:
    return sum(size for _, size, _, _ in layout)


def offsets(layout: list) -> dict[str, int]:
    """Where each block of a layout starts in its vector."""
    out, at = {}, 0
    for name, size, _, _ in layout:
        out[name] = at
        at += size
    return out


def _high(layout: list) -> np.ndarray:
    return np.concatenate([np.full(size, high, dtype=np.float32) for _, size, high, _ in layout])


PRIVATE_SIZE, PUBLIC_SIZE = _size(PRIVATE_LAYOUT), _size(PUBLIC_LAYOUT)
OBSERVATION_SIZE, STATE_SIZE = _size(OBSERVATION_LAYOUT), _size(STATE_LAYOUT)
if SIZES.get(VERSION) != OBSERVATION_SIZE:
    raise ImportError(f"encoding.SIZES must give version {VERSION}'s observation size, {OBSERVATION_SIZE}")
OBSERVATION_HIGH, STATE_HIGH = _high(OBSERVATION_LAYOUT), _high(STATE_LAYOUT)
_PUB = offsets(PUBLIC_LAYOUT)

# The first 20 slot features depend only on the card kind: one table row per kind, and a last row
# for an empty slot, so that the mountain list (EMPTY = -1) indexes the table as it is.
CARD_ROWS = np.zeros((K + 1, SLOT_FEATURES), dtype=np.float32)
CARD_ROWS[EMPTY, 0] = 1
for _k in range(K):
    _row = CARD_ROWS[_k]
    if cards.NUMBER[_k]:
        _row[cards.NUMBER[_k]] = 1
    if cards.COLOUR[_k] >= 0:
        _row[13 + cards.COLOUR[_k]] = 1
    _row[16], _row[17], _row[18] = _k == cards.BRIDGE, cards.IS_CAMP[_k], _k == cards.SUMMIT
    _row[19] = cards.HAS_GOAT[_k]


def observation(game: Game, seat: int) -> np.ndarray:
    """What ``seat`` may know, as a float32 vector of ``OBSERVATION_SIZE`` values."""
    out = np.empty(OBSERVATION_SIZE, dtype=np.float32)
    _private(game, seat, out[:PRIVATE_SIZE])
    _public(game, seat, out[PRIVATE_SIZE:])
    return out


def action_mask(game: Game, seat: int) -> np.ndarray:
    """int8, 1 exactly for the legal actions of ``seat`` (all zeros unless it decides now)."""
    mask = np.zeros(actions.N_ACTIONS, dtype=np.int8)
    if seat == game.current and game.status == ONGOING:
        mask[game.legal_actions()] = 1
    return mask


def state(game: Game) -> np.ndarray:
    """The full-information global state (all hands and decks), for centralized critics.

    Seat blocks are absolute (seat 0 first); decks are given as counts, not in order."""
    out = np.zeros(STATE_SIZE, dtype=np.float32)
    _public(game, 0, out[:PUBLIC_SIZE])
    at = PUBLIC_SIZE
    for seat in range(game.config.players):
        for pile in (game.hands[seat], game.discards[seat], game.decks[seat]):
            out[at : at + K] = np.bincount(pile, minlength=K) if pile else 0
            at += K
    return out


_PRIV = offsets(PRIVATE_LAYOUT)


def _private(game: Game, seat: int, out: np.ndarray) -> None:
    hand, discard = game.hands[seat], game.discards[seat]
    out[:K] = np.bincount(hand, minlength=K) if hand else 0
    out[K : 2 * K] = np.bincount(discard, minlength=K) if discard else 0
    in_hand = (out[:A] > 0)[:, None]
    _, fit, best = _open_slots_derived(game.mountain, game.row_len)
    np.multiply(fit, in_hand, out=out[_PRIV["hand fit"] : _PRIV["hand best fit"]].reshape(A, ROWS))
    np.multiply(best, in_hand[:, 0], out=out[_PRIV["hand best fit"] : _PRIV["unseen"]])
    out[_PRIV["unseen"] :] = unseen_in_game(game, seat)


@functools.lru_cache(maxsize=2048)
def _fit_column(r: int, left_colour: int, ref: int) -> np.ndarray:
    """'hand fit' of every Ascent kind on an open slot of row ``r``: 1 - penalty / 13, 0 where it
    may not stand (P1, P2)."""
    penalties = mountain_rules.kind_penalties(r, left_colour, ref)
    column = np.where(penalties >= 0, 1 - penalties / 13, 0).astype(np.float32)
    column.flags.writeable = False  # shared by every caller
    return column


# What the last mountain seen says about its open slots: the 'open rows' block, and the fit of
# every Ascent kind on them (the 'hand fit' and 'hand best fit' blocks before the hand masks
# them). One decision asks for all; payments and discards leave the mountain as it was.
_last_derived: tuple = ()


def _open_slots_derived(mountain: list[int], row_len: list[int]) -> tuple[list[float], np.ndarray, np.ndarray]:
    global _last_derived
    last = _last_derived
    if last and last[0] == mountain:
        return last[1]
    rows = [0.0] * (ROWS * ROW_FEATURES)
    fit = np.zeros((A, ROWS), dtype=np.float32)
    for r, left_colour, ref in mountain_rules.open_slot_facts(mountain, row_len):
        at = (r - 1) * ROW_FEATURES
        rows[at] = rows[at + 1 + ref] = rows[at + 15 + left_colour] = 1.0
        fit[:, r - 1] = _fit_column(r, left_colour, ref)
    derived = (rows, fit, fit.max(axis=1))
    _last_derived = (mountain[:], derived)
    return derived


# The small blocks after the mountain are built as one Python list and written to the array in
# one go: many single numpy writes would cost more than the whole rest of a decision.
_TAIL_START = _PUB["seats"]
_ABSENT_SEATS = [[0.0] * 5 * (MAX_PLAYERS - n) for n in range(MAX_PLAYERS + 1)]  # by players present
_NOTHING_REMOVED = [0.0, 0.0]
_PENDING_KIND = [[float(i == kind) for i in range(4)] for kind in range(4)]
_NO_MOVING_CARD = [0.0] * 16
_MOVING_CARD = [CARD_ROWS[k, 1:20][[*range(12), 12, 13, 14, 18]].tolist() for k in range(K)]
_ABSENT_OBJECTIVES = [[0.0] * (N_PANORAMA + 1) * (MAX_OBJECTIVES - n) for n in range(MAX_OBJECTIVES + 1)]
_OBJECTIVE = {
    (seq, done): [float(i == j) for j in range(N_PANORAMA)] + [float(done)]
    for i, seq in enumerate(PANORAMA_SEQUENCES)
    for done in (False, True)
}
_CONFIG_BLOCKS: dict[Config, list[float]] = {}


def _config_block(config: Config) -> list[float]:
    config = config.canonical()  # a disabled module's parameters are observed at their defaults
    block = _CONFIG_BLOCKS.get(config)
    if block is None:
        block = [float(config.players == p) for p in range(1, MAX_PLAYERS + 1)]
        block += [
            config.hand_size / 10,
            config.bridges / 10,
            config.campfires_per_colour / 3,
            config.ropes / 6,
            config.campfire_move_pays,
            config.green_path,
            config.panoramas / 5,
            config.goats,
            config.goats_needed / 12,
            config.panoramas > 0,
        ]
        _CONFIG_BLOCKS[config] = block = [float(x) for x in block]
    return block


# The last mountain block built and its inputs, as one tuple (replaced whole, so a reader always
# sees a matching pair). Payments, discards and refills leave the block unchanged.
_last_block: tuple = ()


def clear_cache() -> None:
    """Forget the mountain blocks kept from the last observation (tests compare against a fresh build)."""
    global _last_block, _last_derived
    _last_block = _last_derived = ()


def _mountain_block(game: Game, slots: np.ndarray) -> None:
    global _last_block
    moving_from = game.moving_from if game.pending == MOVE_PENDING else -1
    herd_at = game.herd_at if game.pending == HERD_PENDING else -1
    last = _last_block
    if last and last[0] == game.mountain and last[1] == game.goats and last[2:4] == (moving_from, herd_at):
        slots[:] = last[4]
        return
    np.take(CARD_ROWS, game.mountain, axis=0, out=slots)
    slots[:, 20] = game.goats
    for _, p in game.open_slots():
        slots[p, 21] = 1
    if moving_from >= 0:
        slots[moving_from, 22] = 1
    if herd_at >= 0:
        slots[herd_at, 23] = 1
    _last_block = (game.mountain[:], game.goats[:], moving_from, herd_at, slots.copy())


def _public(game: Game, viewer: int, out: np.ndarray) -> None:
    config = game.config
    _mountain_block(game, out[:_TAIL_START].reshape(board.N_POS, SLOT_FEATURES))

    tail: list[float] = []
    players, current = config.players, game.current
    hands, decks, discards = game.hands, game.decks, game.discards
    for rel in range(players):
        s = (viewer + rel) % players
        tail += (1.0, s == current, len(hands[s]), len(decks[s]) / 10, len(discards[s]) / 10)
    tail += _ABSENT_SEATS[players]
    removed = game.removed
    tail += (removed.count(cards.BRIDGE), removed.count(cards.ROPE)) if removed else _NOTHING_REMOVED
    tail += _PENDING_KIND[game.pending]
    tail.append(game.owed)
    tail += _MOVING_CARD[game.moving_card] if game.pending == MOVE_PENDING else _NO_MOVING_CARD
    tail.append(game.herd_steps)
    tail += _config_block(config)
    row8 = board.ROW_START[board.ROWS]
    tail += (
        config.green_path and game.has_green_path(),
        (game.goats[row8] + game.goats[row8 + 1]) / 12,
        game.cards_on_mountain() / 44,
        game.turn / 128,
    )
    for seq, done in zip(game.objectives, game.achieved, strict=True):
        tail += _OBJECTIVE[seq, done]
    tail += _ABSENT_OBJECTIVES[len(game.objectives)]
    tail += _open_slots_derived(game.mountain, game.row_len)[0]
    out[_TAIL_START:] = tail
