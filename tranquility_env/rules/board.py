"""The mountain's geometry (RULES.md M1): 44 slots in rows 1-8 plus the Summit slot.

Positions are integers ``0 .. 44``: row 1 left to right, then row 2, and so on; 44 is ``r9c1``.
"""

from __future__ import annotations

import re

__all__ = [
    "N_POS",
    "N_SLOTS",
    "POS_COL",
    "POS_NAME",
    "POS_ROW",
    "ROWS",
    "ROW_SLOTS",
    "ROW_START",
    "SUMMIT_POS",
    "parse_pos",
    "pos",
]

ROWS = 8
SUMMIT_POS = 44
N_POS = 45
N_SLOTS = 44  # the slots below the Summit

ROW_SLOTS = (0, *(10 - r for r in range(1, ROWS + 1)), 1)  # row r has 10 - r slots; index 0 unused
ROW_START = tuple(sum(ROW_SLOTS[:r]) for r in range(ROWS + 2))  # position of (r, 1)

POS_ROW: tuple[int, ...] = tuple(r for r in range(1, ROWS + 2) for _ in range(ROW_SLOTS[r]))
POS_COL: tuple[int, ...] = tuple(c for r in range(1, ROWS + 2) for c in range(1, ROW_SLOTS[r] + 1))
POS_NAME: tuple[str, ...] = tuple(f"r{r}c{c}" for r, c in zip(POS_ROW, POS_COL, strict=False))
_BY_NAME = {name: p for p, name in enumerate(POS_NAME)}
_POS_RE = re.compile(r"r(\d+)c(\d+)")


def pos(row: int, col: int) -> int:
    """The position id of slot (row, col); ``ValueError`` when there is no such slot (M1)."""
    if not (1 <= row <= ROWS + 1 and 1 <= col <= ROW_SLOTS[row]):
        raise ValueError(f"there is no slot r{row}c{col} (M1: row r has 10 - r slots; Summit r9c1)")
    return ROW_START[row] + col - 1


def parse_pos(text: str) -> int:
    p = _BY_NAME.get(text) if isinstance(text, str) else None
    if p is None:
        m = _POS_RE.fullmatch(text) if isinstance(text, str) else None
        if m is None:
            raise ValueError(f"malformed position {text!r} (N1: written r{{row}}c{{col}}, e.g. 'r2c3')")
        return pos(int(m[1]), int(m[2]))  # raises: well-formed but off the mountain
    return p
