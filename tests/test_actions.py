"""The fixed integer action layout: one id per N2 move, the same in every config."""

from __future__ import annotations

import pytest

from tranquility_env import Game
from tranquility_env.rules import actions
from tranquility_env.rules.cards import HAS_GOAT, N_ASCENT


def test_every_id_round_trips_through_its_string() -> None:
    strings = [actions.to_string(a, goats=True) for a in range(actions.N_ACTIONS)]
    assert len(set(strings)) == actions.N_ACTIONS
    assert all(actions.from_string(s, goats=True) == a for a, s in enumerate(strings))


def test_without_goats_plain_ids_round_trip() -> None:
    def plain(a: int) -> bool:
        kind, x, y = actions.DECODE[a]
        args = (x, y) if kind in (actions.DISCARD,) else (x,)
        return not any(0 <= k < N_ASCENT and HAS_GOAT[k] for k in args)

    for a in filter(plain, range(actions.N_ACTIONS)):
        assert actions.from_string(actions.to_string(a, goats=False), goats=False) == a


def test_documented_layout() -> None:
    assert actions.N_ACTIONS == 3962
    assert actions.to_string(0, False) == "play G1 r1c1"
    assert actions.to_string(2112, False) == "play BRIDGE r1c1"
    assert actions.to_string(2156, False) == "play SUMMIT r9c1"
    assert actions.to_string(2157, False) == "camp CAMP-G r1c1"
    assert actions.to_string(2289, False) == "move r1c1"
    assert actions.to_string(2333, False) == "discard G1 G1"
    assert actions.to_string(3818, False) == "pay G1"
    assert actions.to_string(3872, False) == "rope"
    assert actions.to_string(3873, False) == "herd r1c1"
    assert actions.to_string(3917, False) == "step r1c1"
    assert actions.to_string(3961, False) == "stop"


def test_bad_ids_are_refused() -> None:
    g = Game.new({"players": 3}, 0)
    for bad in (-1, actions.N_ACTIONS, "3", 2.0, True, None):
        with pytest.raises(ValueError, match="action"):
            g.apply_action(bad)  # type: ignore[arg-type]


def test_integer_and_string_paths_agree() -> None:
    g = Game.new({"players": 3, "goats": True}, 3)
    assert g.legal_moves() == sorted(actions.to_string(a, True) for a in g.legal_actions())
    assert [
        actions.from_string(m, True) for m in sorted(g.legal_moves(), key=lambda m: actions.from_string(m, True))
    ] == g.legal_actions()
