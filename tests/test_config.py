"""Config: defaults by player count, validation, unknown keys."""

from __future__ import annotations

import dataclasses

import pytest

from tranquility_env import Config, Game


def test_defaults_follow_the_spec() -> None:
    assert Config(players=1).to_dict() == {
        "players": 1,
        "hand_size": 6,
        "bridges": 5,
        "campfires_per_colour": 1,
        "ropes": 3,
        "campfire_move_pays": True,
        "green_path": False,
        "panoramas": 0,
        "goats": False,
        "goats_needed": 8,
    }
    assert Config(players=4).hand_size == 5 and Config(players=4).ropes == 0


def test_unknown_key_names_the_key_and_the_allowed_ones() -> None:
    with pytest.raises(ValueError, match=r"unknown config key 'player'.*players, hand_size"):
        Config.from_dict({"player": 3})
    with pytest.raises(ValueError, match="unknown config key 'modules'"):
        Game.new({"players": 3, "modules": []}, 0)


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("players", 0),
        ("players", 6),
        ("players", "3"),
        ("players", True),
        ("panoramas", 6),
        ("ropes", -1),
        ("hand_size", 1),
        ("goats", 1),
        ("green_path", "yes"),
        ("goats_needed", 13),
        ("bridges", 1.5),
    ],
)
def test_bad_values_are_refused_naming_the_key(key: str, value: object) -> None:
    base = {"players": 1} if key == "ropes" else {}
    with pytest.raises(ValueError, match=f"'{key}'"):
        Config.from_dict({**base, key: value})


def test_too_few_bridges_for_the_deal() -> None:
    with pytest.raises(ValueError, match="U2"):
        Config(players=4, bridges=1)


def test_config_is_frozen_and_game_new_takes_dict_or_config() -> None:
    c = Config(players=2)
    with pytest.raises(dataclasses.FrozenInstanceError):
        c.players = 3  # type: ignore[misc]
    assert Game.new(c, 5).to_dict() == Game.new({"players": 2}, 5).to_dict()
    with pytest.raises(ValueError, match="seed"):
        Game.new(c, "5")  # type: ignore[arg-type]


def test_configs_are_equal_when_they_make_the_same_table() -> None:
    """A module's parameters count only while the module is on."""
    assert Config(goats_needed=6) == Config() and hash(Config(goats_needed=6)) == hash(Config())
    assert Config(goats=True, goats_needed=6) != Config(goats=True)
    assert Config(campfires_per_colour=0, campfire_move_pays=False) == Config(campfires_per_colour=0)
    assert Config(campfire_move_pays=False) != Config()
    assert Config(hand_size=4) != Config() and Config(players=2) != Config()
    assert Config(goats_needed=6).to_dict()["goats_needed"] == 6  # the value itself is kept


def test_equal_configs_make_the_same_observations_and_games() -> None:
    """A disabled module's parameter is observed and played at its default, whichever config the
    observation's cache met first; a state keeps every field, so loading one checks them all."""
    pytest.importorskip("numba")
    import numpy as np

    from tranquility_env import Game, encoding
    from tranquility_env.batch import GameBatch

    odd, usual = (
        Config(goats_needed=3, campfires_per_colour=0, campfire_move_pays=False),
        Config(campfires_per_colour=0),
    )
    assert odd.canonical() == usual.canonical() and odd.canonical().to_dict() == usual.to_dict()
    for first, second in ((odd, usual), (usual, odd)):
        seen = [encoding.observation(Game.new(c, 5), 0) for c in (first, second)]
        assert seen[0].tobytes() == seen[1].tobytes()
    batch = GameBatch(odd, 1)
    batch.reset_many(np.arange(1), [5])
    assert batch.observations()[0].tobytes() == encoding.observation(Game.new(odd, 5), 0).tobytes()
    with pytest.raises(ValueError):
        GameBatch(usual, 1).load(0, Game.new(odd, 5))  # equal tables, but the state would lose a field


def test_the_schema_describes_every_field_for_a_form() -> None:
    schema = Config.schema()
    assert [f["name"] for f in schema] == list(Config.fields())
    for field in schema:
        kind, lo, hi = Config.bounds(field["name"])
        assert (field["type"], field["min"], field["max"]) == (kind.__name__, lo, hi) and field["help"]
    assert {f["name"]: f["default"] for f in schema}["hand_size"] is None  # it follows the player count
