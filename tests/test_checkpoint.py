"""The weights-only bot checkpoint format: round trips, old versions, damaged or mismatched files refused."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from tranquility_env import Config
from tranquility_env.bots import PolicyBot
from tranquility_env.checkpoint import CheckpointError, load, save

from tiny_bots import edit_json, tiny_checkpoint, tiny_tensors


@pytest.mark.parametrize("weights", ["int8", "float16"])
def test_checkpoint_weights_round_trip_within_their_storage_precision(tmp_path: Path, weights: str) -> None:
    tensors = tiny_tensors([8])
    folder = tiny_checkpoint(tmp_path / "bot", Config(players=2), weights=weights)
    about, layers, head = load(folder)
    assert (about["version"], about["weights"]) == (2, weights)
    for (weight, bias), name in zip([*layers, head], ["layers.0", "head"], strict=True):
        original = tensors[f"{name}.weight"]
        # int8: half a step of the row's scale (its largest magnitude / 127); float16: half a unit of
        # its 11 significant bits, or of its smallest subnormal
        if weights == "int8":
            half_step = np.abs(original).max(axis=1, keepdims=True) / 254
        else:
            half_step = np.abs(original) / 2048 + 2.0**-25
        assert np.all(np.abs(weight - original) <= half_step * 1.001)
        np.testing.assert_allclose(bias, tensors[f"{name}.bias"], rtol=1e-3)
    # Saving what was loaded stores the same bytes, so a run that starts from a bot starts from exactly it.
    loaded = {
        "layers.0.weight": layers[0][0],
        "layers.0.bias": layers[0][1],
        "head.weight": head[0],
        "head.bias": head[1],
    }
    again = save(tmp_path / "again", loaded, Config(players=2), [8], "tanh", weights=weights, trainer="test")
    assert (again / "policy.safetensors").read_bytes() == (folder / "policy.safetensors").read_bytes()
    with pytest.raises(ValueError, match="weights must be one of"):
        save(tmp_path / "bad", tensors, Config(players=2), [8], "tanh", weights="int4")
    assert not (tmp_path / "bad").exists()


def test_a_version_1_checkpoint_of_float16_weights_still_loads(tmp_path: Path) -> None:
    folder = tiny_checkpoint(tmp_path / "bot", Config(players=2), weights="float16")
    about = json.loads((folder / "bot.json").read_text())
    del about["weights"]
    (folder / "bot.json").write_text(json.dumps({**about, "version": 1}))
    old, new = load(folder), load(tiny_checkpoint(tmp_path / "new", Config(players=2), weights="float16"))
    assert all(
        np.array_equal(a, b)
        for pa, pb in zip([*old[1], old[2]], [*new[1], new[2]], strict=True)
        for a, b in zip(pa, pb, strict=True)
    )


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (
            lambda f: (f / "policy.safetensors").write_bytes((f / "policy.safetensors").read_bytes()[:-7] + b"0000000"),
            "damaged",
        ),
        (lambda f: (f / "bot.json").write_text("{not json"), "not valid JSON"),
        (lambda f: edit_json(f, observation_size=99), "observations of size 99"),
        (lambda f: edit_json(f, n_actions=5), "made for 5 actions"),
        (lambda f: edit_json(f, format="pickle"), "format"),
        (lambda f: edit_json(f, version=3), "version 1 or 2"),
        (lambda f: edit_json(f, weights="int4"), "'weights' must be one of"),
        (lambda f: edit_json(f, weights="float16"), r"unexpected tensors \['head.weight_scale'"),
        (lambda f: edit_json(f, hidden=[16]), "layers.0"),
        (lambda f: edit_json(f, hidden=[]), "non-empty list of layer sizes"),
        (lambda f: edit_json(f, config={"players": 9}), "bad config"),
        (lambda f: edit_json(f, symmetrised="yes"), "'symmetrised' must be true or false"),
        (lambda f: (f / "policy.safetensors").unlink(), "not a bot checkpoint"),
    ],
)
def test_damaged_or_mismatched_checkpoints_are_refused(tmp_path: Path, damage, message: str) -> None:
    folder = tiny_checkpoint(tmp_path / "bot", Config(players=3))
    damage(folder)
    with pytest.raises(CheckpointError, match=message):
        PolicyBot.load(str(folder))


def test_a_tampered_tensor_with_a_matching_hash_but_wrong_shape_is_refused(tmp_path: Path) -> None:
    folder = tiny_checkpoint(tmp_path / "bot", Config(players=3), hidden=[8])
    other = tiny_checkpoint(tmp_path / "other", Config(players=3), hidden=[4])
    shutil.copy(other / "policy.safetensors", folder / "policy.safetensors")
    edit_json(folder, weights_sha256=json.loads((other / "bot.json").read_text())["weights_sha256"])
    with pytest.raises(CheckpointError, match=r"layers\.0 must be"):
        PolicyBot.load(str(folder))


def test_float16_weights_claimed_as_int8_are_refused(tmp_path: Path) -> None:
    folder = tiny_checkpoint(tmp_path / "bot", Config(players=3), weights="float16")
    edit_json(folder, weights="int8")
    with pytest.raises(CheckpointError, match=r"layers\.0\.weight must be int8 with a weight_scale"):
        PolicyBot.load(str(folder))


def test_a_checkpoint_names_its_observation_and_rules_versions_and_a_mismatch_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tranquility_env import checkpoint as checkpoint_module
    from tranquility_env import encoding, rules

    folder = tiny_checkpoint(tmp_path / "bot", Config(players=2))
    about = json.loads((folder / "bot.json").read_text())
    assert (about["observation_version"], about["rules_version"]) == (encoding.VERSION, rules.RULES_VERSION)
    edit_json(folder, observation_version=encoding.VERSION + 1)
    made = rf"made for observation version {encoding.VERSION + 1} and rules version 1; this tranquility_env has"
    with pytest.raises(CheckpointError, match=rf"{made} observation version {encoding.VERSION}"):
        load(folder)
    edit_json(folder, observation_version=encoding.VERSION, rules_version=rules.RULES_VERSION + 1)
    with pytest.raises(CheckpointError, match=rf"rules version {rules.RULES_VERSION + 1}"):
        load(folder)
    # written before versions were recorded: read as the one version of its size, refused once ambiguous
    old = json.loads((folder / "bot.json").read_text())
    del old["observation_version"], old["rules_version"]
    (folder / "bot.json").write_text(json.dumps(old))
    assert load(folder)[0]["observation_size"] == encoding.OBSERVATION_SIZE
    monkeypatch.setattr(
        checkpoint_module.encoding, "SIZES", {1: encoding.OBSERVATION_SIZE, 2: encoding.OBSERVATION_SIZE}
    )
    with pytest.raises(CheckpointError, match=r"names no observation version, .* versions \[1, 2\]: cannot tell"):
        load(folder)
