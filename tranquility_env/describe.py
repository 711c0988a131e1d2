"""A move in words, for any table a person sits at: what it costs the player before choosing, and
how the other seats see it."""

from __future__ import annotations

from tranquility_env.rules import actions
from tranquility_env.rules import mountain as mrules
from tranquility_env.rules.game import Game

__all__ = ["cost", "public"]


def cost(game: Game, action: int) -> str:
    """What a move costs, in cards paid or discarded, as the player sees it before choosing."""
    kind, x, y = actions.DECODE[action]
    if kind == actions.PLAY:
        penalty = mrules.play_penalty(game.mountain, x, y)
        return f"pays {penalty}" if penalty else "free"
    if kind == actions.MOVE:
        penalty = mrules.move_penalty(game.mountain, game.moving_card, y, game.config.campfire_move_pays)
        return f"pays {penalty}" if penalty else "free"
    return {
        actions.PLAY_BRIDGE: "free",
        actions.PLAY_SUMMIT: "wins the game",
        actions.CAMP: "free, then the card moves up",
        actions.DISCARD: "2 cards",
        actions.PAY: "this card",
        actions.ROPE: "the hand goes back, a new one is drawn",
        actions.HERD: "1 card per step",
        actions.STEP: "1 card",
        actions.STOP: "ends the turn",
    }[kind]


def public(move: str) -> str:
    """A bot's move as the other seats see it: discards and payments are face down (T5)."""
    if move.startswith("discard "):
        return "discards two cards"
    if move.startswith("pay "):
        return "pays a card"
    return move
