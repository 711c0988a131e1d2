"""``tranquility expert-iteration``: the expert plays, the apprentice learns, iteration by iteration."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("yaml")

from tranquility_env import Config, bots
from tranquility_env.bots import PolicyBot
from tranquility_env.bots.heuristic import PLAYER_DEFAULTS
from tranquility_env.rules import actions

SMALL = ["games=3", "valid_games=1", "candidates=2", "rollouts=2", "eval_games=2", "workers=1", "epochs=1"]


def test_each_iteration_labels_every_decision_fits_records_and_a_resumed_run_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from tranquility_env.training import expert_iteration

    monkeypatch.chdir(tmp_path)
    monkeypatch.setitem(PLAYER_DEFAULTS["rollouts"], 2, 2)  # a cheap end-game search; workers=1: in this process
    overrides = ["run=x", "players=2", *SMALL]
    expert_iteration.main([*overrides, "iterations=1"])
    printed = capsys.readouterr().out
    assert "iteration 0: the expert won" in printed
    lines = [json.loads(line) for line in Path("checkpoints/x/iterations.jsonl").read_text().splitlines()]
    assert [line["iteration"] for line in lines] == [0] and lines[0]["eval_games"] == 2
    assert 0 <= lines[0]["apprentice_win_rate"] <= 1 and 0 < lines[0]["agreement_before_fit"] <= 1
    final, first = PolicyBot.load("checkpoints/x/final"), PolicyBot.load("checkpoints/x/iter_0")
    assert (
        final.about["weights_sha256"]
        == first.about["weights_sha256"]
        != PolicyBot.load(bots.shipped_bot(2)).about["weights_sha256"]
    )
    assert final.config == Config(players=2) and "expert iteration 0" in final.about["trainer"]
    with np.load("runs/x/iter_0/decisions.npz") as data:
        masks = np.unpackbits(data["masks"], axis=1, count=actions.N_ACTIONS).astype(bool)
        assert masks[np.arange(len(masks)), data["chosen"]].all() and masks.sum(1).min() > 1
        assert data["searched"].all()  # the expert searches at every decision, not only the end game
        assert (data["candidates"][:, :2] >= 0).all() and len(data["won"]) == len(data["cards"]) == 3

    expert_iteration.main([*overrides, "iterations=2", "--resume"])  # goes on: iteration 1 only
    printed = capsys.readouterr().out
    assert "iteration 0:" not in printed and "iteration 1: the expert won" in printed
    again = [json.loads(line) for line in Path("checkpoints/x/iterations.jsonl").read_text().splitlines()]
    assert again[0] == lines[0] and again[1]["iteration"] == 1
    with np.load("runs/x/iter_1/decisions.npz") as data:  # the expert of iteration 1 played iteration 0's bot
        assert json.loads(str(data["meta"]))["policy"] == first.about["weights_sha256"]
    assert (
        PolicyBot.load("checkpoints/x/final").about["weights_sha256"]
        == PolicyBot.load("checkpoints/x/iter_1").about["weights_sha256"]
    )
    with pytest.raises(SystemExit):
        expert_iteration.main([*overrides, "iterations=3", "margin=1.0", "--resume"])
    assert "differs from the run's" in capsys.readouterr().err and not Path("checkpoints/x/iter_2").exists()


def test_a_table_without_a_shipped_bot_starts_from_a_fresh_network(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tranquility_env.training import expert_iteration

    monkeypatch.chdir(tmp_path)
    monkeypatch.setitem(PLAYER_DEFAULTS["rollouts"], 1, 1)
    expert_iteration.main(["players=1", "goats=true", "hidden=[16]", "iterations=1", *SMALL])
    start, final = PolicyBot.load("checkpoints/p1_exit/start"), PolicyBot.load("checkpoints/p1_exit/final")
    assert final.config == start.config == Config(players=1, goats=True) and final.about["hidden"] == [16]
    assert final.about["weights_sha256"] != start.about["weights_sha256"]


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ({"margin": -1.0}, "margin >= 0"),
        ({"candidates": 1}, "candidates >= 2"),
        ({"rollouts": 0}, "'rollouts' must be at least 1"),
        ({"valid_games": 3, "games": 3}, "'valid_games' must be at least 1 and below"),
        ({"init_actor": "no/such/folder"}, "not a bot checkpoint"),
        ({"activation": "sigmoid"}, "'activation' must be one of"),
        ({"players": 3, "init_actor": bots.shipped_bot(2)}, "was made for .* not this run's table"),
        ({"iterations": "many"}, "'iterations' must be int"),
        ({"labels": "some"}, "'labels' must be one of"),
    ],
)
def test_expert_iteration_refuses_wrong_settings(override: dict, message: str) -> None:
    from tranquility_env.training.expert_iteration import ExpertIterationConfig

    with pytest.raises(ValueError, match=message):
        ExpertIterationConfig.make(**override)


def test_departures_label_only_the_decisions_where_the_expert_left_the_policys_move() -> None:
    from tranquility_env.training.expert_iteration import labelled

    data = {"chosen": np.array([5, 7, 9]), "candidates": np.array([[5, 7, -1], [5, 7, -1], [9, -1, -1]])}
    assert labelled(data, "all").tolist() == [True, True, True]
    assert labelled(data, "departures").tolist() == [False, True, False]
