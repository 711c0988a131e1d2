"""The environment ids, registered with gymnasium and PettingZoo when ``tranquility_env`` is imported
and those packages are installed."""

from __future__ import annotations

__all__ = ["TEAM_ID", "register"]

AEC_ID = "tranquility/ascent-v1"
TEAM_ID = "tranquility_env/TeamAscent-v1"


def register() -> None:
    """Register ``TEAM_ID`` with gymnasium and ``AEC_ID`` with PettingZoo (once)."""
    import gymnasium
    import pettingzoo

    if AEC_ID not in pettingzoo.aec_registry:
        pettingzoo.register("aec", AEC_ID, entry_point="tranquility_env.envs.aec:env")
    if TEAM_ID not in gymnasium.registry:
        gymnasium.register(
            id=TEAM_ID,
            entry_point="tranquility_env.envs.team:TeamEnv",
            vector_entry_point="tranquility_env.envs.vector:TeamVectorEnv",
        )
