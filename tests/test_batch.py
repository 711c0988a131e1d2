"""The batched engine (``tranquility_env.batch``) against ``Game``: differential tests.

Random and mountain-building play over every config flag (over 100,000 decisions in all, counted),
the golden playthroughs (which reach the Summit) move by move, compiled deals against
``Game.new``, conversions both ways in every pending kind, the vector view byte for byte, and
refusals of bad input that leave every game as it was.
"""

from __future__ import annotations

import functools
import json
import random
import re
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("numba")

from tranquility_env import Config, Game, encoding
from tranquility_env.batch import GameBatch, max_threads
from tranquility_env.batch import layout as L
from tranquility_env.rules import actions, cards
from tranquility_env.rules.game import IllegalMove

from configs import random_config

GOLDEN = Path(__file__).parent / "golden"
GAMES = 48  # per config
CHUNKS = 4
CONFIGS_PER_CHUNK = 8


def choose(game: Game, rng: random.Random, eagerness: float) -> int:
    """Mostly moves that build the mountain (the Summit whenever it may go), sometimes any."""
    legal = game.legal_actions()
    if actions.FIRST[actions.PLAY_SUMMIT] in legal:
        return actions.FIRST[actions.PLAY_SUMMIT]
    builders = [a for a in legal if actions.DECODE[a][0] != actions.DISCARD]
    return rng.choice(builders if builders and rng.random() < eagerness else legal)


def assert_same(batch: GameBatch, games: list[Game], rng: random.Random, sample: float) -> None:
    """Legal ids always; the whole state and the vector view on a sample of the games."""
    obs, masks, states = batch.observations(), batch.action_masks(), batch.states()
    for i, game in enumerate(games):
        assert batch.legal_actions(i).tolist() == game.legal_actions(), (game.config, i)
        if rng.random() < sample:
            assert batch.game(i).to_dict() == game.to_dict()
            encoding.clear_cache()
            assert obs[i].tobytes() == encoding.observation(game, game.current).tobytes()
            assert masks[i].tobytes() == encoding.action_mask(game, game.current).tobytes()
            assert states[i].tobytes() == encoding.state(game).tobytes()


def play_both(config: Config, seeds: list[int], rng: random.Random, seen: Counter, sample: float = 0.02) -> int:
    """Play the same games in ``Game`` and in a batch; return the decisions made."""
    batch = GameBatch(config, len(seeds))
    batch.reset_many(np.arange(len(seeds)), seeds)
    games = [Game.new(config, s) for s in seeds]
    eagerness = [rng.choice([0.0, 0.7, 0.95]) for _ in seeds]
    decisions = 0
    assert_same(batch, games, rng, 1.0)
    while any(not g.is_over for g in games):
        where = np.array([not g.is_over for g in games])
        ids = np.array([choose(g, rng, e) if not g.is_over else 0 for g, e in zip(games, eagerness, strict=True)])
        for g, a, w in zip(games, ids, where, strict=True):
            if w:
                seen[("pending", g.pending)] += 1
                seen[("move", actions.DECODE[a][0])] += 1
        batch.step(ids, where)
        for g, a, w in zip(games, ids, where, strict=True):
            if w:
                g.apply_action(int(a))
                decisions += 1
        assert_same(batch, games, rng, sample)
    seen.update(("status", g.status) for g in games)
    return decisions


@functools.cache
def chunk_compared(chunk: int) -> Counter:
    """Play chunk ``chunk`` of the random configs in both engines (once per run, whichever test
    asks first): the decisions made and what kinds of decision they were."""
    rng, seen = random.Random(chunk), Counter()
    for _ in range(CONFIGS_PER_CHUNK):
        config = random_config(rng)
        seen["decisions"] += play_both(config, [rng.randrange(2**40) for _ in range(GAMES)], rng, seen)
    return seen


@functools.cache
def end_games_compared() -> Counter:
    """Positions of the last 60 decisions of a won game, loaded from JSON and played on by both
    engines: the Summit is reached (E1, K5) from many of them."""
    data = json.loads((GOLDEN / "p3_heuristic_win.json").read_text())
    game, positions = Game.from_dict(data["start"]), []
    for move in data["moves"]:
        positions.append(game.to_dict())
        game.apply(move)
    games = [Game.from_dict(state) for state in positions[-60:]]
    batch = GameBatch(games[0].config, len(games))
    for i, g in enumerate(games):
        batch.load(i, g)
    rng, seen = random.Random(1), Counter()
    while any(not g.is_over for g in games):
        where = np.array([not g.is_over for g in games])
        ids = np.array([choose(g, rng, 0.95) if not g.is_over else 0 for g in games])
        for g, a, w in zip(games, ids, where, strict=True):
            if w:
                seen[("pending", g.pending)] += 1
                seen[("move", actions.DECODE[a][0])] += 1
                g.apply_action(int(a))
        batch.step(ids, where)
        assert_same(batch, games, rng, 0.2)
    seen.update(("status", g.status) for g in games)
    return seen


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_batch_plays_as_game_over_random_configs(chunk: int) -> None:
    assert chunk_compared(chunk)["decisions"] > 0


def test_end_games_from_a_won_game() -> None:
    assert end_games_compared()[("status", "won")] > 0


def test_every_decision_kind_was_compared() -> None:
    """Together the chunks and the end games compared over 100,000 decisions, every pending kind,
    every kind of move and both ends of a game (run alone, this plays them all)."""
    seen = sum((chunk_compared(c) for c in range(CHUNKS)), end_games_compared())
    assert seen["decisions"] >= 100_000
    for pending in range(4):
        assert seen[("pending", pending)] > 0, pending
    for kind in range(11):
        assert seen[("move", kind)] > 0, actions.DECODE[actions.FIRST[kind]]
    assert seen[("status", "won")] > 0 and seen[("status", "lost")] > 0


@pytest.mark.parametrize("path", [*sorted(GOLDEN.glob("p*.json")), GOLDEN / "solo.json"], ids=lambda p: p.stem)
def test_golden_playthroughs_in_a_batch(path: Path) -> None:
    """Each golden game, loaded from its JSON start and played move by move, ends as recorded."""
    data = json.loads(path.read_text())
    game = Game.from_dict(data["start"])
    batch = GameBatch(game.config, 1)
    batch.load(0, game)
    rng = random.Random(0)
    for move in data["moves"]:
        batch.step([actions.from_string(move, game.config.goats)])
        game.apply(move)
        assert_same(batch, [game], rng, 1.0)
    assert batch.game(0).to_dict() == data["final"]


def test_bot_games_in_a_batch() -> None:
    """The recorded games of every shipped and hand-written bot (``golden/bots.json``)."""
    records = json.loads((GOLDEN / "bots.json").read_text())
    for key, record in records.items():
        _, table, seed = key.split("/")
        config = Config(players=int(table[1:]))
        game, batch = Game.new(config, int(seed)), GameBatch(config, 1)
        batch.reset(0, int(seed))
        for move in record["moves"]:
            batch.step([actions.from_string(move, False)])
            game.apply(move)
            assert batch.legal_actions(0).tolist() == game.legal_actions()
        assert batch.game(0).to_dict() == game.to_dict() and game.status == record["status"]


@pytest.mark.parametrize("players", [1, 2, 3, 4, 5])
def test_compiled_deal_is_game_new(players: int) -> None:
    config = Config(players=players, panoramas=3, goats=players % 2 == 0)
    batch = GameBatch(config, 8)
    assert batch.deals_compiled
    seeds = [0, 1, -7, 2**32, 2**40 + 5, 2**63 - 1, 2**64 + 3, -(2**70)]  # the last two: Python's deal
    batch.reset_many(np.arange(8), seeds)
    for i, seed in enumerate(seeds):
        assert batch.game(i).to_dict() == Game.new(config, seed).to_dict()
        assert batch.legal_actions(i).tolist() == Game.new(config, seed).legal_actions()


def pending_games() -> list[Game]:
    """Games stopped in each pending kind (pay, move, herd), found by eager random play."""
    rng, found = random.Random(5), {}
    config = Config(players=2, goats=True, campfires_per_colour=3, panoramas=2)
    seed = 0
    while len(found) < 3:
        game = Game.new(config, seed)
        while not game.is_over and len(found) < 3:
            game.apply_action(choose(game, rng, 0.95))
            if game.pending and game.pending not in found:
                found[game.pending] = game.clone()
        seed += 1
    return [found[k] for k in sorted(found)]


def test_load_and_export_in_every_pending_kind() -> None:
    games = pending_games()
    batch = GameBatch(games[0].config, len(games))
    for i, game in enumerate(games):
        batch.load(i, Game.from_dict(json.loads(json.dumps(game.to_dict()))))
        assert batch.game(i).to_dict() == game.to_dict()
    assert_same(batch, games, random.Random(0), 1.0)
    seats = np.array([(g.current + 1) % g.config.players for g in games])  # another seat's observation
    for i, game in enumerate(games):
        assert batch.observations(seats)[i].tobytes() == encoding.observation(game, int(seats[i])).tobytes()


def test_observations_of_some_games_only() -> None:
    """``observations(where=...)`` writes the rows of those games, byte-equal to the encoder's,
    and leaves the others as ``out`` held them (zeros in a new array)."""
    batch = GameBatch({"players": 3}, 5)
    batch.reset_many(range(5), range(5))
    where = np.array([True, False, True, False, True])
    fresh = batch.observations(where=where)
    held = np.full((5, encoding.OBSERVATION_SIZE), 7.0, dtype=np.float32)
    batch.observations(out=held, where=where)
    for i in range(5):
        game = batch.game(i)
        wanted = encoding.observation(game, game.current).tobytes()
        assert fresh[i].tobytes() == (wanted if where[i] else bytes(fresh[i].nbytes))
        assert held[i].tobytes() == (wanted if where[i] else np.full_like(held[i], 7.0).tobytes())
    with pytest.raises(ValueError, match="where must be a bool array of shape"):
        batch.observations(where=np.ones(4, dtype=bool))


def test_bad_actions_are_refused_and_change_nothing() -> None:
    batch = GameBatch({"players": 3}, 4)
    batch.reset_many(range(4), range(4))
    before = batch.rows.copy()
    legal = [int(batch.legal_actions(i)[0]) for i in range(4)]
    illegal = actions.from_string("play G12 r8c1", False)
    cases = {
        "shape (4,)": legal[:3],
        "integer ids": np.array(legal, dtype=np.float32),
        "slot 2: action 4000 is not an action id": [legal[0], legal[1], 4000, legal[3]],
        "slot 1: illegal move 'play G12 r8c1'": [legal[0], illegal, legal[2], legal[3]],
    }
    for words, ids in cases.items():
        with pytest.raises(IllegalMove, match=re.escape(words)):
            batch.step(ids)
        assert np.array_equal(batch.rows, before), words
    with pytest.raises(IllegalMove, match=r": T1: G12 is not in the hand"):  # the rule it breaks
        batch.step([legal[0], illegal, legal[2], legal[3]])
    with pytest.raises(ValueError, match="where must be a bool array"):
        batch.step(legal, where=[1, 1, 1, 1])


def test_a_finished_game_must_be_reset() -> None:
    data = json.loads((GOLDEN / "p3.json").read_text())
    batch = GameBatch(Config.from_dict(data["config"]), 2)
    batch.load(0, Game.from_dict(data["final"]))
    batch.reset(1, 0)
    with pytest.raises(IllegalMove, match="slot 0: its game is over"):
        batch.step([0, int(batch.legal_actions(1)[0])])
    batch.step([0, int(batch.legal_actions(1)[0])], where=np.array([False, True]))  # a finished slot left alone


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"num_games": 0}, "num_games must be a positive integer"),
        ({"num_games": 2.0}, "num_games must be a positive integer"),
        ({"num_games": 2, "threads": 0}, "threads must be an integer from 1"),
        ({"num_games": 2, "threads": max_threads() + 1}, "threads must be an integer from 1"),
    ],
)
def test_bad_batches_are_refused(kwargs: dict, words: str) -> None:
    with pytest.raises(ValueError, match=words):
        GameBatch({"players": 3}, **kwargs)


def test_bad_slots_games_and_seeds_are_refused() -> None:
    batch = GameBatch({"players": 3}, 2)
    with pytest.raises(ValueError, match="slot 2 is not in the batch"):
        batch.reset(2, 0)
    with pytest.raises(ValueError, match="seed must be an integer"):
        batch.reset(0, "7")
    with pytest.raises(ValueError, match="config"):
        batch.load(0, Game.new({"players": 2}, 0))
    with pytest.raises(ValueError, match="out must be"):
        batch.observations(out=np.zeros((2, 5), dtype=np.float32))


def test_layout_fits_every_game() -> None:
    """The row's fixed sizes hold the largest game: all its cards in one pile, every bridge and
    rope removed."""
    config = Config(players=1, bridges=10, campfires_per_colour=3, ropes=6, goats=True)
    deck = cards.game_deck(1, config.bridges, config.campfires_per_colour, config.ropes, config.goats)
    assert sum(deck.values()) <= L.MAX_PILE
    assert deck[cards.BRIDGE] + deck[cards.ROPE] <= L.MAX_REMOVED


def test_the_batched_engine_refuses_to_import_without_every_config_field() -> None:
    """A field added to ``Config`` but not to ``layout.CONFIG_FIELDS`` stops the batched engine at
    import, instead of being ignored by its compiled rules."""
    import subprocess
    import sys

    code = (
        "from tranquility_env.rules.config import Config\n"
        "fields = Config.fields()\n"
        "Config.fields = classmethod(lambda cls: (*fields, 'new_field'))\n"
        "import tranquility_env.batch.layout\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode != 0 and "CONFIG_FIELDS" in done.stderr and "new_field" in done.stderr
