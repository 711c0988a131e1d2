"""``GameBatch``'s interface over plain ``Game`` objects, stepped one at a time in Python.

The one-game path behind the same API: what the benchmark measures the batched engine against
(``engine="game"`` of the vector envs and trainers), and a second way to run anything written for
a batch.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tranquility_env import encoding
from tranquility_env.batch import layout as L
from tranquility_env.batch.engine import check_actions, refusal
from tranquility_env.rules import actions
from tranquility_env.rules.config import Config
from tranquility_env.rules.game import Game

__all__ = ["GameList"]

_STATUS = {name: code for code, name in enumerate(L.STATUS_NAMES)}


class GameList:
    """``num_games`` ``Game`` objects with ``GameBatch``'s methods (``threads`` is accepted and unused)."""

    def __init__(self, config: Config | dict[str, Any] | None = None, num_games: int = 1, threads: int | None = None):
        self.config = Config.coerce(config)
        if isinstance(num_games, bool) or not isinstance(num_games, int) or num_games < 1:
            raise ValueError(f"num_games must be a positive integer, got {num_games!r}")
        self.num_games = num_games
        self.games = [Game.new(self.config, i) for i in range(num_games)]

    def reset_many(self, slots: Any, seeds: Any) -> None:
        for i, seed in zip(np.asarray(slots).reshape(-1), list(seeds), strict=True):
            self.games[int(i)] = Game.new(self.config, int(seed))

    def load(self, i: int, game: Game) -> None:
        self.games[i] = game.clone()

    def game(self, i: int) -> Game:
        return self.games[i].clone()

    def legal_actions(self, i: int) -> np.ndarray:
        return np.array(self.games[i].legal_actions(), dtype=np.int64)

    def legal_ids(self, out: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        out = np.zeros((self.num_games, L.MAX_LEGAL), dtype=np.int64) if out is None else out
        counts = np.zeros(self.num_games, dtype=np.int64)
        for i, game in enumerate(self.games):
            legal = game.legal_actions()
            out[i, : len(legal)], out[i, len(legal) :], counts[i] = legal, 0, len(legal)
        return out, counts

    @property
    def current(self) -> np.ndarray:
        return np.array([g.current for g in self.games], dtype=np.int64)

    @property
    def status(self) -> np.ndarray:
        return np.array([_STATUS[g.status] for g in self.games], dtype=np.int64)

    def cards_on_mountain(self) -> np.ndarray:
        return np.array([g.cards_on_mountain() for g in self.games], dtype=np.int64)

    def legal(self, ids: np.ndarray) -> np.ndarray:
        return np.array([int(a) in g.legal_actions() for g, a in zip(self.games, ids, strict=True)])

    def why_illegal(self, i: int, action: int) -> str:
        return refusal(self.games[i].clone(), action)

    def check(self, actions_: Any, where: np.ndarray | None = None) -> np.ndarray:
        return check_actions(self, actions_, np.ones(self.num_games, dtype=np.bool_) if where is None else where)

    def step(self, actions_: Any, where: np.ndarray | None = None) -> None:
        self.apply(self.check(actions_, where), where)

    def apply(self, ids: np.ndarray, where: np.ndarray | None = None) -> None:
        for i, game in enumerate(self.games):
            if where is None or where[i]:
                game.apply_action(int(ids[i]))

    def observations(self, seats: np.ndarray | None = None, out: np.ndarray | None = None) -> np.ndarray:
        out = np.empty((self.num_games, encoding.OBSERVATION_SIZE), dtype=np.float32) if out is None else out
        for i, game in enumerate(self.games):
            out[i] = encoding.observation(game, game.current if seats is None else int(seats[i]))
        return out

    def action_masks(self, out: np.ndarray | None = None) -> np.ndarray:
        out = np.empty((self.num_games, actions.N_ACTIONS), dtype=np.int8) if out is None else out
        for i, game in enumerate(self.games):
            out[i] = encoding.action_mask(game, game.current)
        return out

    def states(self, out: np.ndarray | None = None) -> np.ndarray:
        out = np.empty((self.num_games, encoding.STATE_SIZE), dtype=np.float32) if out is None else out
        for i, game in enumerate(self.games):
            out[i] = encoding.state(game)
        return out
