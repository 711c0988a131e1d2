"""One test (or a few) per rule ID, each named after it, on hand-built positions.

``test_every_rule_id_has_a_test`` reads the IDs of ``docs/rules.md`` and fails when one has no test
here; where the canonical ``shared/RULES.md`` is beside the checkout (as in CI), another test checks
that ``docs/rules.md`` names exactly its IDs.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from tranquility_env import Config, Game, IllegalMove
from tranquility_env.rules import cards
from tranquility_env.rules.board import N_SLOTS, POS_NAME, ROW_SLOTS
from tranquility_env.rules.tables import GOAT_COPIES, PANORAMA_SEQUENCES

from positions import full_mountain, game, row, state

DOCS_RULES = Path(__file__).resolve().parents[1] / "docs" / "rules.md"
CANONICAL_RULES = Path(__file__).resolve().parents[2] / "shared" / "RULES.md"
P2 = {"players": 2}
GOATS = {"players": 2, "goats": True}


def moves(g: Game) -> set[str]:
    return set(g.legal_moves())


def illegal(g: Game, move: str, rule: str) -> None:
    """``move`` is refused naming ``rule``, and the game is unchanged."""
    before = g.to_dict()
    with pytest.raises(IllegalMove, match=re.escape(rule)):
        g.apply(move)
    assert g.to_dict() == before


def rule_ids(path: Path) -> set[str]:
    """The IDs of a rules text: every bullet that starts with a bold ID (``- **P3 Penalty**: ...``)."""
    return set(re.findall(r"^- \*\*([A-Z]+\d+)\b", path.read_text(), flags=re.M))


def test_every_rule_id_has_a_test() -> None:
    ids = rule_ids(DOCS_RULES)
    assert len(ids) > 50
    names = {name for name in globals() if name.startswith("test_")}
    missing = sorted(i for i in ids if not any(n.startswith(f"test_{i.lower()}_") for n in names))
    assert not missing, f"rule IDs without a test: {missing}"


@pytest.mark.skipif(not CANONICAL_RULES.exists(), reason="shared/RULES.md is not beside this checkout")
def test_docs_rules_name_exactly_the_ids_of_the_canonical_rules() -> None:
    canonical, ours = rule_ids(CANONICAL_RULES), rule_ids(DOCS_RULES)
    assert len(canonical) > 50
    assert ours == canonical, f"only in RULES.md: {sorted(canonical - ours)}; only in docs: {sorted(ours - canonical)}"


# ---------------------------------------------------------------- components
def test_s1_ascent_cards_three_colours_twelve_numbers_two_copies() -> None:
    deck = cards.game_deck(3, 5, 1, 0, goats=False)
    ascent = {k: n for k, n in deck.items() if k < cards.N_ASCENT}
    assert sum(ascent.values()) == 72 and len(ascent) == 36 and set(ascent.values()) == {2}


def test_s2_specials_five_summits_five_bridges_three_campfires() -> None:
    deck = cards.game_deck(3, 5, 1, 0, goats=False)
    assert deck[cards.SUMMIT] == 5 and deck[cards.BRIDGE] == 5
    assert [deck[k] for k in cards.CAMP] == [1, 1, 1]
    assert sum(deck.values()) == 85


def test_s3_goat_copies_follow_the_table_and_print_with_a_star_only_with_goats() -> None:
    assert {n: "GBR"[(n - 1) % 3] for n in range(1, 13)} == GOAT_COPIES
    deck = cards.game_deck(3, 5, 1, 0, goats=True)
    goat_names = sorted(cards.NAME[k] for k in deck if cards.HAS_GOAT[k])
    assert goat_names == sorted(f"{GOAT_COPIES[n]}{n}*" for n in range(1, 13))
    assert deck[cards.parse_card("G7", True)] == 1 and deck[cards.parse_card("R7", True)] == 2
    with pytest.raises(ValueError, match="goats module"):
        cards.parse_card("G7*", goats=False)
    g = Game.new({"players": 3}, seed=1)
    assert "*" not in str(g.to_dict())


def test_s4_guide_ropes_exist_only_in_solo() -> None:
    assert cards.game_deck(1, 5, 1, 3, False)[cards.ROPE] == 3
    assert Config(players=1).ropes == 3 and Config(players=2).ropes == 0
    with pytest.raises(ValueError, match="ropes"):
        Config(players=2, ropes=1)
    with pytest.raises(ValueError, match="ropes"):
        Config(players=1, ropes=7)


def test_s5_ten_panorama_cards() -> None:
    assert len(PANORAMA_SEQUENCES) == 10 and len(set(PANORAMA_SEQUENCES)) == 10


# ---------------------------------------------------------------- setup
def test_u1_seats_play_in_increasing_order_wrapping_around() -> None:
    g = Game.new({"players": 3}, seed=4)
    seen = []
    for _ in range(6):
        seen.append(g.current_player)
        g.apply(next(m for m in g.legal_moves() if m.startswith("discard")))
    assert seen == [0, 1, 2, 0, 1, 2]


@pytest.mark.parametrize(("players", "holders"), [(1, []), (2, [1]), (3, [1]), (4, [1, 3]), (5, [1, 3])])
def test_u2_bridges_are_dealt_to_seat_1_and_seat_3(players: int, holders: list[int]) -> None:
    for seed in range(5):
        d = Game.new({"players": players}, seed).to_dict()
        with_bridge = [s for s, p in enumerate(d["players"]) if "BRIDGE" in p["hand"]]
        assert set(holders) <= set(with_bridge)
        # A dealt bridge is extra; a second one in hand can only come from the deck.
        for s in holders:
            assert d["players"][s]["hand"].count("BRIDGE") >= 1


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_u3_personal_decks_as_even_as_possible_seat_0_largest(players: int) -> None:
    dealt = [1] if players <= 3 else [1, 3]
    orders = set()
    for seed in range(30):
        d = Game.new({"players": players}, seed).to_dict()
        sizes = [len(p["hand"]) + len(p["deck"]) - (s in dealt) for s, p in enumerate(d["players"])]
        assert sum(sizes) == 85 - len(dealt)
        assert max(sizes) - min(sizes) <= 1 and sizes[0] == max(sizes)
        orders.add(tuple(sizes))
    if (85 - len(dealt)) % players >= 2:  # the other sizes differ: they go to seats at random
        assert len(orders) > 1


@pytest.mark.parametrize("players", [1, 2, 3, 4, 5])
def test_u4_opening_hands_are_full_bridge_included(players: int) -> None:
    g = Game.new({"players": players}, seed=2)
    assert all(len(h) == g.config.hand_size for h in g.hands)


def test_u5_solo_no_ones_three_ropes_one_deck_hand_of_six() -> None:
    d = Game.new({"players": 1}, seed=3).to_dict()
    everything = d["players"][0]["hand"] + d["players"][0]["deck"]
    counts = Counter(everything)
    assert not any(re.fullmatch(r"[GBR]1\*?", c) for c in counts)
    assert counts["ROPE"] == 3 and counts["BRIDGE"] == 5 and len(everything) == 85 - 6 + 3
    assert len(d["players"][0]["hand"]) == 6
    assert Game.new({"players": 1, "ropes": 6}, 0).to_dict()["config"]["ropes"] == 6


# ---------------------------------------------------------------- the mountain
def test_m1_forty_four_slots_and_the_summit() -> None:
    assert ROW_SLOTS[1:9] == (9, 8, 7, 6, 5, 4, 3, 2) and N_SLOTS == 44
    assert POS_NAME[0] == "r1c1" and POS_NAME[43] == "r8c2" and POS_NAME[44] == "r9c1"
    g = game(config=P2, hands=[["G5", "B6"], []])
    illegal(g, "play G5 r2c9", "no slot r2c9")


def test_m2_a_slot_needs_both_cards_below() -> None:
    g = game(config=P2, mountain=row(1, "G5"), hands=[["B6", "R5"], []])
    assert "play B6 r2c1" not in moves(g)
    illegal(g, "play B6 r2c1", "M2")
    g = game(config=P2, mountain=row(1, "G5", "B5"), hands=[["R5", "R6"], []])
    assert "play R5 r2c1" in moves(g)


def test_m3_rows_fill_left_to_right_and_need_not_be_complete() -> None:
    g = game(config=P2, mountain=row(1, "G5", "B5"), hands=[["R5", "R6"], []])
    assert "play R5 r1c3" in moves(g) and "play R5 r2c1" in moves(g)
    illegal(g, "play R5 r1c4", "M3")
    illegal(g, "play R5 r1c1", "M3")


# ---------------------------------------------------------------- playing Ascent cards
def test_p1_row_limit() -> None:
    mountain = {**row(1, "G5", "B5", "G6"), **row(2, "R5", "B6")}
    g = game(config=P2, mountain=mountain, hands=[["B2", "B3", "R9"], []])
    assert "play B3 r3c1" in moves(g) and "play B2 r3c1" not in moves(g)
    illegal(g, "play B2 r3c1", "P1")


def test_p2_no_same_colour_beside_the_left_card() -> None:
    g = game(config=P2, mountain=row(1, "G5"), hands=[["G6", "B6", "R3"], []])
    assert "play G6 r1c2" not in moves(g) and "play B6 r1c2" in moves(g)
    illegal(g, "play G6 r1c2", "P2")


def test_p3_penalty_is_the_difference_with_the_left_number() -> None:
    g = game(config=P2, mountain=row(1, "G3"), hands=[["B6", "R8", "R9", "G10"], ["B2"]])
    g.apply("play B6 r1c2")
    assert g.to_dict()["pending"] == {"kind": "pay", "owed": 3}


def test_p3_campfire_is_skipped() -> None:
    g = game(config=P2, mountain=row(1, "G3", "CAMP-B"), hands=[["R5", "G9", "G10"], ["B2"]])
    g.apply("play R5 r1c3")
    assert g.to_dict()["pending"] == {"kind": "pay", "owed": 2}


def test_p3_first_card_of_a_row_pays_nothing() -> None:
    g = game(config=P2, hands=[["G12", "B2"], ["B3", "B4"]])
    g.apply("play G12 r1c1")
    assert g.to_dict()["pending"] is None and g.current_player == 1


def test_p4_penalty_must_be_affordable_with_the_rest_of_the_hand() -> None:
    g = game(config=P2, mountain=row(1, "G3"), hands=[["B6", "R9", "R10"], []])
    assert "play B6 r1c2" not in moves(g)  # penalty 3, two cards left
    illegal(g, "play B6 r1c2", "P4")
    assert "play B5 r1c2" not in moves(g) and "play R9 r1c2" not in moves(g)
    g = game(config=P2, mountain=row(1, "G3"), hands=[["B5", "R9", "R10"], []])
    assert "play B5 r1c2" in moves(g)  # penalty 2, two cards left


def test_p5_payment_is_chosen_one_card_at_a_time_onto_own_discard() -> None:
    g = game(config=P2, mountain=row(1, "G3"), hands=[["B5", "R9", "SUMMIT"], ["B2"]])
    g.apply("play B5 r1c2")
    assert moves(g) == {"pay R9", "pay SUMMIT"}
    g.apply("pay SUMMIT")
    assert g.to_dict()["pending"] == {"kind": "pay", "owed": 1} and g.current_player == 0
    g.apply("pay R9")
    d = g.to_dict()
    assert d["players"][0]["discard"] == ["SUMMIT", "R9"] and d["pending"] is None and d["current"] == 1


# ---------------------------------------------------------------- bridges
def test_b1_bridge_never_first_or_last_in_its_row() -> None:
    g = game(config=P2, hands=[["BRIDGE", "G4"], []])
    assert "play BRIDGE r1c1" not in moves(g)
    illegal(g, "play BRIDGE r1c1", "B1")
    g = game(config=P2, mountain=row(1, "G5"), hands=[["BRIDGE", "G4"], []])
    assert "play BRIDGE r1c2" in moves(g)
    g = game(config=P2, mountain=row(1, "G5", "B5", "G6", "B6", "G7", "B7", "G8", "B8"), hands=[["BRIDGE", "R4"], []])
    assert "play BRIDGE r1c9" not in moves(g)
    below = {p: c for p, c in full_mountain().items() if p[1] < "7" or p in ("r7c1", "r7c2")}
    g = game(config=P2, mountain=below, hands=[["BRIDGE", "SUMMIT"], []])
    assert not any(m.startswith("play BRIDGE") for m in moves(g))  # r7c3 last, r8c1 first
    illegal(g, "play BRIDGE r7c3", "B1")


def test_b2_card_right_of_a_bridge_pays_no_penalty() -> None:
    g = game(config=P2, mountain=row(1, "G5", "BRIDGE"), hands=[["R12", "B2"], ["B3"]])
    g.apply("play R12 r1c3")
    assert g.to_dict()["pending"] is None


def test_b3_bridge_replacement_pays_larger_difference() -> None:
    mountain = row(1, "G5", "BRIDGE", "R9", "CAMP-G", "B8")
    g = game(config=P2, mountain=mountain, hands=[["B8", "G2", "G3", "R4"], ["B3"]])
    g.apply("play B8 r1c2")  # left |8 - 5| = 3, right |8 - 9| = 1
    d = g.to_dict()
    assert d["pending"] == {"kind": "pay", "owed": 3} and d["mountain"]["r1c2"] == "B8"
    assert d["removed"] == ["BRIDGE"]


def test_b3_bridge_replacement_checks_both_neighbour_colours() -> None:
    g = game(config=P2, mountain=row(1, "G5", "BRIDGE", "R9"), hands=[["G6", "R6", "B6", "B12"], []])
    assert "play B6 r1c2" in moves(g)
    illegal(g, "play G6 r1c2", "B3")
    illegal(g, "play R6 r1c2", "B3")


def test_b3_right_scan_skips_campfires_and_stops_at_a_bridge() -> None:
    hand = [["B5", "G2", "G3", "G4", "G6"], ["B3", "B4"]]
    g = game(config=P2, mountain=row(1, "G5", "BRIDGE", "CAMP-R", "G9"), hands=hand)
    g.apply("play B5 r1c2")  # left |5 - 5| = 0, right: campfire skipped, |5 - 9| = 4
    assert g.to_dict()["pending"] == {"kind": "pay", "owed": 4}
    g = game(config=P2, mountain=row(1, "G5", "BRIDGE", "CAMP-R", "BRIDGE", "G12"), hands=hand)
    g.apply("play B5 r1c2")  # right: campfire skipped, then a bridge: no reference
    assert g.to_dict()["pending"] is None and g.current_player == 1


def test_b4_bridges_support_cards_above() -> None:
    g = game(config=P2, mountain=row(1, "G5", "BRIDGE", "R9"), hands=[["B4", "B6"], []])
    assert "play B4 r2c1" in moves(g) and "play B4 r2c2" not in moves(g)


def test_b5_no_summit_while_a_bridge_lies_in_the_mountain() -> None:
    mountain = full_mountain()
    mountain["r1c5"] = "BRIDGE"
    g = game(config=P2, mountain=mountain, hands=[["SUMMIT", "SUMMIT"], []])
    assert "play SUMMIT r9c1" not in moves(g)
    illegal(g, "play SUMMIT r9c1", "B5")


# ---------------------------------------------------------------- campfires
def test_c1_campfire_replaces_an_ascent_card_of_its_colour() -> None:
    mountain = row(1, "G5", "BRIDGE", "B9", "CAMP-R", "G12")
    g = game(config=P2, mountain=mountain, hands=[["CAMP-B", "CAMP-G", "G2"], []])
    legal = moves(g)
    assert "camp CAMP-B r1c3" in legal and "camp CAMP-G r1c1" in legal and "camp CAMP-G r1c5" in legal
    illegal(g, "camp CAMP-B r1c1", "C1")  # wrong colour
    illegal(g, "camp CAMP-B r1c2", "C1")  # a bridge
    illegal(g, "camp CAMP-B r1c4", "C1")  # a campfire
    illegal(g, "camp CAMP-B r1c6", "C1")  # empty


def test_c2_displaced_card_moves_to_a_higher_row_or_the_campfire_is_not_playable() -> None:
    mountain = row(1, "B5", "G6", "B2")
    g = game(config=P2, mountain=mountain, hands=[["CAMP-B", "R7"], ["G2"]])
    # B5 may go to r2c1 (P1 ok); B2 may not (P1: row 2 needs a 2 - fine, but P2? r2c1 has no left)
    g.apply("camp CAMP-B r1c1")
    d = g.to_dict()
    assert d["pending"] == {"kind": "move", "card": "B5", "from": "r1c1"} and d["mountain"]["r1c1"] == "CAMP-B"
    assert moves(g) == {"move r2c1"}
    illegal(g, "move r1c4", "C2")
    g.apply("move r2c1")
    assert g.to_dict()["mountain"]["r2c1"] == "B5" and g.current_player == 1
    g = game(config=P2, mountain=row(1, "B1", "G6"), hands=[["CAMP-B", "R7"], []])
    illegal(g, "camp CAMP-B r1c1", "C2")  # a 1 can go to no higher row (P1)


def test_c3_moved_card_pays_its_penalty_unless_the_flag_is_off() -> None:
    mountain = {**row(1, "B5", "G6", "R7"), **row(2, "G9")}  # B5 can only go to r2c2, beside G9
    rich, poor = [["CAMP-B", "R2", "R3", "R4", "R8"], ["G2", "G3"]], [["CAMP-B", "R2", "R3"], ["G2", "G3"]]
    g = game(config=P2, mountain=mountain, hands=rich)
    g.apply("camp CAMP-B r1c1")
    assert moves(g) == {"move r2c2"}
    g.apply("move r2c2")  # |5 - 9| = 4, judged against the 4 cards left after the campfire
    assert g.to_dict()["pending"] == {"kind": "pay", "owed": 4}
    g = game(config=P2, mountain=mountain, hands=poor)
    illegal(g, "camp CAMP-B r1c1", "C2")  # 4 > 2: no affordable slot (P4 included)
    g = game(config={**P2, "campfire_move_pays": False}, mountain=mountain, hands=poor)
    g.apply("camp CAMP-B r1c1")
    g.apply("move r2c2")
    assert g.to_dict()["pending"] is None and g.current_player == 1


def test_c4_campfire_keeps_its_colour_and_has_no_number() -> None:
    g = game(config=P2, mountain=row(1, "G4", "CAMP-B"), hands=[["B6", "R6", "G2", "G3"], ["B2"]])
    assert "play B6 r1c3" not in moves(g)  # colour kept (P2)
    illegal(g, "play B6 r1c3", "P2")
    g.apply("play R6 r1c3")  # number skipped (P3): |6 - 4| = 2
    assert g.to_dict()["pending"] == {"kind": "pay", "owed": 2}


# ---------------------------------------------------------------- the Summit and the end
def test_e1_summit_on_a_full_mountain_wins_at_once() -> None:
    g = game(
        config=P2, mountain=full_mountain(), hands=[["SUMMIT", "SUMMIT"], ["SUMMIT"]], decks=[["SUMMIT"], []], turn=40
    )
    assert "play SUMMIT r9c1" in moves(g)
    g.apply("play SUMMIT r9c1")
    d = g.to_dict()
    assert g.status == "won" and d["turn"] == 41 and d["current"] == 0
    assert d["players"][0]["hand"] == ["SUMMIT"]  # K5: no refill
    assert g.legal_moves() == []


def test_e1_summit_needs_every_slot_filled() -> None:
    mountain = full_mountain()
    del mountain["r8c2"]
    g = game(config=P2, mountain=mountain, hands=[["SUMMIT", "SUMMIT"], []])
    illegal(g, "play SUMMIT r9c1", "E1")


def test_e2_the_team_loses_when_the_player_to_act_has_no_legal_action() -> None:
    # seat 1 holds one card that cannot be played: after seat 0 acts, the game is lost.
    mountain = row(1, "G5")
    g = game(config=P2, mountain=mountain, hands=[["B6", "R3"], ["G9"]])
    g.apply("discard B6 R3")
    assert g.status == "lost" and g.current_player == 1 and g.legal_moves() == []
    with pytest.raises(IllegalMove, match="over"):
        g.apply("play G9 r1c2")


def test_e2_an_empty_deck_alone_does_not_end_the_game() -> None:
    g = game(config=P2, hands=[["B6", "R3"], ["G9", "G10"]])
    g.apply("discard B6 R3")
    assert g.status == "ongoing" and g.hands[0] == []


# ---------------------------------------------------------------- a turn
def test_t1_one_action_then_play_passes() -> None:
    g = game(config=P2, hands=[["G5", "B6", "R3"], ["G9", "G10"]])
    g.apply("play G5 r1c1")
    assert g.current_player == 1 and g.to_dict()["turn"] == 1


def test_t2_discard_any_two_cards_needs_two() -> None:
    g = game(config=P2, hands=[["G5", "G5", "SUMMIT"], ["B3"]])
    assert {"discard G5 G5", "discard G5 SUMMIT"} <= moves(g)
    g.apply("discard G5 SUMMIT")
    assert g.to_dict()["players"][0]["discard"][-2:] == ["G5", "SUMMIT"]
    g = game(config=P2, hands=[["G12"], ["B2"]])
    assert moves(g) == {"play G12 r1c1"}
    illegal(g, "discard G12 G12", "T2")


def test_t3_refill_from_own_deck_as_many_as_it_holds() -> None:
    g = game(config=P2, hands=[["G5", "B6", "R3"], ["B2"]], decks=[["R9", "G2"], ["G12"]])
    g.apply("discard B6 R3")
    d = g.to_dict()
    assert d["players"][0]["hand"] == ["G2", "G5", "R9"] and d["players"][0]["deck"] == []
    assert d["players"][1]["deck"] == ["G12"]


def test_t4_rope_leaves_the_game_hand_shuffled_into_deck_and_redrawn() -> None:
    g = game(hands=[["ROPE", "G5", "B7"]], decks=[["R9", "G2", "B3", "G4", "R5", "B8", "G9"]])
    assert "rope" in moves(g)
    g.apply("rope")
    d = g.to_dict()
    assert d["removed"] == ["ROPE"] and len(d["players"][0]["hand"]) == 6
    assert sorted(d["players"][0]["hand"] + d["players"][0]["deck"]) == sorted(
        ["G5", "B7", "R9", "G2", "B3", "G4", "R5", "B8", "G9"]
    )
    g = game(hands=[["G5", "B7"]])
    illegal(g, "rope", "T4")


def test_t5_legal_moves_do_not_depend_on_hidden_cards() -> None:
    base = dict(config={"players": 3}, mountain=row(1, "G5", "B7"))
    a = game(**base, hands=[["R6", "G8"], ["G2", "G3"], ["B2"]], decks=[["R9"], ["B4"], []])
    b = game(**base, hands=[["R6", "G8"], ["B3", "B4"], ["R2"]], decks=[["G2"], ["G3"], ["R9"]])
    assert a.legal_moves() == b.legal_moves()


# ---------------------------------------------------------------- Green Path
GREEN_COLUMN = {r: "G" + "BR" * 5 for r in range(1, 9)}
GREEN_COLUMN = {r: s[: 10 - r] for r, s in GREEN_COLUMN.items()}


def test_gp1_green_path_is_a_chain_from_row_1_to_row_8() -> None:
    g = game(
        config={"players": 2, "green_path": True},
        mountain=full_mountain(GREEN_COLUMN),
        hands=[["SUMMIT", "SUMMIT"], []],
    )
    assert g.has_green_path()
    broken = dict(GREEN_COLUMN)
    broken[4] = "BGRGRB"  # row 4's green card at c2: (3,1) -> (4,2) is not a step up
    g = game(
        config={"players": 2, "green_path": True}, mountain=full_mountain(broken), hands=[["SUMMIT", "SUMMIT"], []]
    )
    assert not g.has_green_path()


def test_gp1_green_campfire_counts() -> None:
    mountain = full_mountain(GREEN_COLUMN)
    mountain["r5c1"] = "CAMP-G"
    g = game(config={"players": 2, "green_path": True}, mountain=mountain, hands=[["SUMMIT", "SUMMIT"], []])
    assert g.has_green_path()


def test_gp2_summit_needs_a_green_path() -> None:
    cfg = {"players": 2, "green_path": True}
    g = game(config=cfg, mountain=full_mountain({8: "BR"}), hands=[["SUMMIT", "SUMMIT"], []])
    illegal(g, "play SUMMIT r9c1", "GP2")
    g = game(config=cfg, mountain=full_mountain(GREEN_COLUMN), hands=[["SUMMIT", "SUMMIT"], []])
    assert "play SUMMIT r9c1" in moves(g)


# ---------------------------------------------------------------- Panorama Objectives
def test_pa1_panoramas_reveal_that_many_different_objectives() -> None:
    for n in range(1, 6):
        d = Game.new({"players": 3, "panoramas": n}, seed=n).to_dict()
        objectives = [tuple(o) for o in d["panorama"]["objectives"]]
        assert len(set(objectives)) == n and set(objectives) <= set(PANORAMA_SEQUENCES)
        assert d["panorama"]["achieved"] == [False] * n
    assert Game.new({"players": 3}, 0).to_dict()["panorama"] is None
    firsts = {
        tuple(Game.new({"players": 3, "panoramas": 1}, s).to_dict()["panorama"]["objectives"][0]) for s in range(40)
    }
    assert len(firsts) > 5  # shuffled


def test_pa2_objective_achieved_on_consecutive_ascent_cards_and_stays() -> None:
    cfg = {"players": 2, "panoramas": 1}  # objective 3-4-3
    g = game(config=cfg, mountain=row(1, "G3", "B4"), hands=[["R3", "G9", "CAMP-B"], ["R8", "R9", "G2"]])
    g.apply("play R3 r1c3")
    g.apply("pay G9")
    assert g.achieved == [True]
    g = game(config=cfg, mountain=row(1, "G3", "BRIDGE", "G4"), hands=[["R3", "G9"], ["B2"]])
    g.apply("play R3 r1c4")
    assert g.achieved == [False]  # a bridge breaks the run


def test_pa2_achieved_objective_stays_after_a_campfire_breaks_it() -> None:
    mountain = row(1, "G3", "B4", "R3")
    g = game(
        config={"players": 2, "panoramas": 1}, mountain=mountain, hands=[["CAMP-B", "G2"], ["R2"]], achieved=[True]
    )
    g.apply("camp CAMP-B r1c2")
    g.apply("move r2c1")
    assert g.achieved == [True]


def test_pa3_summit_needs_every_objective() -> None:
    cfg = {"players": 2, "panoramas": 2}
    mountain = full_mountain()
    g = game(config=cfg, mountain=mountain, hands=[["SUMMIT", "SUMMIT"], []], achieved=[True, False])
    illegal(g, "play SUMMIT r9c1", "PA3")
    g = game(config=cfg, mountain=mountain, hands=[["SUMMIT", "SUMMIT"], []], achieved=[True, True])
    assert "play SUMMIT r9c1" in moves(g)


def test_pa4_sequences_table() -> None:
    assert PANORAMA_SEQUENCES[0] == (3, 4, 3)
    assert all(all(1 <= n <= 12 for n in seq) for seq in PANORAMA_SEQUENCES)


# ---------------------------------------------------------------- Mountain Goats
def test_go1_goat_card_from_hand_brings_one_goat() -> None:
    g = game(config=GOATS, hands=[["G7*", "G7", "B2"], ["R2", "R3"]])
    g.apply("play G7* r1c1")
    assert g.to_dict()["goats"] == {"r1c1": 1}
    g = game(config=GOATS, hands=[["G7", "B3"], ["R2", "R3"]])
    g.apply("play G7 r1c1")
    assert g.to_dict()["goats"] == {}


def test_go1_discarded_goat_is_lost_and_moved_card_gets_none() -> None:
    g = game(config=GOATS, hands=[["G7*", "B3"], ["R2", "R3"]])
    g.apply("discard G7* B3")
    assert g.to_dict()["goats"] == {}
    g = game(config=GOATS, mountain=row(1, "G7*", "B5"), hands=[["CAMP-G", "R2"], ["R3"]])
    g.apply("camp CAMP-G r1c1")
    g.apply("move r2c1")
    assert g.to_dict()["goats"] == {} and g.to_dict()["mountain"]["r2c1"] == "G7*"


def test_go2_herd_steps_up_collects_goats_and_costs_a_card_each() -> None:
    mountain = {**row(1, "G4*", "B5*", "R6*"), **row(2, "R6", "G7*"), **row(3, "B8*")}
    goats = {"r1c2": 1, "r2c1": 2}
    g = game(config=GOATS, mountain=mountain, goats=goats, hands=[["G2", "B3", "R9"], ["R2", "R3"]])
    assert {"herd r1c2", "herd r2c1"} <= moves(g)
    g.apply("herd r1c2")
    assert moves(g) == {"step r2c1", "step r2c2"}
    g.apply("step r2c1")  # K3: the herd moves now and joins the goats there
    assert g.to_dict()["goats"] == {"r2c1": 3}
    assert moves(g) == {"pay G2", "pay B3", "pay R9"}
    g.apply("pay B3")
    assert moves(g) == {"step r3c1", "stop"}
    g.apply("step r3c1")
    g.apply("pay G2")
    assert moves(g) == {"stop"}  # no row-4 card to step to
    g.apply("stop")
    d = g.to_dict()
    assert d["goats"] == {"r3c1": 3} and d["players"][0]["discard"] == ["B3", "G2"] and d["current"] == 1


def test_go2_no_step_onto_a_bridge_or_an_empty_slot() -> None:
    mountain = {**row(1, "G4*", "BRIDGE", "R6*"), **row(2, "R5", "BRIDGE")}
    g = game(config=GOATS, mountain=mountain, goats={"r1c3": 1}, hands=[["G2", "B3"], ["R2"]])
    assert not any(m.startswith("herd") for m in moves(g))  # r2c2 a bridge, r2c3 empty
    illegal(g, "herd r1c3", "GO2")


def test_go3_card_carrying_goats_cannot_be_replaced_by_a_campfire() -> None:
    mountain = row(1, "G4*", "B5")
    g = game(config=GOATS, mountain=mountain, goats={"r1c1": 1}, hands=[["CAMP-G", "R2"], ["R3"]])
    illegal(g, "camp CAMP-G r1c1", "GO3")
    g = game(config=GOATS, mountain=mountain, hands=[["CAMP-G", "R2"], ["R3"]])
    assert "camp CAMP-G r1c1" in moves(g)


def test_go4_summit_needs_goats_on_row_8() -> None:
    mountain = full_mountain(goats=True)  # holds 7 goat cards, so at most 7 goats
    hands = [["SUMMIT", "SUMMIT"], []]
    g = game(config=GOATS, mountain=mountain, goats={"r8c1": 4, "r8c2": 3}, hands=hands)
    illegal(g, "play SUMMIT r9c1", "GO4")  # 7 < 8 needed
    for goats, ok in (({"r8c1": 4, "r8c2": 2}, False), ({"r8c1": 4, "r8c2": 3}, True), ({"r7c1": 7}, False)):
        g = game(config={**GOATS, "goats_needed": 7}, mountain=mountain, goats=goats, hands=hands)
        assert ("play SUMMIT r9c1" in moves(g)) == ok


# ---------------------------------------------------------------- notation
def test_n1_card_names_and_canonical_order() -> None:
    names = list(cards.NAME)
    assert names[:4] == ["G1", "G1*", "G2", "G3"] and names[-6:] == [
        "BRIDGE",
        "CAMP-G",
        "CAMP-B",
        "CAMP-R",
        "SUMMIT",
        "ROPE",
    ]
    assert names.index("G12") < names.index("B1") < names.index("R1")
    g = game(config=GOATS, hands=[["SUMMIT", "R2", "G7*", "G7", "BRIDGE"], ["B2"]])
    assert g.to_dict()["players"][0]["hand"] == ["G7", "G7*", "R2", "BRIDGE", "SUMMIT"]


def test_n2_moves_are_sorted_strings_and_malformed_ones_are_refused() -> None:
    g = game(config=P2, hands=[["G5", "B6", "B6"], ["B2"]])
    legal = g.legal_moves()
    assert legal == sorted(set(legal))
    assert "discard B6 B6" in legal and "discard G5 B6" in legal and "discard B6 G5" not in legal
    for bad in (
        "",
        "play",
        "play G5",
        "play G5 r1c1 x",
        "fly G5 r1c1",
        "play G13 r1c1",
        "play G5 r0c1",
        "discard B6 G5",
        "play CAMP-G r1c1",
        "camp G5 r1c1",
        "play SUMMIT r1c1",
        "pay",
        "rope now",
    ):
        illegal(g, bad, bad or "unknown verb")
    with pytest.raises(IllegalMove, match="discard B6 G5"):
        g.apply("discard B6 G5")


def test_n3_state_round_trips_through_json() -> None:
    import json

    g = Game.new({"players": 4, "goats": True, "panoramas": 2, "green_path": True}, seed=9)
    for _ in range(15):
        if g.legal_moves():
            g.apply(g.legal_moves()[-1])
    d = json.loads(json.dumps(g.to_dict()))
    h = Game.from_dict(d)
    assert h.to_dict() == g.to_dict() and h.legal_moves() == g.legal_moves()


# ---------------------------------------------------------------- bookkeeping
def test_k1_discard_order_and_removed_cards() -> None:
    g = game(config=P2, mountain=row(1, "G5", "BRIDGE", "R9"), hands=[["B6", "G2", "R3", "R4"], ["B2", "B3"]])
    g.apply("play B6 r1c2")  # left 1, right 3
    g.apply("pay R4")
    g.apply("pay G2")
    g.apply("pay R3")
    g.apply("discard B2 B3")
    d = g.to_dict()
    assert d["players"][0]["discard"] == ["R4", "G2", "R3"] and d["players"][1]["discard"][-2:] == ["B2", "B3"]
    assert d["removed"] == ["BRIDGE"]


def test_k2_a_payment_may_be_a_special_card() -> None:
    g = game(config=P2, mountain=row(1, "G3"), hands=[["B4", "BRIDGE", "SUMMIT"], ["B2"]])
    g.apply("play B4 r1c2")
    assert moves(g) == {"pay BRIDGE", "pay SUMMIT"}


def test_k3_the_herd_moves_at_step_before_the_pay() -> None:
    mountain = {**row(1, "G4*", "B5"), **row(2, "R6")}
    g = game(config=GOATS, mountain=mountain, goats={"r1c1": 1}, hands=[["G2"], ["R2"]])
    g.apply("herd r1c1")
    g.apply("step r2c1")
    d = g.to_dict()
    assert d["goats"] == {"r2c1": 1} and d["pending"] == {"kind": "herd", "at": "r2c1", "steps": 1, "owed": 1}


def test_k4_action_ends_with_refill_turn_count_and_next_seat() -> None:
    g = game(config={"players": 3}, hands=[["G5", "B6"], ["B2", "B3"], ["R5"]], decks=[["R9"], [], []], turn=7)
    g.apply("play G5 r1c1")
    d = g.to_dict()
    assert d["turn"] == 8 and d["current"] == 1 and d["players"][0]["hand"] == ["B6", "R9"]


def test_k4_loss_is_checked_at_setup_for_seat_0() -> None:
    with pytest.raises(ValueError, match="E2"):
        Game.from_dict(state(config=P2, mountain=row(1, "G5"), hands=[["G6"], ["B2"]]))
    lost = Game.from_dict(state(config=P2, mountain=row(1, "G5"), hands=[["G6"], ["B2"]], status="lost"))
    assert lost.legal_moves() == []


def test_k5_summit_ends_the_game_without_refill() -> None:
    g = game(
        config={"players": 3},
        mountain=full_mountain(),
        hands=[[], ["SUMMIT", "SUMMIT"], []],
        decks=[[], ["SUMMIT"], []],
        current=1,
    )
    g.apply("play SUMMIT r9c1")
    assert (g.status, g.current_player, g.to_dict()["players"][1]["hand"]) == ("won", 1, ["SUMMIT"])


def test_k6_the_displaced_card_is_held_only_in_pending() -> None:
    g = game(config=P2, mountain=row(1, "B5", "G6"), hands=[["CAMP-B", "R7"], ["G2"]])
    g.apply("camp CAMP-B r1c1")
    d = g.to_dict()
    assert d["pending"]["card"] == "B5" and "B5" not in d["mountain"].values()
    assert all("B5" not in p["hand"] for p in d["players"])


def test_k7_same_seed_same_game_and_rope_shuffle_follows_the_state() -> None:
    a, b = Game.new({"players": 5}, seed=11), Game.new({"players": 5}, seed=11)
    assert a.to_dict() == b.to_dict() and Game.new({"players": 5}, seed=12).to_dict() != a.to_dict()
    g = game(hands=[["ROPE", "G5", "B7"]], decks=[["R9", "G2", "B3", "G4", "R5", "B8", "G9", "R10"]])
    twin = Game.from_dict(g.to_dict())
    g.apply("rope")
    twin.apply("rope")
    assert g.to_dict() == twin.to_dict()


def test_k8_a_campfire_never_replaces_a_row_8_card() -> None:
    g = game(config=P2, mountain=full_mountain({8: "GB"}), hands=[["CAMP-G", "CAMP-B", "SUMMIT"], []])
    assert not any(m.startswith("camp") for m in moves(g))
    illegal(g, "camp CAMP-G r8c1", "C2")
