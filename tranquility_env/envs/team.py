"""A single-agent team view for stable-baselines3 and other gymnasium code.

``TeamEnv(teammates={1: HeuristicBot()}, players=3)`` is a ``gymnasium.Env`` in which one policy
decides for every seat that no teammate bot holds. Each step is one decision of such a seat,
observed from that seat (the seat-relative observation of the AEC env), so one network plays
every seat. Bot seats are played inside ``step`` until a policy seat must decide or the game ends;
their rewards count too, since the reward is the team's. ``action_masks()`` returns the current
mask, so sb3-contrib's ``MaskablePPO`` works directly.

Keyword arguments are those of the AEC env (the Config fields, ``render_mode``,
``reward_shaping``, ``illegal_action``, ``illegal_reward``). ``info`` carries ``seat`` (who decides
now) and ``action_mask``, and at the end of a game ``episode_stats`` (won, cards on the mountain,
turns, decisions, cards paid as penalties).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from tranquility_env import encoding
from tranquility_env.arena import play_until
from tranquility_env.bots import Bot
from tranquility_env.envs.aec import new_game
from tranquility_env.envs.options import RENDER_MODES, check_teammates, frame, parse_env_kwargs, team_step
from tranquility_env.rules import actions
from tranquility_env.rules.game import ONGOING, Game

__all__ = ["TeamEnv"]


class TeamEnv(gymnasium.Env):
    metadata = {"render_modes": list(RENDER_MODES), "render_fps": 2}  # noqa: RUF012 (gymnasium's attribute)

    def __init__(self, teammates: Mapping[int, Bot] | None = None, **kwargs: Any) -> None:
        self.config, self.options = parse_env_kwargs(kwargs)
        self.render_mode = self.options.render_mode
        self.teammates = check_teammates(teammates, self.config)
        self.policy_seats = [s for s in range(self.config.players) if s not in self.teammates]
        self.observation_space = spaces.Box(0.0, encoding.OBSERVATION_HIGH, dtype=np.float32)
        self.action_space = spaces.Discrete(actions.N_ACTIONS)
        self.game: Game | None = None
        self._ended = False  # set when illegal_action="lose" ended the episode
        self._paid = self._decisions = 0  # for episode_stats()

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        super().reset(seed=seed)
        self.game = new_game(self.config, seed, self.np_random, options)
        self._ended = False
        self._paid = self._decisions = 0
        self._play_bots()
        if self.game.status != ONGOING:
            raise ValueError("the game ends before any policy seat decides")
        return self._observation(), self._info()

    def step(self, action: int):
        game = self.game
        if game is None or game.status != ONGOING or self._ended:
            raise RuntimeError("step() on a finished game: call reset() first")
        reward, illegal = team_step(game, action, self.options, then=functools.partial(self._after_policy, action))
        if illegal is not None:
            self._ended = True
            return self._observation(), reward, True, False, {**self._info(), "illegal_move": illegal}
        if self.render_mode == "human":
            self.render()
        info = self._info()
        if game.status != ONGOING:
            info["episode_stats"] = self.episode_stats()
        return self._observation(), reward, game.status != ONGOING, False, info

    def action_masks(self) -> np.ndarray:
        """The legal actions of the seat to act, as booleans (sb3-contrib's MaskablePPO calls this)."""
        return encoding.action_mask(self.game, self.game.current).astype(bool)

    def _after_policy(self, action: int) -> None:
        self._count(action)
        self._play_bots()

    def _play_bots(self) -> None:
        for action in play_until(self.game, self.teammates):
            self._count(action)

    def _count(self, action: int) -> None:
        kind = actions.DECODE[action][0]
        self._paid += kind == actions.PAY
        self._decisions += 1

    def episode_stats(self) -> dict[str, Any]:
        """What the training charts show of a finished game."""
        game = self.game
        return {
            "won": game.status == "won",
            "cards_on_mountain": game.cards_on_mountain(),
            "turns": game.turn,
            "decisions": self._decisions,
            "penalty_discards": self._paid,
        }

    def _observation(self) -> np.ndarray:
        return encoding.observation(self.game, self.game.current)

    def _info(self) -> dict[str, Any]:
        return {"seat": self.game.current, "action_mask": encoding.action_mask(self.game, self.game.current)}

    def render(self) -> str | np.ndarray | None:
        return frame(self.game, self.render_mode)
