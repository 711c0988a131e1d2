"""``PolicyWithSearchBot``: a learned policy that hands the end game (or every decision) to a
rollout search."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from tranquility_env import encoding
from tranquility_env.batch import GameBatch
from tranquility_env.batch.layout import ONGOING
from tranquility_env.bots import search
from tranquility_env.bots.heuristic import HeuristicBot
from tranquility_env.bots.policy import PolicyBot, one_blas_thread
from tranquility_env.rules import board

__all__ = ["EarlySearch", "PolicyWithSearchBot"]


@dataclass(frozen=True)
class EarlySearch:
    """The search before the end game (``policy+expert``): the policy's ``candidates`` likeliest
    moves on ``rollouts`` sampled deals each, and the policy's own move kept unless another
    scored at least ``margin`` (cards; a win counts ``search.WIN_SCORE``) more. Early on, the
    candidates' true scores differ by less than the rollouts' noise, and taking the best mean
    plays that noise (as SPARTA, Lerer et al. 2020, deviates from its blueprint only past a
    threshold)."""

    candidates: int = 4
    rollouts: int = 16
    margin: float = 3.0

    def __post_init__(self) -> None:
        if self.candidates < 2 or self.rollouts < 1 or self.margin < 0:
            raise ValueError(f"an early search needs candidates >= 2, rollouts >= 1 and margin >= 0, got {self}")


class PolicyWithSearchBot:
    """A learned policy with an end-game search: ``policy`` decides until ``heuristic`` would
    start searching (``HeuristicBot.searches``: from ``search_from`` cards on the mountain), and
    from then on the search does: the last slots, where one wrong card loses the game and rollouts
    of sampled deals judge best, go to the search. Two searches:

    - ``own_search=False`` (bot name ``policy+search:PATH``): the heuristic's own, search and
      all: its value model picks the candidates and plays the rollouts.
    - ``own_search=True`` (``policy+own-search:PATH``): the same search (``rollout_scores``,
      with ``heuristic``'s ``candidates``, ``rollouts``, ``search_from`` and seed), but the
      policy picks the candidates (its likeliest moves) and plays every seat in the rollouts. No
      hand-written strategy chooses a move, so against ``heuristic`` (its value model with the
      same search) it compares the learned policy with the hand-written value model.

    With ``early`` (own search only; bot name ``policy+expert:PATH``, the expert of
    ``tranquility expert-iteration``) the policy's own search decides before the end game too,
    as ``EarlySearch`` says."""

    def __init__(
        self, policy: PolicyBot, heuristic: HeuristicBot, own_search: bool = False, early: EarlySearch | None = None
    ) -> None:
        if early is not None and not own_search:
            raise ValueError("an early search is the policy's own: it needs own_search=True")
        self.policy, self.heuristic, self.own_search, self.early = policy, heuristic, own_search, early
        self.own_scores: dict[int, float] = {}

    def end_game(self, view: Mapping[str, Any]) -> bool:
        """Whether this seat's position is in the end game, where ``heuristic`` would search."""
        filled = sum(board.parse_pos(pos) < board.N_SLOTS for pos in view["mountain"])
        return self.heuristic.searches(filled, len(view["players"]), view["config"]["panoramas"])

    def searching(self, view: Mapping[str, Any]) -> bool:
        """Whether the search, not the policy alone, decides in this seat's position."""
        return self.early is not None or self.end_game(view)

    @property
    def last_search(self) -> dict[int, float]:
        """The candidates of this bot's last decision with their mean rollout scores; empty if
        it did not search."""
        return self.own_scores if self.own_search else self.heuristic.last_search

    def act(self, observation: np.ndarray, action_mask: np.ndarray, view: Mapping[str, Any]) -> int:
        self.own_scores, self.heuristic.last_search = {}, {}
        end_game = self.end_game(view)
        if not end_game and self.early is None:
            return self.policy.act(observation, action_mask, view)
        if not self.own_search:
            return self.heuristic.act(observation, action_mask, view)
        legal = np.flatnonzero(action_mask)
        if len(legal) == 1:
            return int(legal[0])
        players = len(view["players"])
        if end_game:
            width, rollouts, margin = self.heuristic.candidates, self.heuristic.setting("rollouts", players), 0.0
        else:
            width, rollouts, margin = self.early.candidates, self.early.rollouts, self.early.margin
        likeliest = legal[np.argsort(-self.policy.logits(observation, legal), kind="stable")]
        candidates = [int(a) for a in likeliest[:width]]
        seed = self.heuristic.seed
        return search.best_by_rollouts(view, candidates, int(rollouts), seed, self.play_out, self.own_scores, margin)

    def play_out(self, batch: GameBatch) -> None:
        """Finish the games of ``batch`` with every seat playing the policy, from what that seat
        sees: one decision in each game at a time, so that one pass of the network decides in all
        of them (``PolicyBot.choose_each``); forced moves are made in compiled code."""
        observations = np.zeros((batch.num_games, encoding.OBSERVATION_SIZE), dtype=np.float32)  # reused each move
        with one_blas_thread():
            while True:
                batch.play_forced()  # a forced move needs no network
                deciding = batch.status == ONGOING
                if not deciding.any():
                    return
                which = np.flatnonzero(deciding)
                batch.observations(out=observations, where=deciding)
                ids, counts = batch.legal_ids()
                chosen = np.zeros(batch.num_games, dtype=np.int64)
                chosen[which] = self.policy.choose_each(observations, [ids[i, : counts[i]] for i in which], which)
                batch.step(chosen, where=deciding)
