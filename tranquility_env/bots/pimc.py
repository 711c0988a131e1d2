"""``PimcBot``: Perfect-Information Monte Carlo, the classic strong non-learned player of
hidden-information card games (Ginsberg's GIB for bridge; Long et al. 2010 on why it works).

At each decision of the end game it deals the cards its seat cannot see at random, ``samples``
times (``search.sampled_deals``, so it never peeks), and in every deal plays each of its
``candidates`` (the first moves of the solver's order, which only what the seat knows decides)
and lets the omniscient solver (``batch.solver``) look for a winning line of the team within
``budget`` moves. The candidate that wins most deals is played if it wins at least ``margin``
deals more than the first candidate (the value model's move); a candidate that wins every deal
ends the search. Before the end game (fewer than ``search_from`` cards on the mountain, by
default where the heuristic starts its own search) it plays the value model's move: there an
omniscient team wins almost every deal whatever the move, so the deals tell the moves apart only
by chance, and PIMC's known flaw, playing as if the team would see every card from the next
move on (strategy fusion), is at its worst.
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

    def __init__(
        self,
        samples: int = 8,
        candidates: int = 4,
        budget: int = 1000,
        margin: int = 2,
        search_from: int | None = None,
        seed: int | None = None,
    ) -> None:
        for name, value in (("samples", samples), ("candidates", candidates), ("budget", budget)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive integer, got {value!r}")
        for name, value in (("margin", margin), ("search_from", 0 if search_from is None else search_from)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"{name} must be an integer of at least 0, got {value!r}")
        self.samples, self.candidates, self.budget = samples, candidates, budget
        self.margin, self.search_from = margin, search_from
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
        search_from = self.search_from
        if search_from is None:
            search_from = self.heuristic.setting("search_from", len(view["players"]))
        if len(view["mountain"]) < search_from:
            return candidates[0]
        wins = {}
        for action in candidates[: self.candidates]:
            wins[action] = sum(self._wins(batch, j, action) for j in range(self.samples))
            if wins[action] == self.samples:
                break
        self.last_search = {a: n / self.samples for a, n in wins.items()}
        best = max(wins, key=wins.__getitem__)  # ties: the earlier candidate
        return best if wins[best] - wins[candidates[0]] >= self.margin else candidates[0]

    def _wins(self, batch: Any, deal: int, action: int) -> bool:
        row = batch.rows[deal].copy()
        rules.apply(row, batch.cfg, action)
        if row[ROPE_SHUFFLE]:
            finish_rope(row, batch.cfg)
        if row[STATUS] != ONGOING:
            return bool(row[STATUS] == WON)
        outcome = solver.solve_row(row, batch.cfg, batch.deck_counts, self.heuristic, self.budget)[0]
        return outcome == solver.SOLVED
