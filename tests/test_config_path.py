"""One config path: every field of ``Config`` reaches the engine through every command that plays
(the trainers' ``key=value`` and YAML ``config:``, ``evaluate``, ``play``, ``serve`` and
``benchmark``'s ``--set`` / ``--custom``). The tables below set every field off its default; a
field added to ``Config`` fails ``test_the_tables_set_every_field`` until it is set here too."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tranquility_env import Config

# A solo table (ropes exist only in solo) and a table of several players: between them every field.
TABLES = [
    {"players": 1, "hand_size": 4, "bridges": 3, "campfires_per_colour": 2, "ropes": 5, "panoramas": 2},
    {
        "players": 2,
        "hand_size": 6,
        "bridges": 7,
        "campfires_per_colour": 3,
        "campfire_move_pays": False,
        "green_path": True,
        "goats": True,
        "goats_needed": 6,
    },
]
IDS = ["solo", "p2"]


def set_args(table: dict[str, Any], flag: str = "--set") -> list[str]:
    return [part for key, value in table.items() for part in (flag, f"{key}={str(value).lower()}")]


def same_table(config: Config | dict, table: dict[str, Any]) -> None:
    config = config if isinstance(config, Config) else Config.from_dict(config)
    assert config.to_dict() == Config.from_dict(table).to_dict()


def test_the_tables_set_every_field() -> None:
    off_default = {
        key
        for table in TABLES
        for key, value in table.items()
        if value != getattr(Config(players=table["players"]), key)
    }
    assert off_default | {"players"} == set(Config.fields())


@pytest.mark.parametrize("table", TABLES, ids=IDS)
def test_the_trainers_take_every_field_as_key_value_or_a_yaml_mapping(table: dict, tmp_path: Path) -> None:
    pytest.importorskip("torch")
    from tranquility_env.envs.sb3 import TeamVecEnv
    from tranquility_env.training import train
    from tranquility_env.training.common import load_config
    from tranquility_env.training.mappo import IppoConfig, MappoConfig

    overrides = [f"{key}={str(value).lower()}" for key, value in table.items()]
    for cls in (train.TrainConfig, MappoConfig, IppoConfig):
        same_table(load_config(cls, None, overrides).config, table)
        same_table(cls.make(config=Config.from_dict(table)).config, table)  # a Config as it is
    path = tmp_path / "run.yaml"
    path.write_text(yaml.safe_dump({"config": table, "seed": 3}))
    cfg = load_config(train.TrainConfig, str(path), ["n_envs=2"])
    same_table(cfg.config, table)
    envs = train.make_envs(cfg)  # the engine the trainer steps
    assert isinstance(envs, TeamVecEnv)
    same_table(envs.games.batch.game(0).config, table)
    envs.close()
    with pytest.raises(
        ValueError, match=r"unknown train config key 'hand_sizes'; .* the game's fields players, hand_size"
    ):
        load_config(train.TrainConfig, None, ["hand_sizes=4"])
    path.write_text(yaml.safe_dump({"config": {"hand_sizes": 4}}))
    with pytest.raises(ValueError, match=r"train config 'config': unknown config key 'hand_sizes'"):
        load_config(train.TrainConfig, str(path), [])


@pytest.mark.parametrize("table", TABLES, ids=IDS)
def test_evaluate_plays_every_field(table: dict, tmp_path: Path) -> None:
    from tranquility_env.training import evaluate

    args = ["--players", str(table["players"]), *set_args(table), "--team", "random", "--games", "2"]
    evaluate.main([*args, "--workers", "1", "--out", str(tmp_path), "--save-replays", str(tmp_path / "r")])
    (path,) = tmp_path.glob("*.json")
    same_table(json.loads(path.read_text())["config"], table)
    assert path.name.startswith(f"evaluation_p{table['players']}_hand_size{table['hand_size']}")  # not the base game's
    for replay in (tmp_path / "r").glob("*.jsonl"):  # the games themselves were of that table
        same_table(json.loads(replay.read_text().splitlines()[0])["config"], table)


@pytest.mark.parametrize("table", TABLES, ids=IDS)
def test_play_at_the_terminal_takes_every_field(table: dict, tmp_path: Path) -> None:
    pexpect = pytest.importorskip("pexpect")
    command = str(Path(sys.executable).parent / "tranquility")
    args = ["play", "--players", str(table["players"]), *set_args(table), "--bots", "random", "--delay", "0"]
    child = pexpect.spawn(command, [*args, "--no-color"], cwd=str(tmp_path), env={**os.environ, "TERM": "dumb"})
    child.expect(r"Your move", timeout=60)
    child.sendline("q")
    child.expect(r"Really quit")
    child.sendline("y")
    child.expect(pexpect.EOF, timeout=60)
    (replay,) = (tmp_path / "replays").glob("*.jsonl")
    same_table(json.loads(replay.read_text().splitlines()[0])["config"], table)


@pytest.mark.parametrize("table", TABLES, ids=IDS)
def test_serve_deals_every_field_from_its_options_or_a_request(table: dict, tmp_path: Path) -> None:
    pytest.importorskip("starlette")
    from tranquility_env.table_args import table_fields
    from tranquility_env.web import app as web

    from web_client import browser

    parser_table = table_fields(_serve_args([*set_args(table), "--players", str(table["players"])]))
    for client, body in (
        (browser(web.create_app(tmp_path / "a", table=parser_table, pace=0)), {}),  # the server's table
        (browser(web.create_app(tmp_path / "b", pace=0)), table),  # a request's
    ):
        bots = ["random"] * (table["players"] - 1) or ["random"]
        state = client.post("/api/games", json={**body, "bots": bots})
        assert state.status_code == 200, state.json()
        same_table(state.json()["view"]["config"], table)


def _serve_args(argv: list[str]) -> Any:
    import argparse

    from tranquility_env.table_args import add_table_arguments

    parser = argparse.ArgumentParser()
    add_table_arguments(parser)
    return parser.parse_args(argv)


def test_benchmark_runs_a_custom_table_labelled_custom(tmp_path: Path) -> None:
    from tranquility_env.training import benchmark

    table = TABLES[1]
    quick = ["--algorithms", "random", "--seeds", "1", "--games", "2", "--teamwork-games", "0", "--workers", "1"]
    benchmark.main([*quick, *set_args(table, "--custom"), "--out", str(tmp_path)])
    (result,) = [json.loads(p.read_text()) for p in tmp_path.rglob("result.json")]
    assert result["task"] == "custom"
    same_table(result["config"], table)
    pinned = json.loads((tmp_path / "protocol.json").read_text())["tasks"]["custom"]
    same_table(pinned[-1], table)
    with pytest.raises(SystemExit):  # the same run directory for another custom table is refused
        benchmark.main([*quick, "--custom", "players=3", "--out", str(tmp_path)])


def test_a_disabled_modules_parameter_keeps_the_shipped_bot_and_its_warm_start() -> None:
    """A table equal to the base game (goats_needed without goats) plays the shipped bot and may
    start MAPPO from it: the observation sees the same table."""
    pytest.importorskip("torch")
    from tranquility_env import bots, checkpoint
    from tranquility_env.training.mappo import MappoConfig

    start = bots.shipped_bot(3)
    about = checkpoint.load(start)[0]
    cfg = MappoConfig.make(
        players=3, goats_needed=3, init_actor=str(start), hidden=about["hidden"], activation=about["activation"]
    )
    assert cfg.config == Config(players=3) and bots.make_bot("policy", table=cfg.config) is not None
