"""``tranquility rllib``: Ray RLlib PPO on the AEC env (the ``rllib`` extra)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("ray.rllib")

from tranquility_env import Config, Game
from tranquility_env.arena import play_until
from tranquility_env.bots import PolicyBot


def test_rllib_trains_one_iteration_and_exports_a_bot(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tranquility_env.training import rllib_train

    monkeypatch.chdir(tmp_path)
    settings = [
        "--num-env-runners",
        "0",
        "players=2",
        "total_steps=200",
        "train_batch_size=200",
        "minibatch_size=100",
        "num_epochs=1",
        "hidden=[16]",
        "final_eval_games=2",
        "checkpoint_every=200",
        "eval_every=200",
        "eval_games=2",
        "run=r",
    ]
    rllib_train.main(settings)
    bot = PolicyBot.load(str(tmp_path / "checkpoints" / "r" / "final"))
    assert bot.about["trainer"] == "Ray RLlib PPO" and bot.config == Config(players=2)

    # the charts of every trainer, and a killed run resumed from its last checkpoint
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    charts = EventAccumulator(str(tmp_path / "runs" / "r"))
    charts.Reload()
    assert {"charts/win_rate", "charts/cards_on_mountain", "charts/episode_length", "charts/SPS"} <= set(
        charts.Tags()["scalars"]
    )
    first = charts.Scalars("charts/SPS")[-1].step
    rllib_train.main(["--num-env-runners", "0", *settings[2:-1], "total_steps=400", "run=r", "--resume"])
    charts.Reload()
    assert charts.Scalars("charts/SPS")[-1].step > first >= 200
    assert PolicyBot.load(str(tmp_path / "checkpoints" / "r" / "final")).about["steps"] > first
    game = Game.new({"players": 2}, 0)
    play_until(game, [bot, bot])
    assert game.status in ("won", "lost")


def test_rllib_ppo_is_a_benchmark_row(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The benchmark's RLlib row trains on a task's table and its bot plays the task's deals (a
    smaller batch and network than the row's own, to keep the test short)."""
    import dataclasses

    from tranquility_env.training import benchmark

    row = benchmark.ALGORITHMS["rllib-ppo"]
    small = {"train_batch_size": 200, "minibatch_size": 100, "num_epochs": 1, "hidden": [16]}
    fast = dataclasses.replace(row, train=benchmark.trainer("rllib_train", "RllibConfig", num_env_runners=0, **small))
    monkeypatch.setitem(benchmark.ALGORITHMS, "rllib-ppo", fast)
    rows = benchmark.run(["p2-v1"], ["rllib-ppo"], seeds=1, scale=0.0002, games=2, out=tmp_path, workers=1)
    cell = (tmp_path / "p2-v1" / "rllib-ppo" / "seed_0" / "result.json").read_text()
    assert rows[0]["algorithm"] == "rllib-ppo" and '"bot": "policy:' in cell
