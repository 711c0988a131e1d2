"""End-game search by rollouts: each candidate move played out to the end on sampled deals of the
cards the seat cannot see (``views.sample_game``, so the search never peeks), by whatever
``play_out`` finishes the games."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import Any

from tranquility_env.rules import mountain as mrules
from tranquility_env.rules.game import WON, Game
from tranquility_env.views import sample_game

WIN_SCORE = 10  # in a rollout, a win counts as ten more cards on the mountain


def rollout_scores(
    view: Mapping[str, Any], candidates: list[int], rollouts: int, seed: int, play_out: Callable[[list[Game]], None]
) -> list[float]:
    """Each candidate's mean score over ``rollouts`` sampled deals of the unseen cards
    (``views.sample_game``, the same deals for every candidate), all finished by one call of
    ``play_out`` (which may move them together, and may replace the list's items with the
    finished games). A game's score: the cards on the mountain at
    its end, plus ``WIN_SCORE`` if won. The deals come from a generator seeded by (``seed``,
    turn, seat)."""
    rng = random.Random(f"{seed}/{view['turn']}/{view['seat']}")
    worlds = [sample_game(view, rng) for _ in range(rollouts)]
    games = [world.clone() for _ in candidates for world in worlds]  # candidate by candidate
    for i, game in enumerate(games):
        game.apply_action(candidates[i // rollouts])
    play_out(games)
    scores = [mrules.cards_on_mountain(game.mountain) + (WIN_SCORE if game.status == WON else 0) for game in games]
    return [sum(scores[i * rollouts : (i + 1) * rollouts]) / rollouts for i in range(len(candidates))]


def best_by_rollouts(
    view: Mapping[str, Any],
    candidates: list[int],
    rollouts: int,
    seed: int,
    play_out: Callable[[list[Game]], None],
    scores: dict[int, float],
) -> int:
    """The candidate with the best ``rollout_scores`` (ties to the earlier one); ``scores`` is
    filled with every candidate's, for whoever learns from the search (``training/distill.py``)."""
    scores.update(zip(candidates, rollout_scores(view, candidates, rollouts, seed, play_out), strict=True))
    return max(candidates, key=scores.__getitem__)
