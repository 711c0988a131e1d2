"""The AEC env under TorchRL's own PettingZoo wrapper (the ``ecosystem`` extra)."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
torchrl_envs = pytest.importorskip("torchrl.envs")

import tranquility_env
from tranquility_env import encoding


def test_torchrl_pettingzoo_wrapper_with_masks_rolls_out_whole_games() -> None:
    from torchrl.envs.utils import check_env_specs

    env = torchrl_envs.PettingZooWrapper(
        env=tranquility_env.env(players=3, goats=True),
        use_mask=True,
        categorical_actions=True,
        return_state=True,
        seed=0,
    )
    check_env_specs(env)
    td = env.reset()
    games, steps = 0, 0
    generator = torch.Generator().manual_seed(0)
    while games < 2 and steps < 1000:  # random games last about 53 decisions
        for group in env.group_map:
            legal = td[group]["action_mask"].reshape(-1, td[group]["action_mask"].shape[-1])
            weights = legal.float()
            weights[weights.sum(-1) == 0, 0] = 1.0  # seats not acting: any action, the wrapper ignores it
            choice = torch.multinomial(weights, 1, generator=generator)
            td[group]["action"] = choice.reshape(td[group]["action_mask"].shape[:-1])
        td = env.step(td)["next"]
        steps += 1
        assert td["state"].shape[-1] == encoding.STATE_SIZE
        if td["done"].any():
            games += 1
            td = env.reset()
    assert games == 2, f"two random games did not end in {steps} steps"
