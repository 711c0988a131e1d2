"""The bot protocol: what every seat's player implements, so any bot can fill any seat (AEC env,
``TeamEnv``, evaluation, play).

A bot sees only what its seat may know: the observation vector (``encoding.observation``), the
action mask, and the readable view of the same information (``views.seat_view``, built only if
the bot reads it). It returns an action id (``rules.actions``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol, runtime_checkable

import numpy as np

__all__ = ["Bot"]


@runtime_checkable
class Bot(Protocol):
    def act(self, observation: np.ndarray, action_mask: np.ndarray, view: Mapping[str, Any]) -> int:
        """The action id to take; it must be one the mask allows."""
        ...
