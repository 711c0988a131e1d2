"""``tranquility distill``: search distillation."""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("yaml")

from tranquility_env import Config, Game, bots, encoding
from tranquility_env.bots import PolicyBot
from tranquility_env.bots.heuristic import PLAYER_DEFAULTS
from tranquility_env.rules import actions

from tiny_bots import tiny_checkpoint


def test_distill_collects_the_search_choices_fits_exports_and_reuses_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from tranquility_env.training import distill

    shipped = Path(bots.shipped_bot(2))  # plays far enough to search
    monkeypatch.chdir(tmp_path)
    monkeypatch.setitem(PLAYER_DEFAULTS["rollouts"], 2, 2)  # a cheap search; workers=1 plays in this process
    overrides = [
        "run=d",
        "players=2",
        f"init_actor={shipped}",
        "games=3",
        "valid_games=1",
        "workers=1",
        "epochs=1",
        "eval_games=2",
    ]
    distill.main(overrides)
    printed = capsys.readouterr().out
    bot = PolicyBot.load("checkpoints/d/final")
    assert bot.config == Config(players=2) and bot.about["trainer"].startswith("search distillation (own-search)")
    assert "| policy:checkpoints/d/final |" in printed and f"| policy:{shipped} |" in printed
    with np.load("runs/d/decisions.npz") as data:
        masks = np.unpackbits(data["masks"], axis=1, count=actions.N_ACTIONS).astype(bool)
        assert masks[np.arange(len(masks)), data["chosen"]].all()  # every label is a legal action
        assert masks.sum(1).min() > 1  # forced moves are not kept
        assert data["searched"].any() and not data["searched"].all()
        assert set(data["deal"]) == {0, 1, 2} and len(data["won"]) == 3
    copied = shutil.copytree(shipped, tmp_path / "copy")
    distill.main([*overrides, "epochs=2", f"init_actor={copied}"])  # the same weights, another fit: reused
    assert "reusing the decisions" in capsys.readouterr().out
    Path("runs/d/decisions.npz").write_bytes(b"damaged")  # a damaged cache is collected anew, whole
    distill.main([*overrides, "epochs=2"])
    assert "decisions.npz is unreadable" in capsys.readouterr().out
    distill.main([*overrides, "epochs=2"])
    assert "reusing the decisions" in capsys.readouterr().out
    distill.main([*overrides, "teacher=search"])  # another teacher: collected anew
    printed = capsys.readouterr().out
    assert "reusing" not in printed
    assert PolicyBot.load("checkpoints/d/final").about["trainer"].startswith("search distillation (search)")


def fit_settings(tmp_path: Path, **fields: object) -> object:
    """A ``DistillConfig`` for ``distill.fit`` alone (its checkpoint only satisfies the checks)."""
    from tranquility_env.training import distill

    start = str(tiny_checkpoint(tmp_path / "t", Config(players=2)))
    settings = {"players": 2, "init_actor": start, "games": 10, "valid_games": 1, "learning_rate": 3e-3}
    return distill.DistillConfig.make(**settings | fields)


def test_distill_fit_moves_the_policy_to_the_labels_and_the_anchors_keep_the_rest(tmp_path: Path) -> None:
    import torch
    from torch.utils.tensorboard import SummaryWriter

    from tranquility_env.training import distill
    from tranquility_env.training.mappo import Actor

    torch.manual_seed(0)
    start = Actor([32], "tanh")
    with torch.no_grad():
        start.head.weight.mul_(300)  # a policy with clear preferences, as a trained one has
    obs, masks, late = [], [], []  # random play's decisions; the "searched" ones late in the game, as in real use
    for deal in range(4):
        game = Game.new(Config(players=2), deal)
        while game.status == "ongoing":
            o, m = encoding.observation(game, game.current), encoding.action_mask(game, game.current)
            if m.sum() > 1:
                obs.append(o.astype(np.float16))
                masks.append(np.packbits(m))
                late.append(game.cards_on_mountain() >= 6)
            game.apply_action(random.Random(len(obs)).choice(game.legal_actions()))
    data = {"obs": np.array(obs), "masks": np.array(masks), "deal": np.arange(len(obs)) % 10}
    data["searched"] = np.array(late)
    with torch.no_grad():  # the labels: the legal action the starting policy likes second best
        legal = torch.as_tensor(np.unpackbits(data["masks"], axis=1, count=actions.N_ACTIONS).astype(bool))
        data["chosen"] = start(torch.as_tensor(data["obs"], dtype=torch.float32), legal).topk(2).indices[:, 1].numpy()
    data["candidates"] = np.full((len(obs), distill.MAX_CANDIDATES), -1)  # no scores: the choice is the target
    data["scores"] = np.zeros((len(obs), distill.MAX_CANDIDATES))
    labelled, anchors = np.flatnonzero(data["searched"]), np.flatnonzero(~data["searched"])
    assert distill.agreement(start, data, labelled) == 0.0
    kept = {}
    for weight in (3.0, 0.0):
        actor = Actor([32], "tanh")
        actor.load_state_dict(start.state_dict())
        cfg = fit_settings(tmp_path, epochs=30, batch_size=32, anchor_weight=weight)
        distill.fit(cfg, actor, data, data["deal"] >= 9, SummaryWriter(tmp_path / "logs"))
        assert distill.agreement(actor, data, labelled) > 0.8
        kept[weight] = distill.agreement(actor, data, anchors, distill.likeliest(start, data, anchors))
    assert kept[3.0] > kept[0.0] + 0.2  # measured: 0.70 against 0.34


def test_augmented_decisions_are_those_of_the_relabelled_games() -> None:
    """``distill.relabelled`` (``augment``): each decision's observation, mask, chosen move and
    candidates become those of the same position in the game with its colours renamed."""
    from tranquility_env.symmetry import action_image, permute_game
    from tranquility_env.training import distill

    rng, games, data = random.Random(3), [], {k: [] for k in ("obs", "masks", "chosen", "candidates", "scores")}
    game = Game.new(Config(players=3), 7)
    while game.status == "ongoing" and len(games) < 60:
        o, m = encoding.observation(game, game.current), encoding.action_mask(game, game.current)
        legal = np.flatnonzero(m)
        games.append(Game.from_dict(game.to_dict()))
        data["obs"].append(o.astype(np.float16))
        data["masks"].append(np.packbits(m))
        data["chosen"].append(rng.choice(legal))
        data["candidates"].append([*legal[:3], *[-1] * (distill.MAX_CANDIDATES - len(legal[:3]))])
        data["scores"].append(np.zeros(distill.MAX_CANDIDATES))
        game.apply_action(int(rng.choice(legal)))
    data = {k: np.array(v) for k, v in data.items()}
    sigma = (2, 0, 1)
    part = distill.relabelled(data, np.arange(len(games)), (sigma,), np.random.default_rng(0))
    image = action_image(sigma)
    for i, real in enumerate(games):
        twin = permute_game(real, sigma)
        assert (part["obs"][i] == encoding.observation(twin, twin.current).astype(np.float16)).all()
        assert (part["masks"][i] == np.packbits(encoding.action_mask(twin, twin.current))).all()
        assert part["chosen"][i] == image[data["chosen"][i]]
        ids = data["candidates"][i]
        assert (part["candidates"][i] == np.where(ids >= 0, image[np.maximum(ids, 0)], -1)).all()
    assert (part["chosen"] != data["chosen"]).mean() > 0.5  # renamed cards are other moves
    same = distill.relabelled(data, np.arange(len(games)), ((0, 1, 2),), np.random.default_rng(0))
    assert len(games) > 30 and (same["obs"] == data["obs"]).all() and (same["chosen"] == data["chosen"]).all()


def test_an_augmented_fit_learns_the_relabelled_labels(tmp_path: Path) -> None:
    """With ``augment``, a label learned under one naming of the colours is learned under all."""
    import torch
    from torch.utils.tensorboard import SummaryWriter

    from tranquility_env.symmetry import action_image, action_index, colour_symmetries, observation_index
    from tranquility_env.training import distill
    from tranquility_env.training.mappo import Actor

    game = Game.new(Config(players=3), 7)
    o, m = encoding.observation(game, game.current), encoding.action_mask(game, game.current)
    chosen = int(np.flatnonzero(m)[1])
    data = {
        "obs": np.repeat(o.astype(np.float16)[None], 64, 0),
        "masks": np.repeat(np.packbits(m)[None], 64, 0),
        "chosen": np.full(64, chosen),
        "candidates": np.full((64, distill.MAX_CANDIDATES), -1),
        "scores": np.zeros((64, distill.MAX_CANDIDATES)),
        "searched": np.ones(64, dtype=bool),
        "deal": np.arange(64) % 8,
    }
    cfg = fit_settings(tmp_path, epochs=40, batch_size=16)
    sigma = (1, 2, 0)
    for augment in (False, True):
        cfg.augment, cfg.config = augment, Config(players=3)
        torch.manual_seed(0)
        actor = Actor([32], "tanh")
        distill.fit(cfg, actor, data, data["deal"] >= 7, SummaryWriter(tmp_path / "logs"))
        seen = torch.as_tensor(o[observation_index(sigma)])[None]
        mask = torch.as_tensor(m[action_index(sigma)].astype(bool))[None]
        likeliest = int(actor(seen, mask).argmax())
        assert (likeliest == action_image(sigma)[chosen]) == augment
    assert len(colour_symmetries(cfg.config)) == 6


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ({"teacher": "oracle"}, "'teacher' must be one of"),
        ({"valid_games": 5, "games": 5}, "'valid_games' must be at least 1 and below"),
        ({"games": 0}, "'games' must be at least 1"),
        ({"init_actor": "no/such/folder"}, "not a bot checkpoint"),
        ({"epochs": "many"}, "'epochs' must be int"),
        ({"temperature": -1.0}, "'temperature' must be at least 0"),
        ({"players": 3}, "was made for .* not this run's table"),
        ({"players": 6, "init_actor": ""}, "config 'players' must be an integer from 1 to 5"),
        ({"players": 3, "goats": True, "init_actor": ""}, "'init_actor' is needed: there is no shipped bot"),
    ],
)
def test_distill_refuses_wrong_settings(override: dict, message: str) -> None:
    from tranquility_env.training.distill import DistillConfig

    with pytest.raises(ValueError, match=message):
        DistillConfig.make(**{"players": 2, "init_actor": bots.shipped_bot(2), **override})


def test_distill_starts_from_the_shipped_bot_of_its_table_by_default() -> None:
    from tranquility_env.training.distill import DistillConfig

    cfg = DistillConfig.make(players=4)
    assert cfg.init_actor == bots.shipped_bot(4) and cfg.run == "p4_distill"


def test_distill_targets_weigh_the_candidates_by_the_prior_and_their_rollout_scores() -> None:
    import torch

    from tranquility_env.training.distill import MAX_CANDIDATES, targets

    pad = [-1] * (MAX_CANDIDATES - 3)
    data = {
        "candidates": np.array([[7, 3, 9, *pad], [-1, -1, -1, *pad]]),
        "chosen": np.array([3, 5]),
        "scores": np.array([[40.0, 41.0, 40.0, *[0.0] * len(pad)], [0.0] * MAX_CANDIDATES]),
    }
    prior = torch.log_softmax(torch.zeros(2, actions.N_ACTIONS), 1)
    prior[0, 9] += np.log(2.0)  # the starting policy likes action 9 twice as much as 7 and 3
    ids, weights = targets(data, np.arange(2), 1.0, prior)
    e = np.exp(1.0)  # candidate 3 scored one point more
    assert ids[0, :3].tolist() == [7, 3, 9] and np.allclose(weights[0, :3], np.array([1, e, 2]) / (3 + e))
    assert weights[0, 3:].sum() == 0 and ids[1, 0] == 5 and weights[1].tolist() == [1.0] + [0.0] * (MAX_CANDIDATES - 1)
    ids, weights = targets(data, np.arange(2), 0.0, prior)  # the search's choice alone
    assert ids[0, 0] == 3 and weights[0, 0] == 1.0 and weights[0, 1:].sum() == 0
