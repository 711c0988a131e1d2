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
    rllib_train.main(
        [
            "--num-env-runners",
            "0",
            "players=2",
            "total_steps=200",
            "train_batch_size=200",
            "minibatch_size=100",
            "num_epochs=1",
            "hidden=[16]",
            "final_eval_games=2",
            "run=r",
        ]
    )
    bot = PolicyBot.load(str(tmp_path / "checkpoints" / "r" / "final"))
    assert bot.about["trainer"] == "Ray RLlib PPO" and bot.config == Config(players=2)
    game = Game.new({"players": 2}, 0)
    play_until(game, [bot, bot])
    assert game.status in ("won", "lost")
