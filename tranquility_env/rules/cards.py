"""Cards as small integers (RULES.md S1-S5, N1).

Every card *kind* has an integer id, and the ids follow the canonical order of N1, so a sorted
list of ids is a hand in canonical order:

====================  ==========  =================================================
ids                   kinds       notes
====================  ==========  =================================================
0 .. 47               Ascent      by colour (G, B, R), then number, plain before goat
48                    BRIDGE
49, 50, 51            CAMP-G/B/R  campfire of colour 0, 1, 2
52                    SUMMIT
53                    ROPE        solo only
====================  ==========  =================================================

There are 36 plain Ascent kinds and 12 goat kinds (one per number, S3). Without the Mountain
Goats module the goat copy is an ordinary card, so a game then uses only the plain kinds and
holds two copies of each.
"""

from __future__ import annotations

from collections import Counter

from tranquility_env.rules.tables import GOAT_COPIES

__all__ = [
    "BRIDGE",
    "CAMP",
    "COLOUR",
    "HAS_GOAT",
    "IS_CAMP",
    "NAME",
    "NUMBER",
    "N_ASCENT",
    "N_KINDS",
    "PLAIN",
    "ROPE",
    "SUMMIT",
    "ascent",
    "game_deck",
    "parse_card",
]

COLOURS = "GBR"
NUMBERS = range(1, 13)

_names: list[str] = []
_colour: list[int] = []
_number: list[int] = []
_goat: list[bool] = []
for _c, _letter in enumerate(COLOURS):
    for _n in NUMBERS:
        for _is_goat in (False, True):
            if _is_goat and GOAT_COPIES[_n] != _letter:
                continue
            _names.append(f"{_letter}{_n}{'*' if _is_goat else ''}")
            _colour.append(_c)
            _number.append(_n)
            _goat.append(_is_goat)

N_ASCENT = len(_names)  # 48
BRIDGE = N_ASCENT
CAMP = (N_ASCENT + 1, N_ASCENT + 2, N_ASCENT + 3)  # by colour index
SUMMIT = N_ASCENT + 4
ROPE = N_ASCENT + 5
N_KINDS = N_ASCENT + 6  # 54

_names += ["BRIDGE", "CAMP-G", "CAMP-B", "CAMP-R", "SUMMIT", "ROPE"]
_colour += [-1, 0, 1, 2, -1, -1]
_number += [0, 0, 0, 0, 0, 0]
_goat += [False] * 6

NAME: tuple[str, ...] = tuple(_names)
COLOUR: tuple[int, ...] = tuple(_colour)  # -1 when the card has no colour (C4: campfires do)
NUMBER: tuple[int, ...] = tuple(_number)  # 0 for every card that is not an Ascent card
HAS_GOAT: tuple[bool, ...] = tuple(_goat)
IS_CAMP: tuple[bool, ...] = tuple(k in CAMP for k in range(N_KINDS))
_BY_NAME = {name: k for k, name in enumerate(NAME)}

# Without the goats module a goat copy is written (and handled) as its plain twin.
PLAIN: tuple[int, ...] = tuple(_BY_NAME[NAME[k][:-1]] if HAS_GOAT[k] else k for k in range(N_KINDS))


def ascent(colour: int, number: int, goat: bool = False) -> int:
    """The kind id of an Ascent card."""
    return _BY_NAME[f"{COLOURS[colour]}{number}{'*' if goat else ''}"]


def parse_card(text: str, goats: bool) -> int:
    """A card name (N1) to its kind id; a goat copy (``G7*``) exists only with the goats module."""
    kind = _BY_NAME.get(text) if isinstance(text, str) else None
    if kind is None:
        raise ValueError(f"unknown card {text!r} (N1: e.g. 'G7', 'B12', 'BRIDGE', 'CAMP-R')")
    if HAS_GOAT[kind] and not goats:
        raise ValueError(f"card {text!r} is a goat copy, written only with the goats module (S3)")
    return kind


def game_deck(players: int, bridges: int, campfires_per_colour: int, ropes: int, goats: bool) -> Counter[int]:
    """How many of each kind a game holds in all (S1-S4, U5)."""
    deck: Counter[int] = Counter()
    first = 2 if players == 1 else 1  # U5: solo leaves the six 1s in the box
    for c in range(3):
        for n in range(first, 13):
            deck[ascent(c, n)] += 1
            deck[ascent(c, n, goat=goats and GOAT_COPIES[n] == COLOURS[c])] += 1
    deck[BRIDGE] += bridges
    for camp in CAMP:
        deck[camp] += campfires_per_colour
    deck[SUMMIT] += 5
    deck[ROPE] += ropes
    return +deck
