"""Colour symmetries: a relabelled deal played with relabelled moves is the relabelled game, and
the relabelled game's observation, mask and state are the real ones gathered by the index arrays."""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_properties import eager_choice

from tranquility_env import Config, Game, encoding
from tranquility_env.rules import actions, cards
from tranquility_env.symmetry import (
    IDENTITY,
    action_image,
    action_index,
    colour_symmetries,
    inverse,
    kind_map,
    observation_index,
    permute_game,
    rename_decisions,
    state_index,
)

from configs import configs


def test_the_symmetries_of_each_module() -> None:
    assert len(colour_symmetries(Config(players=3))) == 6
    assert len(colour_symmetries(Config(players=1))) == 6
    assert len(colour_symmetries(Config(players=3, panoramas=3))) == 6
    assert colour_symmetries(Config(players=3, green_path=True)) == ((0, 1, 2), (0, 2, 1))  # GP1: green stays
    assert colour_symmetries(Config(players=3, goats=True)) == (IDENTITY,)  # S3: goat copies fix every colour


def test_a_relabelling_maps_cards_and_undoes() -> None:
    sigma = (1, 2, 0)  # G -> B, B -> R, R -> G
    kinds = kind_map(sigma)
    assert cards.NAME[kinds[cards.parse_card("G7", False)]] == "B7"
    assert cards.NAME[kinds[cards.parse_card("R12", False)]] == "G12"
    assert cards.NAME[kinds[cards.CAMP[1]]] == "CAMP-R"
    assert kinds[cards.BRIDGE] == cards.BRIDGE and kinds[cards.SUMMIT] == cards.SUMMIT
    back = kind_map(inverse(sigma))
    assert (back[kinds] == np.arange(cards.N_KINDS)).all()
    index = action_index(sigma)
    assert sorted(index.tolist()) == list(range(actions.N_ACTIONS))
    assert (action_image(sigma)[index] == np.arange(actions.N_ACTIONS)).all()
    chosen = actions.from_string("discard G12 B7", False)  # in the relabelled game
    assert actions.to_string(int(index[chosen]), False) == "discard G7 R12"
    chosen = actions.from_string("camp CAMP-R r3c2", False)
    assert actions.to_string(int(index[chosen]), False) == "camp CAMP-B r3c2"


def test_a_relabelling_that_is_no_symmetry_is_refused() -> None:
    with pytest.raises(ValueError, match="not a colour symmetry"):
        permute_game(Game.new(Config(players=3, green_path=True), 1), (1, 0, 2))
    with pytest.raises(ValueError, match="not a colour symmetry"):
        permute_game(Game.new(Config(players=2, goats=True), 1), (0, 2, 1))
    with pytest.raises(ValueError, match="permutation of"):
        kind_map((0, 0, 1))


def _state(game: Game) -> dict:
    """The state with each discard pile as a sorted list: a discard puts its two cards in
    canonical order (K1), which a relabelling may swap."""
    d = game.to_dict()
    for seat in d["players"]:
        seat["discard"].sort()
    return d


def _pooled(game: Game) -> list[Counter[int]]:
    return [Counter(game.hands[s] + game.decks[s]) for s in range(game.config.players)]


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(config=configs(), seed=st.integers(0, 2**32), pick=st.integers(0, 5))
def test_a_relabelled_deal_played_with_relabelled_moves_is_the_relabelled_game(
    config: Config, seed: int, pick: int
) -> None:
    symmetries = colour_symmetries(config)
    sigma = symmetries[pick % len(symmetries)]
    game, rng = Game.new(config, seed), random.Random(seed)
    mirror = permute_game(game, sigma)
    image = action_image(sigma)
    obs_at, state_at, mask_at = observation_index(sigma), state_index(sigma), action_index(sigma)
    decisions = 0
    while not game.is_over:
        assert _state(mirror) == _state(permute_game(game, sigma))
        assert mirror.legal_actions() == sorted(image[game.legal_actions()].tolist())
        if decisions % 4 == 0:
            for seat in range(config.players):
                real, relabelled = encoding.observation(game, seat), encoding.observation(mirror, seat)
                assert (relabelled == real[obs_at]).all()
                assert (encoding.action_mask(mirror, seat) == encoding.action_mask(game, seat)[mask_at]).all()
            assert (encoding.state(mirror) == encoding.state(game)[state_at]).all()
        action = eager_choice(game, rng, 0.9)
        game.apply_action(action)
        mirror.apply_action(int(image[action]))
        if action == actions.FIRST[actions.ROPE]:  # K7 seeds the shuffle from the deck itself
            assert _pooled(mirror) == _pooled(permute_game(game, sigma))
            mirror = permute_game(game, sigma)
        decisions += 1
    assert mirror.status == game.status and mirror.turn == game.turn


@pytest.mark.parametrize("config", [Config(players=3), Config(players=2, green_path=True)], ids=["base", "green-path"])
def test_renamed_decisions_are_the_relabelled_games_decisions(config: Config) -> None:
    """Imitation's augmentation: each row, under the symmetry drawn for it, is the relabelled
    game's observation and legal ids, the move chosen keeping its place and its padding."""
    symmetries, rng = colour_symmetries(config), random.Random(5)
    game, rows = Game.new(config, 11), []
    while not game.is_over:
        seat, action = game.current_player, eager_choice(game, rng, 0.9)
        rows.append((game.clone(), seat, action))
        game.apply_action(action)
    which = np.arange(len(rows)) % len(symmetries)
    obs = np.stack([encoding.observation(g, s) for g, s, _ in rows])
    width = max(len(g.legal_actions()) for g, _, _ in rows) + 1
    legal = np.full((len(rows), width), -1)
    for i, (g, _, _) in enumerate(rows):
        legal[i, : len(g.legal_actions())] = g.legal_actions()
    seen, renamed = rename_decisions(config, obs, legal, which)
    for i, (g, s, a) in enumerate(rows):
        sigma = symmetries[which[i]]
        mirror, n = permute_game(g, sigma), len(g.legal_actions())
        assert (seen[i] == encoding.observation(mirror, s)).all()
        assert sorted(renamed[i, :n]) == mirror.legal_actions() and (renamed[i, n:] == -1).all()
        place = g.legal_actions().index(a)
        assert renamed[i, place] == action_image(sigma)[a]
