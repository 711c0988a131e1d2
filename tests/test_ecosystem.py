"""The environment under other RL libraries' own wrappers."""

from __future__ import annotations

import torch
from torchrl.envs import PettingZooWrapper
from torchrl.envs.utils import check_env_specs

import tranquility_env


def test_torchrl_pettingzoo_wrapper_with_masks_rolls_out() -> None:
    env = PettingZooWrapper(env=tranquility_env.env(players=3, goats=True), use_mask=True, categorical_actions=True,
                            return_state=True, seed=0)  # fmt: skip
    check_env_specs(env)
    td = env.reset()
    games, steps = 0, 0
    generator = torch.Generator().manual_seed(0)
    for _ in range(400):
        for group in env.group_map:
            legal = td[group]["action_mask"].reshape(-1, td[group]["action_mask"].shape[-1])
            weights = legal.float()
            weights[weights.sum(-1) == 0, 0] = 1.0  # seats not acting: any action, the wrapper ignores it
            choice = torch.multinomial(weights, 1, generator=generator)
            td[group]["action"] = choice.reshape(td[group]["action_mask"].shape[:-1])
        td = env.step(td)["next"]
        steps += 1
        assert td["state"].shape[-1] == tranquility_env.encoding.STATE_SIZE
        if td["done"].any():
            games += 1
            td = env.reset()
    assert steps == 400 and games >= 2  # random games last about 53 decisions


def test_rllib_trains_one_iteration_and_exports_a_bot(tmp_path, monkeypatch) -> None:
    from training import rllib_train
    from tranquility_env import Config, Game
    from tranquility_env.arena import play_until
    from tranquility_env.bots import PolicyBot

    monkeypatch.chdir(tmp_path)
    rllib_train.main(["--num-env-runners", "0", "players=2", "total_steps=200", "train_batch_size=200",
                      "minibatch_size=100", "num_epochs=1", "hidden=[16]", "final_eval_games=2", "run=r"])  # fmt: skip
    bot = PolicyBot.load(str(tmp_path / "checkpoints" / "r" / "final"))
    assert bot.about["trainer"] == "Ray RLlib PPO" and bot.config == Config(players=2)
    game = Game.new({"players": 2}, 0)
    play_until(game, [bot, bot])
    assert game.status in ("won", "lost")
