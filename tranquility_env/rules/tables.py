"""The two data tables of the rules, each in exactly one place.

- ``GOAT_COPIES`` (RULES.md S3): which Ascent copy of each number carries a goat symbol.
- ``PANORAMA_SEQUENCES`` (RULES.md PA4): the sequences on the backs of the 10 panorama cards.
"""

from __future__ import annotations

__all__ = ["GOAT_COPIES", "PANORAMA_SEQUENCES"]

# S3: one copy of each number n carries a goat; its colour is G if n % 3 == 1, B if 2, R if 0.
# Written as a literal table (not the formula) so that it reads like the rulebook's data.
GOAT_COPIES: dict[int, str] = {
    1: "G",
    2: "B",
    3: "R",
    4: "G",
    5: "B",
    6: "R",
    7: "G",
    8: "B",
    9: "R",
    10: "G",
    11: "B",
    12: "R",
}

# PA4: the printed sequences are not in our sources; this set is the spec's own.
PANORAMA_SEQUENCES: tuple[tuple[int, ...], ...] = (
    (3, 4, 3),
    (1, 2, 3),
    (12, 11, 10),
    (5, 7, 5),
    (2, 2, 2),
    (9, 8, 9, 8),
    (6, 5, 6),
    (10, 12, 10),
    (4, 4, 5),
    (8, 6, 7),
)
