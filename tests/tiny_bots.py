"""Small bot checkpoints with random weights, for tests."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from tranquility_env import Config, encoding
from tranquility_env.checkpoint import save
from tranquility_env.rules import actions


def tiny_tensors(hidden: list[int]) -> dict[str, np.ndarray]:

    rng = np.random.default_rng(0)
    sizes = [encoding.OBSERVATION_SIZE, *hidden]
    tensors = {}
    for i in range(len(hidden)):
        tensors[f"layers.{i}.weight"] = rng.normal(size=(sizes[i + 1], sizes[i])) * 0.1
        tensors[f"layers.{i}.bias"] = rng.normal(size=sizes[i + 1]) * 0.1
    tensors["head.weight"] = rng.normal(size=(actions.N_ACTIONS, sizes[-1]))
    tensors["head.bias"] = rng.normal(size=actions.N_ACTIONS) * 0.1
    return tensors


def tiny_checkpoint(folder: Path, config: Config, hidden: list[int] | None = None, weights: str = "int8") -> Path:
    hidden = hidden or [8]
    return save(folder, tiny_tensors(hidden), config, hidden, "tanh", weights=weights, trainer="test")


def edit_json(folder: Path, **changes) -> None:
    about = json.loads((folder / "bot.json").read_text())
    about.update(changes)
    (folder / "bot.json").write_text(json.dumps(about))
