"""The RL environments on top of the engine (need the ``env`` extra: gymnasium, pettingzoo).

- ``aec``: the PettingZoo AEC env, every seat an agent.
- ``team``: ``TeamEnv``, one gymnasium agent for the seats without a bot.
- ``options``: what both share: options, team reward, ``render()``.
- ``registration``: the ids ``tranquility_env`` registers with gymnasium and PettingZoo.
"""

__all__ = []
