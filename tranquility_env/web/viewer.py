"""The replay viewer's frames: every position of a replay as one seat knew it, or as it was.

A seat's frame is its seat view (``views.seat_view``) and the move that led to it as that seat
saw it; what a bot weighed is shown to the seat that made the move only, since its choices name
cards of its hand. The omniscient frame (every hand and deck) is given for finished games only.
"""

from __future__ import annotations

from typing import Any

from tranquility_env.describe import public
from tranquility_env.replay import Replay
from tranquility_env.views import seat_view

__all__ = ["frames"]


def frames(replay: Replay, seat: int | None) -> list[dict[str, Any]]:
    """One frame per position, the deal first; ``seat`` None is the omniscient view."""
    players = replay.header["config"]["players"]
    if seat is None and not replay.finished:
        raise PermissionError("the omniscient view is for finished games only; choose a seat")
    if seat is not None and not (isinstance(seat, int) and 0 <= seat < players):
        raise ValueError(f"seat must be from 0 to {players - 1}, got {seat!r}")
    out = []
    for k, game in enumerate(replay.games()):
        if seat is None:
            view = game.to_dict()
        else:
            view = seat_view(game, seat)
            view.pop("legal_moves")
        frame: dict[str, Any] = {"k": k, "view": view, "cards_on_mountain": game.cards_on_mountain()}
        if k:
            mover, move, why = replay.moves[k - 1]
            sees_all = seat is None or seat == mover
            frame |= {"mover": mover, "move": move if sees_all else public(move), "why": why if sees_all else None}
        out.append(frame)
    return out
