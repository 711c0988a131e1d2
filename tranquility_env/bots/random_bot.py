"""The weakest legal bot: uniform over the legal actions."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

__all__ = ["RandomBot"]


class RandomBot:
    """Uniform over the legal actions."""

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray, view: Mapping[str, Any]) -> int:
        return int(self.rng.choice(np.flatnonzero(action_mask)))
