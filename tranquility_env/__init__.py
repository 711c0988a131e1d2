"""tranquility_env: the reinforcement-learning home of *Tranquility: The Ascent*.

The rules engine is ``Game`` (RULES.md in ``shared/``); ``Config`` is its configuration.
"""

from tranquility_env.config import Config
from tranquility_env.game import Game, IllegalMove

__all__ = ["Config", "Game", "IllegalMove"]
__version__ = "0.1.0"
