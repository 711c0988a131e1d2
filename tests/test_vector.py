"""The vector envs on the batched engine against the one-game path: gymnasium's ``SyncVectorEnv``
and SB3's ``DummyVecEnv`` over ``TeamEnv`` copies, same seeds, same actions, same everything."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium")
pytest.importorskip("numba")

from gymnasium.vector import AutoresetMode, SyncVectorEnv

import tranquility_env
from tranquility_env import TeamEnv
from tranquility_env.envs.registration import TEAM_ID
from tranquility_env.envs.vector import TeamVectorEnv
from tranquility_env.rules import actions
from tranquility_env.rules.game import IllegalMove


class LowestLegalBot:
    """Deterministic, so that one bot shared by every game decides alike in any order."""

    def act(self, observation: np.ndarray, action_mask: np.ndarray, view: Any) -> int:
        return int(np.flatnonzero(action_mask)[0])


def assert_equal(a: Any, b: Any, where: str = "") -> None:
    """Recursive equality of env outputs: dicts, lists, arrays (dtype and values), object arrays."""
    if isinstance(a, dict):
        assert isinstance(b, dict) and sorted(a) == sorted(b), f"{where}: keys {sorted(a)} != {sorted(b)}"
        for key in a:
            assert_equal(a[key], b[key], f"{where}/{key}")
    elif isinstance(a, list):
        assert isinstance(b, list) and len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            assert_equal(x, y, f"{where}[{i}]")
    elif isinstance(a, np.ndarray) and a.dtype == object:
        assert isinstance(b, np.ndarray) and b.dtype == object and a.shape == b.shape, where
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            assert_equal(x, y, f"{where}[{i}]")
    elif isinstance(a, np.ndarray):
        assert np.asarray(b).dtype == a.dtype, f"{where}: dtype {a.dtype} != {np.asarray(b).dtype}"
        assert np.array_equal(a, b), f"{where}: {a} != {b}"
    else:
        assert a == b, f"{where}: {a!r} != {b!r}"


def choose(masks: np.ndarray, rng: random.Random, illegal: float) -> np.ndarray:
    """A random legal action per game, now and then an illegal one (or one that is no id)."""
    ids = [rng.choice(np.flatnonzero(m).tolist()) for m in masks]
    for i in range(len(ids)):
        if rng.random() < illegal:
            ids[i] = rng.choice([actions.N_ACTIONS + 5, int(np.flatnonzero(masks[i] == 0)[0])])
    return np.array(ids)


OPTIONS = [
    {"players": 3},
    {"players": 3, "reward_shaping": 0.5, "illegal_action": "lose", "illegal_reward": -2.0},
    {"players": 1, "goats": True, "panoramas": 2},
    {"players": 4, "green_path": True, "illegal_action": "lose"},
]


@pytest.mark.parametrize("kwargs", OPTIONS, ids=lambda k: "-".join(f"{a}={b}" for a, b in k.items()))
@pytest.mark.parametrize("with_bot", [False, True], ids=["no-bot", "bot-seat-1"])
def test_make_vec_is_sync_vector_env_over_team_env(kwargs: dict, with_bot: bool) -> None:
    if with_bot and kwargs["players"] == 1:
        pytest.skip("solo has no teammate seat")
    teammates = {1: LowestLegalBot()} if with_bot else None
    n = 4
    vec = gymnasium.make_vec(TEAM_ID, num_envs=n, teammates=teammates, **kwargs)
    assert isinstance(vec, TeamVectorEnv) and vec.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    ref = SyncVectorEnv(
        [lambda: TeamEnv(teammates=teammates, **kwargs) for _ in range(n)], autoreset_mode=AutoresetMode.SAME_STEP
    )
    assert vec.single_observation_space == ref.single_observation_space
    assert vec.observation_space == ref.observation_space and vec.action_space == ref.action_space
    for got, want in zip(vec.reset(seed=11), ref.reset(seed=11), strict=True):
        assert_equal(got, want, "reset")
    rng = random.Random(3)
    illegal = 0.02 if kwargs.get("illegal_action") == "lose" else 0.0
    finished = 0
    for step in range(700):
        ids = choose(vec.action_masks(), rng, illegal)
        assert np.array_equal(vec.action_masks(), np.stack([e.action_masks() for e in ref.envs]))
        got, want = vec.step(ids), ref.step(ids)
        for name, x, y in zip(("obs", "reward", "terminated", "truncated", "infos"), got, want, strict=True):
            assert_equal(x, y, f"step {step} {name}")
        finished += int(got[2].sum())
    assert finished >= n  # later episodes, seeded from the first reset, agree too


def test_reset_seeds_follow_gymnasium() -> None:
    """Slot i of ``reset(seed=s)`` is ``Game.new(config, s + i)``; a list seeds each slot."""
    vec = TeamVectorEnv(num_envs=3, players=2)
    vec.reset(seed=40)
    for i in range(3):
        assert vec.games.batch.game(i).to_dict() == tranquility_env.Game.new({"players": 2}, 40 + i).to_dict()
    vec.reset(seed=[5, None, 9])
    assert vec.games.batch.game(2).to_dict() == tranquility_env.Game.new({"players": 2}, 9).to_dict()
    with pytest.raises(ValueError, match="reset got 2 seeds for 3 envs"):
        vec.reset(seed=[1, 2])


def test_bad_requests_are_refused_and_change_nothing() -> None:
    vec = TeamVectorEnv(num_envs=2, players=3)
    with pytest.raises(RuntimeError, match="before reset"):
        vec.step(np.zeros(2, dtype=np.int64))
    _obs, _ = vec.reset(seed=0)
    rows = vec.games.batch.rows.copy()
    legal = np.array([np.flatnonzero(m)[0] for m in vec.action_masks()])
    for bad, words in [
        (legal[:1], r"shape \(2,\)"),
        (legal.astype(float), "integer ids"),
        (np.array([legal[0], 9999]), "slot 1: action 9999 is not an action id"),
        (np.array([legal[0], actions.from_string("play G12 r8c1", False)]), "slot 1: illegal move 'play G12 r8c1'"),
    ]:
        with pytest.raises(IllegalMove, match=words):
            vec.step(bad)
        assert np.array_equal(vec.games.batch.rows, rows)
    with pytest.raises(ValueError, match="no options"):
        vec.reset(options={"state": {}})
    for kwargs, words in [
        ({"num_envs": 0}, "num_games must be a positive integer"),
        ({"threads": 99}, "threads must be an integer from 1"),
        ({"colour": 3}, "unknown env option 'colour'"),
        ({"render_mode": "ansi"}, "does not render"),
        ({"teammates": {0: LowestLegalBot(), 1: LowestLegalBot(), 2: LowestLegalBot()}}, "every seat"),
        ({"teammates": {5: LowestLegalBot()}}, "teammate seat 5"),
    ]:
        with pytest.raises(ValueError, match=words):
            TeamVectorEnv(**{"num_envs": 2, "players": 3, **kwargs})


def test_policy_bot_seats_decide_in_one_batched_pass(tmp_path) -> None:
    from tranquility_env import Config
    from tranquility_env.bots.policy import PolicyBot

    from tiny_bots import tiny_checkpoint

    bot = PolicyBot.load(str(tiny_checkpoint(tmp_path / "bot", Config(players=3))))
    calls = []
    choose_each = bot.choose_each
    bot.choose_each = lambda obs, legal: calls.append(len(legal)) or choose_each(obs, legal)
    vec = TeamVectorEnv(num_envs=8, players=3, teammates={1: bot, 2: bot})
    _, infos = vec.reset(seed=0)
    assert (infos["seat"] == 0).all()
    for _ in range(50):
        _obs, *_ = vec.step([np.flatnonzero(m)[-1] for m in vec.action_masks()])
        assert (vec.games.batch.current == 0).all()
    assert max(calls) > 1  # several games in one call


@pytest.mark.parametrize("table", [{}, {"panoramas": 3}])  # with objectives the search starts earlier
def test_heuristic_seats_decide_in_compiled_code_until_they_search(
    table: dict, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``HeuristicBot`` seats: the compiled value model where the bot does not search, its own
    search game by game where it does; the envs equal ``TeamEnv`` copies throughout."""
    from tranquility_env.batch import value_model
    from tranquility_env.bots import HeuristicBot

    bot = HeuristicBot(seed=3, rollouts=2, search_from=28, objective_search_from=20)
    compiled = []
    choices = value_model.choices
    monkeypatch.setattr(value_model, "choices", lambda b, h, g: compiled.append(len(g)) or choices(b, h, g))
    n, kwargs = 3, {"players": 3, **table, "teammates": {1: bot, 2: bot}}
    vec = gymnasium.make_vec(TEAM_ID, num_envs=n, **kwargs)
    ref = SyncVectorEnv([lambda: TeamEnv(**kwargs) for _ in range(n)], autoreset_mode=AutoresetMode.SAME_STEP)
    searched = []
    bot_search = bot.search
    monkeypatch.setattr(bot, "search", lambda *a: searched.append(a) or bot_search(*a))
    for got, want in zip(vec.reset(seed=5), ref.reset(seed=5), strict=True):
        assert_equal(got, want, "reset")
    rng, finished = random.Random(4), 0
    for step in range(120):
        ids = choose(vec.action_masks(), rng, 0.0)
        got, want = vec.step(ids), ref.step(ids)
        for name, x, y in zip(("obs", "reward", "terminated", "truncated", "infos"), got, want, strict=True):
            assert_equal(x, y, f"step {step} {name}")
        finished += int(got[2].sum())
    assert finished >= 1 and sum(compiled) > 100 and searched


# ---------------------------------------------------------------------- SB3
def test_sb3_vec_env_is_dummy_vec_env_over_team_env() -> None:
    pytest.importorskip("stable_baselines3")
    from stable_baselines3.common.vec_env import DummyVecEnv

    from tranquility_env.envs.sb3 import TeamVecEnv

    kwargs = {"players": 3, "reward_shaping": 0.25, "illegal_action": "lose"}
    n = 3
    vec = TeamVecEnv(num_envs=n, teammates={2: LowestLegalBot()}, **kwargs)
    ref = DummyVecEnv([lambda: TeamEnv(teammates={2: LowestLegalBot()}, **kwargs) for _ in range(n)])
    vec.seed(21)
    ref.seed(21)
    assert_equal(vec.reset(), ref.reset(), "reset")
    assert_equal(vec.reset_infos, ref.reset_infos, "reset infos")
    rng = random.Random(0)
    dones = 0
    for step in range(600):
        masks = np.stack(vec.env_method("action_masks"))
        assert np.array_equal(masks, np.stack(ref.env_method("action_masks")))
        ids = choose(masks, rng, 0.01)
        got, want = vec.step(ids), ref.step(ids)
        for name, x, y in zip(("obs", "rewards", "dones"), got[:3], want[:3], strict=True):
            assert_equal(x, y, f"step {step} {name}")
        for i in range(n):
            assert_equal(got[3][i], want[3][i], f"step {step} info {i}")
        dones += int(got[2].sum())
    assert dones >= n


def test_maskable_ppo_trains_on_the_sb3_vec_env() -> None:
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import VecCheckNan, VecMonitor

    from tranquility_env.envs.sb3 import TeamVecEnv

    env = VecCheckNan(VecMonitor(TeamVecEnv(num_envs=8, players=2)), raise_exception=True)
    model = MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=64, n_epochs=1, seed=0, device="cpu")
    model.learn(total_timesteps=512)
    assert model.num_timesteps >= 512


def test_the_one_game_engine_gives_the_same_envs() -> None:
    """``engine="game"`` (plain Game objects, the benchmark's reference) steps the same games."""
    kwargs = {"num_envs": 3, "players": 3, "reward_shaping": 1.0, "illegal_action": "lose"}
    fast, slow = TeamVectorEnv(**kwargs), TeamVectorEnv(engine="game", **kwargs)
    for got, want in zip(fast.reset(seed=2), slow.reset(seed=2), strict=True):
        assert_equal(got, want, "reset")
    rng = random.Random(1)
    for step in range(300):
        ids = choose(fast.action_masks(), rng, 0.02)
        for name, x, y in zip(
            ("obs", "reward", "terminated", "truncated", "infos"), fast.step(ids), slow.step(ids), strict=True
        ):
            assert_equal(x, y, f"step {step} {name}")
    with pytest.raises(ValueError, match="engine must be one of"):
        TeamVectorEnv(engine="gpu", players=3)
