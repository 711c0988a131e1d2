"""What the AEC env and ``TeamEnv`` share: the options beside the game ``Config``, the team reward
they define, and ``render()``."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import gymnasium
import numpy as np

from tranquility_env import render
from tranquility_env.bots import Bot
from tranquility_env.rules.board import N_SLOTS
from tranquility_env.rules.config import Config
from tranquility_env.rules.game import WON, Game, IllegalMove
from tranquility_env.views import seat_view

__all__ = ["RENDER_MODES", "EnvOptions", "check_teammates", "frame", "parse_env_kwargs", "team_step"]

RENDER_MODES = ("ansi", "human", "rgb_array")


@dataclass(frozen=True)
class EnvOptions:
    """``render_mode``: None, "ansi", "human" or "rgb_array".
    ``reward_shaping``: adds ``reward_shaping * (new cards on the mountain) / 44`` to the team reward,
    so a full mountain is worth ``reward_shaping`` on top of the +1 win. 0 (off) by default.
    ``illegal_action``: "raise" (a ValueError naming the move; the game is unchanged) or "lose" (the
    game ends, every seat gets ``illegal_reward``), for algorithms that cannot mask."""

    render_mode: str | None = None
    reward_shaping: float = 0.0
    illegal_action: str = "raise"
    illegal_reward: float = -1.0

    def __post_init__(self) -> None:
        if self.render_mode is not None and self.render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode must be None or one of {RENDER_MODES}, got {self.render_mode!r}")
        for name in ("reward_shaping", "illegal_reward"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
                raise ValueError(f"{name} must be a finite number, got {value!r}")
        if self.reward_shaping < 0:
            raise ValueError(f"reward_shaping must be >= 0, got {self.reward_shaping!r}")
        if self.illegal_action not in ("raise", "lose"):
            raise ValueError(f"illegal_action must be 'raise' or 'lose', got {self.illegal_action!r}")


def parse_env_kwargs(kwargs: dict[str, Any], extra: tuple[str, ...] = ()) -> tuple[Config, EnvOptions]:
    """Split keyword arguments into the game Config and the EnvOptions; unknown keys are an error."""
    option_names = tuple(f.name for f in dataclasses.fields(EnvOptions))
    allowed = Config.fields() + option_names + extra
    for key in kwargs:
        if key not in allowed:
            raise ValueError(f"unknown env option {key!r}; allowed: {', '.join(allowed)}")
    config = Config.from_dict({k: v for k, v in kwargs.items() if k in Config.fields()})
    return config, EnvOptions(**{k: v for k, v in kwargs.items() if k in option_names})


def check_teammates(teammates: Mapping[int, Any] | None, config: Config) -> dict[int, Any]:
    """The teammate bots by seat, checked: real seats, bots with ``act``, and a seat left for the policy."""
    checked = dict(teammates or {})
    for seat, bot in checked.items():
        if not isinstance(seat, int) or not 0 <= seat < config.players:
            raise ValueError(f"teammate seat {seat!r} is not a seat from 0 to {config.players - 1}")
        if not isinstance(bot, Bot):
            raise ValueError(f"teammate at seat {seat} has no act(observation, action_mask, view) method")
    if len(checked) >= config.players:
        raise ValueError("every seat holds a teammate bot: the policy would never decide")
    return checked


def team_step(
    game: Game, action: int, options: EnvOptions, then: Callable[[], None] | None = None
) -> tuple[float, str | None]:
    """Apply one action as the options say; ``then`` runs after it (TeamEnv plays its bot seats).

    Returns the team reward and ``None``, or, with ``illegal_action="lose"``, ``illegal_reward``
    and the refusal message (the game is unchanged; the env ends the episode). With "raise" the
    ``IllegalMove`` propagates."""
    before = game.cards_on_mountain() if options.reward_shaping else 0
    try:
        game.apply_action(action)
    except IllegalMove as err:
        if options.illegal_action == "raise":
            raise
        return float(options.illegal_reward), str(err)
    if then is not None:
        then()
    reward = 1.0 if game.status == WON else 0.0
    if options.reward_shaping:
        reward += options.reward_shaping * (game.cards_on_mountain() - before) / N_SLOTS
    return reward, None


def frame(game: Game, mode: str | None) -> str | np.ndarray | None:
    """An env's ``render()``: the table as the seat to act sees it (its hand shown, others hidden)."""
    if mode is None:
        gymnasium.logger.warn("render() called without a render_mode; pass render_mode=... to the env")
        return None
    view = seat_view(game, game.current)
    if mode == "rgb_array":
        return render.rgb_array(view)
    text = render.ansi(view)
    if mode == "human":
        print(text)
        return None
    return text
