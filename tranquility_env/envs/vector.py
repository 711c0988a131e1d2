"""``TeamEnv`` for many games at once, on the batched engine (``tranquility_env.batch``).

``TeamVectorEnv(num_envs=N, players=3, teammates={1: bot})`` is a gymnasium ``VectorEnv``: one
policy decides for every seat without a teammate bot, in N games stepped together by compiled
code, the observations and masks written into preallocated arrays. It is what
``gymnasium.make_vec("tranquility_env/TeamAscent-v1", num_envs=N, ...)`` returns, and it gives the
same observations, rewards, flags and infos as ``SyncVectorEnv`` over ``TeamEnv`` copies with the
same seeds and actions (``tests/test_vector.py``):

- ``reset(seed=s)`` deals slot i as ``Game.new(config, s + i)``; later games of slot i take their
  seeds from a generator seeded with ``s + i``, as a ``TeamEnv`` does, so a run is reproducible.
- Finished games are dealt again in the same step (``autoreset_mode`` SAME_STEP in the metadata);
  ``infos["final_obs"]`` and ``infos["final_info"]`` (with ``episode_stats``) hold what ended.
- ``action_masks()`` gives the masks, shape ``(num_envs, n_actions)``, for MaskablePPO-style code.

Teammate bots play inside the step; a ``PolicyBot`` decides for all its games in one batched pass
(``choose_each``), a ``HeuristicBot`` by its value model in compiled code (``batch.value_model``)
wherever it does not search, other bots game by game. The keyword arguments are ``TeamEnv``'s, plus
``threads`` (cores the engine uses; default all) and ``engine``: "batch" (the compiled batched
engine, default) or "game" (plain ``Game`` objects stepped one by one in Python: the reference).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from gymnasium.vector import AutoresetMode

from tranquility_env import encoding
from tranquility_env.arena import bot_action
from tranquility_env.batch import GameBatch, value_model
from tranquility_env.batch import layout as L
from tranquility_env.batch.reference import GameList
from tranquility_env.bots import Bot, HeuristicBot
from tranquility_env.bots.policy import PolicyBot
from tranquility_env.envs.options import EnvOptions, check_teammates, parse_env_kwargs
from tranquility_env.rules import actions, cards
from tranquility_env.rules.board import N_SLOTS
from tranquility_env.rules.game import IllegalMove

__all__ = ["ENGINES", "TeamBatch", "TeamVectorEnv"]

_PAY = actions.FIRST[actions.PAY]


# The batched engine, or the same interface over plain Game objects (the one-game path).
ENGINES = {"batch": GameBatch, "game": GameList}


class TeamBatch:
    """The games of a vector env and what a ``TeamEnv`` keeps per game: its seed generator,
    teammate bots, team reward, episode statistics and auto-reset. Shared by the gymnasium and
    SB3 vector envs and the trainers. ``engine`` (``ENGINES``) holds the games."""

    def __init__(
        self,
        num_envs: int,
        teammates: Mapping[int, Bot] | None = None,
        threads: int | None = None,
        engine: str = "batch",
        **kwargs: Any,
    ) -> None:
        self.config, self.options = parse_env_kwargs(kwargs)
        if engine not in ENGINES:
            raise ValueError(f"engine must be one of {list(ENGINES)}, got {engine!r}")
        if self.options.render_mode is not None:
            raise ValueError("a vector env does not render; render one game with TeamEnv (render_mode=...)")
        self.teammates = check_teammates(teammates, self.config)
        self.batch = ENGINES[engine](self.config, num_envs, threads)
        self.num_envs = num_envs
        self.bot_seat = np.array([s in self.teammates for s in range(self.config.players)])
        self.seeders: list[np.random.Generator | None] = [None] * num_envs
        self.decisions = np.zeros(num_envs, dtype=np.int64)
        self.paid = np.zeros(num_envs, dtype=np.int64)
        self.observations = np.zeros((num_envs, encoding.OBSERVATION_SIZE), dtype=np.float32)
        self.masks = np.zeros((num_envs, actions.N_ACTIONS), dtype=np.int8)

    # ------------------------------------------------------------------ reset
    def reset(self, seeds: list[int | None], slots: np.ndarray | None = None) -> None:
        """Deal ``slots`` (default: all) as ``TeamEnv.reset(seed=seeds[j])`` would, then let the
        bots play up to a policy seat."""
        slots = np.arange(self.num_envs) if slots is None else slots
        game_seeds = []
        for i, seed in zip(slots, seeds, strict=True):
            if seed is not None:
                self.seeders[i] = seeding.np_random(int(seed))[0]
            elif self.seeders[i] is None:
                self.seeders[i] = seeding.np_random()[0]
            game_seeds.append(int(seed) if seed is not None else int(self.seeders[i].integers(2**62)))
        self.batch.reset_many(slots, game_seeds)
        self.decisions[slots] = self.paid[slots] = 0
        where = np.zeros(self.num_envs, dtype=np.bool_)
        where[slots] = True
        self._play_bots(where)
        if (self.batch.status[slots] != L.ONGOING).any():
            raise ValueError("the game ends before any policy seat decides")

    # ------------------------------------------------------------------ step
    def step(self, ids: Any) -> tuple[np.ndarray, np.ndarray, list[str | None]]:
        """One policy decision in every game: (team rewards, terminated, refusal or None per game).
        Finished games are not dealt again here (``reset`` the finished slots)."""
        options: EnvOptions = self.options
        ids = np.asarray(ids)
        refusals: list[str | None] = [None] * self.num_envs
        where = np.ones(self.num_envs, dtype=np.bool_)
        ids = self.batch.check(ids) if options.illegal_action == "raise" else self._lose_illegal(ids, where, refusals)
        before = self.batch.cards_on_mountain() if options.reward_shaping else 0
        self._count(ids, where)
        self.batch.apply(ids, where)  # checked above
        self._play_bots(where)
        status = self.batch.status
        rewards = (status == L.WON).astype(np.float64)
        if options.reward_shaping:
            rewards += options.reward_shaping * (self.batch.cards_on_mountain() - before) / N_SLOTS
        rewards[~where] = options.illegal_reward
        terminated = (status != L.ONGOING) | ~where
        return rewards, terminated, refusals

    def _lose_illegal(self, ids: Any, where: np.ndarray, refusals: list[str | None]) -> np.ndarray:
        """With ``illegal_action="lose"``: the games whose action is refused end as a loss (their
        ``where`` false, the refusal kept); a batch of the wrong shape is still an error."""
        values = np.asarray(ids)
        if values.shape != (self.num_envs,):
            raise IllegalMove(f"expected one action per game, shape ({self.num_envs},), got shape {values.shape}")
        integral = values.dtype != np.bool_ and np.issubdtype(values.dtype, np.integer)
        checked = values.astype(np.int64) if integral else np.full(self.num_envs, -1, dtype=np.int64)
        for i in np.flatnonzero(~self.batch.legal(checked)):
            where[i] = False
            if not integral:  # the words of Game.apply_action
                refusals[i] = f"an action must be an integer id (0 to {actions.N_ACTIONS - 1})"
            elif not 0 <= checked[i] < actions.N_ACTIONS:
                refusals[i] = f"action {int(checked[i])} is not an action id (0 to {actions.N_ACTIONS - 1})"
            else:
                refusals[i] = self.batch.why_illegal(int(i), int(checked[i]))
        checked[~where] = 0  # a placeholder: those games are not stepped
        return checked

    def _count(self, ids: np.ndarray, where: np.ndarray) -> None:
        self.decisions += where
        self.paid += where & (ids >= _PAY) & (ids < _PAY + cards.N_KINDS)

    def _play_bots(self, where: np.ndarray) -> None:
        """Let teammate bots decide (in the games ``where`` is true) until a policy seat must."""
        if not self.teammates:
            return
        while True:
            seats = self.batch.current
            todo = where & (self.batch.status == L.ONGOING) & self.bot_seat[seats]
            if not todo.any():
                return
            ids = np.zeros(self.num_envs, dtype=np.int64)
            observations = None
            for seat, bot in self.teammates.items():
                games = np.flatnonzero(todo & (seats == seat))
                if not games.size:
                    continue
                if isinstance(bot, PolicyBot):
                    if observations is None:
                        observations = self.batch.observations()
                    legal = [self.batch.legal_actions(i) for i in games]
                    ids[games] = bot.choose_each(observations[games], legal)
                    continue
                if isinstance(bot, HeuristicBot) and isinstance(self.batch, GameBatch) and value_model.exact(bot):
                    # its value model in compiled code, where it does not search
                    filled = value_model.filled(self.batch)[games]
                    searching = np.array(
                        [bot.searches(n, self.config.players, self.config.panoramas) for n in filled], dtype=np.bool_
                    )
                    ids[games[~searching]] = value_model.choices(self.batch, bot, games[~searching])
                    games = games[searching]
                for i in games:
                    ids[i] = bot_action(self.batch.game(i), bot)
            self._count(ids, todo)
            self.batch.step(ids, todo)

    # ------------------------------------------------------------------ views
    def observe(self, masks: bool = True) -> None:
        """Write every game's observation and mask (its seat to act) into ``observations``/``masks``;
        ``masks=False`` leaves the masks as they were, for callers that take the legal ids instead."""
        self.batch.observations(out=self.observations)
        if masks:
            self.batch.action_masks(out=self.masks)

    def episode_stats(self, i: int) -> dict[str, Any]:
        """``TeamEnv.episode_stats()`` of game ``i``."""
        game = self.batch.game(i)
        return {
            "won": game.status == "won",
            "cards_on_mountain": game.cards_on_mountain(),
            "turns": game.turn,
            "decisions": int(self.decisions[i]),
            "penalty_discards": int(self.paid[i]),
        }


class TeamVectorEnv(gymnasium.vector.VectorEnv):
    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}  # noqa: RUF012 (gymnasium's attribute)

    def __init__(
        self,
        num_envs: int = 1,
        teammates: Mapping[int, Bot] | None = None,
        threads: int | None = None,
        engine: str = "batch",
        **kwargs: Any,
    ) -> None:
        self.games = TeamBatch(num_envs, teammates, threads, engine, **kwargs)
        self.num_envs = num_envs
        self.config = self.games.config
        self.single_observation_space = spaces.Box(0.0, encoding.OBSERVATION_HIGH, dtype=np.float32)
        self.single_action_space = spaces.Discrete(actions.N_ACTIONS)
        self.observation_space = gymnasium.vector.utils.batch_space(self.single_observation_space, num_envs)
        self.action_space = gymnasium.vector.utils.batch_space(self.single_action_space, num_envs)
        self._started = False

    def reset(self, *, seed: int | list[int | None] | None = None, options: dict[str, Any] | None = None):
        if options:
            raise ValueError(f"TeamVectorEnv.reset takes no options, got {sorted(options)}")
        super().reset(seed=None if isinstance(seed, list) else seed)
        if seed is None:
            seeds: list[int | None] = [None] * self.num_envs
        elif isinstance(seed, int):
            seeds = [seed + i for i in range(self.num_envs)]
        else:
            if len(seed) != self.num_envs:
                raise ValueError(f"reset got {len(seed)} seeds for {self.num_envs} envs")
            seeds = list(seed)
        self.games.reset(seeds)
        self._started = True
        self.games.observe()
        return self.games.observations.copy(), self._infos()

    def step(self, actions_: Any):
        if not self._started:
            raise RuntimeError("step() before reset(): call reset() first")
        games = self.games
        rewards, terminated, refusals = games.step(actions_)
        games.observe()
        observations = games.observations.copy()
        infos = self._infos()
        for i in np.flatnonzero(terminated):
            final = {"seat": int(infos["seat"][i]), "action_mask": games.masks[i].copy()}
            if refusals[i] is not None:
                final["illegal_move"] = refusals[i]
            else:
                final["episode_stats"] = games.episode_stats(i)
            self._add_info(infos, {"final_obs": observations[i].copy(), "final_info": final}, i)
        if terminated.any():
            finished = np.flatnonzero(terminated)
            games.reset([None] * finished.size, finished)
            games.observe()
            observations[finished] = games.observations[finished]
            infos["seat"][finished] = games.batch.current[finished]
            infos["action_mask"][finished] = games.masks[finished]
        truncated = np.zeros(self.num_envs, dtype=np.bool_)
        return observations, rewards, terminated, truncated, infos

    def action_masks(self) -> np.ndarray:
        """The legal actions of each game's seat to act, as booleans ``(num_envs, n_actions)``."""
        return self.games.masks.astype(bool)

    def _infos(self) -> dict[str, Any]:
        every = np.ones(self.num_envs, dtype=np.bool_)
        return {
            "seat": self.games.batch.current,
            "_seat": every,
            "action_mask": self.games.masks.copy(),
            "_action_mask": every.copy(),
        }
