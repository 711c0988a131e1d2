"""Bots at the table: ask the bot of the seat to act, with only what that seat may know."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from tranquility_env import encoding
from tranquility_env.bots import Bot
from tranquility_env.rules.game import ONGOING, Game
from tranquility_env.views import LazySeatView

__all__ = ["bot_action", "play_until"]


def bot_action(game: Game, bot: Bot) -> int:
    """The action ``bot`` chooses for the seat to act: observation, mask and readable view."""
    seat = game.current
    return bot.act(encoding.observation(game, seat), encoding.action_mask(game, seat), LazySeatView(game, seat))


def play_until(game: Game, bots: Sequence[Bot] | Mapping[int, Bot]) -> list[int]:
    """Let bots decide while the game goes on and the seat to act has a bot (``bots[seat]``);
    returns the actions they took."""
    seats = bots if isinstance(bots, Mapping) else range(len(bots))
    taken = []
    while game.status == ONGOING and game.current in seats:
        action = bot_action(game, bots[game.current])
        game.apply_action(action)
        taken.append(action)
    return taken
