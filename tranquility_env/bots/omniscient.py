"""The omniscient solver as a bot, and ``solve``, the ceiling of a deal.

``OmniscientBot`` CHEATS: it reads the whole game, every hand and deck in order, and plays a
winning line of the whole team that ``batch.solver`` found. It measures how good play can get on
a deal (what it cannot win within its budget, no team is known to win); it is never a partner,
never a table's bot, and every result that shows it says so.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from tranquility_env.batch import GameBatch, rules, solver
from tranquility_env.batch import value_model as compiled
from tranquility_env.batch.engine import finish_rope
from tranquility_env.batch.layout import ROPE_SHUFFLE
from tranquility_env.bots.heuristic import HeuristicBot
from tranquility_env.rules.game import Game
from tranquility_env.views import LazySeatView

__all__ = ["DEFAULT_BUDGET", "OUTCOMES", "OmniscientBot", "Solution", "solve"]

OUTCOMES = ("won", "unwinnable", "undecided")  # a deal's ceiling: a winning line, a proof none exists, or neither
DEFAULT_BUDGET = 1_000_000  # moves the search may make on one deal


@dataclass
class Solution:
    """What ``solve`` found: ``outcome`` (one of ``OUTCOMES``), the winning ``line`` (action ids
    from the state solved; empty unless won), the moves the search made and its seconds."""

    outcome: str
    line: list[int] = field(default_factory=list)
    moves_made: int = 0
    seconds: float = 0.0


def _batch(game: Game) -> GameBatch:
    batch = GameBatch(game.config, 1, threads=1)
    batch.load(0, game)
    return batch


def solve(game: Game, budget: int = DEFAULT_BUDGET, bot: HeuristicBot | None = None) -> Solution:
    """Search ``game`` (ongoing; every card seen) for a winning line of the whole team, making at
    most ``budget`` moves; deterministic (the budget counts moves, not seconds). ``bot``'s value
    model orders the moves (default: ``HeuristicBot()``)."""
    if isinstance(budget, bool) or not isinstance(budget, int) or budget < 1:
        raise ValueError(f"budget must be a positive number of moves, got {budget!r}")
    if game.status != "ongoing":
        raise ValueError(f"the game is {game.status}: there is nothing to solve")
    batch = _batch(game)
    start = time.perf_counter()
    outcome, made, line, _ = solver.solve_row(
        batch.rows[0], batch.cfg, batch.deck_counts, bot or HeuristicBot(), budget
    )
    name = {solver.SOLVED: "won", solver.LOST_PROVEN: "unwinnable", solver.UNDECIDED: "undecided"}[outcome]
    return Solution(name, line, made, time.perf_counter() - start)


def _fingerprint(row: np.ndarray) -> bytes:
    return hashlib.blake2b(row.tobytes(), digest_size=16).digest()


class OmniscientBot:
    """CHEATING: the whole team's winning line from ``solve`` on the whole game, read through
    the ``LazySeatView`` the table hands every bot. Every instance shares the lines found (one
    instance per seat follows the line another found). In a game it could not win within
    ``budget`` it plays the heuristic's value model from then on; ``last_outcome`` says which."""

    _plans: ClassVar[dict[bytes, int]] = {}  # a state's fingerprint -> the winning line's move there
    _given_up: ClassVar[dict[int, tuple[Game, str]]] = {}  # games searched without a win (held, so ids stay theirs)

    def __init__(self, budget: int = DEFAULT_BUDGET, seed: int | None = None) -> None:
        if isinstance(budget, bool) or not isinstance(budget, int) or budget < 1:
            raise ValueError(f"budget must be a positive number of moves, got {budget!r}")
        self.budget = budget
        self.heuristic = HeuristicBot(seed=seed, rollouts=0)
        self.last_outcome: str | None = None

    def act(self, observation: np.ndarray, action_mask: np.ndarray, view: Mapping[str, Any]) -> int:
        if not isinstance(view, LazySeatView):
            raise ValueError("the omniscient bot reads the whole game: it plays only at a table (arena, evaluate)")
        game = view.whole_game()
        batch = _batch(game)
        key = _fingerprint(batch.rows[0])
        if key not in self._plans and id(game) not in self._given_up:
            self._plan(batch, game)
        if key in self._plans:
            self.last_outcome = "won"
            return self._plans[key]
        self.last_outcome = self._given_up[id(game)][1]
        return int(compiled.choices(batch, self.heuristic)[0])

    def _plan(self, batch: GameBatch, game: Game) -> None:
        if len(self._plans) > 1_000_000:
            self._plans.clear()
        if len(self._given_up) > 64:
            self._given_up.pop(next(iter(self._given_up)))
        row = batch.rows[0]
        outcome, _, line, _ = solver.solve_row(row, batch.cfg, batch.deck_counts, self.heuristic, self.budget)
        if outcome != solver.SOLVED:
            self._given_up[id(game)] = (game, "unwinnable" if outcome == solver.LOST_PROVEN else "undecided")
            return
        row = row.copy()
        for action in line:  # each state of the line, for whichever seat comes to it
            self._plans[_fingerprint(row)] = action
            rules.apply(row, batch.cfg, action)
            if row[ROPE_SHUFFLE]:
                finish_rope(row, batch.cfg)
