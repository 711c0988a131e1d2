"""HeuristicBot and its value model: legal play, strength over random, what its search may see, its weights."""

from __future__ import annotations

import random

import pytest

from tranquility_env import Game
from tranquility_env.arena import bot_action, play_until
from tranquility_env.bots import HeuristicBot, RandomBot, ValueModel
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
