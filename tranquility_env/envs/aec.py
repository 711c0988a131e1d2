"""
# Tranquility: The Ascent

| Creation           | `pettingzoo.make("aec", "tranquility/ascent-v1", players=3)` or `tranquility_env.env(players=3)` |
|--------------------|--------------------------------------------------------------------------------------------------|
| Actions            | Discrete                                                                                         |
| Parallel API       | No (one seat decides at a time)                                                                  |
| Agents             | `agents = ['player_0', ..., 'player_{P-1}']`, P = 1..5                                           |
| Action Shape       | (1,)                                                                                             |
| Action Values      | Discrete(3962), the same ids for every config                                                    |
| Observation Shape  | Dict: `observation` (1941,) float32, `action_mask` (3962,) int8                                  |
| State Shape        | (2157,) float32 (`env.state()`, full information)                                                |

A cooperative card game for 1 to 5 players (RULES.md in `shared/`). The team builds a mountain of
44 cards in 8 rows, paying penalty cards for number gaps, and wins by playing a Summit on top; it
loses when the seat to act has no legal move. Modules: Green Path, Panorama Objectives, Mountain
Goats. Every seat is an agent; `agent_selection` is the seat that must decide now, sub-decisions
(payments, campfire moves, herd steps) included, so one turn can be several steps of one agent.

### Arguments

The `tranquility_env.Config` fields (`players`, `hand_size`, `bridges`, `campfires_per_colour`,
`ropes`, `campfire_move_pays`, `green_path`, `panoramas`, `goats`, `goats_needed`) and
`render_mode` (None, "ansi", "human", "rgb_array"), `reward_shaping` (float >= 0, default 0),
`illegal_action` ("raise" or "lose"), `illegal_reward` (default -1). A wrong key or value is a
`ValueError` at construction.

`reset(seed=s)` deals `Game.new(config, s)`; `reset()` without a seed deals from the env's own
seed sequence. `reset(options={"state": d})` starts from a position in the format of
`shared/spec/state.md` (its config must equal the env's). Other option keys are ignored, as
PettingZoo's API test requires.

### Observation Space

`observation` is seat-relative (seat blocks start at the viewer, then the next seat to play) and
holds exactly what that seat may know (RULES.md T5): nothing of other hands, other discard piles
or any deck beyond their sizes. All values are >= 0; the space's upper bounds are per value.

| indices     | block     | meaning |
|-------------|-----------|---------|
| 0 - 53      | hand      | own hand: count of each card kind (ids of `cards.py`: 48 Ascent kinds, BRIDGE, CAMP-G/B/R, SUMMIT, ROPE) |
| 54 - 107    | discard   | own discard pile: count of each card kind |
| 108 - 491   | hand fit  | Ascent kind k (0..47) x row r (1..8), index 108 + 8k + r - 1: 1 - penalty / 13 if a card of kind k in hand may be played to row r's open slot (P1, P2, P3), else 0 |
| 492 - 539   | hand best fit | Ascent kind k: its best `hand fit` over the rows (0 if not in hand or it fits nowhere) |
| 540 - 593   | unseen    | cards this seat has not seen (not on the mountain, in its hand or discard pile, or removed): count of each kind |
| 594 - 1673  | mountain  | 45 slots (r1c1 .. r8c2, r9c1) x 24 features: empty; number 1-12 one-hot; colour G/B/R one-hot; bridge; campfire; summit; goat symbol; goats standing (count); open (next slot of its row and supported); the pending move's campfire stands here; the moving herd stands here |
| 1674 - 1698 | seats     | 5 seats from the viewer on x (present, to act, hand size, deck size / 10, discard size / 10) |
| 1699 - 1700 | removed   | bridges replaced, ropes used |
| 1701 - 1722 | pending   | sub-decision one-hot (none, pay, move, herd); cards owed; the displaced card (number one-hot 12, colour one-hot 3, goat symbol); herd steps taken |
| 1723 - 1737 | config    | players one-hot 5; hand size / 10; bridges / 10; campfires per colour / 3; ropes / 6; campfire move pays; green path on; panoramas / 5; goats on; goats needed / 12; panorama module on |
| 1738 - 1741 | progress  | a green path exists; goats on row 8 / 12; slots with Ascent cards or campfires / 44; turn / 128 |
| 1742 - 1796 | panorama  | 5 revealed objectives x (PA4 card one-hot 10, achieved) |
| 1797 - 1940 | open rows | rows 1..8 x 18: has an open slot; its left reference one-hot (none, 1..12; P3); the colour left of it one-hot (none, G, B, R; P2) |

The first five blocks are private (the viewer's own cards); `hand fit`, `hand best fit`, `unseen`
and `open rows` are derived from the others, as a player would work them out at a glance.

`env.state()` (for centralized critics) is the public part seen from seat 0 (indices 594-1940
above, shifted to 0-1346), then for seats 0..4 in absolute order the counts of each card kind in
hand, discard pile and deck (3 x 54 each; zeros for absent seats): 2157 values.

#### Legal Actions Mask

`action_mask` is 1 exactly for the engine's legal moves of the seat to act, and all zeros for
every other seat.

### Action Space

Stable integer ids, the same in every config (`tranquility_env/actions.py`); ids a config can
never use are never legal. `env.unwrapped.action_to_move(a)` and `move_to_action(move)` translate
to and from RULES.md N2 strings (`"play G7 r2c3"`).

| ids         | move |
|-------------|------|
| 0 - 2111    | `play CARD POS`, Ascent kind k (0..47), slot p (0..43): k * 44 + p |
| 2112 - 2155 | `play BRIDGE POS` |
| 2156        | `play SUMMIT r9c1` |
| 2157 - 2288 | `camp CAMP-X POS`, colour c (G, B, R): 2157 + c * 44 + p |
| 2289 - 2332 | `move POS` (the card a campfire displaced) |
| 2333 - 3817 | `discard A B`, kinds a <= b (0..53) in order (0,0), (0,1), ..., (53,53) |
| 3818 - 3871 | `pay CARD`, kind k |
| 3872        | `rope` (solo) |
| 3873 - 3916 | `herd POS` |
| 3917 - 3960 | `step POS` |
| 3961        | `stop` |

### Rewards

The team's, the same for every seat: +1 when the Summit is played, 0 otherwise. With
`reward_shaping = a > 0`, each step also gives `a * (new slots holding Ascent cards or campfires)
/ 44`, so a full mountain adds `a` in all. With `illegal_action="lose"`, an illegal action ends the
game and every seat gets `illegal_reward`. The game ends (terminations) on a win or a loss; there
is no truncation (every game ends within one turn per card).

### Version History

* v1, tranquility_env 0.3.0: the same env; its module is now `tranquility_env.envs.aec`, and it
  needs the `env` extra (gymnasium, pettingzoo).
* v1: derived observation blocks `hand fit`, `hand best fit`, `unseen` and `open rows`
  (1311 -> 1941 values; state 2013 -> 2157). Bot checkpoints of v0 are refused (observation size).
  (tranquility_env 0.2.0)
* v0: Initial release (tranquility_env 0.1.0)
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger

from tranquility_env import encoding
from tranquility_env.envs.options import RENDER_MODES, frame, parse_env_kwargs, team_step
from tranquility_env.rules import actions
from tranquility_env.rules.config import Config
from tranquility_env.rules.game import ONGOING, Game

__all__ = ["env", "new_game", "raw_env"]


def env(**kwargs: Any) -> AECEnv:
    """The environment in PettingZoo's order-enforcing wrapper. (No AssertOutOfBoundsWrapper: the
    engine already refuses an id out of range with a clear IllegalMove, and every wrapper level
    costs each attribute access.)"""
    return OrderEnforcing(raw_env(**kwargs))


class OrderEnforcing(wrappers.OrderEnforcingWrapper):
    """PettingZoo's OrderEnforcingWrapper, with ``last()``, ``agents`` and ``agent_selection``
    answered by the env directly: inherited, each step reads about ten attributes through two
    levels of ``__getattr__`` (what that costs: ``docs/speed.md``)."""

    def last(self, observe: bool = True) -> tuple:
        if not self._has_reset:
            EnvLogger.error_observe_before_reset()
        return self.env.last(observe)

    @property
    def agents(self) -> list[str]:
        if not self._has_reset:
            raise AttributeError("agents cannot be accessed before reset")
        return self.env.agents

    @property
    def agent_selection(self) -> str:
        if not self._has_reset:
            raise AttributeError("agent_selection cannot be accessed before reset")
        return self.env.agent_selection


def observation_space() -> spaces.Dict:
    return spaces.Dict(
        {
            "observation": spaces.Box(0.0, encoding.OBSERVATION_HIGH, dtype=np.float32),
            "action_mask": spaces.Box(0, 1, (actions.N_ACTIONS,), dtype=np.int8),
        }
    )


def new_game(config: Config, seed: int | None, seeds: np.random.Generator, options: dict[str, Any] | None) -> Game:
    """The game a reset starts: ``options["state"]`` if given, else ``Game.new(config, seed)``,
    with a seed drawn from ``seeds`` when none is given."""
    state = (options or {}).get("state")
    if state is None:
        return Game.new(config, int(seed) if seed is not None else int(seeds.integers(2**62)))
    game = Game.from_dict(state)
    if game.config.to_dict() != config.to_dict():  # the state keeps every field
        raise ValueError(f"the state's config {game.config.to_dict()} differs from the env's {config.to_dict()}")
    return game


class raw_env(AECEnv, EzPickle):
    metadata = {  # noqa: RUF012 (PettingZoo's class attribute)
        "render_modes": list(RENDER_MODES),
        "name": "tranquility_ascent_v1",
        "is_parallelizable": False,
        "render_fps": 2,
    }

    def __init__(self, **kwargs: Any) -> None:
        EzPickle.__init__(self, **kwargs)
        super().__init__()
        self.config, self.options = parse_env_kwargs(kwargs)
        self.render_mode = self.options.render_mode
        self.possible_agents = [f"player_{i}" for i in range(self.config.players)]
        obs_space, act_space = observation_space(), spaces.Discrete(actions.N_ACTIONS)
        self.observation_spaces = dict.fromkeys(self.possible_agents, obs_space)
        self.action_spaces = dict.fromkeys(self.possible_agents, act_space)
        self.state_space = spaces.Box(0.0, encoding.STATE_HIGH, dtype=np.float32)
        self._seeds = np.random.default_rng()
        self.game: Game | None = None

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # ---------------------------------------------------------------- translation
    def action_to_move(self, action: int) -> str:
        return actions.to_string(int(action), self.config.goats)

    def move_to_action(self, move: str) -> int:
        return actions.from_string(move, self.config.goats)

    # ---------------------------------------------------------------- AEC API
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._seeds = np.random.default_rng(seed)
        self.game = new_game(self.config, seed, self._seeds, options)
        game = self.game
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        over = game.status != ONGOING
        self.terminations = dict.fromkeys(self.agents, over)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {agent: {} for agent in self.agents}
        self.agent_selection = self.agents[game.current]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self.possible_agents.index(agent)
        return {
            "observation": encoding.observation(self.game, seat),
            "action_mask": encoding.action_mask(self.game, seat),
        }

    def state(self) -> np.ndarray:
        return encoding.state(self.game)

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        game = self.game
        self._cumulative_rewards[agent] = 0.0
        reward, illegal = team_step(game, action, self.options)
        if illegal is not None:
            self.terminations = dict.fromkeys(self.agents, True)
            self.infos = {a: {"illegal_move": illegal} for a in self.agents}
        else:
            if game.status != ONGOING:
                self.terminations = dict.fromkeys(self.agents, True)
            self.agent_selection = self.agents[game.current]
        self.rewards = dict.fromkeys(self.agents, reward)
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    # ---------------------------------------------------------------- rendering
    def render(self) -> str | np.ndarray | None:
        return frame(self.game, self.render_mode)

    def close(self) -> None:
        pass
