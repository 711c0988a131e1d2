"""The partner pool: every partner plays legal games, and each habit shows in its play."""

from __future__ import annotations

from collections import Counter

import pytest

from tranquility_env import Game
from tranquility_env.arena import bot_action
from tranquility_env.bots import make_bot
from tranquility_env.bots.partners import PARTNERS, names
from tranquility_env.rules import actions, cards


def habits(name: str, games: int = 30) -> Counter:
    """What a team of partner ``name`` does over 3-player deals apart from the evaluation ones."""
    seen: Counter = Counter()
    for deal in range(games):
        game = Game.new({"players": 3}, 500 + deal)
        team = [make_bot(f"partner:{name}", seed=deal * 8 + s) for s in range(3)]
        while not game.is_over:
            action = bot_action(game, team[game.current])
            kind, x, y = actions.DECODE[action]
            seen["bridges"] += kind == actions.PLAY_BRIDGE
            seen["discards"] += kind == actions.DISCARD
            seen["paid"] += kind == actions.PAY
            early = game.cards_on_mountain() < 30
            seen["summits given up early"] += (
                early and kind in (actions.PAY, actions.DISCARD) and cards.SUMMIT in (x, y)
            )
            game.apply_action(action)
        seen["won"] += game.status == "won"
    return seen


def test_each_partners_habit_shows_against_the_plain_value_model() -> None:
    base = habits("careful-no-search")
    assert habits("summit-hoarder")["summits given up early"] < base["summits given up early"] / 2
    assert habits("bridge-happy")["bridges"] > 2 * base["bridges"]
    assert habits("bridge-averse")["bridges"] < base["bridges"] / 2
    assert habits("discarder")["discards"] > 1.2 * base["discards"]
    assert habits("wide-builder")["paid"] > 1.05 * base["paid"]
    assert habits("greedy")["won"] < base["won"] / 2
    assert habits("random")["won"] == 0


def test_the_pool_is_split_into_training_and_held_out_partners() -> None:
    train, test = names("train"), names("test")
    assert train and test and not set(train) & set(test) and sorted(train + test) == sorted(PARTNERS)
    assert all(p.habit and p.split in ("train", "test") for p in PARTNERS.values())
    assert names("bridge-happy,greedy") == ["bridge-happy", "greedy"]
    with pytest.raises(ValueError, match="unknown partner 'wizard'"):
        names("bridge-happy,wizard")
    with pytest.raises(ValueError, match="partner:NAME"):
        make_bot("partner:wizard")
