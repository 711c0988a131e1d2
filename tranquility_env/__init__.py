"""tranquility_env: the reinforcement-learning home of *Tranquility: The Ascent*.

- ``Game`` and ``Config``: the rules engine (``tranquility_env.rules``; needs numpy only).
- ``env(**kwargs)`` / ``raw_env(**kwargs)``: the PettingZoo AEC environment, also registered as
  ``pettingzoo.make("aec", "tranquility/ascent-v1")``.
- ``TeamEnv``: a single-agent gymnasium view for stable-baselines3, registered as
  ``gymnasium.make("tranquility_env/TeamAscent-v1")``.

The environments need the ``env`` extra (gymnasium, pettingzoo); they are imported on first use
and registered at import when those packages are installed.
"""

from __future__ import annotations

from importlib.util import find_spec
from typing import Any

from tranquility_env.rules import Config, Game, IllegalMove

__all__ = ["Config", "Game", "IllegalMove", "TeamEnv", "env", "raw_env"]
__version__ = "0.3.0"

_ENV_NAMES = {
    "env": "tranquility_env.envs.aec",
    "raw_env": "tranquility_env.envs.aec",
    "TeamEnv": "tranquility_env.envs.team",
}

if find_spec("gymnasium") and find_spec("pettingzoo"):
    from tranquility_env.envs.registration import register as _register

    _register()


def __getattr__(name: str) -> Any:
    """The environments, imported on first use so that the engine alone needs no gymnasium."""
    if name in _ENV_NAMES:
        import importlib

        return getattr(importlib.import_module(_ENV_NAMES[name]), name)
    raise AttributeError(f"module 'tranquility_env' has no attribute {name!r}")
