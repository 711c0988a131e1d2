"""The compiled value model (``batch/value_model.py``) against ``ValueModel``, and the search that
plays its rollouts with it: the same moves, the same rollout games, the same scores."""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest

pytest.importorskip("numba")

from test_batch import choose, random_config

from tranquility_env import Config, Game
from tranquility_env.arena import bot_action
from tranquility_env.batch import GameBatch
from tranquility_env.batch import value_model as compiled
from tranquility_env.bots import HeuristicBot, ValueModel
from tranquility_env.bots import search as search_module
from tranquility_env.rules import actions
from tranquility_env.rules.status import NO_PENDING
from tranquility_env.views import sample_game, seat_view

MODULES = [
    Config(players=1, ropes=4, bridges=2),
    Config(players=3, goats=True, goats_needed=2, campfires_per_colour=3),
    Config(players=2, green_path=True, panoramas=3, campfire_move_pays=False),
    Config(players=3, green_path=True, campfires_per_colour=2),
    Config(players=3, panoramas=3),
    Config(players=3, goats=True),
    Config(players=5),
]


def some_bot(rng: random.Random) -> HeuristicBot:
    """Default weights, or others drawn at random (``no_fit`` a multiple of 1/4, as ``exact`` needs)."""
    if rng.random() < 0.5:
        return HeuristicBot(rollouts=0, seed=1)
    return HeuristicBot(
        rollouts=0,
        seed=1,
        lookahead=rng.uniform(0, 0.5),
        progress=rng.uniform(0.5, 3),
        draw_cost=rng.uniform(0, 1),
        no_fit=rng.randint(8, 24) / 4,
        hand_decay=rng.uniform(0.3, 0.9),
        scarcity=rng.uniform(0, 3),
        reach=rng.uniform(0, 0.6),
        open_bonus=rng.uniform(0, 0.5),
        steep=rng.uniform(0, 2),
        bridge_lock=rng.choice([0.0, 0.3, 1.0]),
        spare_margin=rng.randint(0, 4),
        summit_from=rng.randint(20, 40),
        late_game=rng.randint(25, 40),
        green=rng.uniform(0, 12),
        green_lost=rng.uniform(0, 60),
        green_keep=rng.uniform(0, 3),
        panorama=rng.uniform(0, 4),
        panorama_done=rng.uniform(0, 8),
        panorama_lost=rng.uniform(0, 6),
        goat_keep=rng.uniform(0, 3),
        goat_high=rng.uniform(0, 1),
        goat_herd=rng.uniform(0, 4),
        goat_reserve=rng.randint(0, 4),
    )


def compare_decisions(config: Config, seeds: list[int], bot: HeuristicBot, rng: random.Random, seen: Counter) -> int:
    """Play ``seeds`` in ``Game`` and a batch (the value model's move or, sometimes, another), and
    compare the compiled choice with ``ValueModel``'s at every decision; the decisions compared."""
    games = [Game.new(config, s) for s in seeds]
    batch = GameBatch(config, len(games), threads=1)
    compared = 0
    while any(not g.is_over for g in games):
        for i, game in enumerate(games):
            batch.load(i, game)
        got = compiled.choices(batch, bot)
        for i, game in enumerate(games):
            if game.is_over:
                assert got[i] == -1
                continue
            legal = game.legal_actions()
            if len(legal) > 1:
                want = ValueModel.from_game(game, legal, bot).ranked()[0]
                assert got[i] == want, (config, seeds[i], game.turn, actions.to_string(want, config.goats))
                compared += 1
                seen[("pending", game.pending)] += 1
                seen[("move", actions.DECODE[want][0])] += 1
            game.apply_action(int(got[i]) if rng.random() < 0.8 else choose(game, rng, 0.9))
    return compared


def test_compiled_value_model_chooses_as_value_model() -> None:
    rng, seen, compared = random.Random(3), Counter(), 0
    for config in [*MODULES, *(random_config(rng) for _ in range(6))]:
        compared += compare_decisions(config, [rng.randrange(2**40) for _ in range(10)], some_bot(rng), rng, seen)
    assert compared > 7000
    moves = {k for kind, k in seen if kind == "move"}
    assert {actions.PLAY, actions.CAMP, actions.MOVE, actions.DISCARD, actions.PAY, actions.ROPE} <= moves, seen
    assert {actions.HERD, actions.STEP} & moves and len({k for kind, k in seen if kind == "pending"}) == 4, seen


def test_play_out_ends_every_game_as_the_python_value_model() -> None:
    rng = random.Random(7)
    for config in MODULES:
        bot = HeuristicBot(rollouts=0, seed=2)
        games = []
        for seed in range(8):
            game = Game.new(config, seed)
            for _ in range(rng.randrange(60)):
                if not game.is_over:
                    game.apply_action(choose(game, rng, 0.9))
            games.append(game)
        batch = GameBatch(config, len(games), threads=1)
        for i, game in enumerate(games):
            batch.load(i, game)
        compiled.play_out(batch, bot)
        for i, game in enumerate(games):
            bot.finish(game)
            assert batch.game(i).to_dict() == game.to_dict()


def searched_positions(config: Config, count: int) -> list[Game]:
    """Positions where a HeuristicBot team searches, from the first deals on."""
    found, seed = [], 0
    while len(found) < count:
        game = Game.new(config, seed)
        team = [HeuristicBot(rollouts=0, seed=seed) for _ in range(config.players)]
        searcher = HeuristicBot(seed=seed, rollouts=8)
        while not game.is_over and len(found) < count:
            view = seat_view(game, game.current)
            legal = game.legal_actions()
            filled = ValueModel.from_view(view, legal, searcher).filled
            if len(legal) > 1 and searcher.searches(filled, config.players) and game.pending == NO_PENDING:
                found.append(game.clone())
                break
            game.apply_action(bot_action(game, team[game.current]))
        seed += 1
    return found


@pytest.mark.parametrize("config", MODULES[:3], ids=["solo-ropes", "p3-goats", "p2-modules"])
def test_search_scores_are_those_of_python_rollouts(config: Config, monkeypatch: pytest.MonkeyPatch) -> None:
    """On fixed positions, the search over compiled rollouts gives every candidate the same
    mean score as rollouts of ``sample_game`` deals played out by the Python value model, so
    it makes the same move."""
    batches: list[GameBatch] = []
    play_out = HeuristicBot.play_out

    def keep(bot: HeuristicBot, batch: GameBatch) -> None:
        batches.append(batch)
        play_out(bot, batch)

    monkeypatch.setattr(HeuristicBot, "play_out", keep)
    for game in searched_positions(config, 2):
        bot = HeuristicBot(seed=11, rollouts=6)
        view = seat_view(game, game.current)
        move = bot.act(None, np.isin(np.arange(actions.N_ACTIONS), game.legal_actions()), view)
        scores, batch = dict(bot.last_search), batches[-1]
        assert len(scores) > 1
        # the same deals from the same generator, each a whole Game, played out in Python
        rng = random.Random(f"{bot.seed}/{view['turn']}/{view['seat']}")
        worlds = [sample_game(view, rng) for _ in range(6)]
        for c, candidate in enumerate(scores):
            total = 0
            for j, world in enumerate(worlds):
                world = world.clone()
                world.apply_action(candidate)
                bot.finish(world)
                assert batch.game(c * 6 + j).to_dict() == world.to_dict()
                total += search_module.score(world)
            assert scores[candidate] == total / 6
        assert move == max(scores, key=scores.__getitem__)


def test_settings_that_the_compiled_sum_cannot_repeat_play_out_in_python(monkeypatch: pytest.MonkeyPatch) -> None:
    assert compiled.exact(HeuristicBot()) and compiled.exact(HeuristicBot(no_fit=4.25))
    bot = HeuristicBot(rollouts=0, no_fit=4.1)
    assert not compiled.exact(bot)
    monkeypatch.setattr(compiled, "play_out", lambda *_: pytest.fail("compiled play-out with inexact settings"))
    game = Game.new({"players": 3}, 4)
    batch = GameBatch(game.config, 1, threads=1)
    batch.load(0, game)
    bot.play_out(batch)
    bot.finish(game)
    assert batch.game(0).to_dict() == game.to_dict()
