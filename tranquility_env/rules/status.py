"""A game's status and the kinds of pending sub-decision (``shared/spec/state.md``).

Kept apart from ``game.py`` so that the state reader and the legality checker, which ``Game``
uses, need not import ``Game``.
"""

__all__ = ["HERD_PENDING", "LOST", "MOVE_PENDING", "NO_PENDING", "ONGOING", "PAY_PENDING", "WON"]

ONGOING, WON, LOST = "ongoing", "won", "lost"
# Kinds of pending sub-decision (spec/state.md `pending`).
NO_PENDING, PAY_PENDING, MOVE_PENDING, HERD_PENDING = range(4)
