"""The rules core: the game of RULES.md on small integers, with no dependency beyond numpy.

``cards``, ``board``, ``tables`` and ``actions`` name the pieces and the moves; ``config`` the
table; ``mountain`` the rules of the mountain as functions; ``game`` the ``Game``; ``legality``
the plain second checker behind ``IllegalMove``'s messages; ``state_io`` the JSON state format.
"""

# The version of the rules as this package plays them: raised by any change that alters a game
# (named tasks pin it, tranquility_env.tasks).
RULES_VERSION = 1

from tranquility_env.rules.config import Config  # noqa: E402
from tranquility_env.rules.game import Game, IllegalMove  # noqa: E402

__all__ = ["RULES_VERSION", "Config", "Game", "IllegalMove"]
