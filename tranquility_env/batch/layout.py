"""Where everything of one game lives in its row of the batch, and the rules' tables as arrays.

A batch is an ``int16`` array of shape ``(games, ROW_SIZE)``: one row per game, every field of
``Game`` at a fixed offset (pgx-style array state), so that compiled code takes one row and
needs no objects. Hands are counts per card kind (a sorted hand is its counts); decks, discard
piles and the removed cards keep their order, a deck's top card last, as in ``Game``.
"""

from __future__ import annotations

import numpy as np

from tranquility_env import encoding
from tranquility_env.rules import actions, board, cards
from tranquility_env.rules.config import Config
from tranquility_env.rules.tables import PANORAMA_SEQUENCES

__all__ = [
    "ACHIEVED",
    "COLOUR",
    "CONFIG_FIELDS",
    "CURRENT",
    "C_BRIDGES",
    "C_CAMPS",
    "C_GOATS",
    "C_GOATS_NEEDED",
    "C_GREEN",
    "C_HAND_SIZE",
    "C_PANORAMAS",
    "C_PAYS",
    "C_PLAYERS",
    "C_ROPES",
    "DECK",
    "DECK_LEN",
    "DECODE",
    "DISCARD",
    "DISCARD_ID",
    "DISCARD_LEN",
    "GOATS",
    "HAND",
    "HAND_LEN",
    "HAS_GOAT",
    "HERD_AT",
    "HERD_STEPS",
    "LEGAL",
    "LOST",
    "MAX_LEGAL",
    "MAX_PILE",
    "MAX_REMOVED",
    "MOUNTAIN",
    "MOVING_CARD",
    "MOVING_FROM",
    "NUMBER",
    "N_LEGAL",
    "OBJECTIVE",
    "ONGOING",
    "OPEN_COLOUR",
    "OPEN_REF",
    "OWED",
    "PANORAMA",
    "PANORAMA_LEN",
    "PENDING",
    "POS_COL",
    "POS_ROW",
    "REMOVED",
    "REMOVED_LEN",
    "ROPE_SHUFFLE",
    "ROW_LEN",
    "ROW_SIZE",
    "ROW_SLOTS",
    "ROW_START",
    "STATUS",
    "STATUS_NAMES",
    "TURN",
    "WON",
]

K = cards.N_KINDS
P = encoding.MAX_PLAYERS
MAX_PILE = 128  # a game holds at most 102 cards, so any deck or discard pile fits
MAX_REMOVED = 16  # bridges (at most 10) and ropes (at most 6)
MAX_LEGAL = 512  # at most 411 legal moves: plays 180, bridges 8, Summit 1, camps 132, discards 45, rope 1, herds 44

_FIELDS = (  # (name, size), in row order
    ("MOUNTAIN", board.N_POS),
    ("GOATS", board.N_POS),
    ("ROW_LEN", board.ROWS + 2),
    ("OPEN_COLOUR", board.ROWS + 2),
    ("OPEN_REF", board.ROWS + 2),
    ("HAND", P * K),
    ("HAND_LEN", P),
    ("DECK", P * MAX_PILE),
    ("DECK_LEN", P),
    ("DISCARD", P * MAX_PILE),
    ("DISCARD_LEN", P),
    ("REMOVED", MAX_REMOVED),
    ("REMOVED_LEN", 1),
    ("OBJECTIVE", encoding.MAX_OBJECTIVES),  # index into PANORAMA_SEQUENCES
    ("ACHIEVED", encoding.MAX_OBJECTIVES),
    ("CURRENT", 1),
    ("STATUS", 1),  # ONGOING, WON, LOST below
    ("TURN", 1),
    ("PENDING", 1),  # status.NO_PENDING ...
    ("OWED", 1),
    ("MOVING_CARD", 1),
    ("MOVING_FROM", 1),
    ("HERD_AT", 1),
    ("HERD_STEPS", 1),
    ("ROPE_SHUFFLE", 1),  # 1 while a rope's shuffle waits for Python (K7 hashes the state)
    ("N_LEGAL", 1),
    ("LEGAL", MAX_LEGAL),  # the legal action ids, ascending
)
OFFSET: dict[str, int] = {}
_at = 0
for _name, _size in _FIELDS:
    OFFSET[_name] = _at
    _at += _size
ROW_SIZE = _at

MOUNTAIN, GOATS, ROW_LEN = OFFSET["MOUNTAIN"], OFFSET["GOATS"], OFFSET["ROW_LEN"]
OPEN_COLOUR, OPEN_REF = OFFSET["OPEN_COLOUR"], OFFSET["OPEN_REF"]
HAND, HAND_LEN, DECK, DECK_LEN = OFFSET["HAND"], OFFSET["HAND_LEN"], OFFSET["DECK"], OFFSET["DECK_LEN"]
DISCARD, DISCARD_LEN = OFFSET["DISCARD"], OFFSET["DISCARD_LEN"]
REMOVED, REMOVED_LEN = OFFSET["REMOVED"], OFFSET["REMOVED_LEN"]
OBJECTIVE, ACHIEVED = OFFSET["OBJECTIVE"], OFFSET["ACHIEVED"]
CURRENT, STATUS, TURN, PENDING, OWED = (OFFSET[n] for n in ("CURRENT", "STATUS", "TURN", "PENDING", "OWED"))
MOVING_CARD, MOVING_FROM, HERD_AT, HERD_STEPS = (
    OFFSET[n] for n in ("MOVING_CARD", "MOVING_FROM", "HERD_AT", "HERD_STEPS")
)
ROPE_SHUFFLE, N_LEGAL, LEGAL = OFFSET["ROPE_SHUFFLE"], OFFSET["N_LEGAL"], OFFSET["LEGAL"]

ONGOING, WON, LOST = 0, 1, 2  # the STATUS field
STATUS_NAMES = ("ongoing", "won", "lost")

# A config as an int64 array, in this order. Every field of ``Config`` must be here, read by the
# compiled rules: a field added to ``Config`` stops this module from importing until it is.
CONFIG_FIELDS = (
    "players",
    "hand_size",
    "bridges",
    "campfires_per_colour",
    "ropes",
    "campfire_move_pays",
    "green_path",
    "panoramas",
    "goats",
    "goats_needed",
)
if Config.fields() != CONFIG_FIELDS:
    raise ImportError(f"batch/layout.py's CONFIG_FIELDS {CONFIG_FIELDS} are not Config's fields {Config.fields()}")
C_PLAYERS, C_HAND_SIZE, C_BRIDGES, C_CAMPS, C_ROPES, C_PAYS, C_GREEN, C_PANORAMAS, C_GOATS, C_GOATS_NEEDED = range(
    len(CONFIG_FIELDS)
)  # in CONFIG_FIELDS' order

# The tables of the rules (numba reads module-level arrays as constants).
NUMBER = np.array(cards.NUMBER, dtype=np.int64)
COLOUR = np.array(cards.COLOUR, dtype=np.int64)
HAS_GOAT = np.array(cards.HAS_GOAT, dtype=np.int64)
POS_ROW = np.array(board.POS_ROW, dtype=np.int64)
POS_COL = np.array(board.POS_COL, dtype=np.int64)
ROW_SLOTS = np.array(board.ROW_SLOTS, dtype=np.int64)
ROW_START = np.array(board.ROW_START, dtype=np.int64)
PANORAMA = np.zeros((len(PANORAMA_SEQUENCES), 4), dtype=np.int64)
PANORAMA_LEN = np.array([len(s) for s in PANORAMA_SEQUENCES], dtype=np.int64)
for _i, _seq in enumerate(PANORAMA_SEQUENCES):
    PANORAMA[_i, : len(_seq)] = _seq
DISCARD_ID = np.array(actions.DISCARD_ID, dtype=np.int64)
DECODE = np.array(actions.DECODE, dtype=np.int64)
