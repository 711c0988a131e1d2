"""Game.from_dict refuses malformed or inconsistent states with a message that says what is wrong."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from tranquility_env import Game

from positions import full_mountain, row, state

SPEC = Path(__file__).resolve().parents[2] / "shared" / "spec" / "state.md"
P2 = {"players": 2}


def good() -> dict:
    return state(config=P2, mountain=row(1, "G5", "BRIDGE", "R9"), hands=[["B6", "G2"], ["B3"]], decks=[["R2"], []])


def test_a_good_state_loads_and_round_trips() -> None:
    d = good()
    assert Game.from_dict(copy.deepcopy(d)).to_dict() == d


def test_the_spec_example_shape_is_what_to_dict_writes() -> None:
    if not SPEC.exists():
        pytest.skip("shared/spec/state.md is not beside this checkout")
    text = SPEC.read_text()
    example = json.loads(text[text.index("```json") + 7 : text.index("```", text.index("```json") + 7)])
    d = Game.new(example["config"], 0).to_dict()
    assert set(d) == set(example) and set(d["config"]) == set(example["config"])
    assert set(d["players"][0]) == set(example["players"][0])


def mutate(change) -> dict:
    d = good()
    change(d)
    return d


CASES = [
    ("unknown key", lambda d: d.update(extra=1), "unknown state key 'extra'"),
    ("missing key", lambda d: d.pop("turn"), "'turn' is missing"),
    ("partial config", lambda d: d["config"].pop("bridges"), "lacks 'bridges'"),
    ("unknown config key", lambda d: d["config"].update(colour="x"), "unknown config key 'colour'"),
    ("bad config value", lambda d: d["config"].update(players=9), "'players' must be an integer from 1 to 5"),
    ("unknown card", lambda d: d["players"][0]["hand"].append("G13"), "unknown card 'G13'"),
    ("goat card without goats", lambda d: d["mountain"].update(r1c1="G4*"), "goat copy"),
    ("a card too many", lambda d: d["players"][1]["deck"].append("SUMMIT"), "1 x SUMMIT too many"),
    ("a card missing", lambda d: d["players"][0]["deck"].remove("R2"), "1 x R2 missing"),
    ("bad position", lambda d: d["mountain"].update(r2c9="G8"), "no slot r2c9"),
    ("malformed position", lambda d: d["mountain"].update(x="G8"), "malformed position 'x'"),
    ("gap in a row (M3)", lambda d: d["mountain"].update(r1c5="G8"), "M3"),
    ("unsupported (M2)", lambda d: d["mountain"].update(r2c1="G8", r3c1="B8"), "M2"),
    ("row limit (P1)", lambda d: d["mountain"].update(r2c1="G1"), "P1"),
    ("colour (P2)", lambda d: d["mountain"].update(r1c4="R6"), "P2"),
    ("bridge at row start (B1)", lambda d: d["mountain"].update(r1c1="BRIDGE"), "B1"),
    ("summit on a gap", lambda d: d["mountain"].update(r9c1="SUMMIT"), "E1"),
    ("rope in the mountain", lambda d: d["mountain"].update(r1c4="ROPE"), "never played"),
    ("goats without module", lambda d: d.update(goats={"r1c1": 1}), "goats module"),
    ("hand order", lambda d: d["players"][0].update(hand=["B6", "G2"]), "canonical order"),
    ("hand too big", lambda d: d["players"][1]["hand"].extend(["B4", "B7", "B8", "B9", "B10"]), "hand size"),
    ("players count", lambda d: d["players"].pop(), "list of 2 seats"),
    ("seat shape", lambda d: d["players"][0].pop("discard"), "exactly 'hand', 'deck' and 'discard'"),
    ("removed card", lambda d: d["removed"].append("G4"), "removed"),
    ("current out of range", lambda d: d.update(current=2), "'current' must be a seat"),
    ("status word", lambda d: d.update(status="done"), "'status' must be"),
    ("won without summit", lambda d: d.update(status="won"), "E1"),
    ("lost with moves", lambda d: d.update(status="lost"), "E2"),
    ("turn negative", lambda d: d.update(turn=-1), "'turn'"),
    ("pending kind", lambda d: d.update(pending={"kind": "fly"}), "pending"),
    ("pay owed too much", lambda d: d.update(pending={"kind": "pay", "owed": 3}), "'owed' must be from 1 to the 2"),
    ("pay keys", lambda d: d.update(pending={"kind": "pay", "owed": 1, "x": 2}), "exactly the keys"),
    ("move from non-campfire", lambda d: d.update(pending={"kind": "move", "card": "B4", "from": "r1c1"}), "C1"),
    ("herd without goats", lambda d: d.update(pending={"kind": "herd", "at": "r1c1", "steps": 0, "owed": 0}), "goats"),
    ("panorama without module", lambda d: d.update(panorama={"objectives": [], "achieved": []}), "PA1"),
]


@pytest.mark.parametrize(("label", "change", "message"), CASES, ids=[c[0] for c in CASES])
def test_malformed_states_are_refused_with_a_clear_message(label: str, change, message: str) -> None:
    with pytest.raises(ValueError) as err:
        Game.from_dict(mutate(change))
    assert message in str(err.value), str(err.value)


def test_a_state_that_is_not_a_dict_is_refused() -> None:
    with pytest.raises(ValueError, match="must be a dict"):
        Game.from_dict([1, 2])  # type: ignore[arg-type]


def test_goat_and_panorama_records_must_fit_the_mountain() -> None:
    goats = {"players": 2, "goats": True}
    with pytest.raises(ValueError, match="GO1"):
        Game.from_dict(state(config=goats, mountain=row(1, "G4"), goats={"r1c1": 1}, hands=[["B6", "G2"], []]))
    with pytest.raises(ValueError, match="GO2"):
        Game.from_dict(
            state(config=goats, mountain=row(1, "G4*", "BRIDGE", "R5"), goats={"r1c2": 1}, hands=[["B6", "G2"], []])
        )
    pano = {"players": 2, "panoramas": 1}  # objective 3-4-3
    with pytest.raises(ValueError, match="PA2"):
        Game.from_dict(state(config=pano, mountain=row(1, "G3", "B4", "R3"), hands=[["B6", "G2"], []]))
    d = state(config=pano, hands=[["B6", "G2"], []])
    d["panorama"]["objectives"] = [[1, 1, 1]]
    with pytest.raises(ValueError, match="PA4"):
        Game.from_dict(d)


def test_won_state_loads_and_has_no_moves() -> None:
    mountain = {**full_mountain(), "r9c1": "SUMMIT"}
    g = Game.from_dict(state(config=P2, mountain=mountain, hands=[["SUMMIT"], []], status="won"))
    assert g.status == "won" and g.legal_moves() == []
