"""The bot checkpoint format: weights and a JSON description, never pickled code.

A checkpoint is a folder with two files:

- ``policy.safetensors``: the actor's tensors, ``layers.{i}.weight`` / ``layers.{i}.bias`` for
  each hidden layer and ``head.weight`` / ``head.bias`` for the action logits (stored as float16
  to keep shipped bots small; loading computes in float32);
- ``bot.json``: ``{"format": "tranquility-bot", "version": 1, "config": {...Config...},
  "observation_size": 1941, "n_actions": 3962, "hidden": [256, 256], "activation": "tanh",
  "weights_sha256": "...", "trainer": "...", "steps": ..., "made_by": "..."}``.

Loading reads the JSON and the tensors only (safetensors, numpy), so a checkpoint from a
stranger cannot run code, and it needs no torch. Every mismatch (format, sizes, shapes, the
weights' hash) is refused with a ``CheckpointError`` that says what is wrong.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from tranquility_env import actions, encoding
from tranquility_env.config import Config

FORMAT, VERSION = "tranquility-bot", 1
WEIGHTS, DESCRIPTION = "policy.safetensors", "bot.json"
ACTIVATIONS = {"tanh": np.tanh, "relu": lambda x: np.maximum(x, 0.0)}
Layer = tuple[np.ndarray, np.ndarray]  # (weight, bias)


class CheckpointError(ValueError):
    """A bot checkpoint that is missing, damaged, or made for something else."""


def save(folder: str | Path, tensors: dict[str, np.ndarray], config: Config, hidden: list[int],
         activation: str, **about: Any) -> Path:  # fmt: skip
    """Write a checkpoint atomically: into a temporary folder, then renamed into place."""
    from safetensors.numpy import save as save_tensors

    folder = Path(folder)
    data = save_tensors({k: np.ascontiguousarray(v, dtype=np.float16) for k, v in tensors.items()})
    description = {
        "format": FORMAT, "version": VERSION, "config": config.to_dict(),
        "observation_size": encoding.OBSERVATION_SIZE, "n_actions": actions.N_ACTIONS,
        "hidden": list(hidden), "activation": activation,
        "weights_sha256": hashlib.sha256(data).hexdigest(), **about,
    }  # fmt: skip
    folder.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", dir=folder.parent))
    (tmp / WEIGHTS).write_bytes(data)
    (tmp / DESCRIPTION).write_text(json.dumps(description, indent=1) + "\n")
    if folder.exists():
        old = folder.with_name(f".{folder.name}.old")
        os.replace(folder, old)
        os.replace(tmp, folder)
        for f in old.iterdir():
            f.unlink()
        old.rmdir()
    else:
        os.replace(tmp, folder)
    return folder


def load(folder: str | Path) -> tuple[dict[str, Any], list[Layer], Layer]:
    """(description, hidden layers as (weight, bias), head (weight, bias)), all checked."""
    from safetensors import SafetensorError
    from safetensors.numpy import load as load_tensors

    folder = Path(folder)
    if not (folder / DESCRIPTION).is_file() or not (folder / WEIGHTS).is_file():
        raise CheckpointError(f"{folder}: not a bot checkpoint (needs {DESCRIPTION} and {WEIGHTS})")
    try:
        about = json.loads((folder / DESCRIPTION).read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise CheckpointError(f"{folder / DESCRIPTION}: not valid JSON ({err})") from None
    if not isinstance(about, dict) or about.get("format") != FORMAT or about.get("version") != VERSION:
        raise CheckpointError(f"{folder}: format must be {FORMAT!r} version {VERSION}")
    if about.get("observation_size") != encoding.OBSERVATION_SIZE:
        raise CheckpointError(f"{folder}: made for observations of size {about.get('observation_size')}, "
                              f"this version of tranquility_env has {encoding.OBSERVATION_SIZE}")  # fmt: skip
    if about.get("n_actions") != actions.N_ACTIONS:
        raise CheckpointError(f"{folder}: made for {about.get('n_actions')} actions, not {actions.N_ACTIONS}")
    if about.get("activation") not in ACTIVATIONS:
        raise CheckpointError(f"{folder}: unknown activation {about.get('activation')!r}")
    try:
        Config.from_dict(about.get("config"))
    except (ValueError, TypeError) as err:
        raise CheckpointError(f"{folder}: bad config ({err})") from None
    data = (folder / WEIGHTS).read_bytes()
    if hashlib.sha256(data).hexdigest() != about.get("weights_sha256"):
        raise CheckpointError(f"{folder / WEIGHTS}: damaged (its hash does not match {DESCRIPTION})")
    try:
        tensors = load_tensors(data)
    except SafetensorError as err:
        raise CheckpointError(f"{folder / WEIGHTS}: unreadable ({err})") from None
    hidden = about.get("hidden")
    if not isinstance(hidden, list) or not all(isinstance(h, int) and h > 0 for h in hidden):
        raise CheckpointError(f"{folder}: 'hidden' must be a list of layer sizes")
    sizes = [encoding.OBSERVATION_SIZE, *hidden]
    layers = []
    for i in range(len(hidden)):
        layers.append(_tensor_pair(tensors, f"layers.{i}", (sizes[i + 1], sizes[i]), folder))
    head = _tensor_pair(tensors, "head", (actions.N_ACTIONS, sizes[-1]), folder)
    expected = {f"layers.{i}.{part}" for i in range(len(hidden)) for part in ("weight", "bias")}
    if set(tensors) != expected | {"head.weight", "head.bias"}:
        raise CheckpointError(f"{folder / WEIGHTS}: unexpected tensors {sorted(set(tensors) - expected)}")
    return about, layers, head


def _tensor_pair(tensors: dict[str, np.ndarray], name: str, shape: tuple[int, int], folder: Path) -> Layer:
    weight, bias = tensors.get(f"{name}.weight"), tensors.get(f"{name}.bias")
    if weight is None or bias is None or weight.shape != shape or bias.shape != (shape[0],):
        got = None if weight is None else weight.shape
        raise CheckpointError(f"{folder / WEIGHTS}: {name} must be {shape} with a bias, got {got}")
    return weight.astype(np.float32), bias.astype(np.float32)
