"""The PettingZoo AEC environment: PettingZoo's own API, seed and render tests, partial
observability, masks, rewards, options and errors."""

from __future__ import annotations

import pickle
import random
import re

import numpy as np
import pytest

pytest.importorskip("gymnasium")
pettingzoo = pytest.importorskip("pettingzoo")
pytest.importorskip("rich")
pytest.importorskip("PIL")

from pettingzoo.test import api_test, render_test, seed_test

from tranquility_env import Game, encoding, env, raw_env
from tranquility_env.envs import aec as aec_module
from tranquility_env.rules import actions, board, cards
from tranquility_env.rules import mountain as mountain_rules
from tranquility_env.views import sample_game, seat_view

from positions import row, state

CONFIGS = [{"players": p} for p in range(1, 6)] + [
    {"players": 3, "green_path": True, "panoramas": 3, "goats": True},
    {"players": 1, "green_path": True, "panoramas": 5, "goats": True},
]
IDS = [f"p{c['players']}" + ("_modules" if len(c) > 1 else "") for c in CONFIGS]


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_pettingzoo_api_test(config: dict) -> None:
    api_test(env(**config), num_cycles=200)


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_pettingzoo_seed_test(config: dict) -> None:
    seed_test(lambda: env(**config), num_cycles=100)


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_pettingzoo_render_test(config: dict) -> None:
    render_test(lambda render_mode=None: env(render_mode=render_mode, **config))


def test_registered_with_pettingzoo_make() -> None:
    e = pettingzoo.make("aec", "tranquility/ascent-v1", players=4, goats=True)
    e.reset(seed=3)
    assert e.possible_agents == ["player_0", "player_1", "player_2", "player_3"]
    assert e.unwrapped.config.goats


def test_reset_with_a_seed_deals_game_new_and_state_option_loads_a_position() -> None:
    e = raw_env(players=3)
    e.reset(seed=11)
    assert e.game.to_dict() == Game.new({"players": 3}, 11).to_dict()
    d = state(config={"players": 3}, mountain=row(1, "G5"), hands=[["B6", "R3"], ["B2", "B3"], ["R5"]], current=1)
    e.reset(options={"state": d})
    assert e.agent_selection == "player_1" and e.game.to_dict() == Game.from_dict(d).to_dict()
    with pytest.raises(ValueError, match="differs from the env"):
        e.reset(options={"state": state(config={"players": 2}, hands=[["B6", "R3"], []])})


def test_mask_is_exactly_the_legal_moves_and_zero_for_other_seats() -> None:
    e = raw_env(players=3, goats=True)
    e.reset(seed=5)
    rng = np.random.default_rng(0)
    for _ in range(60):
        if e.terminations[e.agent_selection]:
            break
        seat = e.game.current
        for agent in e.agents:
            mask = e.observe(agent)["action_mask"]
            if agent == e.agent_selection:
                assert sorted(np.flatnonzero(mask)) == e.game.legal_actions()
                assert sorted(e.unwrapped.action_to_move(a) for a in np.flatnonzero(mask)) == e.game.legal_moves()
            else:
                assert not mask.any()
        e.step(int(rng.choice(np.flatnonzero(e.observe(e.possible_agents[seat])["action_mask"]))))


def test_observation_hides_other_hands_discards_and_every_deck() -> None:
    base = {"config": {"players": 3}, "mountain": row(1, "G5", "B7")}
    a = Game.from_dict(state(**base, hands=[["R6", "G8"], ["G2", "G3"], ["B2"]], decks=[["R9"], ["B4"], []]))
    b = Game.from_dict(state(**base, hands=[["R6", "G8"], ["B3", "B4"], ["R2"]], decks=[["G2"], ["G3"], []]))
    # The rest of the cards lie on seat 2's discard pile, so that pile differs too.
    assert a.to_dict() != b.to_dict()
    assert encoding.observation(a, 0).tobytes() == encoding.observation(b, 0).tobytes()
    assert encoding.state(a).tobytes() != encoding.state(b).tobytes()


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_sampled_game_agrees_with_everything_the_seat_sees(config: dict) -> None:
    rng = random.Random(0)
    game = Game.new(config, 11)
    while not game.is_over:
        seat = game.current
        view, seen = seat_view(game, seat), encoding.observation(game, seat).tobytes()
        worlds = [sample_game(view, random.Random(i)) for i in range(3)]  # from_dict checks every count
        for world in worlds:
            assert seat_view(world, seat) == view and encoding.observation(world, seat).tobytes() == seen
        hidden = {repr((w.decks, [h for s, h in enumerate(w.hands) if s != seat])) for w in worlds}
        unseen = sum(map(len, game.decks)) + sum(len(h) for s, h in enumerate(game.hands) if s != seat)
        assert len(hidden) > 1 or unseen < 5  # the unseen cards are dealt anew
        game.apply_action(rng.choice(game.legal_actions()))


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_derived_blocks_agree_with_the_rules_and_the_hidden_cards(config: dict) -> None:
    """'hand fit' against the engine's legal plays and penalties (P1-P4), 'open rows' against the
    open slots, 'unseen' against the cards the seat cannot see, at every decision of a game."""
    at = encoding.offsets(encoding.OBSERVATION_LAYOUT)
    rng = random.Random(1)
    game = Game.new(config, 5)
    while not game.is_over:
        seat, hand = game.current, game.hands[game.current]
        obs = encoding.observation(game, seat)
        fit = obs[at["hand fit"] : at["hand best fit"]].reshape(cards.N_ASCENT, board.ROWS)
        assert np.array_equal(obs[at["hand best fit"] : at["unseen"]], fit.max(axis=1))
        open_slot = dict(game.open_slots())
        legal = {actions.DECODE[a][1:] for a in game.legal_actions() if actions.DECODE[a][0] == actions.PLAY}
        for k, r in zip(*np.nonzero(fit), strict=True):
            p = open_slot[r + 1]
            penalty = mountain_rules.play_penalty(game.mountain, k, p)
            assert k in hand and fit[k, r] == pytest.approx(1 - penalty / 13)
            assert (k, p) in legal or penalty > len(hand) - 1 or game.pending  # only P4 or a sub-decision stops it
        for k, p in legal:
            assert game.mountain[p] != mountain_rules.EMPTY or fit[k, board.POS_ROW[p] - 1] > 0
        rows = obs[at["open rows"] :].reshape(board.ROWS, encoding.ROW_FEATURES)
        for r in range(1, board.ROWS + 1):
            p = open_slot.get(r)
            expected = np.zeros(encoding.ROW_FEATURES)
            if p is not None:
                left = game.mountain[p - 1] if board.POS_COL[p] > 1 else mountain_rules.EMPTY
                colour = cards.COLOUR[left] if left != mountain_rules.EMPTY else -1
                expected[[0, 1 + mountain_rules.left_reference(game.mountain, p), 15 + colour]] = 1
            assert np.array_equal(rows[r - 1], expected)
        hidden = [k for s in range(game.config.players) if s != seat for k in game.hands[s] + game.discards[s]]
        hidden += [k for deck in game.decks for k in deck]
        assert np.array_equal(obs[at["unseen"] : at["mountain"]], np.bincount(hidden, minlength=cards.N_KINDS))
        game.apply_action(rng.choice(game.legal_actions()))


def test_observation_is_seat_relative() -> None:
    g = Game.new({"players": 3}, 2)
    mine = encoding.observation(g, 0)
    seats = encoding.offsets(encoding.OBSERVATION_LAYOUT)["seats"]
    assert mine[seats : seats + 2].tolist() == [1, 1]  # seat block 0 is the viewer, to act
    theirs = encoding.observation(g, 1)
    assert theirs[seats : seats + 2].tolist() == [1, 0] and theirs[seats + 10 : seats + 12].tolist() == [1, 1]


def test_observation_within_space_and_docstring_table_matches_layout() -> None:
    e = raw_env(players=5, goats=True, panoramas=5, green_path=True)
    e.reset(seed=1)
    assert e.observation_space("player_0").contains(e.observe("player_0"))
    assert e.state_space.contains(e.state())
    doc = aec_module.__doc__
    at = 0
    for name, size, _, _ in encoding.OBSERVATION_LAYOUT:
        assert re.search(rf"\|\s*{at} - {at + size - 1}\s*\|\s*{name}\s*\|", doc), name
        at += size
    assert f"({encoding.OBSERVATION_SIZE},) float32" in doc and f"({encoding.STATE_SIZE},) float32" in doc
    assert f"Discrete({actions.N_ACTIONS})" in doc


def test_team_reward_on_a_win_and_shaping() -> None:
    from positions import full_mountain

    d = state(config={"players": 2}, mountain=full_mountain(), hands=[["SUMMIT", "SUMMIT"], ["SUMMIT"]])
    e = raw_env(players=2)
    e.reset(options={"state": d})
    e.step(e.unwrapped.move_to_action("play SUMMIT r9c1"))
    assert e.rewards == {"player_0": 1.0, "player_1": 1.0} and all(e.terminations.values())
    e = raw_env(players=2, reward_shaping=0.5)
    e.reset(options={"state": state(config={"players": 2}, hands=[["G5", "B6"], ["B2", "B3"]])})
    e.step(e.move_to_action("play G5 r1c1"))
    assert e.rewards["player_1"] == pytest.approx(0.5 / 44)


def test_illegal_action_raises_by_default_and_can_lose_instead() -> None:
    e = raw_env(players=2)
    e.reset(seed=0)
    before = e.game.to_dict()
    with pytest.raises(ValueError, match="illegal move 'play G1 r8c1'"):
        e.step(e.move_to_action("play G1 r8c1"))
    assert e.game.to_dict() == before
    e = raw_env(players=2, illegal_action="lose", illegal_reward=-2)
    e.reset(seed=0)
    e.step(e.move_to_action("play G1 r8c1"))
    assert all(e.terminations.values()) and e.rewards["player_1"] == -2
    assert "illegal move" in e.infos["player_0"]["illegal_move"]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"player": 3}, "unknown env option 'player'"),
        ({"players": 7}, "'players'"),
        ({"render_mode": "video"}, "render_mode"),
        ({"illegal_action": "ignore"}, "illegal_action"),
        ({"reward_shaping": -1}, "reward_shaping"),
        ({"reward_shaping": float("nan")}, "reward_shaping"),
    ],
)
def test_wrong_options_fail_at_construction(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        raw_env(**kwargs)


def test_pickles() -> None:
    e = env(players=4, goats=True, reward_shaping=0.1)
    clone = pickle.loads(pickle.dumps(e))
    clone.reset(seed=2)
    assert clone.unwrapped.config == e.unwrapped.config and clone.unwrapped.options == e.unwrapped.options


def test_ansi_render_shows_only_the_hand_of_the_seat_to_act() -> None:
    e = raw_env(players=3, render_mode="ansi", goats=True, panoramas=2)
    e.reset(seed=8)
    text = re.sub(r"\x1b\[[0-9;]*m", "", e.render())  # the text without its colours
    hands = e.game.to_dict()["players"]
    assert " ".join(hands[0]["hand"]) in text
    assert "hand 5 cards" in text and " ".join(hands[1]["hand"]) not in text
    assert "r9" in text and "panorama objectives" in text and "goats on row 8" in text
    image = raw_env(players=3, render_mode="rgb_array")
    image.reset(seed=8)
    frame = image.render()
    assert frame.dtype == np.uint8 and frame.ndim == 3 and frame.shape[2] == 3


def test_cached_mountain_block_is_never_stale() -> None:
    """encoding keeps the last mountain block; interleaved games and every module must still get
    exactly what a fresh build gives."""
    import random

    games = [Game.new({"players": p, "goats": True, "panoramas": 2, "green_path": True}, p) for p in (2, 3)]
    rng = random.Random(0)
    for _ in range(400):
        live = [g for g in games if not g.is_over]
        if not live:
            break
        g = rng.choice(live)
        builders = [a for a in g.legal_actions() if actions.DECODE[a][0] != actions.DISCARD]
        g.apply_action(rng.choice(builders if builders and rng.random() < 0.9 else g.legal_actions()))
        for game in games:
            for seat in range(game.config.players):
                cached = encoding.observation(game, seat)
                encoding.clear_cache()
                assert cached.tobytes() == encoding.observation(game, seat).tobytes()
