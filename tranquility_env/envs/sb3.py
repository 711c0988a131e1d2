"""``TeamEnv`` for many games at once as a stable-baselines3 ``VecEnv``, on the batched engine.

``TeamVecEnv(num_envs=N, players=3)`` behaves as SB3's ``DummyVecEnv`` over N ``TeamEnv`` copies
(same seeds through ``seed()``, same observations, rewards, dones and infos, a finished game's
last observation in ``infos[i]["terminal_observation"]``), but steps the games together in
compiled code. ``env_method("action_masks")`` answers as each ``TeamEnv`` would, so sb3-contrib's
``MaskablePPO`` trains on it directly. Keyword arguments are ``TeamEnv``'s plus ``threads`` and
``engine`` (as ``TeamVectorEnv``'s).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env import VecEnv

from tranquility_env import encoding
from tranquility_env.bots import Bot
from tranquility_env.envs.vector import TeamBatch
from tranquility_env.rules import actions

__all__ = ["TeamVecEnv"]


class TeamVecEnv(VecEnv):
    def __init__(
        self,
        num_envs: int = 1,
        teammates: Mapping[int, Bot] | None = None,
        threads: int | None = None,
        engine: str = "batch",
        **kwargs: Any,
    ) -> None:
        self.games = TeamBatch(num_envs, teammates, threads, engine, **kwargs)
        observation_space = spaces.Box(0.0, encoding.OBSERVATION_HIGH, dtype=np.float32)
        super().__init__(num_envs, observation_space, spaces.Discrete(actions.N_ACTIONS))
        self._actions: np.ndarray | None = None

    def reset(self) -> np.ndarray:
        if any(self._options):
            raise ValueError("TeamVecEnv.reset takes no options")
        self.games.reset(list(self._seeds))
        self._reset_seeds()
        self._reset_options()
        self.games.observe()
        self.reset_infos = self._infos(range(self.num_envs))
        return self.games.observations.copy()

    def step_async(self, actions_: np.ndarray) -> None:
        self._actions = np.asarray(actions_)

    def step_wait(self):
        if self._actions is None:
            raise RuntimeError("step_wait() without step_async()")
        games = self.games
        rewards, dones, refusals = games.step(self._actions)
        self._actions = None
        games.observe()
        observations = games.observations.copy()
        infos = self._infos(range(self.num_envs))
        for info in infos:
            info["TimeLimit.truncated"] = False  # as DummyVecEnv adds
        finished = np.flatnonzero(dones)
        for i in finished:
            if refusals[i] is not None:
                infos[i]["illegal_move"] = refusals[i]
            else:
                infos[i]["episode_stats"] = games.episode_stats(i)
            infos[i]["terminal_observation"] = observations[i].copy()
        if finished.size:
            games.reset([None] * finished.size, finished)
            games.observe()
            observations[finished] = games.observations[finished]
            for i, info in zip(finished, self._infos(finished), strict=True):
                self.reset_infos[i] = info
        return observations, rewards.astype(np.float32), dones, infos

    def _infos(self, games: Iterable[int]) -> list[dict[str, Any]]:
        """What ``TeamEnv`` puts in ``info``, for each of ``games``."""
        seats, masks = self.games.batch.current, self.games.masks
        return [{"seat": int(seats[i]), "action_mask": masks[i].copy()} for i in games]

    def action_masks(self) -> np.ndarray:
        """Every game's legal actions as booleans ``(num_envs, n_actions)``."""
        return self.games.masks.astype(bool)

    def env_method(self, method_name: str, *args: Any, indices: Any = None, **kwargs: Any) -> list[Any]:
        if method_name != "action_masks":
            raise AttributeError(f"TeamVecEnv games have no method {method_name!r} (only 'action_masks')")
        masks = self.action_masks()
        return [masks[i] for i in self._indices(indices)]

    def has_attr(self, attr_name: str) -> bool:
        return attr_name == "action_masks" or attr_name in ("render_mode", "config", "options", "teammates")

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        if attr_name == "render_mode":
            value = None
        elif attr_name in ("config", "options", "teammates"):
            value = getattr(self.games, attr_name)
        else:
            raise AttributeError(f"TeamVecEnv games have no attribute {attr_name!r}")
        return [value for _ in self._indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        raise AttributeError("TeamVecEnv's games are set at construction; make a new TeamVecEnv")

    def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> list[bool]:
        return [False for _ in self._indices(indices)]

    def close(self) -> None:
        pass

    def get_images(self) -> Sequence[np.ndarray | None]:
        raise NotImplementedError("TeamVecEnv does not render; render one game with TeamEnv")

    def _indices(self, indices: int | Iterable[int] | None) -> list[int]:
        if indices is None:
            return list(range(self.num_envs))
        if isinstance(indices, int):
            return [indices]
        return list(indices)
