"""End-game search by rollouts: each candidate move played out to the end on sampled deals of the
cards the seat cannot see (``views.sample_game``, so the search never peeks), the games held in
one ``GameBatch`` and finished by whatever ``play_out`` the bot brings."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from tranquility_env.batch import GameBatch, rules
from tranquility_env.batch.engine import write_cards
from tranquility_env.batch.layout import ACHIEVED, GOATS, WON
from tranquility_env.rules import board
from tranquility_env.rules.game import Game
from tranquility_env.rules.status import WON as WON_NAME
from tranquility_env.views import sample_game, sample_hidden, unseen_pool

__all__ = ["GOAT_SCORE", "OBJECTIVE_SCORE", "WIN_SCORE", "best_by_rollouts", "rollout_scores", "sampled_deals", "score"]

WIN_SCORE = 10  # in a rollout, a win counts as ten more cards on the mountain
GOAT_SCORE = 1  # with Mountain Goats, so does each goat on row 8 up to the goal (GO4)
OBJECTIVE_SCORE = 3  # with Panorama objectives, each objective achieved counts as three (PA3)
_ROW8 = slice(board.ROW_START[board.ROWS], board.ROW_START[board.ROWS] + board.ROW_SLOTS[board.ROWS])


def score(game: Game) -> int:
    """A finished rollout's score: the cards on the mountain, ``WIN_SCORE`` more if won, with
    Panorama objectives ``OBJECTIVE_SCORE`` for each one achieved, and with Mountain Goats
    ``GOAT_SCORE`` for each goat on row 8 up to the goal: a lost game that came nearer to a
    module's goal came nearer to a win."""
    goats = min(sum(game.goats[_ROW8]), game.config.goats_needed) if game.config.goats else 0
    won = WIN_SCORE * (game.status == WON_NAME)
    return game.cards_on_mountain() + won + OBJECTIVE_SCORE * sum(game.achieved) + GOAT_SCORE * goats


def sampled_deals(view: Mapping[str, Any], deals: int, seed: int, copies: int = 1) -> GameBatch:
    """A ``GameBatch`` of ``deals`` games that agree with ``view``, the unseen cards dealt at random
    to each (``views.sample_game``), repeated ``copies`` times (slot ``i * deals + j``: copy ``i``
    of deal ``j``). The deals come from a generator seeded by (``seed``, turn, seat)."""
    rng = random.Random(f"{seed}/{view['turn']}/{view['seat']}")
    first = sample_game(view, rng)  # checked whole by Game; the other deals only move hidden cards
    batch = GameBatch(first.config, copies * deals, threads=1)
    batch.load(0, first)
    pool = unseen_pool(view)
    for j in range(1, deals):
        row = batch.rows[j]
        row[:] = batch.rows[0]
        for s, (hand, discard, deck) in enumerate(sample_hidden(view, rng, pool)):
            if hand is None:  # the seat's own hand and discards, as seen
                hand, discard = first.hands[s], first.discards[s]
            write_cards(row, s, hand, discard, deck)
        rules.generate(row, batch.cfg)
    batch.rows[deals:] = np.tile(batch.rows[:deals], (copies - 1, 1))
    return batch


def rollout_scores(
    view: Mapping[str, Any], candidates: list[int], rollouts: int, seed: int, play_out: Callable[[GameBatch], None]
) -> list[float]:
    """Each candidate's mean score over ``rollouts`` sampled deals of the unseen cards
    (``sampled_deals``, the same deals for every candidate), all finished together by one call
    of ``play_out`` on a ``GameBatch`` (slot ``i * rollouts + j``: candidate ``i`` made in deal
    ``j``). A game's score: ``score``'s."""
    batch = sampled_deals(view, rollouts, seed, copies=len(candidates))
    batch.step(np.repeat(np.array(candidates, dtype=np.int64), rollouts))
    play_out(batch)
    scores = batch.cards_on_mountain() + WIN_SCORE * (batch.status == WON)
    if batch.config.panoramas:
        scores += OBJECTIVE_SCORE * batch.rows[:, ACHIEVED : ACHIEVED + batch.config.panoramas].sum(axis=1)
    if batch.config.goats:
        on_top = batch.rows[:, GOATS + _ROW8.start : GOATS + _ROW8.stop].sum(axis=1)
        scores += GOAT_SCORE * np.minimum(on_top, batch.config.goats_needed)
    return [int(total) / rollouts for total in scores.reshape(len(candidates), rollouts).sum(axis=1)]


def best_by_rollouts(
    view: Mapping[str, Any],
    candidates: list[int],
    rollouts: int,
    seed: int,
    play_out: Callable[[GameBatch], None],
    scores: dict[int, float],
    margin: float = 0.0,
) -> int:
    """The candidate with the best ``rollout_scores`` (ties to the earlier one), unless it scored
    less than ``margin`` above the first candidate, which is then kept; ``scores`` is filled with
    every candidate's, for whoever learns from the search (``training/distill.py``)."""
    scores.update(zip(candidates, rollout_scores(view, candidates, rollouts, seed, play_out), strict=True))
    best = max(candidates, key=scores.__getitem__)
    return best if scores[best] - scores[candidates[0]] >= margin else candidates[0]
