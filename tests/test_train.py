"""``tranquility train`` (imitation, DAgger, MaskablePPO) and the run configs every trainer reads."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")
pytest.importorskip("yaml")

from tranquility_env import Config, Game, encoding
from tranquility_env.bots import HeuristicBot, PolicyBot
from tranquility_env.checkpoint import CheckpointError

from tiny_bots import tiny_checkpoint


def test_train_save_load_evaluate_and_resume(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    from tranquility_env.training import evaluate, train

    monkeypatch.chdir(tmp_path)
    overrides = [
        "run=smoke",
        "total_steps=256",
        "n_steps=64",
        "n_envs=2",
        "batch_size=64",
        "n_epochs=1",
        "checkpoint_every=128",
        "eval_every=128",
        "eval_games=2",
        "final_eval_games=2",
        "hidden=[16]",
        "teammates={1: heuristic}",
        "pretrain_games=2",
        "pretrain_epochs=1",
        "dagger_rounds=1",
        "dagger_games=2",
        "dagger_epochs=1",
    ]
    train.main([*overrides, "--no-progress"])
    run = tmp_path / "checkpoints" / "smoke"
    assert {"final", "step_128", "step_256", "resume.zip", "train_config.yaml", "imitation", "dagger_0"} <= {
        p.name for p in run.iterdir()
    }
    assert list((tmp_path / "runs").glob("smoke_*/events.out.tfevents.*"))
    bot = PolicyBot.load(str(run / "final"))
    assert bot.about["steps"] == 256 and bot.config == Config(players=3)

    # a killed run resumes from its last checkpoint and goes on to the new total
    (run / "final").rename(run / "final_before")
    train.main(
        [*[o for o in overrides if not o.startswith("total_steps")], "total_steps=384", "--resume", "--no-progress"]
    )
    assert PolicyBot.load(str(run / "final")).about["steps"] == 384
    with pytest.raises(SystemExit):
        train.main([*overrides, "--resume", "gamma=0.5", "--no-progress"])  # not the same run
    assert "differs from the run's" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        train.main(["colour=3"])
    assert "unknown train config key 'colour'" in capsys.readouterr().err

    results = evaluate.main(
        [
            "--team",
            f"policy:{run / 'final'},heuristic,random",
            "--team",
            "heuristic",
            "--games",
            "4",
            "--out",
            "results",
            "--cross-play",
            str(run / "final"),
            str(run / "final_before"),
        ]
    )
    assert [r.games for r in results] == [4, 4]
    report = json.loads((tmp_path / "results" / "evaluation_p3.json").read_text())
    assert len(report["cross_play"]["win_rate"]) == 2 and (tmp_path / "results" / "evaluation_p3.png").stat().st_size


def test_total_steps_0_keeps_the_imitation_alone_and_final_eval_games_0_prints_no_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    """The first step of make train's recipe: imitation, no PPO, no closing table."""
    from tranquility_env.training import train

    monkeypatch.chdir(tmp_path)
    overrides = ["run=imit", "total_steps=0", "final_eval_games=0", "players=2", "hidden=[16]", "n_envs=2"]
    train.main([*overrides, "pretrain_games=2", "pretrain_epochs=1", "--no-progress"])
    run = tmp_path / "checkpoints" / "imit"
    final, imitation = PolicyBot.load(str(run / "final")), PolicyBot.load(str(run / "imitation"))
    assert final.about["steps"] == 0
    assert all(np.array_equal(a, b) for a, b in zip(final.layers[0], imitation.layers[0], strict=True))
    assert "win rate" not in capsys.readouterr().out


def test_imitation_learns_the_teachers_choices(tmp_path: Path) -> None:
    """The warm start: after imitating the heuristic's value model on 60 games, the policy makes
    the teacher's choice far more often on new games than untrained."""
    import torch
    from sb3_contrib import MaskablePPO

    from tranquility_env import TeamEnv
    from tranquility_env.training.train import TrainConfig, imitate, teacher_games
    from tranquility_env.views import LazySeatView

    cfg = TrainConfig.make(players=2, hidden=[64], pretrain_games=60, pretrain_epochs=10, n_envs=1)
    obs, masks, chosen, returns = teacher_games(cfg, 0, 3)
    assert len(obs) == len(masks) == len(chosen) == len(returns) > 50 and obs.dtype == np.float16
    assert all(np.unpackbits(m)[a] for m, a in zip(masks, chosen, strict=True))  # the teacher's choices are legal

    def agreement(model) -> float:
        teacher, agree, total = HeuristicBot(rollouts=0), 0, 0
        for seed in range(3):
            game = Game.new(cfg.config, 90_000 + seed)
            while not game.is_over:
                seat = game.current
                o, m = encoding.observation(game, seat), encoding.action_mask(game, seat)
                action = teacher.act(o, m, LazySeatView(game, seat))
                mine, _ = model.predict(o, action_masks=m.astype(bool), deterministic=True)
                agree, total = agree + (int(mine) == action) * (m.sum() > 1), total + (m.sum() > 1)
                game.apply_action(action)
        return agree / total

    kwargs = {"net_arch": [64], "activation_fn": torch.nn.ReLU}
    model = MaskablePPO("MlpPolicy", TeamEnv(players=2), policy_kwargs=kwargs, seed=0)
    before = agreement(model)
    imitate(model, cfg, tmp_path)
    after = agreement(model)
    assert before < 0.25 and after > before + 0.15, (before, after)  # measured: 0.19 -> 0.40


def test_imitation_scores_the_teachers_choices_as_the_masked_distribution_does() -> None:
    """``value_and_log_prob`` over ``decision_rows`` (each decision's legal ids, the choice's place
    among them) gives the values, log-probabilities and gradients of SB3's ``evaluate_actions``
    on the same weights, masks and choices."""
    import torch
    from sb3_contrib import MaskablePPO

    from tranquility_env import TeamEnv
    from tranquility_env.training.train import TrainConfig, decision_rows, teacher_games, value_and_log_prob

    cfg = TrainConfig.make(players=3, pretrain_games=1, n_envs=1)
    obs, masks, chosen, _ = teacher_games(cfg, 0, 2)
    model = MaskablePPO("MlpPolicy", TeamEnv(players=3), policy_kwargs={"net_arch": [32, 16]}, seed=0)
    mask = np.unpackbits(masks, axis=1, count=model.policy.action_space.n)
    legal, at = decision_rows(masks[::-1].copy(), chosen[::-1].copy(), model.policy.action_space.n)
    legal, at = legal[::-1], at[::-1]  # made in another order: each row its own
    for row, m, c, place in zip(legal, mask, chosen, at, strict=True):
        real = row[row >= 0]
        assert (real == np.flatnonzero(m)).all() and real[place] == c and (row[len(real) :] == -1).all()
    o, a = torch.as_tensor(obs, dtype=torch.float32), torch.as_tensor(chosen)
    values, log_prob, _ = model.policy.evaluate_actions(o, a, action_masks=mask)
    log_prob.sum().backward()
    gradients = [p.grad.clone() for p in model.policy.parameters() if p.grad is not None]
    model.policy.zero_grad()
    rows, places = torch.as_tensor(legal.astype(np.int64)), torch.as_tensor(at.copy())
    plain_values, plain_log_prob = value_and_log_prob(model.policy, o, rows, places)
    plain_log_prob.sum().backward()  # the head's rows of legal actions only: the same gradients
    assert len(obs) > 50 and log_prob.max() < -0.5  # an untrained policy, many choices a decision
    torch.testing.assert_close(plain_values, values.flatten())
    torch.testing.assert_close(plain_log_prob, log_prob, atol=1e-5, rtol=1e-5)
    plain = [p.grad for p in model.policy.parameters() if p.grad is not None]
    assert len(plain) == len(gradients) > 4
    for got, expected in zip(plain, gradients, strict=True):
        torch.testing.assert_close(got, expected, atol=1e-5, rtol=1e-4)
    assert value_and_log_prob(model.policy, o, rows, places, critic=False)[0] is None


def test_the_policy_normalised_once_is_sb3_contribs_on_the_same_weights() -> None:
    """``MaskedOncePolicy`` (the policy ``new_model`` trains) gives sb3-contrib's
    ``MaskableActorCriticPolicy`` values, log-probabilities, entropies and gradients on the same
    weights, positions, masks and choices, and the same distribution without a mask."""
    import torch
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    from tranquility_env import TeamEnv
    from tranquility_env.training.sb3_policy import MaskedOncePolicy
    from tranquility_env.training.train import TrainConfig, teacher_games

    env = TeamEnv(players=3)
    obs, masks, chosen, _ = teacher_games(TrainConfig.make(players=3, pretrain_games=1, n_envs=1), 0, 2)
    mask = np.unpackbits(masks, axis=1, count=env.action_space.n)
    o, a = torch.as_tensor(obs, dtype=torch.float32), torch.as_tensor(chosen)
    kwargs = {"net_arch": [32, 16], "lr_schedule": lambda _: 1e-3}
    torch.manual_seed(0)
    theirs = MaskableActorCriticPolicy(env.observation_space, env.action_space, **kwargs)
    mine = MaskedOncePolicy(env.observation_space, env.action_space, **kwargs)
    mine.load_state_dict(theirs.state_dict())
    with torch.no_grad():
        theirs.action_net.weight.normal_()  # logits far apart, so that a wrong one shows
        mine.action_net.weight.copy_(theirs.action_net.weight)
    results = []
    for policy in (theirs, mine):
        values, log_prob, entropy = policy.evaluate_actions(o, a, action_masks=mask)
        grads = torch.autograd.grad((log_prob + entropy).sum() + values.sum(), list(policy.parameters()))
        unmasked = policy.get_distribution(o).distribution
        results.append((values, log_prob, entropy, grads, unmasked.probs))
    (values, log_prob, entropy, grads, probs), (my_values, my_log_prob, my_entropy, my_grads, my_probs) = results
    assert len(obs) > 50 and log_prob.std() > 0.5 and entropy.mean() > 0.5  # varied positions, real choices
    torch.testing.assert_close(my_values, values)
    torch.testing.assert_close(my_log_prob, log_prob, atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(my_entropy, entropy, atol=1e-5, rtol=1e-5)
    for my_grad, grad in zip(my_grads, grads, strict=True):
        torch.testing.assert_close(my_grad, grad, atol=1e-4, rtol=1e-4)
    torch.testing.assert_close(my_probs, probs)


def test_dagger_games_are_played_by_the_policy_and_labelled_by_the_teacher() -> None:
    from tranquility_env.training.train import TrainConfig, teacher_games

    cfg = TrainConfig.make(players=2, n_envs=1)
    alone = teacher_games(cfg, 0, 2)
    # the teacher playing its own labels is plain cloning, decision for decision
    for mine, theirs in zip(alone, teacher_games(cfg, 0, 2, player="heuristic-no-search"), strict=True):
        assert np.array_equal(mine, theirs)
    # a random player reaches other states (and loses sooner); the labels are still the teacher's
    obs, masks, chosen, returns = teacher_games(cfg, 0, 2, player="random")
    assert len(obs) < len(alone[0]) and returns[0] < alone[3][0]
    assert all(np.unpackbits(m)[a] for m, a in zip(masks, chosen, strict=True))
    assert np.array_equal(obs[0], alone[0][0]) and chosen[0] == alone[2][0]  # the same first state and label


@pytest.mark.parametrize(
    "settings",
    [
        {"players": 3},
        {"players": 1, "gamma": 0.9},  # solo: ropes reshuffle decks inside the batch
        {"players": 4, "teammates": {1: "partner:wide-builder"}, "reward_shaping": 0.0},
        {"players": 3, "goats": True, "panoramas": 2},
    ],
)
def test_compiled_teacher_games_give_the_same_arrays_as_the_games_one_by_one(settings: dict) -> None:
    from tranquility_env.training.train import TrainConfig, compiled_teachers, teacher_games, teacher_games_compiled

    cfg = TrainConfig.make(**settings, n_envs=1)
    assert compiled_teachers(cfg) is not None
    alone = teacher_games(cfg, 3, 4)
    for mine, theirs in zip(teacher_games_compiled(cfg, 3, 4), alone, strict=True):
        assert mine.dtype == theirs.dtype and np.array_equal(mine, theirs)
    assert len(alone[0]) > 40


def test_teachers_without_a_compiled_value_model_play_one_game_at_a_time() -> None:
    from tranquility_env.training.train import TrainConfig, compiled_teachers, gather, teacher_games

    cfg = TrainConfig.make(players=2, n_envs=1, teammates={1: "random"})
    assert compiled_teachers(cfg) is None
    assert compiled_teachers(TrainConfig.make(players=2, pretrain_teacher="heuristic")) is None  # it searches
    for mine, theirs in zip(gather(cfg, 0, 2), teacher_games(cfg, 0, 2), strict=True):
        assert np.array_equal(mine, theirs)


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ({"activation": "sigmoid"}, "'activation' must be one of"),
        ({"dagger_rounds": 1, "pretrain_games": 0}, "'dagger_rounds' needs 'pretrain_games' > 0"),
        ({"dagger_rounds": -1}, "'dagger_rounds' must be >= 0"),
        ({"dagger_games": 0}, "'dagger_games' must be at least 1"),
        ({"pretrain_teacher": "genius"}, "unknown bot 'genius'"),
        ({"pretrain_games": -1}, "'pretrain_games' must be >= 0"),
        ({"pretrain_epochs": 0}, "'pretrain_epochs' must be at least 1"),
        ({"final_eval_games": -1}, "'final_eval_games' must be >= 0"),
        ({"total_steps": -1}, "'total_steps' must be >= 0"),
        ({"total_steps": 0, "pretrain_games": 0}, "nothing to train"),
        ({"hidden": [64, "wide"]}, "'hidden' must be list"),
    ],
)
def test_wrong_training_settings_are_refused(override: dict, message: str) -> None:
    from tranquility_env.training.train import TrainConfig

    with pytest.raises(ValueError, match=message):
        TrainConfig(**override)


def test_a_teammate_or_teacher_policy_made_for_another_table_is_refused(tmp_path: Path) -> None:
    from tranquility_env.training.mappo import MappoConfig
    from tranquility_env.training.train import TrainConfig

    two = f"policy:{tiny_checkpoint(tmp_path / 'two', Config(players=2))}"
    assert TrainConfig.make(players=2, teammates={1: two}, pretrain_teacher=two).teammates == {1: two}
    for run in (TrainConfig, MappoConfig):
        with pytest.raises(CheckpointError, match="players"):
            run.make(players=3, teammates={1: two})
    with pytest.raises(CheckpointError, match="players"):
        TrainConfig.make(players=3, pretrain_teacher=two)


def test_config_files_are_one_per_trainer_and_valid_at_every_player_count() -> None:
    """As a fresh clone has them: nothing stands in for a checkpoint the clone lacks."""
    from tranquility_env.training.common import load_config
    from tranquility_env.training.distill import DistillConfig
    from tranquility_env.training.expert_iteration import ExpertIterationConfig
    from tranquility_env.training.mappo import IppoConfig, MappoConfig
    from tranquility_env.training.rllib_train import RllibConfig
    from tranquility_env.training.train import TrainConfig

    trainers = {
        "train": TrainConfig,
        "mappo": MappoConfig,
        "ippo": IppoConfig,
        "rllib": RllibConfig,
        "distill": DistillConfig,
        "expert_iteration": ExpertIterationConfig,
    }
    files = sorted(Path(__file__).resolve().parents[1].glob("configs/*.yaml"))
    assert sorted(path.stem for path in files) == sorted(trainers)
    for path in files:
        for players in range(1, 6):
            cfg = load_config(trainers[path.stem], str(path), [f"players={players}"])
            assert cfg.players == players and cfg.run.startswith(f"p{players}")


def test_games_played_in_the_browser_feed_the_imitation(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A person who always takes the first legal move plays a few games in the browser; training on
    their replays alone makes the policy take that move far more often."""
    pytest.importorskip("starlette.testclient")
    import time

    from tranquility_env.training import train
    from tranquility_env.training.train import TrainConfig, person_decisions
    from tranquility_env.web.app import create_app

    from web_client import browser

    client = browser(create_app(tmp_path / "replays", pace=0, seed=100))
    made = 0
    for _ in range(6):
        state = client.post("/api/games", json={"players": 2, "seat": 1, "bots": ["heuristic-no-search"]}).json()
        while not state["outcome"]:
            if state["moves"]:
                made += len(state["moves"]) > 1
                move = {"move": state["moves"][0]["move"], "decision": state["decision"]}
                state = client.post(f"/api/games/{state['id']}/moves", json=move).json()
            else:
                time.sleep(0.01)
                state = client.get(f"/api/games/{state['id']}").json()
    (tmp_path / "replays" / "notes.txt").write_text("not a replay: ignored")

    cfg = TrainConfig.make(players=2, pretrain_games=0, pretrain_replays=str(tmp_path / "replays"))
    obs, masks, chosen, returns = person_decisions(cfg)
    assert len(obs) == len(returns) == made  # every decision of the person with a choice, none of the bot's
    assert all(np.flatnonzero(np.unpackbits(m))[0] == a for m, a in zip(masks, chosen, strict=True))
    with pytest.raises(ValueError, match=r"no replay .* has a person's decisions"):
        person_decisions(TrainConfig.make(players=3, pretrain_games=0, pretrain_replays=str(tmp_path / "replays")))
    with pytest.raises(ValueError, match="is not a folder"):
        TrainConfig(pretrain_replays=str(tmp_path / "nowhere"))

    monkeypatch.chdir(tmp_path)
    train.main(
        [
            "players=2",
            "run=people",
            "pretrain_games=0",
            f"pretrain_replays={tmp_path / 'replays'}",
            "pretrain_epochs=60",
            "hidden=[64]",
            "total_steps=64",
            "n_steps=64",
            "batch_size=64",
            "n_envs=1",
            "final_eval_games=2",
            "eval_games=2",
            "--no-progress",
        ]
    )
    first = {"before": 0, "after": 0}
    for name, folder in (("before", None), ("after", tmp_path / "checkpoints" / "people" / "imitation")):
        bot = PolicyBot.load(str(folder)) if folder else None
        for seed in range(3):
            game = Game.new({"players": 2}, 50 + seed)
            while not game.is_over:
                o, m = encoding.observation(game, game.current), encoding.action_mask(game, game.current)
                legal = np.flatnonzero(m)
                if bot is not None and len(legal) > 1:
                    first[name] += bot.act(o, m, {}) == legal[0]
                elif bot is None and len(legal) > 1:
                    first[name] += 1 / len(legal)  # a policy that knows nothing: chance
                game.apply_action(int(legal[0]))
    assert first["after"] > 2 * first["before"], first  # measured: 129 against 51 by chance
