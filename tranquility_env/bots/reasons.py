"""What a bot weighed when it chose a move: its top choices with their numbers, for replays and
for people watching (probabilities for a policy, mean rollout scores for a search, costs for the
heuristic's value model)."""

from __future__ import annotations

from typing import Any

import numpy as np

from tranquility_env import encoding
from tranquility_env.bots.heuristic import HeuristicBot
from tranquility_env.bots.policy import PolicyBot
from tranquility_env.bots.policy_search import PolicyWithSearchBot
from tranquility_env.bots.value_model import ValueModel
from tranquility_env.rules import actions
from tranquility_env.rules.game import Game

__all__ = ["top_choices"]

TOP = 3


def top_choices(bot: Any, game: Game) -> dict[str, Any] | None:
    """What ``bot`` weighed in its decision at ``game`` (call it after ``act``, before the move is
    made): ``{"kind": ..., "top": [[move, number], ...]}``, best first, or None for a bot that
    weighs nothing (``RandomBot``) or a decision with one legal move."""
    legal = game.legal_actions()
    if len(legal) < 2:
        return None
    searched = getattr(bot, "last_search", None)
    if searched:
        return _top("search", sorted(searched.items(), key=lambda item: -item[1]), game)
    policy = bot.policy if isinstance(bot, PolicyWithSearchBot) else bot
    if isinstance(policy, PolicyBot):
        ids = np.asarray(legal)
        logits = policy.logits(encoding.observation(game, game.current), ids)
        p = np.exp(logits - logits.max())
        p /= p.sum()
        order = np.argsort(-p, kind="stable")
        return _top("policy", [(int(ids[i]), float(p[i])) for i in order], game)
    if isinstance(bot, HeuristicBot):
        weighed = ValueModel.from_game(game, legal, bot).weighed()
        return _top("value model", [(a, cost) for cost, a in weighed], game) if weighed else None
    return None


def _top(kind: str, pairs: list[tuple[int, float]], game: Game) -> dict[str, Any]:
    goats = game.config.goats
    return {"kind": kind, "top": [[actions.to_string(a, goats), round(v, 3)] for a, v in pairs[:TOP]]}
