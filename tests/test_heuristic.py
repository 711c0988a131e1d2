"""HeuristicBot and its value model: legal play, strength over random, what its search may see, its weights."""

from __future__ import annotations

import random

import pytest

from tranquility_env import Game
from tranquility_env.arena import bot_action, play_until
from tranquility_env.bots import HeuristicBot, RandomBot, ValueModel
from tranquility_env.bots.value_model import NO_GREEN_PATH, green_need, objective_possible, objective_step
from tranquility_env.rules import board, cards
from tranquility_env.rules.mountain import EMPTY
from tranquility_env.views import sample_game, seat_view, unseen_cards, unseen_in_game


@pytest.mark.parametrize(
    "config", [{"players": 1}, {"players": 4}, {"players": 3, "goats": True, "panoramas": 2, "green_path": True}]
)
def test_heuristic_bot_plays_legal_moves_to_the_end(config: dict) -> None:
    for seed in range(8):
        game = Game.new(config, seed)
        # Seeded bots and a bounded search keep this test's time fixed; any rollout count runs
        # the search path, and apply_action checks every move's legality.
        bots = [HeuristicBot(rollouts=24, seed=seat) for seat in range(game.config.players)]
        play_until(game, bots)
        assert game.status in ("won", "lost")


def test_heuristic_bot_is_far_better_than_random() -> None:
    def mean_cards(make) -> float:
        total = 0
        for seed in range(60):
            game = Game.new({"players": 3}, 700 + seed)
            play_until(game, [make() for _ in range(3)])
            total += game.cards_on_mountain()
        return total / 60

    assert mean_cards(lambda: HeuristicBot(rollouts=0)) > 35 > 15 > mean_cards(RandomBot)


def end_game(players: int, seed: int) -> Game:
    """A position from which HeuristicBot searches: 38+ cards on the mountain, a free choice."""
    while True:
        game, plain = Game.new({"players": players}, seed), HeuristicBot(rollouts=0)
        while game.status == "ongoing" and not (game.cards_on_mountain() >= 38 and game.pending == 0):
            game.apply_action(bot_action(game, plain))
        if game.status == "ongoing" and len(game.legal_actions()) > 2:
            return game
        seed += 1


@pytest.mark.parametrize("players", [1, 3])
def test_heuristic_search_sees_only_what_its_seat_may_know(players: int) -> None:
    game = end_game(players, 40)
    seat = game.current
    other = sample_game(seat_view(game, seat), random.Random(1))  # the same view, other hidden cards
    assert other.hands[seat] == game.hands[seat] and other.decks != game.decks
    chosen = [bot_action(g, HeuristicBot(seed=5)) for g in (game, other, game)]
    assert chosen[0] == chosen[1] == chosen[2] and chosen[0] in game.legal_actions()


@pytest.mark.parametrize(
    "config", [{"players": 1}, {"players": 4}, {"players": 3, "goats": True, "panoramas": 2, "green_path": True}]
)
def test_heuristic_rollouts_read_the_game_as_the_seat_view_would(config: dict) -> None:
    """Rollouts build the bot's turn straight from the (sampled) game; it must equal the turn built
    from that seat's view, or the search would judge moves by another strategy (or peek)."""
    bot, checked = HeuristicBot(rollouts=0), 0
    for seed in range(4):
        game = Game.new(config, 300 + seed)
        while game.status == "ongoing":
            legal = game.legal_actions()
            for seat in range(game.config.players):
                counts = unseen_in_game(game, seat)
                assert {k: n for k, n in enumerate(counts) if n} == unseen_cards(seat_view(game, seat))
                assert counts.min() >= 0
            direct = ValueModel.from_game(game, legal, bot)
            viewed = ValueModel.from_view(seat_view(game, game.current), legal, bot)
            assert direct.ranked() == viewed.ranked()
            checked += len(legal) > 1
            game.apply_action(direct.ranked()[0])
    assert checked > 100


@pytest.mark.parametrize("left", [["G5"], ["G5", "CAMP-R"]])  # a campfire is skipped (C4)
def test_heuristic_bridge_lock_is_the_least_replacement_penalty(left: list[str]) -> None:
    """A card right of a bridge plays free (B2) but fixes the bridge's replacement (B3): the lock
    is the least penalty left for it, half the distance to the reference, rounded up."""
    mountain = [EMPTY] * board.N_POS
    for c, name in enumerate([*left, "BRIDGE"]):
        mountain[c] = cards.parse_card(name, goats=False)
    beside, after = len(left) + 1, len(left) + 2  # the slot right of the bridge, and one further
    hand = [cards.parse_card(name, goats=False) for name in ("B5", "B6", "B9", "R12")]
    turns = {
        w: ValueModel(HeuristicBot(rollouts=0, bridge_lock=w), [], mountain, hand, [20, 20, 20]) for w in (0.0, 2.0)
    }
    locks = {cards.NAME[k]: turns[0.0].bridge_lock(k, beside) for k in hand}
    assert locks == {"B5": 0, "B6": 1, "B9": 2, "R12": 4}
    assert turns[0.0].bridge_lock(cards.parse_card("B9", goats=False), after) == 0  # no bridge to its left
    for name, lock in locks.items():
        card = cards.parse_card(name, goats=False)
        extra = turns[2.0].value_of_play(card, beside) - turns[0.0].value_of_play(card, beside)
        assert extra == pytest.approx(2.0 * lock)


def test_heuristic_reach_values_cards_by_the_empty_slots_they_may_fill() -> None:
    """With rows 1-3 full, a 4 may fill only row 4's empty slots (P1) while a 12 may fill every
    one, so a 4 is worth less and is given up first; with ``reach`` 0 both are worth the same."""
    mountain = [EMPTY] * board.N_POS
    colours = "GBR"
    for r in (1, 2, 3):
        for c in range(board.ROW_SLOTS[r]):
            mountain[board.ROW_START[r] + c] = cards.parse_card(f"{colours[c % 3]}{9 + (c % 2)}", goats=False)
    hand = [cards.parse_card(name, goats=False) for name in ("G4", "G12")]
    empty = sum(board.ROW_SLOTS[r] for r in range(4, board.ROWS + 1))
    for weight in (0.0, 0.3):
        turn = ValueModel(HeuristicBot(rollouts=0, reach=weight), [], mountain, hand, [20, 20, 20])
        share = board.ROW_SLOTS[4] / empty
        assert turn.reach_factor(hand[0]) == pytest.approx(1 - weight * (1 - share))
        assert turn.reach_factor(hand[1]) == 1.0
        worth = {cards.NAME[k]: w for w, k in turn.worths(hand, turn.slots)}
        if weight:
            assert worth["G4"] < worth["G12"]
            assert turn.give_up(hand, 1, turn.slots) == [hand[0]]
        else:
            assert worth["G4"] == worth["G12"] == 1.0  # both play free on row 4's first slot


def test_heuristic_weights_by_player_count() -> None:
    """Solo the value model has its own ``reach``, ``open_bonus`` and ``steep`` (``PLAYER_DEFAULTS``);
    a weight given to the constructor holds at every player count."""
    mountain = [EMPTY] * board.N_POS
    hand = [cards.parse_card(name, goats=False) for name in ("G4", "B5", "R6", "G7")]

    def turn(bot: HeuristicBot, holdings: list[int]) -> ValueModel:
        return ValueModel(bot, [], mountain, hand, holdings)

    for holdings, weights in (([30], (0.0, 0.0, 0.5)), ([20, 20], (0.3, 0.25, 1.0)), ([9] * 5, (0.3, 0.25, 1.0))):
        t = turn(HeuristicBot(rollouts=0), holdings)
        assert (t.reach, t.open_bonus, t.steep) == weights
        given = turn(HeuristicBot(rollouts=0, reach=0.1, open_bonus=0.5, steep=2.0), holdings)
        assert (given.reach, given.open_bonus, given.steep) == (0.1, 0.5, 2.0)
    # steep is what a fourth card paid costs beyond the worth of the cards given up
    flat, steep = (turn(HeuristicBot(rollouts=0, steep=w), [30]) for w in (0.0, 2.0))
    assert steep.after(hand, 4, steep.slots, 0) - flat.after(hand, 4, flat.slots, 0) == pytest.approx(2 * 2.0)


def _mountain(rows: dict[int, list[str]], goats: bool = False) -> list[int]:
    """A mountain with the given rows filled from their first slot (others empty)."""
    mountain = [EMPTY] * board.N_POS
    for r, names in rows.items():
        for c, name in enumerate(names):
            mountain[board.ROW_START[r] + c] = cards.parse_card(name, goats)
    return mountain


def test_heuristic_green_path_counts_the_green_cards_still_needed() -> None:
    """GP1: a chain from row 1 to row 8 whose slots each hold a green card or may get one; the
    value model charges a play that leaves more to fill and much more one that leaves none."""
    empty = _mountain({})
    assert green_need(empty) == board.ROWS
    # row 1 green at c1 and c3; row 2 starts B, G: the chain (1,3) -> (2,2) needs rows 3-8 only
    mountain = _mountain({1: ["G3", "R4", "G5", "B6"], 2: ["B2", "G7"]})
    assert green_need(mountain) == board.ROWS - 2
    # every slot of row 2 non-green: no chain left
    assert green_need(_mountain({1: ["G3"] * 9, 2: ["B2", "R3"] * 4})) == NO_GREEN_PATH
    hand = [cards.parse_card(name, goats=False) for name in ("G9", "B9", "R9")]
    bot = HeuristicBot(rollouts=0)
    turn = ValueModel(bot, [], mountain, hand, [20, 20, 20], green_path=True)
    row3 = board.ROW_START[3]  # (3, 1) and (3, 2) both rest on the green (2, 2)
    green, blue = (turn.green_cost(cards.parse_card(n, goats=False), row3) for n in ("G9", "B9"))
    assert green == -bot.green and blue == 0.0  # another chain (2,2) -> (3,2) stays
    assert ValueModel(bot, [], mountain, hand, [20, 20, 20]).green_cost(hand[0], row3) == 0.0  # module off
    last = _mountain({1: ["G3"] * 9, 2: ["G3"] + ["B2"] * 7})  # only (2,1) green in row 2
    turn = ValueModel(bot, [], last, hand, [20, 20, 20], green_path=True)
    assert turn.green_cost(hand[1], board.ROW_START[3]) == bot.green_lost  # (3,1) is the only way up


def test_heuristic_panorama_objectives_reward_carrying_a_sequence() -> None:
    """PA2: a card that continues an unmet objective's sequence in its row gains ``panorama`` per
    step, ``panorama_done`` more when it completes it; a start counts 1.5 when the hand can go on."""
    seq = (12, 11, 10)
    mountain = _mountain({1: ["G12", "B11"]})
    ten, nine = (cards.parse_card(n, goats=False) for n in ("R10", "R9"))
    at = board.ROW_START[1] + 2
    assert objective_step(mountain, [ten], seq, ten, at) == 3.0
    assert objective_step(mountain, [nine], seq, nine, at) == 0.0
    assert objective_step(_mountain({}), [ten], seq, cards.parse_card("G12", goats=False), 0) == 1.0
    twelve, eleven = (cards.parse_card(n, goats=False) for n in ("G12", "B11"))
    assert objective_step(_mountain({}), [twelve, eleven], seq, twelve, 0) == 1.5
    assert objective_step(_mountain({}), [ten], (1, 2, 3), cards.parse_card("G1", goats=False), board.ROW_START[2]) == 0
    bot = HeuristicBot(rollouts=0)
    turn = ValueModel(bot, [], mountain, [ten, nine], [20, 20, 20], objectives=(seq,))
    assert turn.panorama_gain(ten, at) == 3 * bot.panorama + bot.panorama_done
    # 1-2-3 fits row 1 only (P1): filling its last slots with other numbers loses it
    assert objective_possible(_mountain({1: ["G5"] * 6}), (1, 2, 3), [4] * 13)
    assert not objective_possible(_mountain({1: ["G5"] * 7}), (1, 2, 3), [4] * 13)
    assert not objective_possible(_mountain({}), (1, 2, 3), [4, 4, 4, 0] + [4] * 9)  # no 3 left to come


def test_heuristic_mountain_goats_keeps_goat_cards_and_gathers_herds() -> None:
    """GO1: a goat card brings a goat from a hand only, so it is worth more than its plain twin
    and placed as high as it may go; a herd steps onto the card with the most goats."""
    bot = HeuristicBot(rollouts=0)
    goat, plain = cards.parse_card("G10*", goats=True), cards.parse_card("G10", goats=True)
    turn = ValueModel(bot, [], _mountain({}), [goat, plain], [20, 20, 20])
    worth = dict((k, w) for w, k in turn.worths([goat, plain], turn.slots))
    assert worth[goat] - worth[plain] == pytest.approx(bot.goat_keep)
    mountain = _mountain({1: ["B9"] * 9, 2: ["R9"] * 8, 3: ["B10"] * 6})  # G10 pays nothing there
    turn = ValueModel(bot, [], mountain, [goat, plain], [20, 20, 20])
    at3 = board.ROW_START[3] + 6  # the next slot of row 3
    gain = turn.value_of_play(plain, at3) - turn.value_of_play(goat, at3)
    assert gain == pytest.approx(bot.goat_high * 3)


def test_heuristic_searches_early_with_panorama_objectives() -> None:
    bot = HeuristicBot()
    assert not bot.searches(12, 3) and bot.searches(12, 3, panoramas=3) and not bot.searches(9, 3, panoramas=3)
    assert not HeuristicBot(rollouts=0).searches(40, 3, panoramas=3)
