"""``PimcBot``: Perfect-Information Monte Carlo, the classic strong non-learned player of
hidden-information card games (Ginsberg's GIB for bridge; Long et al. 2010 on why it works).

At each decision it deals the cards its seat cannot see at random, ``samples`` times
(``search.sampled_deals``, so it never peeks), and in every deal plays each of its
``candidates`` (the first moves of the solver's order, which only what the seat knows decides)
and lets the omniscient solver (``batch.solver``) look for a winning line of the team within
``budget`` moves. The candidate that wins most deals is played; ties go to the earlier one, and
a candidate that wins every deal ends the search.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from tranquility_env.batch import rules, solver
from tranquility_env.batch.engine import finish_rope
from tranquility_env.batch.layout import ONGOING, ROPE_SHUFFLE, STATUS, WON
from tranquility_env.bots.heuristic import HeuristicBot
from tranquility_env.bots.search import sampled_deals

__all__ = ["PimcBot"]


class PimcBot:
    """Perfect-Information Monte Carlo over the omniscient solver (see the module). Deterministic
    given ``seed``: the deals of a decision come from (``seed``, turn, seat)."""

    def __init__(self, samples: int = 8, candidates: int = 4, budget: int = 1000, seed: int | None = None) -> None:
        for name, value in (("samples", samples), ("candidates", candidates), ("budget", budget)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive integer, got {value!r}")
        self.samples, self.candidates, self.budget = samples, candidates, budget
        self.heuristic = HeuristicBot(seed=seed, rollouts=0)  # its value model orders the solver's moves
        self.seed = self.heuristic.seed
        self.last_search: dict[int, float] = {}  # each candidate's share of deals won, last decision

    def act(self, observation: np.ndarray, action_mask: np.ndarray, view: Mapping[str, Any]) -> int:
        self.last_search = {}
        legal = np.flatnonzero(action_mask)
        if len(legal) == 1:
            return int(legal[0])
        batch = sampled_deals(view, self.samples, self.seed)
        candidates = solver.ordered_moves(batch.rows[0], batch.cfg, batch.deck_counts, self.heuristic)
        for action in candidates[: self.candidates]:
            wins = sum(self._wins(batch, j, action) for j in range(self.samples))
            self.last_search[action] = wins / self.samples
            if wins == self.samples:
                break
        return max(self.last_search, key=self.last_search.__getitem__)  # ties: the earlier candidate

    def _wins(self, batch: Any, deal: int, action: int) -> bool:
        row = batch.rows[deal].copy()
        rules.apply(row, batch.cfg, action)
        if row[ROPE_SHUFFLE]:
            finish_rope(row, batch.cfg)
        if row[STATUS] != ONGOING:
            return bool(row[STATUS] == WON)
        outcome = solver.solve_row(row, batch.cfg, batch.deck_counts, self.heuristic, self.budget)[0]
        return outcome == solver.SOLVED
