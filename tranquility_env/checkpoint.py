"""The bot checkpoint format: weights and a JSON description, never pickled code.

A checkpoint is a folder with two files:

- ``policy.safetensors``: the actor's tensors, ``layers.{i}.weight`` / ``layers.{i}.bias`` for
  each hidden layer and ``head.weight`` / ``head.bias`` for the action logits;
- ``bot.json``: ``{"format": "tranquility-bot", "version": 2, "weights": "int8", "config":
  {...Config...}, "observation_size": 1941, "observation_version": 1, "rules_version": 1,
  "n_actions": 3962, "hidden": [256, 256], "activation": "tanh", "weights_sha256": "...",
  "trainer": "...", "steps": ..., "made_by": "...", "symmetrised": false}``.

``symmetrised`` (optional, default false) says how the bot plays its network: true, with the mean
log-probability over the table's colour symmetries (``symmetry.py``), so that its play cannot
depend on which colour is called which (``PolicyBot``).

A bot plays only the observations and rules it was made for: a checkpoint whose
``observation_version`` or ``rules_version`` differs from this package's is refused. One written
before those were recorded is read as the observation version of its size, where only one version
had that size (``encoding.SIZES``), and as rules version 1, the only one there was.

``weights`` says how the weight matrices are stored; loading computes in float32 either way:

- ``"int8"`` (what ``save`` writes): each row of a weight matrix as int8 with a float32
  ``{name}.weight_scale`` (the row's largest magnitude / 127); biases as float32: about half
  the size of float16, with nearly the same decisions (``docs/bots.md``).
- ``"float16"``: weights and biases as float16. Version 1 checkpoints, which have no
  ``weights`` key, are read as this.

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

from tranquility_env import encoding
from tranquility_env.rules import RULES_VERSION, actions
from tranquility_env.rules.config import Config

__all__ = ["ACTIVATIONS", "CheckpointError", "copy", "encoding", "load", "save"]

FORMAT, VERSION = "tranquility-bot", 2
STORAGES = ("int8", "float16")  # how weight matrices are stored (``weights`` in bot.json)
WEIGHTS, DESCRIPTION = "policy.safetensors", "bot.json"
ACTIVATIONS = {"tanh": np.tanh, "relu": lambda x: np.maximum(x, 0.0)}
Layer = tuple[np.ndarray, np.ndarray]  # (weight, bias)


class CheckpointError(ValueError):
    """A bot checkpoint that is missing, damaged, or made for something else."""


def save(
    folder: str | Path,
    tensors: dict[str, np.ndarray],
    config: Config,
    hidden: list[int],
    activation: str,
    weights: str = "int8",
    **about: Any,
) -> Path:
    """Write a checkpoint atomically: into a temporary folder, then renamed into place."""
    from safetensors.numpy import save as save_tensors

    if weights not in STORAGES:
        raise ValueError(f"weights must be one of {STORAGES}, not {weights!r}")
    folder = Path(folder)
    data = save_tensors(_stored(tensors, weights))
    description = {
        "format": FORMAT,
        "version": VERSION,
        "weights": weights,
        "config": config.to_dict(),
        "observation_size": encoding.OBSERVATION_SIZE,
        "observation_version": encoding.VERSION,
        "rules_version": RULES_VERSION,
        "n_actions": actions.N_ACTIONS,
        "hidden": list(hidden),
        "activation": activation,
        "weights_sha256": hashlib.sha256(data).hexdigest(),
        **about,
    }
    return _write(folder, data, description)


def copy(source: str | Path, folder: str | Path, **about: Any) -> Path:
    """A checkpoint at ``folder`` with ``source``'s weights, byte for byte, and its description
    changed by ``about`` (say ``symmetrised=True``); ``source`` is checked as ``load`` checks it."""
    description = load(source)[0] | about
    _check_symmetrised(description, Path(folder))
    return _write(Path(folder), (Path(source) / WEIGHTS).read_bytes(), description)


def _write(folder: Path, data: bytes, description: dict[str, Any]) -> Path:
    """Write a checkpoint atomically: into a temporary folder, then renamed into place."""
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


def _stored(tensors: dict[str, np.ndarray], weights: str) -> dict[str, np.ndarray]:
    if weights == "float16":
        return {k: np.ascontiguousarray(v, dtype=np.float16) for k, v in tensors.items()}
    stored = {}
    for name, value in tensors.items():
        value = np.asarray(value, dtype=np.float32)
        if not name.endswith(".weight"):
            stored[name] = np.ascontiguousarray(value)
            continue
        scale = np.abs(value).max(axis=1) / 127.0
        scale[scale == 0] = 1.0  # an all-zero row: any scale stores it exactly
        stored[name] = np.clip(np.rint(value / scale[:, None]), -127, 127).astype(np.int8)
        stored[name + "_scale"] = scale.astype(np.float32)
    return stored


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
    if not isinstance(about, dict) or about.get("format") != FORMAT or about.get("version") not in (1, VERSION):
        raise CheckpointError(f"{folder}: format must be {FORMAT!r} version 1 or {VERSION}")
    weights = about.get("weights") if about["version"] == VERSION else "float16"
    if weights not in STORAGES:
        raise CheckpointError(f"{folder}: 'weights' must be one of {STORAGES}, not {weights!r}")
    _check_versions(about, folder)
    if about.get("observation_size") != encoding.OBSERVATION_SIZE:
        raise CheckpointError(
            f"{folder}: made for observations of size {about.get('observation_size')}, "
            f"this version of tranquility_env has {encoding.OBSERVATION_SIZE}"
        )
    if about.get("n_actions") != actions.N_ACTIONS:
        raise CheckpointError(f"{folder}: made for {about.get('n_actions')} actions, not {actions.N_ACTIONS}")
    if about.get("activation") not in ACTIVATIONS:
        raise CheckpointError(f"{folder}: unknown activation {about.get('activation')!r}")
    _check_symmetrised(about, folder)
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
    if not isinstance(hidden, list) or not hidden or not all(isinstance(h, int) and h > 0 for h in hidden):
        raise CheckpointError(f"{folder}: 'hidden' must be a non-empty list of layer sizes")
    sizes = [encoding.OBSERVATION_SIZE, *hidden]
    names = [f"layers.{i}" for i in range(len(hidden))] + ["head"]
    shapes = [(sizes[i + 1], sizes[i]) for i in range(len(hidden))] + [(actions.N_ACTIONS, sizes[-1])]
    pairs = [_tensor_pair(tensors, name, shape, weights, folder) for name, shape in zip(names, shapes, strict=True)]
    parts = ("weight", "bias", "weight_scale") if weights == "int8" else ("weight", "bias")
    expected = {f"{name}.{part}" for name in names for part in parts}
    if set(tensors) != expected:
        raise CheckpointError(f"{folder / WEIGHTS}: unexpected tensors {sorted(set(tensors) - expected)}")
    return about, pairs[:-1], pairs[-1]


def _check_symmetrised(about: dict[str, Any], folder: Path) -> None:
    if not isinstance(about.get("symmetrised", False), bool):
        raise CheckpointError(f"{folder}: 'symmetrised' must be true or false, not {about['symmetrised']!r}")


def _check_versions(about: dict[str, Any], folder: Path) -> None:
    """The observation and rules versions the bot was made for must be this package's."""
    size = about.get("observation_size")
    if "observation_version" in about:
        observation = about["observation_version"]
    else:  # written before versions were recorded: the version of its size, if only one had it
        of_size = [v for v, s in encoding.SIZES.items() if s == size]
        if len(of_size) != 1:
            raise CheckpointError(
                f"{folder}: names no observation version, and observations of size {size!r} were those of "
                f"versions {of_size or 'none'}: cannot tell which it was made for"
            )
        observation = of_size[0]
    rules = about.get("rules_version", 1)
    made, running = (observation, rules), (encoding.VERSION, RULES_VERSION)
    if made != running:
        raise CheckpointError(
            f"{folder}: made for observation version {observation!r} and rules version {rules!r}; this "
            f"tranquility_env has observation version {encoding.VERSION} and rules version {RULES_VERSION}"
        )


def _tensor_pair(
    tensors: dict[str, np.ndarray], name: str, shape: tuple[int, int], weights: str, folder: Path
) -> Layer:
    weight, bias = tensors.get(f"{name}.weight"), tensors.get(f"{name}.bias")
    if weight is None or bias is None or weight.shape != shape or bias.shape != (shape[0],):
        got = None if weight is None else weight.shape
        raise CheckpointError(f"{folder / WEIGHTS}: {name} must be {shape} with a bias, got {got}")
    if weights == "float16":
        return weight.astype(np.float32), bias.astype(np.float32)
    scale = tensors.get(f"{name}.weight_scale")
    if weight.dtype != np.int8 or scale is None or scale.shape != (shape[0],):
        got = None if scale is None else scale.shape
        raise CheckpointError(
            f"{folder / WEIGHTS}: {name}.weight must be int8 with a weight_scale of "
            f"{shape[0]} rows, got {weight.dtype} and {got}"
        )
    return weight.astype(np.float32) * scale.astype(np.float32)[:, None], bias.astype(np.float32)
