"""tranquility_env: the reinforcement-learning home of *Tranquility: The Ascent*.

- ``Game`` and ``Config``: the rules engine (RULES.md in ``shared/``).
- ``env(**kwargs)`` / ``raw_env(**kwargs)``: the PettingZoo AEC environment, also registered as
  ``pettingzoo.make("aec", "tranquility/ascent-v1")``.
- ``TeamEnv``: a single-agent gymnasium view for stable-baselines3, registered as
  ``gymnasium.make("tranquility_env/TeamAscent-v1")``.
"""

import gymnasium as _gymnasium
import pettingzoo as _pettingzoo

from tranquility_env.aec import env, raw_env
from tranquility_env.config import Config
from tranquility_env.game import Game, IllegalMove
from tranquility_env.team import TeamEnv

__all__ = ["Config", "Game", "IllegalMove", "TeamEnv", "env", "raw_env"]
__version__ = "0.2.0"

AEC_ID = "tranquility/ascent-v1"
TEAM_ID = "tranquility_env/TeamAscent-v1"
if AEC_ID not in _pettingzoo.aec_registry:
    _pettingzoo.register("aec", AEC_ID, entry_point="tranquility_env.aec:env")
if TEAM_ID not in _gymnasium.registry:
    _gymnasium.register(id=TEAM_ID, entry_point="tranquility_env.team:TeamEnv")
