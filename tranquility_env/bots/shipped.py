"""The learned bots that come with the package: one per player count, the strongest alone there.

They live in the repository's ``checkpoints/shipped/`` folder, installed as package data of
``tranquility_env.checkpoints``; ``docs/bots.md`` says how each was made.
"""

from __future__ import annotations

from pathlib import Path

import tranquility_env.checkpoints

__all__ = ["SHIPPED_BOTS", "shipped_bot"]

SHIPPED = Path(next(iter(tranquility_env.checkpoints.__path__))) / "shipped"
SHIPPED_BOTS = {1: "p1_other_play", 2: "p2_other_play", 3: "p3_other_play", 4: "p4_other_play", 5: "p5_other_play"}


def shipped_bot(players: int) -> str:
    """The folder of the shipped bot for ``players`` (``SHIPPED_BOTS``), as ``policy:PATH`` takes it."""
    if players not in SHIPPED_BOTS:
        raise ValueError(f"no shipped bot for {players!r} players; there is one for {sorted(SHIPPED_BOTS)}")
    return str(SHIPPED / SHIPPED_BOTS[players] / "final")
