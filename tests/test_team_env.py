"""TeamEnv: the single-agent team view for stable-baselines3."""

from __future__ import annotations

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium")
pytest.importorskip("pettingzoo")
pytest.importorskip("stable_baselines3")
pytest.importorskip("sb3_contrib")

from gymnasium.utils.env_checker import check_env as gymnasium_check_env

from tranquility_env import TeamEnv, encoding
from tranquility_env.bots import RandomBot


@pytest.mark.parametrize("config", [{"players": 1}, {"players": 3}, {"players": 5, "goats": True, "panoramas": 2}])
def test_passes_gymnasium_and_sb3_check_env(config: dict) -> None:
    from stable_baselines3.common.env_checker import check_env as sb3_check_env

    # The checkers step with unmasked random actions: that is what illegal_action="lose" is for.
    gymnasium_check_env(TeamEnv(illegal_action="lose", **config), skip_render_check=True)
    teammates = {0: RandomBot(1)} if config["players"] > 1 else None
    sb3_check_env(TeamEnv(teammates=teammates, illegal_action="lose", **config))


def test_registered_with_gymnasium_make() -> None:
    env = gymnasium.make("tranquility_env/TeamAscent-v1", players=2)
    obs, info = env.reset(seed=0)
    assert obs.shape == (encoding.OBSERVATION_SIZE,) and info["seat"] == 0


def test_policy_decides_only_for_seats_without_a_teammate() -> None:
    env = TeamEnv(teammates={1: RandomBot(0), 3: RandomBot(1)}, players=4)
    rng = np.random.default_rng(0)
    for seed in range(5):
        obs, info = env.reset(seed=seed)
        done = False
        while not done:
            assert info["seat"] in (0, 2)
            assert np.array_equal(env.action_masks(), info["action_mask"].astype(bool))
            assert sorted(np.flatnonzero(env.action_masks())) == env.game.legal_actions()
            assert obs.tobytes() == encoding.observation(env.game, info["seat"]).tobytes()
            obs, reward, done, truncated, info = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
            assert not truncated and reward in (0.0, 1.0)
        assert env.game.status in ("won", "lost")
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)


def test_bad_teammates_and_illegal_actions() -> None:
    with pytest.raises(ValueError, match="seat 3"):
        TeamEnv(teammates={3: RandomBot()}, players=3)
    with pytest.raises(ValueError, match="act"):
        TeamEnv(teammates={1: object()}, players=3)
    with pytest.raises(ValueError, match="every seat"):
        TeamEnv(teammates={0: RandomBot()}, players=1)
    env = TeamEnv(players=2)
    env.reset(seed=0)
    with pytest.raises(ValueError, match="illegal move"):
        env.step(3961)  # stop
    env = TeamEnv(players=2, illegal_action="lose")
    env.reset(seed=0)
    _, reward, done, _, info = env.step(3961)
    assert done and reward == -1.0 and "illegal_move" in info


def test_maskable_ppo_trains_on_it_directly() -> None:
    from sb3_contrib import MaskablePPO

    model = MaskablePPO(
        "MlpPolicy", TeamEnv(players=3), n_steps=64, batch_size=32, n_epochs=1, seed=0, policy_kwargs={"net_arch": [32]}
    )
    model.learn(128)
    env = TeamEnv(players=3)
    obs, _ = env.reset(seed=1)
    action, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
    assert env.action_masks()[int(action)]
