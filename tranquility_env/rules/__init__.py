"""The rules core: the game of RULES.md on small integers, with no dependency beyond numpy.

``cards``, ``board``, ``tables`` and ``actions`` name the pieces and the moves; ``config`` the
table; ``mountain`` the rules of the mountain as functions; ``game`` the ``Game``; ``legality``
the plain second checker behind ``IllegalMove``'s messages; ``state_io`` the JSON state format.
"""

from tranquility_env.rules.config import Config
from tranquility_env.rules.game import Game, IllegalMove

__all__ = ["Config", "Game", "IllegalMove"]
